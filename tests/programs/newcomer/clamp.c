/* clamp(x, lo, hi) stays within [lo, hi]; a wrong clamp lets hi + 1 through. */
#include "polyfocus.h"

static int clamp(int x, int lo, int hi) {
  if (x < lo) return lo;
  if (x > hi) return hi;
  return x;
}

static int clamp_off_by_one(int x, int lo, int hi) {
  if (x < lo) return lo;
  if (x > hi + 1) return hi;
  return x;
}

int main(void) {
  int lo = polyfocus_nondet_int(), hi = polyfocus_nondet_int(), x = polyfocus_nondet_int();
  polyfocus_assume(lo <= hi);
  polyfocus_assume(hi < 1000000);
  int r = clamp(x, lo, hi);
  polyfocus_assert(lo <= r && r <= hi);   // holds, proved
  int s = clamp_off_by_one(x, lo, hi);
  polyfocus_assert(s <= hi);              // fails, violated
  return 0;
}
