/* A reader that advances a cursor the caller keeps in memory, called only by a decoder with
   no assertion of its own: the limit it gets is computed from the cursor before the loop,
   after the input was tested against NULL, so it is not NULL at any call. The cursor
   itself only ever holds a pointer into the input: the reader only advances it, so it is
   not NULL at any call either. */
#include <assert.h>
#include <stddef.h>

static size_t read_length(const unsigned char **ip, const unsigned char *limit) {
  assert(*ip != NULL);   /* the cursor after earlier calls */
  assert(limit != NULL); /* a limit computed before the loop */
  size_t s, length = 0;
  do {
    s = **ip;
    (*ip)++;
    length += s;
    if (*ip > limit)
      return (size_t)-1;
  } while (s == 255);
  return length;
}

static int decode(const unsigned char *src, int size) {
  if (src == NULL || size < 0)
    return -1;
  const unsigned char *ip = src;
  const unsigned char *const end = ip + size;
  size_t n = 0;
  while (ip < end) {
    unsigned token = *ip++;
    if ((token >> 4) == 15) {
      size_t more = read_length(&ip, end - 15);
      if (more == (size_t)-1)
        return -1;
      n += more;
    }
  }
  return (int)n;
}

int decode_block(const unsigned char *src, int size) { return decode(src, size); }
