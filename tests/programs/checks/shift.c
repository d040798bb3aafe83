/* Runtime checks of shift amounts: an amount, read unsigned, not less than the
 * width misbehaves (so does a negative one). */
extern int __VERIFIER_nondet_int(void);
extern unsigned int __VERIFIER_nondet_uint(void);

int main(void) {
  int s = __VERIFIER_nondet_int();
  int x = __VERIFIER_nondet_int();
  int n = __VERIFIER_nondet_int();
  unsigned int u = __VERIFIER_nondet_uint();
  if (s == 0 && n >= 0 && n < 31)
    return 1 << n; // shift: holds, proved
  if (s == 1 && n >= 0 && n <= 31)
    return (int)(u >> n); // shift: holds, proved
  if (s == 2 && n >= 0 && n <= 32)
    return (int)(u >> n); // shift: fails, violated
  if (s == 3 && n < 5)
    return x >> n; // shift: fails, violated
  return 0;
}
