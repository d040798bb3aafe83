/* A recursive callee is analyzed on its own (with arbitrary arguments): its overflow is
 * refuted by native runs of the program from `main` that stop at that very operation. */
extern int __VERIFIER_nondet_int(void);

int count(int m, int n) {
  if (n <= 0)
    return m;
  int rest = n - 1; // overflow: holds, proved
  return count(m + 1, rest); // overflow: fails, violated
}

int main(void) {
  int m = __VERIFIER_nondet_int();
  int n = __VERIFIER_nondet_int();
  if (n > 10)
    return 0;
  return count(m, n);
}
