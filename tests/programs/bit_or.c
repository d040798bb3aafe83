#include "polyfocus.h"
/* Unsigned `|`: the result is at least each operand. */
int main(void) {
  unsigned f = polyfocus_nondet_uint();
  f |= 4u;
  polyfocus_assert(f != 0);    // holds, proved
  polyfocus_assert(f >= 4);    // holds, proved
  unsigned g = polyfocus_nondet_uint();
  unsigned h = g | f;
  polyfocus_assert(h >= g);    // holds, proved in classic-poly focus-poly
  polyfocus_assert(h > 4);     // fails
  return 0;
}
