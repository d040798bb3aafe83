/* argc >= 1 is all the runtime gives: a command line without arguments has argc == 1. */
#include <assert.h>

int main(int argc, char **argv) {
  (void)argv;
  assert(argc >= 2);                     // fails, violated
  return 0;
}
