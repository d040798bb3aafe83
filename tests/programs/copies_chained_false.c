#include "polyfocus.h"
/* The chained copies of copies_chained.c, checked at every index: c[z] keeps the value
   it was filled with, which differs from a[z] on some input. */

int main(void) {
  int a[1000], b[1000], c[1000];
  int z = 700;
  for (int i = 0; i < 1000; i++) {
    a[i] = polyfocus_nondet_int();
    b[i] = polyfocus_nondet_int();
    c[i] = polyfocus_nondet_int();
  }
  for (int i = 0; i < 1000; i++)
    if (i != z)
      b[i] = a[i];
  for (int i = 0; i < 1000; i++)
    if (i != z)
      c[i] = b[i];
  for (int x = 0; x < 1000; x++)
    polyfocus_assert(a[x] == c[x]);              // fails
  return 0;
}
