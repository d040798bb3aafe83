/* Counters kept in a struct local: SROA turns the fields into values. */
#include "polyfocus.h"

struct stats { int hits; int misses; };

int main(void) {
  struct stats st = {0, 0};
  int n = polyfocus_nondet_int();
  polyfocus_assume(n >= 0);
  polyfocus_assume(n <= 500);
  int i;
  for (i = 0; i < n; i++) {
    if (polyfocus_nondet_int()) st.hits++; else st.misses++;
  }
  polyfocus_assert(st.hits + st.misses == i);   // holds, proved
  polyfocus_assert(st.hits <= 500);             // holds, proved
  polyfocus_assert(st.misses < 5);              // fails, violated
  return 0;
}
