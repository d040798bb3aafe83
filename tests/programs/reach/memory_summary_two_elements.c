/* Two loads of one summary cell read two elements (soundness generator, seed 20059): with
   one value per summary cell, the first assertion made `a[2] == 0` a fact of the path and the
   second, on `a[1]`, was proved although `a[1] == 1`. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int k = __VERIFIER_nondet_int() - 1; /* 0 in the native run */
  if (k < 0 || k > 2) return 0;
  long long a[3] = {7, 1, 0};
  if (a[k] > 7) reach_error(); // holds, proved
  if (a[2] != 0) return 0;
  if (a[1] != 1) return 0;
  if (a[k] == 7) reach_error(); // fails
  return 0;
}
