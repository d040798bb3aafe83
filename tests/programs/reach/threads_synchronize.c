/* Threads see each other's writes only where they synchronize (a data race is undefined
   behaviour): between two calls that may synchronize, the memory other code may reach
   holds what this thread stored; after a lock, an unlock or a join it may hold anything. */
#include <pthread.h>
extern void reach_error(void);
int data, done;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static void *writer(void *arg) {
  pthread_mutex_lock(&m);
  data = 42;
  done = 1;
  pthread_mutex_unlock(&m);
  return arg;
}
int main(void) {
  pthread_t t;
  pthread_mutex_lock(&m);
  pthread_create(&t, 0, writer, 0);
  data = 1;
  if (data != 1) reach_error(); // holds, proved
  pthread_mutex_unlock(&m);
  int d;
  for (;;) {
    pthread_mutex_lock(&m);
    int finished = done;
    d = data;
    pthread_mutex_unlock(&m);
    if (finished) break;
  }
  pthread_join(t, 0);
  if (d != 1) reach_error(); // fails
  return 0;
}
