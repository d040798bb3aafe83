#include "polyfocus.h"
int main(void) {
  int x = polyfocus_nondet_int();
  if (x < 0) return 0;
  int y = x + 1;                 /* signed overflow is undefined: y > x */
  polyfocus_assert(y > 0);       // holds, proved
  return 0;
}
