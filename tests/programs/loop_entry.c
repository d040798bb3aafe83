#include "polyfocus.h"
/* Loop-entry predicates (code2inv 110 to 122): after the loop, sn == n when it
   was entered (n >= 1) and sn == 0 when it was not; the hull of both loses the relation,
   the split on the exit guard at entry (1 <= n) keeps it. */
int main(void) {
  int n = polyfocus_nondet_int();
  int i = 1, sn = 0;
  while (i <= n) {
    i = i + 1;
    sn = sn + 1;
  }
  if (sn != n)
    polyfocus_assert(sn == 0);                   // holds, proved in focus-poly
  return 0;
}
