#include "polyfocus.h"
/* Near misses of float_paths.c: with 1e8f the sum rounds (1e8 + 1 is not a float), a double
   may be NaN, and 0.1 + 0.2 == 0.3 in reals only. None may be proved. Each is on a branch
   of its own, so that no failing assertion ends the executions that reach the others. */
extern double polyfocus_nondet_double(void);

int main(void) {
  int k = polyfocus_nondet_int();
  if (k == 0) {
    float x = 1e8f;
    float y = x + 1.f;
    float z = x - 1.f;
    polyfocus_assert(y - z == 2.f); // fails
  } else if (k == 1) {
    double d = polyfocus_nondet_double();
    polyfocus_assert(d == d); // fails
  } else {
    double a = 0.1, b = 0.2;
    polyfocus_assert(a + b == 0.3); // fails
  }
  return 0;
}
