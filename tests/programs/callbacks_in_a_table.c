/* A function whose address escapes into a table runs only when something calls it: between
   two calls the globals change only by the code in between, so they stay cells of the
   memory model. The call through the table may change them. */
#include <assert.h>

int level;

static void raise_level(void) { level = level + 1; }

void (*const actions[])(void) = {raise_level};

int main(void) {
  level = 3;
  int seen = level;
  assert(seen == 3);  // holds, proved
  actions[0]();
  assert(level == 3); // fails, violated
  return 0;
}
