#include "polyfocus.h"
/* Copies through a chain of arrays, each loop skipping one index: b gets a's elements
   except at z, c gets b's elements except at z. A load of c[x] reads b[x] inside c's copy
   segments, and b[x] reads a[x] inside b's. The checking loop's path tests x != z (a
   disequality, which acceleration splits on) and crosses the selects of four segments;
   the states it reads the disequality from drop each value after its last use, so the
   split costs what the path's own image costs and the refinement finishes in its budget. */

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
    if (x != z)
      polyfocus_assert(a[x] == c[x]);            // holds, proved in focus-poly
  return 0;
}
