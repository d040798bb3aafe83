#include "polyfocus.h"
/* Near miss of phases_counted.c: every element after the filled part is still zero, so
   the count reaches n - m - 1. */

static int a[1000];

int main(void) {
  int n = polyfocus_nondet_int(), m = polyfocus_nondet_int();
  if (n < 1 || n > 1000 || m < 0 || m >= n)
    return 0;
  for (int i = 0; i <= m; i++)
    a[i] = i + 1;
  int zeros = 0;
  for (int i = 0; i < n; i++) {
    if (a[i] == 0)
      zeros++;
    polyfocus_assert(zeros < n - m - 1);         // fails
  }
  return 0;
}
