/* Content segments over `int` elements and an `int` index: the offset is
   `sext(i) << 2`, exactly the index, and the polynomials are read modulo 2^32. The second
   loop subtracts what the first stored but for the constant 7, which a load inside the
   segment then reads. Natively every nondet input is 1: n = 5. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
extern void *malloc(unsigned long);
int main(void) {
  int n = __VERIFIER_nondet_int() + 4;
  if (n <= 0 || n > 1000) return 0;
  int *b = malloc(sizeof(int) * (unsigned long)n);
  for (int i = 0; i < n; i++) b[i] = 3 * i + 7;
  for (int i = 0; i < n; i++) b[i] = b[i] - 3 * i;
  for (int i = 0; i < n; i++)
    if (b[i] != 7) reach_error(); // holds, proved
  return 0;
}
