#include "polyfocus.h"
/* Unsigned `|`: the result is at least each operand (issue 17). */
int main(void) {
  unsigned f = polyfocus_nondet_uint();
  f |= 4u;
  polyfocus_assert(f != 0);    // holds; proved by: all
  polyfocus_assert(f >= 4);    // holds; proved by: all
  unsigned g = polyfocus_nondet_uint();
  unsigned h = g | f;
  polyfocus_assert(h >= g);    // holds; proved by: classic-poly, focus-poly
  polyfocus_assert(h > 4);     // fails
  return 0;
}
