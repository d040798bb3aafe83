/* One assertion of each verdict: `polyfocus check docs/verdicts.c` (see README.md). */
#include "polyfocus.h"

int main(void) {
  int n = polyfocus_nondet_int();
  polyfocus_assume(n >= 0 && n <= 1000);
  int s = 0;
  for (int i = 0; i < n; i++)
    s += 2;
  polyfocus_assert(s == 2 * n);  /* proved */
  unsigned h = (unsigned)n * 2654435761u;
  polyfocus_assert(h * h != 2u); /* holds (no square is 2 modulo 2^32), but unknown */
  polyfocus_assert(s < 1000);    /* violated for n >= 500 */
  return 0;
}
