#include "polyfocus.h"
/* Bit-precise runs over floats (`frontend/float_paths.rs`): the IR leaves floats
   arbitrary, so these assertions rest on the front end's run of `main` over Z3's IEEE 754
   floats. 1e7f + 1 and 1e7f - 1 are floats exactly (below 2^24); 0.1 + 0.2 is not 0.3 in
   doubles; a double in a finite range is not NaN; a loop of constants is run, not
   abstracted; an int in [0, 1000] converts to a float in [0, 1000]. */
extern double polyfocus_nondet_double(void);

int main(void) {
  float x = 1e7f;
  float y = x + 1.f;
  float z = x - 1.f;
  polyfocus_assert(y - z == 2.f); // holds, proved
  double a = 0.1, b = 0.2;
  polyfocus_assert(a + b != 0.3); // holds, proved
  double d = polyfocus_nondet_double();
  if (d >= -1e307 && d <= 1e307) {
    polyfocus_assert(d == d); // holds, proved
  }
  double u = 1.0;
  for (int i = 0; i < 60; i++)
    u = u / 2.0 + 0.25;
  polyfocus_assert(u > 0.49 && u < 0.51); // holds, proved
  int i = polyfocus_nondet_int();
  if (i >= 0 && i <= 1000) {
    float h = i;
    polyfocus_assert(h >= 0.f && h <= 1000.f); // holds, proved
  }
  return 0;
}
