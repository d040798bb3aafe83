// Nested mixes: `&&` over a negated `||`, and `||` over a negated `&&`.
#include "polyfocus.h"
int main(void) {
  int n = polyfocus_nondet_int();
  int m = polyfocus_nondet_int();
  polyfocus_assume(n >= 0 && !(n > 500 || m < 3));
  polyfocus_assume(!(m > 90 && 1) || n > 1000);
  int hits = 0;
  for (int i = 0; i < n; i++)
    hits += 2;
  polyfocus_assert(n <= 500); // holds, proved
  polyfocus_assert(m >= 3); // holds, proved
  polyfocus_assert(m <= 90); // holds, proved
  polyfocus_assert(hits <= 1000); // holds, proved
  return 0;
}
