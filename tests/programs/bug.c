#include "polyfocus.h"
int main(void) {
  int x = polyfocus_nondet_int();
  if (x > 10)
    polyfocus_assert(x > 20);     // fails
  return 0;
}
