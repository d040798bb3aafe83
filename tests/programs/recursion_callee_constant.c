#include "polyfocus.h"
/* A recursive callee stays a call, and its contract cannot tell which input
   makes it return -1: the only one is 5001, one above a constant that the callee alone
   compares with. The counterexample search's native runs try the constants of the
   callees that stay calls (each +-1), not only the entry's; bounded model checking's
   models choose the call's result freely and do not replay. */
int rank(int n) {
  if (n > 5000)
    return n == 5001 ? -1 : n % 7;
  if (n < 20)
    return 1;
  if (n < 40)
    return 2;
  if (n < 60)
    return 3;
  if (n < 80)
    return 4;
  return rank(n + 6000);
}

int main(void) {
  int x = polyfocus_nondet_int();
  if (x < 0 || x > 9000)
    return 0;
  int r = rank(x);
  polyfocus_assert(r >= -1); // holds, proved
  polyfocus_assert(r >= 0);  // fails
  return 0;
}
