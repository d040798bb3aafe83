#include "polyfocus.h"
int main(void) {
  int s = 0;
  for (int i = 0; i < 10; i++)
    for (int j = 0; j < 10; j++)
      s = s + 1;
  polyfocus_assert(s >= 0);      // holds, proved
  return 0;
}
