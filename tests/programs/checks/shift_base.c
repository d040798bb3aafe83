/* Runtime checks of the base of a signed left shift, as UBSan's shift-base checks it in C:
 * a negative base, or a result not representable in the promoted type (a one shifted into
 * the sign bit included), misbehaves; unsigned shifts have no base to check. */
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);
extern unsigned char __VERIFIER_nondet_uchar(void);

int main(void) {
  int s = __VERIFIER_nondet_int();
  int x = __VERIFIER_nondet_int();
  int n = __VERIFIER_nondet_int();
  unsigned int u = __VERIFIER_nondet_uint();
  unsigned char c = __VERIFIER_nondet_uchar();
  if (s == 0 && x >= 0 && x <= 1000)
    return x << 3; // shift: holds, proved
  if (s == 1 && n >= 0 && n < 32)
    return (int)(u << n); // shift: holds, proved (unsigned: the amount only)
  if (s == 2)
    return (int)(1u << 31); // shift: no check (unsigned, constant amount)
  if (s == 3 && x == -1)
    return x << 3; // shift: fails, violated (a negative base)
  if (s == 4 && x == 1)
    return x << 31; // shift: fails, violated (a one into the sign bit)
  if (s == 5 && c == 128)
    return c << 24; // shift: fails, violated (promoted to int)
  if (s == 6)
    return x << 2; // shift: fails, violated (an input without bounds)
  if (s == 7 && n >= 0 && n < 31)
    return 1 << n; // shift: holds, proved
  if (s == 8 && n >= 0 && n < 32)
    return 1 << n; // shift: fails, violated
  if (s == 9 && x >= 0 && x <= 0x3fffffff)
    return x << 1; // shift: holds, proved (the largest base that fits)
  if (s == 10 && x >= 0 && x <= 0x40000000)
    return x << 1; // shift: fails, violated
  return 0;
}
