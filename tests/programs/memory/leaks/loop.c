// An allocation that runs once per iteration, its object freed in the same iteration:
// the model keeps no object of its own for it, so its leak check is not proved, and it is
// never violated without a leak in a native run.
#include <stdlib.h>

extern int __VERIFIER_nondet_int(void);

int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 10)
    return 0;
  int s = 0;
  for (int i = 0; i < n; i++) {
    int *q = malloc(2 * sizeof(int)); // memory: holds
    q[1] = i;
    s += q[1];
    free(q);
  }
  return s;
}
