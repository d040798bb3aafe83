/* A signal handler runs when the signal is raised. */
#include <signal.h>
extern void reach_error(void);
static void handler(int sig) {
  if (sig == SIGUSR1) reach_error(); // fails
}
int main(void) { signal(SIGUSR1, handler); raise(SIGUSR1); return 0; }
