/* Properties of array elements (predicate segments): the condition of an
   assertion that reads one element (`b[i] >= i`) becomes a property of the elements, kept
   over a range that a loop extends; a read inside the range satisfies it. Without them
   every "holds" below is unknown. Natively every nondet input is 1: n = 4, k = 1. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int() + 3;
  if (n <= 0 || n > 1000) return 0;
  int b[1000];
  for (int i = 0; i < n; i++) b[i] = 2 * i + 1;
  for (int i = 0; i < n; i++)
    if (b[i] < i) reach_error(); // holds, proved
  /* Near miss: one element is overwritten below its index. */
  int k = __VERIFIER_nondet_int();
  if (k < 0 || k >= n) return 0;
  int c[1000];
  for (int i = 0; i < n; i++) c[i] = i;
  c[k] = k - 1;
  for (int i = 0; i < n; i++)
    if (c[i] < i) reach_error(); // fails, violated
  return 0;
}
