/* Pairs of arrays: the assertion reads one element of each of two arrays at one
   index, and the loops write both at each index they touch (`a[i] = k; b[i] = k * k;`), a
   store pair that keeps the property; the first store alone breaks it for a moment. A pair
   segment of `pairs.rs`. Natively every nondet input is 1: n = 10, every index is
   rewritten with k = i + 1. */
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
      b[i] = k * k;
    }
  }
  for (int i = 0; i < n; i++)
    __VERIFIER_assert(a[i] == b[i] || b[i] == a[i] * a[i]); // holds, proved
  return 0;
}
