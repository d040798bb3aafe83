#include "polyfocus.h"
int main(void) {
  int k = polyfocus_nondet_int();
  int r;
  switch (k) {
  case 1: r = 10; break;
  case 2: r = 20; break;
  default: r = 0;
  }
  polyfocus_assert(r >= 0 && r <= 20);  // holds, proved
  polyfocus_assert(r != 20 || k == 2);  // holds, proved in focus-poly focus-interval
  return 0;
}
