#include "polyfocus.h"
/* No main: every external function is an entry with arbitrary arguments. */
int abs_value(int x) {
  if (x == -2147483647 - 1) return 0;
  int r = x < 0 ? -x : x;
  polyfocus_assert(r >= 0);       // holds, proved
  return r;
}
int twice(int x) {
  polyfocus_assert(x * 2 != 7);   // holds, proved in focus-poly focus-interval
  return x * 2;
}
