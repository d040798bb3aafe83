/* A count of bits follows its operand's range: the leading zeros of a value in [lo, hi]
   are between those of hi and of lo, its trailing zeros at most its bit length less one,
   so `31 ^ __builtin_clz(n)` (the floor of log2 n) bounds a shift it computes; and a
   logical shift right by any amount is at most the shifted value. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
static unsigned log2_floor(unsigned n) { return 31u ^ (unsigned)__builtin_clz(n); }
int main(void) {
  unsigned x = (unsigned)__VERIFIER_nondet_int(); /* 1 natively */
  unsigned len = x % 124 + 6; /* [6, 129] */
  unsigned nbits = log2_floor(len - 2) - 1u;
  if (nbits < 1 || nbits > 5) reach_error(); // holds, proved
  unsigned code = (nbits << 1) + ((len - 2) >> nbits) + 2;
  if (code > 139) reach_error(); // holds, proved
  if (x >= 256) {
    if (__builtin_clz(x) > 23) reach_error(); // holds, proved
  }
  if (x != 0 && x <= 1000) {
    if (__builtin_ctz(x) > 9) reach_error(); // holds, proved
  }
  unsigned char byte = (unsigned char)x;
  if (__builtin_popcount(byte) > 8) reach_error(); // holds, proved
  if (x != 0 && __builtin_clz(x) == 31) reach_error(); // fails
  return 0;
}
