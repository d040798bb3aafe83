/* Near miss of memory_array_tiles.c: the second tile's value is stored whether or not it
   satisfies the condition (1 < m = 2 natively), so the assertion fails. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
void __VERIFIER_assert(int cond) {
  if (!cond) reach_error();
}
int main(void) {
  int n = __VERIFIER_nondet_int() + 7;
  int m = __VERIFIER_nondet_int() + 1;
  if (n <= 1) return 0;
  if (n % 2 != 0) return 0;
  int a[n];
  for (int i = 1; i <= n / 2; i++) {
    if (3 >= m) a[2 * i - 2] = 3; else a[2 * i - 2] = 0;
    a[2 * i - 1] = 1;
  }
  for (int i = 0; i < n; i++)
    __VERIFIER_assert(a[i] >= m || a[i] == 0); // fails, violated
  return 0;
}
