/* A buffer zeroed in a loop. The ranges of filled elements (memory/segments.rs) describe it,
   but the selects of the ranges are costly and path focusing does not reach its fixpoint
   within the budget: the reason names the budget or the timeout, or, when the classic engine
   finishes after path focusing's budget, the read of `buf[k]` it cannot describe. */
#include "polyfocus.h"

int main(void) {
  int buf[64];
  volatile int sink = 0;
  for (int i = 0; i < 64; i++) buf[i] = 0;
  int k = polyfocus_nondet_int();
  polyfocus_assume(k >= 0 && k < 64);
  sink = buf[k];
  polyfocus_assert(buf[k] == 0);     // holds, unknown because budget|timeout|unsupported
  return sink;
}
