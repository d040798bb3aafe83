/* A thread's start routine runs with the argument given to pthread_create. */
#include <pthread.h>
extern void reach_error(void);
static void *start(void *arg) {
  if (arg == 0) reach_error(); // fails
  return 0;
}
int main(void) { pthread_t t; pthread_create(&t, 0, start, 0); pthread_join(t, 0); return 0; }
