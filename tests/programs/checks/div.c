/* Runtime checks of division by zero, and of `INT_MIN / -1` (an overflow). */
#include <limits.h>
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);

int main(void) {
  int s = __VERIFIER_nondet_int();
  int x = __VERIFIER_nondet_int();
  int d = __VERIFIER_nondet_int();
  unsigned int u = __VERIFIER_nondet_uint();
  if (s == 0 && d != 0 && d != -1)
    return x / d; // div: holds, proved; overflow: holds, proved
  if (s == 1 && d > 1)
    return 100 / (d - 1); // div: holds, proved
  if (s == 2 && d > 0)
    return 100 / (d - 1); // div: fails, violated
  if (s == 3)
    return (int)(u % (u - 5)); // div: fails, violated
  if (s == 4 && d != 0)
    return x / d; // div: holds, proved; overflow: fails, violated
  return 0;
}
