/* Subscripts reduced by a remainder whose divisor is a variable: `i % n` with `n >= 1` lies
   in `[0, n - 1]` when `i >= 0` (C's truncating remainder), but in `[-(n - 1), n - 1]` when
   `i` may be negative. */
#include <stdlib.h>

extern int __VERIFIER_nondet_int(void);

int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n < 1 || n > 1000)
    return 0;
  int *a = malloc(n * sizeof(int));
  if (!a)
    return 0;
  for (int i = 0; i < 3 * n; i++)
    a[i % n] = i; /* non-negative dividend */
  int k = __VERIFIER_nondet_int();
  int s = a[k % n]; /* dividend of either sign */
  free(a);
  return s;
}
