/* A library that starts a thread: the thread may write any object it can reach (the
   globals, a caller's objects), and another function sees those writes where it
   synchronizes with the thread (a data race is undefined behaviour): after a lock, a
   global may hold anything; between two such points it holds what the function stored or
   read. Sizes and the pointers into the objects are known throughout. */
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

static int table[16];
static const int primes[4] = {2, 3, 5, 7};
int counter;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg) {
  pthread_mutex_lock(&lock);
  counter++;
  pthread_mutex_unlock(&lock);
  return arg;
}

int start(void) {
  pthread_t t;
  return pthread_create(&t, NULL, worker, NULL);
}

int get(const int *a, int i) {
  if (i < 0 || i >= 4)
    return 0;
  return a[i]; /* read through a parameter */
}

int lookup(int i) {
  if (i < 0 || i >= 16)
    return 0;
  int t = table[i]; /* read of a global array */
  return t - primes[i & 3]; /* read of a constant table */
}

int twice(void) {
  int before = counter;
  int after = counter;
  assert(before == after); /* two reads of a global the thread writes */
  return after;
}

int around_a_lock(void) {
  int before = counter;
  pthread_mutex_lock(&lock);
  int after = counter;
  pthread_mutex_unlock(&lock);
  assert(before == after); /* two reads with a lock between them */
  return after;
}

/* An allocation may synchronize with the thread, which does not make a freed object live. */
void release_twice(void) {
  int *p = malloc(sizeof *p);
  free(p);
  free(p); /* a second free */
}
