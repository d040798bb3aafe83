#include "polyfocus.h"
/* Near misses of polynomial_guards.c that must not be proved: a halving of an odd number
   (the branch does not decide the remainder), a remainder tested `!= 1` on a value that may
   be negative (-3 % 2 == -1, so -3 / 2 * 2 != -3), and Bezout coefficients of the wrong
   sequence. Each fails in a native run. */
int main(void) {
  int a = polyfocus_nondet_int();
  int b = polyfocus_nondet_int();
  polyfocus_assume(a >= -1000 && a <= 1000 && b >= 0 && b <= 1000);
  int x = a, y = b, z = 0;
  while (y > 0) {
    if (y % 2 == 0 || y > 5) {
      x = 2 * x;
      y = y / 2;
    } else {
      z = z + x;
      y = y - 1;
    }
  }
  polyfocus_assert(z == a * b);                     // fails

  int c = polyfocus_nondet_int();
  polyfocus_assume(c >= -100 && c <= 100);
  int w = c, k = 0, t = 0;
  while (k < 3) {
    if (w % 2 != 1) {
      t = w / 2;
    } else {
      t = (w - 1) / 2;
    }
    k = k + 1;
  }
  polyfocus_assert(2 * t == w || 2 * t + 1 == w);   // fails

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
  polyfocus_assert(h == u * p + v * sr);            // fails
  return 0;
}
