/* A handler registered with atexit runs after main returns: it is analyzed as an entry. */
#include <stdlib.h>
extern void reach_error(void);
int g;
static void handler(void) {
  if (g == 1) reach_error(); // fails
}
int main(void) { g = 1; atexit(handler); return 0; }
