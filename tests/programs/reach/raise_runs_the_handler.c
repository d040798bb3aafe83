/* `raise` runs the signal handler before it returns: what the handler writes is seen after
   the call. */
#include <signal.h>
extern void reach_error(void);
int last;
static void handler(int sig) { last = sig; }
int main(void) {
  signal(SIGUSR1, handler);
  last = 0;
  if (last != 0) reach_error(); // holds, proved
  raise(SIGUSR1);
  if (last != 0) reach_error(); // fails
  return 0;
}
