/* A function the source marks `always_inline`, larger than the inline limit the test sets:
   analyzed once on its own by default, inlined into each caller when the marks are
   followed (`-Z inline-marked`). */
#include <assert.h>

static inline __attribute__((always_inline)) int clamp_sum(const int *v, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) {
    int x = v[i];
    if (x > 100) x = 100;
    if (x < -100) x = -100;
    s += x;
    if (s > 1000) s = 1000;
    if (s < -1000) s = -1000;
  }
  assert(s <= 1000); /* the marked check */
  return s;
}

int first(const int *v, int n) { return clamp_sum(v, n); }

int second(const int *v, int n) { return clamp_sum(v, n) + 1; }
