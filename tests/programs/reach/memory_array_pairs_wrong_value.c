/* Near miss of memory_array_pairs.c: the pair stored is (k, k * k + 1), which
   breaks the property (natively (1, 2) at i = 0): the assertion fails. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
void __VERIFIER_assert(int cond) {
  if (!cond) reach_error();
}
int main(void) {
  int n = __VERIFIER_nondet_int() + 9;
  if (n <= 0 || n > 100000) return 0;
  int a[n];
  int b[n];
  for (int i = 0; i < n; i++) {
    a[i] = i;
    b[i] = i;
  }
  for (int i = 0; i < n; i++) {
    if (__VERIFIER_nondet_int()) {
      short k = (short)(__VERIFIER_nondet_int() + i);
      a[i] = k;
      b[i] = k * k + 1;
    }
  }
  for (int i = 0; i < n; i++)
    __VERIFIER_assert(a[i] == b[i] || b[i] == a[i] * a[i]); // fails, violated
  return 0;
}
