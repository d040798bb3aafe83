/* A comparator passed to qsort, and the function it calls that is not inlined (recursive). */
#include <stdlib.h>
extern void reach_error(void);
static int rank(int x) {
  if (x == 2) reach_error(); // fails
  return x <= 0 ? 0 : 1 + rank(x - 1);
}
static int cmp(const void *a, const void *b) {
  return rank(*(const int *)a) - rank(*(const int *)b);
}
int main(void) { int a[3] = {3, 1, 2}; qsort(a, 3, sizeof a[0], cmp); return 0; }
