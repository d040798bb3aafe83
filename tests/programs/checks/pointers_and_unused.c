/* Runtime checks in library entries that take pointers (the replay passes each pointer a
 * buffer whose contents are inputs) and of operations whose result is never used (LLVM
 * deletes such an operation, but its misbehaviour is undefined behaviour all the same, and
 * the native program built with UBSan traps on it). No `main`: every function is an entry. */
struct acc {
  int total;
  int count;
};

int average(const struct acc *a) {
  return a->total / a->count; // div: fails, violated; overflow: fails, violated
}

int safe_average(const struct acc *a) {
  if (a->count <= 0)
    return 0;
  return a->total / a->count; // div: holds, proved; overflow: holds, proved
}

static int quotient(int a, int b) { return a / b; } // div: fails, violated; overflow: fails, violated

void ignore_quotient(int x, int y) {
  quotient(x, y);
}

void unused_local(int x) {
  int q = 100 / x; // div: fails, violated
}

int scaled(const int *p, int s) {
  return *p << s; // shift: fails, violated
}

int bounded_shift(const int *p, int s) {
  if (s < 0 || s > 7)
    return 0;
  unsigned v = (unsigned)(*p & 0xff);
  return (int)(v << s); // shift: holds, proved
}
