/* Pointers into two parameters' objects compared as addresses: a check that holds only when
   the caller passes its pointers in order says so in its precondition, and a `static`
   helper whose every call passes pointers into one buffer, in order, is proved. A native
   driver defines `check` to record the failed line instead of aborting. */
#ifndef check
#include <assert.h>
#define check(c) assert(c)
#endif

/* Every caller passes a destination with at least 4 bytes before `end`. */
static int fill(char *dst, const char *end) {
  int n = 0;
  check(dst + 4 <= end); /* every call leaves room for 4 bytes */
  while (dst < end) {
    *dst++ = 0; /* every call passes an end inside the buffer */
    n++;
  }
  return n;
}

/* Visible outside: a caller of the library may pass the bounds in any order. */
int span(const char *lo, const char *hi) {
  check(lo <= hi); /* holds if lo <= hi */
  return (int)(hi - lo);
}

int clear(int k) {
  char buf[32];
  if (k < 0 || k > 28)
    return 0;
  return fill(buf, buf + 32) + fill(buf + k, buf + 32);
}
