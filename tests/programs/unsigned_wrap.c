#include "polyfocus.h"
int main(void) {
  unsigned int x = polyfocus_nondet_uint();
  unsigned int y = x + 1u;
  polyfocus_assert(y > x);       // fails
  unsigned char c = 255;
  c = c + 1;
  polyfocus_assert(c == 0);      // holds, proved
  return 0;
}
