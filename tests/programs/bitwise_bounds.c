#include "polyfocus.h"
/* Bounds of `|` and `&` with a constant in the signed reading and for masks with the sign
   bit: `x & -8` lies within 7 below `x`, `x | 4` of a non-negative `x` is at
   least 4, and `x | INT_MIN` is negative; `x ^ 31` of an `x` in [0, 31] is `31 - x`. The loops make the engines join the values, where
   only the bounds of the domain are left (the solver's exact formula sees one path). */
int main(void) {
  int n = polyfocus_nondet_int();
  polyfocus_assume(n >= 0 && n <= 1000);
  int aligned = 0, f = 4, g = 0;
  for (int i = 0; i < n; i++) {
    aligned = (i + 7) & -8;
    f = (f + 1) | 4;
    g = polyfocus_nondet_int() | (int)0x80000000u;
  }
  polyfocus_assert(aligned <= n + 6);            // holds, proved in classic-poly focus-poly
  polyfocus_assert(aligned <= n + 5);            // fails
  polyfocus_assert(f >= 4);                      // holds, proved
  polyfocus_assert(g <= 0);                      // holds, proved
  int h = 31;
  for (int i = 0; i < n; i++)
    h = (i & 31) ^ 31;
  polyfocus_assert(h >= 0 && h <= 31);           // holds, proved
  polyfocus_assert(h <= 30);                     // fails
  return 0;
}
