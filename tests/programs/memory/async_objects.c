/* A library that starts a thread: the thread may write any object it can reach (the
   globals, a caller's objects) between two instructions of another function, so their
   contents are not known; their sizes and the pointers into them still are. */
#include <assert.h>
#include <pthread.h>
#include <stddef.h>

static int table[16];
static const int primes[4] = {2, 3, 5, 7};
int counter;

static void *worker(void *arg) {
  counter++;
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
