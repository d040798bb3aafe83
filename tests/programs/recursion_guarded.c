#include "polyfocus.h"
/* Guarded contracts of recursive functions: McCarthy's 91 needs
   `x >= 101 -> r == x - 10` and `x <= 100 -> r == 91`, each certified in a copy of `f91`
   specialized to its guard. `f91(x) == 91` fails from x == 102 on. */
int f91(int x) {
  if (x > 100)
    return x - 10;
  return f91(f91(x + 11));
}

int main(void) {
  int x = polyfocus_nondet_int();
  int m = f91(x);
  polyfocus_assert(m == 91 || (x > 101 && m == x - 10)); // holds, proved in focus-poly
  polyfocus_assert(m == 91);                       // fails
  return 0;
}
