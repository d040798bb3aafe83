// A pointer walked in memory (`*ip += n` through its address, a struct field moved on)
// keeps its word: pointer arithmetic on a pointer that is not NULL gives one that is not
// NULL, so comparisons with NULL after the walk are decided.
#include <stddef.h>
#include "polyfocus.h"

struct reader {
  const unsigned char *pos;
  const unsigned char *end;
};

static void advance(const unsigned char **ip, size_t n) {
  polyfocus_assert(ip != NULL);  // holds, proved
  polyfocus_assert(*ip != NULL); // holds, proved
  *ip += n;
}

/* No main: an entry called with arbitrary arguments. */
int sum(const unsigned char *src, size_t len) {
  if (src == NULL)
    return -1;
  const unsigned char *ip = src;
  int s = 0;
  for (size_t i = 0; i < len; i++) {
    s += *ip;
    advance(&ip, 1);
  }
  struct reader r = {src, src + len};
  r.pos += 2;
  polyfocus_assert(r.pos != NULL); // holds, proved
  polyfocus_assert(r.end != NULL); // holds, proved
  return s;
}

int first(const unsigned char *src) {
  const unsigned char *ip = src;
  ip += 1;
  polyfocus_assert(ip != NULL); // holds, proved
  const unsigned char *q = src;
  polyfocus_assert(q != NULL);  // fails
  return 0;
}
