// Leak checks (`--checks memory`): the object of the first allocation is freed on every
// path; the second is lost when the input is 7, which LeakSanitizer reports natively.
#include <stdlib.h>

extern int __VERIFIER_nondet_int(void);

int main(void) {
  int n = __VERIFIER_nondet_int();
  int *kept = malloc(4 * sizeof(int)); // memory: holds, proved
  char *lost = malloc(16); // memory: fails, violated
  kept[0] = n;
  lost[0] = 1;
  if (n < 0) {
    free(kept);
    free(lost);
    exit(0);
  }
  if (n != 7)
    free(lost);
  free(kept);
  return 0;
}
