/* A buffer zeroed in a loop: memory is not modeled yet, so the reason must say so. */
#include "polyfocus.h"

int main(void) {
  int buf[64];
  volatile int sink = 0;
  for (int i = 0; i < 64; i++) buf[i] = 0;
  int k = polyfocus_nondet_int();
  polyfocus_assume(k >= 0 && k < 64);
  sink = buf[k];
  polyfocus_assert(buf[k] == 0);     // unknown because: a load from memory
  return sink;
}
