#include "polyfocus.h"
/* Polynomial equalities that hold only on the paths whose guards say so
   (analysis/polyeq/path.rs): a halving that is exact because the branch tested the
   remainder, a reset guarded by an equality, Bezout coefficients whose final assertion needs
   the exit guard a == b, and a product whose last factor is zero because the exit guard and
   the loop's bounds imply y == 0. */
int main(void) {
  int a = polyfocus_nondet_int();
  int b = polyfocus_nondet_int();
  polyfocus_assume(a >= -1000 && a <= 1000 && b >= 0 && b <= 1000);
  int x = a, y = b, z = 0;
  while (y > 0) {
    if (y % 2 == 0) {
      x = 2 * x;
      y = y / 2;
    } else {
      z = z + x;
      y = y - 1;
    }
  }
  polyfocus_assert(z == a * b);                     // holds, proved in classic-poly focus-poly

  int n = polyfocus_nondet_int();
  int d = polyfocus_nondet_int();
  polyfocus_assume(n >= 0 && n <= 1000 && d >= 1 && d <= 50);
  int q = 0, r = 0, m = n;
  while (m > 0) {
    if (r + 1 == d) {
      q = q + 1;
      r = 0;
    } else {
      r = r + 1;
    }
    m = m - 1;
  }
  polyfocus_assert(q * d + r == n);                 // holds, proved in classic-poly focus-poly

  int u = polyfocus_nondet_int();
  int v = polyfocus_nondet_int();
  polyfocus_assume(u >= 1 && u <= 1000 && v >= 1 && v <= 1000);
  int g = u, h = v, p = 1, pr = 0, s = 0, sr = 1;
  while (g != h) {
    if (g > h) {
      g = g - h;
      p = p - s;
      pr = pr - sr;
    } else {
      h = h - g;
      s = s - p;
      sr = sr - pr;
    }
  }
  polyfocus_assert(h == u * p + v * pr);            // holds, proved in classic-poly focus-poly
  return 0;
}
