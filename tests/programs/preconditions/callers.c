/* `static` helpers whose checks hold under a precondition, called only by the functions of
   this library: each check is proved when every call meets its precondition, and stays
   `holds if` when some call may not, or when the helper can be called from outside. */
#include <assert.h>
#include <stddef.h>

/* Every caller passes a positive step. */
static int steps(int total, int step) {
  assert(step >= 1); /* every call passes a positive step */
  return total / step;
}

/* Every caller passes a buffer at least `n` bytes long, not NULL. */
static int sum(const unsigned char *buf, int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += buf[i]; /* every call passes a buffer long enough */
  return s;
}

/* Every caller passes a limit derived from a pointer it read back from memory (a cursor
   whose address it passes too), after testing its input against NULL. */
static int run_length(const unsigned char **ip, const unsigned char *limit) {
  assert(limit != NULL); /* every call passes a limit that is not NULL */
  int n = 0;
  while (*ip < limit && **ip == 255) {
    (*ip)++;
    n += 255;
  }
  return n;
}

/* One caller passes an index it does not bound. */
static int at(const int *a, int i) {
  return a[i]; /* one call passes any index */
}

/* Visible outside: a caller of the library may pass anything. */
int width(int cells) {
  assert(cells <= 64); /* an exported function's check */
  return cells * 4;
}

static int table[8];

int total(int n) {
  unsigned char local[32] = {0};
  int s = steps(n, 4) + steps(n, 2);
  s += sum(local, 32) + sum(local + 8, 24);
  return s + width(16);
}

int lookup(int i) {
  int s = at(table, 3);
  return s + at(table, i);
}

int decode(const unsigned char *src, int size) {
  if (src == NULL || size < 16)
    return -1;
  const unsigned char *ip = src;
  const unsigned char *end = ip + size;
  int n = 0;
  while (ip < end) {
    n += run_length(&ip, end - 15);
    ip++;
  }
  return n;
}
