// A negated `&&` is a disjunction, and a `||` nested in an `&&` keeps both of its sides:
// neither may be split into conjuncts.
#include "polyfocus.h"
int main(void) {
  int n = polyfocus_nondet_int();
  int m = polyfocus_nondet_int();
  polyfocus_assume(!(n > 500 && m > 0));
  polyfocus_assume(n >= 0 && (m < 3 || n < 1000));
  int hits = 0;
  for (int i = 0; i < n; i++)
    hits++;
  polyfocus_assert(n <= 500); // fails
  polyfocus_assert(m < 3); // fails
  polyfocus_assert(n >= 0); // holds, proved
  return 0;
}
