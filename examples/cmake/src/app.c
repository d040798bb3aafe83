#include <assert.h>
#include "util.h"

int main(int argc, char **argv) {
  (void)argv;
  int total = 0;
  for (int i = 0; i < 100; i++) {
    int c = clamp(i + argc, 10, 50);
    assert(c >= 10 && c <= 50);
    total += c;
  }
  assert(total >= 1000);
  return count_down(argc) > 0 ? 0 : 1;
}
