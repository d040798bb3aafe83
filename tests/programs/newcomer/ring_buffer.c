/* A ring buffer of indices: the usual head/tail arithmetic modulo the capacity. */
#include "polyfocus.h"
#define CAP 16u

int main(void) {
  unsigned head = 0, tail = 0, count = 0;
  int steps = polyfocus_nondet_int();
  polyfocus_assume(steps >= 0 && steps <= 1000);
  for (int s = 0; s < steps; s++) {
    if (polyfocus_nondet_int() && count < CAP) {      /* push */
      tail = (tail + 1) % CAP;
      count++;
    } else if (count > 0) {                             /* pop */
      head = (head + 1) % CAP;
      count--;
    }
    polyfocus_assert(count <= CAP);   // holds, proved
    polyfocus_assert(tail < CAP);     // holds, proved
  }
  polyfocus_assert(head < CAP);       // holds, proved
  return 0;
}
