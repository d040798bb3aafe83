/* Content segments from recurrences (the shape of array-fpi/ifeqn1): a[0] = 2 and
   a[i] = a[i - 1] + 2 fit 2k + 2 through their first values, and the store checks it as an
   identity (2(k - 1) + 2 + 2 = 2k + 2) given that the element it loads is in the segment;
   then b[i] = b[i - 1] + a[i - 1] fits k^2 + k + 1. The assertion compares the element with
   the program's own i * i + i + 1, which the load's content is assumed equal to. Natively
   every nondet input is 1: n = 5. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
extern void *malloc(unsigned long);
int main(void) {
  int n = __VERIFIER_nondet_int() + 4;
  if (n <= 0 || n > 100000) return 0;
  long long *a = malloc(sizeof(long long) * (unsigned long)n);
  long long *b = malloc(sizeof(long long) * (unsigned long)n);
  for (long long i = 0; i < n; i++) {
    if (i == 0) a[0] = 2;
    else a[i] = a[i - 1] + 2;
  }
  for (long long i = 0; i < n; i++) {
    if (i == 0) b[0] = 1;
    else b[i] = b[i - 1] + a[i - 1];
  }
  for (long long i = 0; i < n; i++)
    if (b[i] != i * i + i + 1) reach_error(); // holds, proved
  return 0;
}
