#include "polyfocus.h"
#include <stdlib.h>
/* Near miss of fill_down_overwrite.c: every element ends equal to its index, not above. */

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
    polyfocus_assert(a[i] > i);                  // fails
  free(a);
  return 0;
}
