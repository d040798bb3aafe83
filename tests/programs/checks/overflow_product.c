/* A product of two variables: the polyhedra do not bound it (a product is any value of its
 * range), so the check stays unknown though it holds. */
extern int __VERIFIER_nondet_int(void);

int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > -1000 && x < 1000)
    return x * x; // overflow: unknown (FIXME: holds; needs interval products)
  return 0;
}
