/* The remainder identity: after `n % 3 == 0`, a loop to `n / 3` ends with
   `3 * (i - 1) == n`, which needs `n == 3 * (n / 3) + n % 3` (the pass
   `remainder-identity`); without it the engines bound `n / 3` and `n % 3` apart and the
   invariant alone does not conclude. The second loop drops the guard (k = 1 fails). */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n <= 0 || n > 1000000) return 0;
  if (n % 3 != 0) return 0;
  int i = 1;
  while (i <= n / 3) i++;
  if (3 * (i - 1) != n) reach_error(); // holds, proved in classic-poly focus-poly
  int k = __VERIFIER_nondet_int();
  if (k <= 0 || k > 1000000) return 0;
  int j = 1;
  while (j <= k / 3) j++;
  if (3 * (j - 1) != k) reach_error(); // fails
  return 0;
}
