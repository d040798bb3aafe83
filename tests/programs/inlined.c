#include "polyfocus.h"
static int clamp(int v, int lo, int hi) {
  if (v < lo) return lo;
  if (v > hi) return hi;
  return v;
}
static void check_range(int v) { polyfocus_assert(v >= -5 && v <= 5); }  // holds, proved
int main(void) {
  int v = clamp(polyfocus_nondet_int(), -5, 5);
  check_range(v);
  return 0;
}
