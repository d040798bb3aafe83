/* Content segments (the shape of array-fpi/indp5): every element holds a
   polynomial of its index, found by the memory pass from the stored values. The first loop
   stores (k + 1)^2; the second stores a[i] - i * i, read as (k + 1)^2 - k^2 = 2k + 1 where
   the element it loads is in the first segment; the third leaves the constant 1, so the
   last loop's sum is linear. With a `long long` index the offset is `i << 3`, which is the
   index only while i fits in 61 bits: a condition the engines decide. Without content
   segments the assertion is unknown. Natively every nondet input is 1: n = 5. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
extern void *malloc(unsigned long);
int main(void) {
  int n = __VERIFIER_nondet_int() + 4;
  if (n <= 0 || n > 100000) return 0;
  long long *a = malloc(sizeof(long long) * (unsigned long)n);
  for (long long i = 0; i < n; i++) a[i] = (i + 1) * (i + 1);
  for (long long i = 0; i < n; i++) a[i] = a[i] - i * i;
  for (long long i = 0; i < n; i++) a[i] = a[i] - 2 * i;
  long long sum = 0;
  for (long long i = 0; i < n; i++) sum = sum + a[i];
  if (sum != n) reach_error(); // holds, proved
  return 0;
}
