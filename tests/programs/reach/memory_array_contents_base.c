/* Near miss of memory_array_contents.c: the first element is stored apart with
   a wrong value (2, where (0 + 1)^2 = 1), so it is outside the first content segment and
   holds 2 at the end: the sum is n + 1. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
extern void *malloc(unsigned long);
int main(void) {
  int n = __VERIFIER_nondet_int() + 4;
  if (n <= 0 || n > 100000) return 0;
  long long *a = malloc(sizeof(long long) * (unsigned long)n);
  a[0] = 2;
  for (long long i = 1; i < n; i++) a[i] = (i + 1) * (i + 1);
  for (long long i = 0; i < n; i++) a[i] = a[i] - i * i;
  for (long long i = 0; i < n; i++) a[i] = a[i] - 2 * i;
  long long sum = 0;
  for (long long i = 0; i < n; i++) sum = sum + a[i];
  if (sum != n) reach_error(); // fails, violated
  return 0;
}
