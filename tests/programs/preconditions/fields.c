/* Preconditions over what a caller leaves in memory: a check that reads a field of a
   pointer parameter's object holds under a condition on the value there, and a `static`
   helper whose every caller tests that condition first is proved. A check of a conjunction
   (`0 <= i && i < n`) holds under the conjunction, and one of an equality under the
   equality. A native driver defines `check` to
   record the failed line instead of aborting. */
#ifndef check
#include <assert.h>
#define check(c) assert(c)
#endif

struct bits {
  unsigned char *data;
  long nbits;
  int readonly;
};

/* Visible outside: a caller of the library may pass any index and any object. */
long bit_index(const struct bits *b, long i) {
  check(0 <= i && i < b->nbits); /* holds if the index is below the field */
  return i >> 3;
}

/* Every caller tests the index against the field before the call. */
static long position(const struct bits *b, long i) {
  check(0 <= i && i < b->nbits); /* every call tests the index */
  return i & 7;
}

long checked_position(const struct bits *b, long i) {
  if (i < 0 || i >= b->nbits)
    return -1;
  return position(b, i);
}

/* An equality is two bounds: the precondition is the equality. */
int freeze(struct bits *b) {
  check(b->readonly == 0); /* holds if the field is zero */
  b->readonly = 1;
  return 0;
}

/* Parameters only: the precondition is the conjunction itself. */
long in_range(long n, long i) {
  check(0 <= i && i < n); /* holds if both bounds hold */
  return n - i;
}
