// The SV-COMP idiom: an assumption written as `if (!cond) exit/abort`, inlined, branches on
// the phi of `&&` to a block that ends the path.
#include "polyfocus.h"
#include <stdlib.h>
static void assume_abort_if_not(int cond) {
  if (!cond)
    exit(0);
}
int main(void) {
  int n = polyfocus_nondet_int();
  int m = polyfocus_nondet_int();
  assume_abort_if_not(n >= 0 && n <= 500);
  assume_abort_if_not(m < 0 || m > 10);
  int hits = 0;
  for (int i = 0; i < n; i++)
    hits++;
  polyfocus_assert(n <= 500); // holds, proved
  polyfocus_assert(m > 10); // fails
  return 0;
}
