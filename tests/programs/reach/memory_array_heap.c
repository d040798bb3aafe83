/* Allocation sites: a `malloc` or `calloc` call that runs once is an object of
   its own, so the segments of smashed arrays (a copy loop carries a constant over) and
   calloc's zeros apply to it. Without the sites every load through `b`, `c` and `e` was
   arbitrary. Natively every nondet input is 1: n = 4, k = 1, m = 3. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
extern void *malloc(unsigned long);
extern void *calloc(unsigned long, unsigned long);
int main(void) {
  int n = __VERIFIER_nondet_int() + 3;
  if (n <= 0 || n > 1000) return 0;
  int k = __VERIFIER_nondet_int();
  if (k < 0 || k >= n) return 0;
  int a[1000];
  for (int i = 0; i < n; i++) a[i] = 8;
  int *b = malloc(sizeof(int) * (unsigned long)n);
  for (int i = 0; i < n; i++) b[i] = a[i];
  if (b[k] != 8) reach_error(); // holds, proved
  int *c = calloc((unsigned long)n, sizeof(int));
  if (c[k] != 0) reach_error(); // holds, proved
  /* Near miss: the last element is not the constant, the loop stops one short. */
  int *e = malloc(sizeof(int) * (unsigned long)n);
  for (int i = 0; i < n - 1; i++) e[i] = 7;
  e[n - 1] = 9;
  int m = __VERIFIER_nondet_int() + 2;
  if (m < 0 || m >= n) return 0;
  if (e[m] != 7) reach_error(); // fails, violated
  return 0;
}
