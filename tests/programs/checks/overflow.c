/* Runtime checks of signed overflow: each annotated line's overflow checks are all proved
 * (`holds, proved`) or one of them is refuted with a replayed counterexample (`fails,
 * violated`). The selector `s` keeps the operations on separate paths. */
#include <limits.h>
extern int __VERIFIER_nondet_int(void);
extern long long __VERIFIER_nondet_longlong(void);

int main(void) {
  int s = __VERIFIER_nondet_int();
  int x = __VERIFIER_nondet_int();
  long long y = __VERIFIER_nondet_longlong();
  if (s == 0 && x >= 0 && x < 1000)
    return x * 1000 + 7; // overflow: holds, proved
  if (s == 1 && x == INT_MAX - 1)
    return x + 1; // overflow: holds, proved
  if (s == 2 && x == INT_MAX)
    return x + 1; // overflow: fails, violated
  if (s == 3)
    return x - 1; // overflow: fails, violated
  if (s == 4 && x > 100000)
    return x * x; // overflow: fails, violated
  if (s == 5)
    return (int)(y * 3 / 4); // overflow: fails, violated
  if (s == 6 && x > INT_MIN)
    return -x; // overflow: holds, proved
  if (s == 7 && x < 0)
    return x + INT_MAX; // overflow: holds, proved
  return 0;
}
