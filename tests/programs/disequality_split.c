#include "polyfocus.h"
/* Disequality splitting (code2inv 36 and 46): the self-loop `if (c != 40) c++`
   moves c by 1, so its iterations never pass 40; acceleration sweeps the side c <= 39 apart
   and keeps c <= 40, where one sweep under the hull of the guard ran past it. */
int main(void) {
  int c = 0;
  while (polyfocus_nondet_int()) {
    if (polyfocus_nondet_int()) {
      if (c != 40)
        c = c + 1;
    } else {
      if (c == 40)
        c = 1;
    }
  }
  polyfocus_assert(c <= 40);                     // holds, proved in focus-poly

  int n = polyfocus_nondet_int();
  polyfocus_assume(n > 0);
  int d = 0;
  while (polyfocus_nondet_int()) {
    if (d != n)
      d = d + 1;
  }
  polyfocus_assert(d <= n);                      // holds, proved in focus-poly
  polyfocus_assert(d >= 0);                      // holds, proved
  polyfocus_assert(d != n);                      // fails
  return 0;
}
