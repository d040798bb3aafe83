/* A decoder of a library (no `main`) whose input pointer lives in a local that a helper
   advances through its address, as in LZ4's `read_variable_length(&ip, ...)`. The local
   holds pointers into `src`'s object only: the helper loads through its parameter and
   stores back pointers derived from what it loaded. So a load of `ip` is `src` plus an
   offset (any offset after a call of the helper, as far as the caller knows): its
   comparisons with pointers into `src`'s object, whether it is NULL, and the helper's
   `*ip != NULL` at each call are decided. `skip_to` stores a pointer that does not derive
   from `*pp`, so a local it is given holds arbitrary pointers. */
#include <assert.h>
#include <stddef.h>

typedef unsigned char BYTE;

__attribute__((noinline)) static size_t read_length(const BYTE **ip, const BYTE *limit) {
  size_t length = 0, s;
  assert(*ip != NULL); /* helper's assertion */
  do {
    if (*ip >= limit)
      return (size_t)-1;
    s = **ip;
    (*ip)++;
    length += s;
  } while (s == 255);
  return length;
}

int decode(const BYTE *src, int n) {
  if (src == NULL || n <= 0)
    return -1;
  const BYTE *ip = src;
  const BYTE *const iend = src + n;
  int tokens = 0;
  while (ip < iend) {
    assert(ip < iend); /* comparison of the held pointer */
    BYTE t = *ip++;    /* read through the held pointer */
    if (t == 15) {
      size_t l = read_length(&ip, iend);
      if (l == (size_t)-1)
        return -1;
    }
    tokens++;
  }
  return tokens;
}

__attribute__((noinline)) static void skip_to(const BYTE **pp, const BYTE *to) {
  *pp = to;
}

int skip(const BYTE *src, const BYTE *other, int n) {
  if (src == NULL || n <= 0)
    return -1;
  const BYTE *p = src;
  const BYTE *const end = src + n;
  skip_to(&p, other);
  if (p < end)
    assert(p >= src); /* another object's pointer may be stored */
  return 0;
}
