/* Functions of a library without `main`: their pointer parameters may be NULL. A test of
   a parameter against NULL decides the dereferences and assertions it guards. */
#include <assert.h>
#include <stddef.h>

int first(const int *src, int n) {
  if (src == NULL)
    return -1;
  assert(src != NULL); /* assertion after the test */
  return src[0] + n;   /* guarded read */
}

int unguarded(const int *src) {
  return *src; /* unguarded read */
}

int sum(const char *p, const char *end) {
  int s = 0;
  if (!p || !end)
    return 0;
  while (p < end) {
    s += *p; /* read in a pointer loop */
    p++;
  }
  return s;
}

int later(int *a, int n) {
  if (n > 0 && a == NULL)
    return 0;
  if (n <= 0)
    return 1;
  int *q = a + 2;
  return *q; /* offset from a pointer tested on another path */
}

int counted(const int *p, int n) {
  if (n > 0)
    return p[n - 1]; /* read when counted */
  return 0;
}
