#include "polyfocus.h"
/* A recursive function over 64-bit integers called with `int`s: `add` moves
   one from `n` to `m` until `n == 0`, so `add(m, n) == m + n`. The summary `r == m + n` in
   wrapping 64-bit arithmetic is certified only with bounds (`m + n` and `r` within twice
   the range of `int`, contexts and summaries found from the ranges of narrow types).
   `add(a, b) != 0` fails for a = b = 0. */
long long add(long long m, long long n) {
  if (n == 0)
    return m;
  if (n > 0)
    return add(m + 1, n - 1);
  return add(m - 1, n + 1);
}

int main(void) {
  int a = polyfocus_nondet_int();
  int b = polyfocus_nondet_int();
  long long r = add(a, b);
  polyfocus_assert(r == (long long)a + b);         // holds, proved in classic-poly focus-poly
  polyfocus_assert(r != 0);                        // fails
  return 0;
}
