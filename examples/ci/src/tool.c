#include <assert.h>
#include "util.h"

int main(int argc, char **argv) {
  (void)argv;
  int level = clamp(argc * 3, 0, 9);
  int steps = count_down(level);
  assert(steps <= 9);
  /* Holds (an odd square is 1 modulo 8, an even one 0 or 4, never 2), but no linear
     invariant shows it: the analysis reports it unknown. */
  unsigned h = (unsigned)argc * 2654435761u;
  assert(h * h != 2u);
  return 0;
}
