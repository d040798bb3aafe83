/* A library without `main`: `scale` and `half` are analyzed on their own with arbitrary
   arguments, and inlined into `jumpy`, which calls `setjmp` and so is not analyzed. */
#include <assert.h>
#include <setjmp.h>

int scale(int n) {
  int k = n > 100 ? 100 : n;
  int r = k < 0 ? 0 : k;
  assert(r <= 100); /* proved on its own, so in every copy */
  return r;
}

int half(int n) {
  assert(n != 7); /* not proved on its own: a copy stays open */
  return n / 2;
}

static jmp_buf env;

int jumpy(int n) {
  if (setjmp(env))
    return -1;
  return scale(n) + half(n);
}
