/* Counts of bits (`__builtin_popcount`, `__builtin_clz`, `__builtin_ctz`) are within
   [0, 32] for a 32-bit operand, and below 32 for a count of leading or trailing zeros of
   a nonzero operand (for zero that count is undefined). */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  unsigned x = (unsigned)__VERIFIER_nondet_int(); /* 1 natively */
  int pop = __builtin_popcount(x);
  if (pop < 0 || pop > 32) reach_error(); // holds, proved
  if (x != 0) {
    int high = 31 - __builtin_clz(x);
    if (high < 0 || high > 31) reach_error(); // holds, proved
    int low = __builtin_ctz(x);
    if (low > 31) reach_error(); // holds, proved
    if (low == 0) reach_error(); // fails
  }
  return 0;
}
