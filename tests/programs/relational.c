#include "polyfocus.h"
int main(void) {
  int n = polyfocus_nondet_int();
  polyfocus_assume(n >= 0 && n <= 1000);
  int i = 0, j = 0;
  while (i < n) { i++; j += 2; }
  polyfocus_assert(j == 2 * i);  // holds, proved in focus-poly classic-poly
  polyfocus_assert(i == n);      // holds, proved in focus-poly classic-poly
  return 0;
}
