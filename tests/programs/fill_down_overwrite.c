#include "polyfocus.h"
#include <stdlib.h>
/* An array filled from its end, each step also writing the element below it, which the
   next step overwrites: a[i - 1] = i - 2, then a[i] = i. Every element ends at least its
   index. The segment bounds of the fill loop, joined over the 64-bit ranges of their
   offsets, gave facets with coefficients near 2^63 that slowed the solver past its
   limit; joins drop such inequalities. */

int main(void) {
  int n = polyfocus_nondet_int();
  if (n <= 1 || n >= 100000)
    return 0;
  int *a = malloc(sizeof(int) * n);
  if (!a)
    return 0;
  for (int i = n - 1; i >= 0; i--) {
    if (i - 1 >= 0)
      a[i - 1] = i - 2;
    a[i] = i;
  }
  for (int i = 0; i < n; i++)
    polyfocus_assert(a[i] >= i);                 // holds, proved in focus-poly
  free(a);
  return 0;
}
