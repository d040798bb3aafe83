#include "polyfocus.h"
/* Phase splitting (gj2007 and mono-crafted_6): loops whose body
   branches on a value the loop moves run in phases, and their invariant is disjunctive by
   phase. The hull of the phases is not inductive, and refinement's weakest preconditions
   do not name the phase boundary; the body's own guard, read at the loop head, does. */

/* y stays 50 while x < 50, then follows x: y == 100 at the exit. */
static void two_phases(void) {
  int x = 0, y = 50;
  while (x < 100) {
    if (x < 50) {
      x = x + 1;
    } else {
      x = x + 1;
      y = y + 1;
    }
  }
  polyfocus_assert(y == 100);                    // holds, proved in focus-poly
}

/* Three phases, the last with a stride of 2 that ends on the bound because y ties x's
   parity to its own. */
static void three_phases(void) {
  int x = 0, y = 500;
  while (x < 1000) {
    if (x < 500) {
      x++;
    } else {
      if (x < 750)
        x++;
      else
        x = x + 2;
      y++;
    }
  }
  polyfocus_assert(x == 1000);                   // holds, proved in focus-poly
}

/* Near miss: the second phase starts one step later, so y ends at 99. */
static void late_phase(void) {
  int x = 0, y = 50;
  while (x < 100) {
    if (x < 51) {
      x = x + 1;
    } else {
      x = x + 1;
      y = y + 1;
    }
  }
  polyfocus_assert(y == 100);                    // fails
}

int main(void) {
  two_phases();
  three_phases();
  late_phase();
  return 0;
}
