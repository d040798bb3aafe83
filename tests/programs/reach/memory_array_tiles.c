/* Tiles of an array: a loop fills `a[2i-2]` and `a[2i-1]` for i = 1 .. n/2,
   each with a constant that satisfies the assertion's condition or with 0, and `n % 2 == 0`
   makes the tiles cover the whole array. The condition is a short-circuit `||` over one
   element (two loads at -O0), a predicate segment; `n == 2 * (n / 2)` is the remainder
   identity. Natively every nondet input is 1: n = 8, m = 2. */
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
    if (1 >= m) a[2 * i - 1] = 1; else a[2 * i - 1] = 0;
  }
  for (int i = 0; i < n; i++)
    __VERIFIER_assert(a[i] >= m || a[i] == 0); // holds, proved
  return 0;
}
