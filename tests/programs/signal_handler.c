/* A module that installs a signal handler: the handler may interrupt the code between any
   two instructions, and may then write only `volatile sig_atomic_t` objects (writing any
   other is undefined behaviour), whose every load is arbitrary; other memory changes only
   where the code calls or synchronizes. */
#include <assert.h>
#include <signal.h>

volatile sig_atomic_t level;
int count;

static void on_signal(int sig) { level = sig; }

int main(void) {
  signal(SIGINT, on_signal);
  level = 3;
  count = 3;
  int seen = level;
  assert(seen == 3); // holds, unknown
  assert(count == 3); // holds, proved
  return 0;
}
