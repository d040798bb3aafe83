/* Counts of bits (`__builtin_popcount`, `__builtin_clz`, `__builtin_ctz`) are within
   [0, 32] for a 32-bit operand, and below 32 for a count of leading or trailing zeros of
   a nonzero operand (for zero that count is undefined), where `31 ^ count` is `31 - count`. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  unsigned x = (unsigned)__VERIFIER_nondet_int(); /* 1 natively */
  int pop = __builtin_popcount(x);
  if (pop < 0 || pop > 32) reach_error(); // holds, proved
  if (x != 0) {
    int zeros = __builtin_clz(x);
    int high = 31 - zeros;
    if (high < 0 || high > 31) reach_error(); // holds, proved
    int low = __builtin_ctz(x);
    if (low > 31) reach_error(); // holds, proved
    if (low == 0) reach_error(); // fails
  }
  /* `31 ^ count` summed over a loop: the loop's invariant needs each term's bounds. */
  int n = __VERIFIER_nondet_int() % 100, total = 0;
  for (int i = 0; i < n; i++) {
    unsigned v = (unsigned)__VERIFIER_nondet_int() | 1u;
    total += 31 ^ __builtin_clz(v);
    if (total > 31 * (i + 1)) reach_error(); // holds, proved
  }
  return 0;
}
