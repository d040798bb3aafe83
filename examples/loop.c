#include "polyfocus.h"

/* A counter loop and a circular buffer index: both bounded. */
int main(void) {
  int n = polyfocus_nondet_int();
  polyfocus_assume(n >= 0 && n <= 1000);
  int i = 0, sum = 0;
  while (i < n) {
    sum += 2;
    i++;
  }
  polyfocus_assert(i == n);
  polyfocus_assert(sum == 2 * i);

  int x = 0;
  while (1) {
    if (polyfocus_nondet_int()) break;
    if (x >= 99) x = 0; else x++;
    polyfocus_assert(x >= 0 && x <= 99);
  }
  return 0;
}
