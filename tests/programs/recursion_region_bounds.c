#include "polyfocus.h"
/* Region bounds of a recursive function: `n >= 10 -> fib(n) >= 55` is certified
   once the bounds its samples near a threshold suggest (`fib(n) <= fib(29)` for `n >= 9`),
   which the function breaks further in its region, are left out before the rounds. */
int fib(int n) {
  if (n < 1)
    return 0;
  if (n == 1)
    return 1;
  return fib(n - 1) + fib(n - 2);
}

int main(void) {
  int x = polyfocus_nondet_int();
  if (x > 40)
    return 0;
  int r = fib(x);
  polyfocus_assert(x < 10 || r >= 55); // holds, proved in focus-poly
  polyfocus_assert(x < 10 || r >= 56); // fails
  return 0;
}
