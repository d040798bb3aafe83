#include "polyfocus.h"
int table[8], *cursor = table;
int main(void) {
  int i = polyfocus_nondet_int();
  polyfocus_assume(i >= 0 && i < 8);
  table[i] = i;
  int x = cursor[polyfocus_nondet_int() & 7];
  polyfocus_assert(x <= 7);  // holds (every entry is at most 7, but the pointer is read from memory, which the model does not describe)
  return 0;
}
