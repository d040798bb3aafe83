#include "polyfocus.h"
/* As phases_selects.c, for two arrays written at each index and related by the
   assertion's condition (a pair segment), filled from their end. */
int main(void) {
  int n = polyfocus_nondet_int();
  int a[1000], b[1000];
  if (n < 1 || n > 1000)
    return 0;
  for (int i = n - 1; i >= 0; i--) {
    int k = polyfocus_nondet_int();
    if (k < -1000 || k > 1000)
      k = 0;
    a[i] = k;
    b[i] = k + 1;
  }
  for (int j = 0; j < n; j++)
    polyfocus_assert(b[j] > a[j]);               // holds, proved in focus-poly
  return 0;
}
