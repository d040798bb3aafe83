// Extrapolation with a care set (Wang, Yang, Gupta & Ivancic).
// In both loops the iterates approach the bound the assertion needs only slowly (k grows
// like i*i/2, so the chord k <= c*i of the iterates turns a little at each step): widening
// drops the chord, and the assertion is unknown with `-Z care-set=off`. The care set,
// grown backwards from the error site (the states at the loop head with i == n and
// k > 1000*i), makes the engine keep k <= 1000*i instead.
#include "polyfocus.h"

// A single loop: k grows by at most i per iteration.
static void sum_of_bounded_steps(void) {
  int n = polyfocus_nondet_int();
  polyfocus_assume(n >= 0 && n <= 1000);
  int i = 0, k = 0;
  while (i < n) {
    int d = polyfocus_nondet_int();
    polyfocus_assume(d >= 0 && d <= i);
    k += d;
    i++;
  }
  polyfocus_assert(k <= 1000 * n);  // holds, proved in focus-poly
}

// Nested loops: the inner loop adds at most i to k; widening at the outer loop head (the
// path from the inner loop back to it) is where the bound is lost.
static void triangle_count(void) {
  int n = polyfocus_nondet_int();
  polyfocus_assume(n >= 0 && n <= 1000);
  int i = 0, k = 0;
  while (i < n) {
    int j = 0;
    while (j < i && polyfocus_nondet_int()) {
      j++;
      k++;
    }
    i++;
  }
  polyfocus_assert(k <= 1000 * n);  // holds, proved in focus-poly
}

int main(void) {
  sum_of_bounded_steps();
  triangle_count();
  return 0;
}
