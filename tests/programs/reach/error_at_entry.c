/* An error site in the entry block (no branch before it): its block was the entry's cut
 * point, not an error site's, and the congruence stage found no path into it and proved it.
 * Found by the soundness generator in a `qsort` comparator. */
#include <stdlib.h>
extern void reach_error(void);
static int compare(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  reach_error(); // fails
  return (x > y) - (x < y);
}
int main(void) {
  int q[3] = {3, 1, 2};
  qsort(q, 3, sizeof q[0], compare);
  reach_error(); // fails
  return 0;
}
