/* Near miss of memory_array_contents.c: the second loop subtracts (i - 1)^2
   instead of i^2, so the elements hold 4k after it and the sum is not n (n = 5 natively:
   the sum is 2n(n - 1) + n - n(n - 1) = 25). */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
extern void *malloc(unsigned long);
int main(void) {
  int n = __VERIFIER_nondet_int() + 4;
  if (n <= 0 || n > 100000) return 0;
  long long *a = malloc(sizeof(long long) * (unsigned long)n);
  for (long long i = 0; i < n; i++) a[i] = (i + 1) * (i + 1);
  for (long long i = 0; i < n; i++) a[i] = a[i] - (i - 1) * (i - 1);
  for (long long i = 0; i < n; i++) a[i] = a[i] - 2 * i;
  long long sum = 0;
  for (long long i = 0; i < n; i++) sum = sum + a[i];
  if (sum != n) reach_error(); // fails, violated
  return 0;
}
