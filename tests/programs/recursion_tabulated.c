#include "polyfocus.h"
/* Tabulated contracts of recursive functions: the towers of Hanoi need
   `n == k -> r == 2^k - 1` for every k of the calling context [1, 12] (each value evaluated,
   then certified). The doubling wraps natively (`pow2(32) == 0`, checked by the test), so
   its tabulated values must be the wrapped ones and `pow2(n) > 0` must not be proved. */
int hanoi(int n) {
  if (n == 1)
    return 1;
  return 2 * hanoi(n - 1) + 1;
}

unsigned pow2(unsigned n) {
  if (n == 0)
    return 1;
  return 2u * pow2(n - 1);
}

int main(void) {
  int h = polyfocus_nondet_int();
  if (h < 1 || h > 12)
    return 0;
  int r = hanoi(h);
  polyfocus_assert(r <= 4095);                     // holds, proved
  polyfocus_assert(h != 5 || r == 31);             // holds, proved in focus-interval focus-poly
  unsigned n = (unsigned)polyfocus_nondet_int();
  if (n > 40u)
    return 0;
  polyfocus_assert(pow2(n) > 0u);                  // fails
  return 0;
}
