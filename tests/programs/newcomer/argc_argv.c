/* main(argc, argv): the argument count is an input of the program. */
#include "polyfocus.h"

int main(int argc, char **argv) {
  (void)argv;
  int verbose = 0;
  for (int i = 1; i < argc; i++) verbose++;
  polyfocus_assert(verbose >= 0);        // holds, proved
  polyfocus_assert(argc != 3);           // fails, violated
  return 0;
}
