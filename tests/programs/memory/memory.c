// Memory-safety checks through pointers (`--checks memory`). `main` runs one scenario,
// chosen by its first input; the `fails` lines misbehave under the address sanitizer
// for the scenario that reaches them.
#include <stdlib.h>
#include <string.h>

extern int __VERIFIER_nondet_int(void);

int table[8];

static int walk_local(void) {
  int a[10];
  int *p = a, *end = a + 10; // memory: holds, proved
  int n = 0;
  while (p < end) {
    *p = n; // memory: holds, proved
    p++;
    n++;
  }
  return a[9]; // memory: holds, proved
}

static int sum_heap(int n) {
  int *b = malloc(n * sizeof(int));
  for (int i = 0; i < n; i++)
    b[i] = i; // memory: holds, proved
  int s = 0;
  for (int *p = b; p != b + n; p++)
    s += *p; // memory: holds, proved
  free(b); // memory: holds, proved
  return s;
}

static int off_by_one(int n) {
  int *b = malloc(n * sizeof(int));
  for (int i = 0; i <= n; i++)
    b[i] = 0; // memory: fails
  free(b);
  return 0;
}

static int copies(int n) {
  char src[16], dst[16];
  memset(src, 'a', sizeof src); // memory: holds, proved
  memcpy(dst, src, n); // memory: fails
  return dst[0];
}

static int global_walk(void) {
  for (int i = 0; i <= 8; i++)
    table[i] = i; // memory: fails
  return 0;
}

static int double_free(void) {
  int *b = malloc(4 * sizeof(int));
  b[0] = 1; // memory: holds, proved
  free(b); // memory: holds, proved
  free(b); // memory: fails
  return 0;
}

static int after_free(void) {
  int *b = malloc(4 * sizeof(int));
  b[1] = 2; // memory: holds, proved
  free(b); // memory: holds, proved
  return b[1]; // memory: fails
}

static int inner_free(void) {
  char *b = malloc(8);
  free(b + 1); // memory: fails
  return 0;
}

int main(void) {
  int which = __VERIFIER_nondet_int();
  int n = __VERIFIER_nondet_int();
  if (n < 1 || n > 100)
    return 0;
  switch (which) {
  case 0: return walk_local();
  case 1: return sum_heap(n);
  case 2: return off_by_one(n);
  case 3: return n <= 16 ? copies(n) : 0;
  case 4: return copies(n);
  case 5: return global_walk();
  case 6: return double_free();
  case 7: return after_free();
  case 8: return inner_free();
  }
  return 0;
}
