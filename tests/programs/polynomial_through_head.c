#include "polyfocus.h"
/* Assertions after a loop `while (c < k) c++` whose bound may be negative
   (analysis/polyeq/unreachable.rs; ps4-ll, cohencu-ll): the loop head holds y == c, but its
   convex invariant loses `c == 0 || c <= k`, so the exit c >= k alone does not give
   y * (k - y) == 0. Through the loop head from each cut point entering it, it does: from
   the entry y == 0; from the body, c < k before the step and c + 1 >= k after it give
   c + 1 == k. */
int main(void) {
  short k = (short)polyfocus_nondet_int();
  long long y = 0, c = 0;
  while (c < k) {
    c = c + 1;
    y = y + 1;
  }
  polyfocus_assert(k * y - y * y == 0);             // holds, proved in classic-poly focus-poly

  short a = (short)polyfocus_nondet_int();
  long long n = 0, u = 0, v = 1, z = 6;
  while (n <= a) {
    n = n + 1;
    u = u + v;
    v = v + z;
    z = z + 6;
  }
  polyfocus_assert(6 * a * u - u * z + 12 * u == 0); // holds, proved in classic-poly focus-poly
  return 0;
}
