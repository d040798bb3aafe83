// An assumption that is a disjunction keeps the executions of both sides: the pass must
// not turn `a || b` into `a` and `b`.
#include "polyfocus.h"
int main(void) {
  int n = polyfocus_nondet_int();
  polyfocus_assume(n <= 500 || n == 700);
  int hits = 0;
  for (int i = 0; i < n; i++)
    hits++;
  polyfocus_assert(n <= 500); // fails, violated in default
  polyfocus_assert(n < 0 || hits == n); // holds (the classic engine does not prove it)
  return 0;
}
