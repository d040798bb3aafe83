/* A check after a read through a pointer parameter: the read holds if the object is large
   enough; the check after it depends on the value read, so no precondition over the
   parameter's object size makes it hold (an object too small only stops the function
   before): it holds if the pointer the caller leaves at `*ip` is not NULL. */
#include <assert.h>
#include <stddef.h>

int next_byte(const unsigned char **ip) {
  assert(*ip != NULL); /* the check after the read */
  int s = **ip;
  (*ip)++;
  return s;
}
