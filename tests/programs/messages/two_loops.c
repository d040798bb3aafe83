/* Two loop heads, whose relations need the polyhedra of path focusing. */
#include <assert.h>

extern int __VERIFIER_nondet_int(void);

int main(void) {
  int n = __VERIFIER_nondet_int();
  int i = 0, k = 0;
  while (i < n) { i++; k += 2; }
  int j = 0, m = 0;
  while (j < n) { j++; m += 3; }
  assert(k == 2 * i && m == 3 * j);      // holds, proved
  return 0;
}
