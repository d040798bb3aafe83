#include "polyfocus.h"
/* A wrong polynomial claim: after one iteration s == 1 and i == 1, so 2*s == i*i - i fails. */
int main(void) {
  int n = polyfocus_nondet_int();
  polyfocus_assume(n >= 0 && n <= 100);
  int i = 0, s = 0;
  while (i < n) {
    i = i + 1;
    s = s + i;
  }
  polyfocus_assert(2 * s == i * i - i);            // fails
  return 0;
}
