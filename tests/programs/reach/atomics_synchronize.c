/* Atomic operations synchronize threads: a store this thread made before a release may be
   overwritten by the time an acquire returns, by a thread that synchronized with both. */
#include <pthread.h>
#include <stdatomic.h>
extern void reach_error(void);
int data;
atomic_int go, ready;
static void *writer(void *arg) {
  while (!atomic_load(&go)) {
  }
  data = 42;
  atomic_store(&ready, 1);
  return arg;
}
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  data = 1;
  if (data != 1) reach_error(); // holds, proved
  atomic_store(&go, 1);
  while (!atomic_load(&ready)) {
  }
  if (data != 1) reach_error(); // fails
  pthread_join(t, 0);
  return 0;
}
