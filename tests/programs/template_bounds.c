/* Bounds of linear templates coupled with a parity (analysis::template_bounds):
   `0 <= 2n - i <= 1` is inductive over the integers only because `2n - i` and `i` have the
   same parity; the polyhedra widen it away, the congruence lattices see no affine relation,
   and the solver, reading `i % 2` exactly, keeps it. Shapes of loop-new/half and hola
   34/38 (the first two loops; the third, pagai's trip_count, the engine already proves
   here); the near misses next to them must stay unproved. */
#include "polyfocus.h"

int main(void) {
  int k = polyfocus_nondet_int();
  polyfocus_assume(k >= 0 && k <= 1000);
  int n = 0;
  for (int i = 0; i < 2 * k; i++)
    if (i % 2 == 0)
      n++;
  polyfocus_assert(n == k);      // holds, proved in focus-poly

  int m = polyfocus_nondet_int();
  polyfocus_assume(m >= 0 && m <= 1000);
  int x = 0, y = 0, j = 0;
  while (j < m) {
    j++;
    x++;
    if (j % 2 == 0)
      y++;
  }
  if (j % 2 == 0)
    polyfocus_assert(x == 2 * y);  // holds, proved in focus-poly
  polyfocus_assert(x == 2 * y);    // fails

  int a = 0, b = 0;
  for (int t = 0; t < 100; t++) {
    a++;
    if (t % 4 == 0)
      b++;
    polyfocus_assert(4 * b <= a + 3);  // holds, proved in focus-poly
    polyfocus_assert(4 * b <= a + 2);  // fails
  }
  return 0;
}
