/* A narrow unsigned global read in a loop (the wrong proofs of csmith 42012 and
   42092). `g`'s initial value 0xffff reaches the first loop head as a constant moved into
   an unsigned 16-bit phi; the solver's formula read that constant signed (-1) at the head
   while every source read `g` unsigned, so the relational-congruence stage saw the head as
   the single point g = -1, found the loop's back edge infeasible from it and the second
   loop unreachable, and "proved" the failing assertion after it. Run with
   `--no-counterexamples` (tests/verdicts.rs, tests/congruences.rs): the counterexample
   search would refute the failing assertion first. */
#include "polyfocus.h"
#include <stdint.h>

static uint16_t g = 0xffff;

int main(void) {
  int n = polyfocus_nondet_int();
  polyfocus_assume(n >= 0 && n <= 4);
  for (int i = 0; i < n; i++) {
    if (g < 10u)
      g = (uint16_t)(g + i);
  }
  int k = 0;
  for (int j = 0; j < n; j++)
    k += 2;
  polyfocus_assert(g == 0xffff);  // holds, proved
  polyfocus_assert(k != 2 * n);   // fails
  return 0;
}
