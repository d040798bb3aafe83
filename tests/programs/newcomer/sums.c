/* Running sums: bounds that follow from the loop, and one that does not. */
#include "polyfocus.h"

int main(void) {
  int n = polyfocus_nondet_int();
  polyfocus_assume(n >= 0 && n <= 1000);
  int sum = 0, evens = 0;
  for (int i = 0; i < n; i++) {
    sum += 2;
    if (i % 2 == 0) evens++;
  }
  polyfocus_assert(sum == 2 * n);        // holds, proved
  polyfocus_assert(evens <= n);          // holds, proved
  polyfocus_assert(sum < 2000);          // fails, violated
  return 0;
}
