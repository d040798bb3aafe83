/* A helper larger than a leaf, called from two functions with different arguments: in a
   small program it is inlined into each caller; in a large one (the test lowers
   `-Z inline-program-limit`) it is analyzed once, on its own, and its check holds under a
   precondition on its parameter, which both calls meet. */
#include <assert.h>

static int window_sum(const int *v, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) {
    int x = v[i];
    if (x > 100) x = 100;
    if (x < -100) x = -100;
    s += x;
  }
  assert(n <= 64); /* the helper's check */
  return s;
}

int first(const int *v) { return window_sum(v, 8); }

int second(const int *v) { return window_sum(v, 16) + 1; }
