/* Runtime checks of array subscripts (`--checks bounds`): the subscripts of arrays
 * of statically known size that UBSan's -fsanitize=array-bounds checks. The index must be
 * below the size where the element is read or written, at most the size where only its
 * address is taken (one past the end is C). */
extern int __VERIFIER_nondet_int(void);

struct pair {
  int a[4];
  int b;
};

int g[8];
struct pair p;

void fill(int *q, int n) {
  for (int i = 0; i < n; i++)
    q[i] = i; // bounds: no check (through a pointer: UBSan has no check)
}

int main(void) {
  int a[10];
  int m[3][4];
  for (int i = 0; i < 10; i++)
    a[i] = i; // bounds: holds, proved
  int s = __VERIFIER_nondet_int();
  int n = __VERIFIER_nondet_int();
  if (s == 0 && n >= 0 && n < 12)
    return a[n]; // bounds: fails, violated
  if (s == 1 && n >= 1 && n <= 10)
    return a[n - 1]; // bounds: holds, proved
  if (s == 2 && n >= 0 && n <= 10)
    return a[n]; // bounds: fails, violated
  if (s == 3 && n > -2 && n < 5)
    return g[n]; // bounds: fails, violated
  if (s == 4 && n >= 0 && n <= 4) {
    p.a[n] = 1; // bounds: fails, violated
    return p.b;
  }
  if (s == 5 && n >= 0 && n <= 10) {
    int *end = &a[n]; // bounds: holds, proved
    return end != a;
  }
  if (s == 6 && n >= 0 && n <= 11) {
    int *end = &a[n]; // bounds: fails, violated
    return end != a;
  }
  if (s == 7 && n >= 0 && n <= 8) {
    g[n]++; // bounds: fails, unknown (`g[8]++` accesses past the end, but UBSan checks `<= 8` there)
    return 0;
  }
  if (s == 8 && n >= 0 && n < 3) {
    m[n][n] = 1; // bounds: holds, proved
    return m[n][n + 2]; // bounds: fails, violated (the row holds, the column fails)
  }
  fill(a, 10);
  return 0;
}
