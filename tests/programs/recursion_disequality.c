#include "polyfocus.h"
/* A calling context that needs a disequality: Euclid's subtraction calls
   `gcd(a, b - a)` only after `a == b` and `a > b` failed, so `b - a >= 1` there, and the
   context `a >= 1, b >= 1` is inductive; under it the summary `r >= 1` holds. The
   classic engine keeps the disequality of the edge before (`a != b` then `a <= b` is
   `a < b`). `gcd(a, b) == 1` fails for a = b = 2. */
int gcd(int a, int b) {
  if (a <= 0 || b <= 0)
    return 0;
  if (a == b)
    return a;
  if (a > b)
    return gcd(a - b, b);
  return gcd(a, b - a);
}

int main(void) {
  int a = polyfocus_nondet_int();
  int b = polyfocus_nondet_int();
  if (a <= 0 || b <= 0)
    return 0;
  int g = gcd(a, b);
  polyfocus_assert(g >= 1);                        // holds, proved in classic-poly focus-poly
  polyfocus_assert(g == 1);                        // fails
  return 0;
}
