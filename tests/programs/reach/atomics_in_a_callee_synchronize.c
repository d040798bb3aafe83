/* A call of a function that synchronizes through atomic operations on its arguments alone
   may still make another thread's writes to anything visible: it clobbers everything other
   code may reach, whatever LLVM infers of its own accesses. */
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
/* Recursive, so that it stays a call. */
static void handshake(atomic_int *start, atomic_int *finished, int depth) {
  if (depth > 0) {
    handshake(start, finished, depth - 1);
    return;
  }
  atomic_store(start, 1);
  while (!atomic_load(finished)) {
  }
}
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  data = 1;
  handshake(&go, &ready, 1);
  if (data != 1) reach_error(); // fails
  pthread_join(t, 0);
  return 0;
}
