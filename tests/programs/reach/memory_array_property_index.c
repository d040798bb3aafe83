/* Properties of array elements over the program's own index (predicate
   segments): where an access's offset is `ext(j) << k`, the property is instantiated over
   `j` itself, and a definition of the block with the same expression (`i * i` computed by
   the program) is reused, so the store of `a[i] = i * i` is known to satisfy `a[i] == i * i`
   without relating two products in a linear domain. A `long long` index narrowed to `int`
   for the address (what a 32-bit target does with every `long long` subscript) is read
   through its root where the root fits. Without this every "holds" below is unknown.
   Natively every nondet input is 1: n = 4, m = 2. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
extern void *malloc(unsigned long);
int main(void) {
  int n = __VERIFIER_nondet_int() + 3;
  if (n <= 0 || n > 1000) return 0;
  int *a = malloc(sizeof(int) * (unsigned long)n);
  for (int i = 0; i < n; i++) a[i] = i * i;
  for (int i = 0; i < n; i++)
    if (a[i] != i * i) reach_error(); // holds, proved
  long long *b = malloc(sizeof(long long) * (unsigned long)n);
  for (long long k = 0; k < n; k++) b[(int)k] = k * k + 1;
  for (long long k = 0; k < n; k++)
    if (b[(int)k] != k * k + 1) reach_error(); // holds, proved
  /* Near miss: one element is overwritten with another value. */
  int m = __VERIFIER_nondet_int() + 1;
  if (m < 0 || m >= n) return 0;
  int *c = malloc(sizeof(int) * (unsigned long)n);
  for (int i = 0; i < n; i++) c[i] = i * i;
  c[m] = m * m + 1;
  for (int i = 0; i < n; i++)
    if (c[i] != i * i) reach_error(); // fails, violated
  return 0;
}
