#include "polyfocus.h"
/* The Gauss sum in unsigned arithmetic: 2*s == i*i + i holds over the integers, but the
   sums wrap modulo 2^32, so s >= i fails once s wraps (i near 92682). Polynomial
   equalities must not be taken over the integers for wrapping operations. */
int main(void) {
  unsigned int i = 0, s = 0;
  while (polyfocus_nondet_int()) {
    i = i + 1u;
    s = s + i;
  }
  polyfocus_assert(s >= i);                        // fails
  return 0;
}
