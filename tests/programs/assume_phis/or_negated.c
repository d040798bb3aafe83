// A negated `||`: `!(a || b)` assumes `!a` and `!b`.
#include "polyfocus.h"
int main(void) {
  int n = polyfocus_nondet_int();
  polyfocus_assume(!(n < 0 || n > 500));
  int hits = 0;
  for (int i = 0; i < n; i++)
    hits++;
  polyfocus_assert(n <= 500); // holds, proved
  polyfocus_assert(hits >= 0); // holds, proved
  return 0;
}
