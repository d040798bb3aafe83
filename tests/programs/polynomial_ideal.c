#include "polyfocus.h"
/* Polynomial equalities that need more than the span of the loop head's equalities
  . The geometric sum maps x*z - x - y + 1 to z*(x*z - x - y + 1): in the ideal
   of the equality, not in its span. The sum of fifth powers needs a degree-6 template over
   (k, y, s, c); the engine's y == c takes c out of it, which leaves room for degree 6. The
   unsigned geometric sum wraps (z = 3 after 21 rounds: y = 3^22 mod 2^32 is below x), and
   nothing may be proved from the integer identity y = x*(z-1) + 1. */
int main(void) {
  int z = polyfocus_nondet_int();
  int k = polyfocus_nondet_int();
  polyfocus_assume(z >= -4 && z <= 4 && k <= 12);
  int x = 1, y = z, c = 1;
  while (c < k) {
    c = c + 1;
    x = x * z + 1;
    y = y * z;
  }
  polyfocus_assert(x * z - x - y + 1 == 0);         // holds, proved in classic-poly focus-poly

  int n = polyfocus_nondet_int();
  polyfocus_assume(n <= 30);
  int i = 0, s = 0, j = 0;
  while (j < n) {
    j = j + 1;
    i = i + 1;
    s = s + i * i * i * i * i;
  }
  polyfocus_assert(12 * s == 2 * i * i * i * i * i * i + 6 * i * i * i * i * i + 5 * i * i * i * i - i * i); // holds, proved in classic-poly focus-poly

  unsigned int uz = (unsigned int)polyfocus_nondet_int();
  unsigned int ux = 1u, uy = uz;
  while (polyfocus_nondet_int()) {
    ux = ux * uz + 1u;
    uy = uy * uz;
  }
  polyfocus_assert(uz < 2u || uy > ux);             // fails
  return 0;
}
