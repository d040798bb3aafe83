#include "polyfocus.h"
/* Part-wise paths (ikos/prover 13): a branch on a value the loop does not change
   makes each side a phase of its own. Refinement splits the head on flag's sign, but the
   disequality `flag != 0` of each path must then be decided in each part of the state
   (where flag is 0, or not): on the hull of the parts it says nothing, and the path that
   adds 4 to j runs in the part where flag == 0 too, losing j == 2*k + 2. */
int main(int flag, char **argv) {
  int j = 2, k = 0;
  while (polyfocus_nondet_int()) {
    if (flag) {
      j = j + 4;
    } else {
      j = j + 2;
      k = k + 1;
    }
  }
  if (k != 0)
    polyfocus_assert(j == 2 * k + 2);            // holds, proved in focus-poly
  if (k == 0)
    polyfocus_assert(j == 2);                    // fails
  return 0;
}
