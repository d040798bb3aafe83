#include "polyfocus.h"
/* A loop head whose live values the linear invariant all defines (i == 0, k == 0: the
   first loop never runs) has no template variable. It must get no template at all: a
   template over no variable is the constant, `1 = 0` there says the head is unreachable,
   and since no path into it is followed, nothing took that out; every polynomial was then
   in the ideal of the paths leaving it, and the next loop head got `n = 0` for a counter
   that goes to 23 (csmith 43046, analysis/polyeq). With the exit n >= 23 and the linear
   bound n <= 23, that "proved" the failing assertion. */
int main(void) {
  unsigned int i;
  int k = 0;
  for (i = 0; i >= 11u; i++) {
    k = k + 1;
  }
  int n = 0;
  while (n < 23) {
    n = n + 1;
  }
  polyfocus_assert(n != 23);                        // fails
  return k;
}
