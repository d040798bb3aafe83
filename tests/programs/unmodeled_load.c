#include "polyfocus.h"
int table[8];
int main(void) {
  int i = polyfocus_nondet_int();
  polyfocus_assume(i >= 0 && i < 8);
  table[i] = i;
  int x = table[polyfocus_nondet_int() & 7];
  polyfocus_assert(x <= 7);  // holds: every entry is at most 7, but memory is not modeled
  return 0;
}
