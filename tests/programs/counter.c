#include "polyfocus.h"
int main(void) {
  int i = 0;
  while (i < 100) i++;
  polyfocus_assert(i == 100);   // holds, proved
  polyfocus_assert(i <= 100);   // holds, proved
  return 0;
}
