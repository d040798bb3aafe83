#include "polyfocus.h"
/* Phases chosen without branching: loops that fill an array from its end. The memory
   model's segment of filled elements is empty at the loop's entry and grows downwards
   from the first store, so the hull of "empty" and "filled from i + 1 to n" loses the
   filled range. Split on whether the segment is empty (the comparison the memory model
   chooses its bounds by), each phase keeps its own. */

/* Each element holds its index (a segment of the assertion's condition). */
static void from_the_end(int n) {
  int a[1000];
  if (n < 1 || n > 1000)
    return;
  for (int i = n - 1; i >= 0; i--)
    a[i] = i;
  for (int j = 0; j < n; j++)
    polyfocus_assert(a[j] >= j);                 // holds, proved in focus-poly
}

/* Every element holds the same constant (a constant segment). */
static void constant_from_the_end(int n) {
  int a[1000];
  if (n < 1 || n > 1000)
    return;
  for (int i = n - 1; i >= 0; i--)
    a[i] = 7;
  for (int j = 0; j < n; j++)
    polyfocus_assert(a[j] == 7);                 // holds, proved in focus-poly
}

int main(void) {
  from_the_end(polyfocus_nondet_int());
  constant_from_the_end(polyfocus_nondet_int());
  return 0;
}
