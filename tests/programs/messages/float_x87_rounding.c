/* 0 when each operation is rounded to double (SSE), 1 in the x87's extended precision. */
#include <assert.h>

int main(void) {
  double big = 1e16, one = 1.0;
  double r = big + one - big;
  assert(r == 0.0);
  return 0;
}
