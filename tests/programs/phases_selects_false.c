#include "polyfocus.h"
/* Near miss of phases_selects.c: the loop that fills the array from its end stops before
   the first element, which keeps the value stored before it. */
int main(void) {
  int n = polyfocus_nondet_int();
  int a[1000];
  if (n < 2 || n > 1000)
    return 0;
  a[0] = -1;
  for (int i = n - 1; i >= 1; i--)
    a[i] = i;
  for (int j = 0; j < n; j++)
    polyfocus_assert(a[j] >= j);                 // fails
  return 0;
}
