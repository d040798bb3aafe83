/* The C runtime starts `main` with the program's name in argv[0]: argc >= 1. */
#include <assert.h>

int main(int argc, char **argv) {
  (void)argv;
  assert(argc >= 1);                     // holds, proved
  return 0;
}
