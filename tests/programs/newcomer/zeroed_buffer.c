/* A buffer zeroed in a loop. The ranges of filled elements (memory/segments.rs) describe it,
   but path focusing does not reach its fixpoint with the ranges' selects within the budget
   (issue 15: the selects' cost), so the reason must name the budget or the timeout. */
#include "polyfocus.h"

int main(void) {
  int buf[64];
  volatile int sink = 0;
  for (int i = 0; i < 64; i++) buf[i] = 0;
  int k = polyfocus_nondet_int();
  polyfocus_assume(k >= 0 && k < 64);
  sink = buf[k];
  polyfocus_assert(buf[k] == 0);     // unknown because: budget|timeout
  return sink;
}
