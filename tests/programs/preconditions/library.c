/* Functions of a library without `main`, each analyzed with arbitrary arguments. A native
   driver defines `check` to record the failed line instead of aborting. */
#ifndef check
#include <assert.h>
#define check(c) assert(c)
#endif

int scale(int acceleration, int n) {
  check(acceleration >= 1); /* holds if acceleration >= 1 */
  return acceleration > 1 ? n : 0;
}

int window(int n, int m) {
  int s = 0;
  for (int i = 0; i < n && i < 8; i++)
    s += i;
  check(n <= 4 || m >= 0); /* holds if it takes both parameters */
  return s;
}

int clamp(int n) {
  int k = n > 0 ? n : 0;
  check(k >= 0); /* proved */
  return k;
}

int never(int n) {
  int k = n > 3 ? n - n : 0;
  check(k == 1); /* violated for every argument */
  return k;
}

int fill(int len, int k) {
  if (len <= 0)
    return -1;
  check(k >= 1); /* holds if k >= 1, whatever len */
  return len;
}
