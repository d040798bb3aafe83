/* A check whose precondition relates two parameters: no bound on either alone excludes
   the failing arguments (n == m), so only the inference over polyhedra finds one. A native
   driver defines `check` to record the failed line instead of aborting. */
#ifndef check
#include <assert.h>
#define check(c) assert(c)
#endif

int distinct(int n, int m) {
  check(n != m); /* holds if n and m differ */
  return n > m;
}
