/* A module that installs a signal handler: the handler may run between any two
   instructions, so a global it may write is not a cell of the memory model, and every load
   of it is arbitrary. */
#include <assert.h>
#include <signal.h>

int level;

static void on_signal(int sig) { level = sig; }

int main(void) {
  signal(SIGINT, on_signal);
  level = 3;
  int seen = level;
  assert(seen == 3); // holds, unknown
  return 0;
}
