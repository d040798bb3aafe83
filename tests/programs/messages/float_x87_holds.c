/* 1e16 + 1 rounds to 1e16 in double precision, not in the x87's extended precision: the
   sum is 0 or 1 either way. */
#include <assert.h>

int main(void) {
  double big = 1e16, one = 1.0;
  double r = big + one - big;
  assert(r == 0.0 || r == 1.0);
  return 0;
}
