#include "polyfocus.h"
/* Recursive functions stay calls: their results come from certified contracts.
   The sum and the towers of Hanoi have summaries (`r >= 0`, `r >= n`) that hold under the
   calling context main gives; the unsigned sum and the doubling wrap, so the naive
   summaries (`r >= n`, `r >= 1`) are false and must not be certified. */
int sum(int n) {
  if (n <= 0)
    return 0;
  return n + sum(n - 1);
}

int hanoi(int n) {
  if (n == 1)
    return 1;
  return 2 * hanoi(n - 1) + 1;
}

unsigned usum(unsigned n) {
  if (n == 0)
    return 0;
  return n + usum(n - 1);
}

unsigned dbl(unsigned n) {
  if (n == 0)
    return 1;
  return 2u * dbl(n - 1);
}

int main(void) {
  int n = polyfocus_nondet_int();
  if (n < 0 || n > 1000)
    return 0;
  int s = sum(n);
  polyfocus_assert(s >= 0);                        // holds, proved
  polyfocus_assert(s >= n);                        // holds, proved in classic-poly focus-poly
  int h = polyfocus_nondet_int();
  if (h < 1 || h > 31)
    return 0;
  polyfocus_assert(hanoi(h) >= h);                 // holds, proved in classic-poly focus-poly
  unsigned u = (unsigned)polyfocus_nondet_int();
  if (u > 100000u)
    return 0;
  polyfocus_assert(usum(u) >= u);                  // fails
  unsigned d = (unsigned)polyfocus_nondet_int();
  if (d > 40u)
    return 0;
  polyfocus_assert(dbl(d) > 0u);                   // fails
  return 0;
}
