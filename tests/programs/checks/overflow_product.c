/* A product of two variables: the polyhedra do not bound it (a product is any value of its
 * range), but the relational stage's template bounds do (the solver, which encodes the
 * product exactly, bounds the value `x * x` takes), so the check is proved. */
extern int __VERIFIER_nondet_int(void);

int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > -1000 && x < 1000)
    return x * x; // overflow: holds, proved
  return 0;
}
