// The usual idiom: a short-circuit `&&` in one assumption.
#include "polyfocus.h"
int main(void) {
  int n = polyfocus_nondet_int();
  polyfocus_assume(n >= 0 && n <= 500);
  int hits = 0;
  for (int i = 0; i < n; i++)
    hits++;
  polyfocus_assert(n <= 500); // holds, proved
  polyfocus_assert(hits == n); // holds, proved
  return 0;
}
