#include "polyfocus.h"
/* Polynomial equalities at loop heads: a Gauss sum, and Cohen's division whose
   inner loop keeps b == a*y and whose outer loop keeps x == q*y + r. */
int main(void) {
  int n = polyfocus_nondet_int();
  int i = 0, s = 0;
  while (i < n) {
    i = i + 1;
    s = s + i;
  }
  polyfocus_assert(2 * s == i * i + i);            // holds, proved

  int x = polyfocus_nondet_int();
  int y = polyfocus_nondet_int();
  polyfocus_assume(x >= 0 && x <= 1000 && y >= 1 && y <= 1000);
  int q = 0, r = x;
  while (r >= y) {
    int a = 1, b = y;
    while (r >= 2 * b) {
      polyfocus_assert(b == a * y);                // holds, proved
      a = 2 * a;
      b = 2 * b;
    }
    r = r - b;
    q = q + a;
  }
  polyfocus_assert(x == q * y + r);                // holds, proved
  return 0;
}
