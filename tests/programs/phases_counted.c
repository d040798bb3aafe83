#include "polyfocus.h"
/* A loop that counts the elements an earlier loop left at zero. It reads a[i] as i + 1
   while i is inside the filled part (the memory model chooses by 4 * i < its end, a
   select, not a branch), then as anything, so the count grows only in the second phase:
   zeros <= i - (m + 1) there. Splitting the loop head on that comparison keeps each
   phase's relation, and acceleration sweeps a phase only from the states its path can
   leave, not from the phase before it. */

static int a[1000];

static void count_left_out(int n, int m) {
  if (n < 1 || n > 1000 || m < 0 || m >= n)
    return;
  for (int i = 0; i <= m; i++)
    a[i] = i + 1;
  int zeros = 0;
  for (int i = 0; i < n; i++) {
    if (a[i] == 0)
      zeros++;
    polyfocus_assert(zeros < n - m);             // holds, proved in focus-poly
  }
}

int main(void) {
  count_left_out(polyfocus_nondet_int(), polyfocus_nondet_int());
  return 0;
}
