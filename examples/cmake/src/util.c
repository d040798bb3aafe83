#include <assert.h>
#include "util.h"

int clamp(int x, int lo, int hi) {
  int r = x;
  if (r < lo)
    r = lo;
  if (r > hi)
    r = hi;
  return r;
}

/* Counts n down to zero; returns the number of steps. */
int count_down(int n) {
  int steps = 0;
  if (n < 0)
    n = 0;
  if (n > 1000)
    n = 1000;
  while (n > 0) {
    n--;
    steps++;
  }
  assert(n == 0);
  return steps;
}
