#include "polyfocus.h"
int main(void) {
  int u;                          /* uninitialised: any value */
  if (polyfocus_nondet_int()) u = 3;
  polyfocus_assert(u == 3);       // fails
  return 0;
}
