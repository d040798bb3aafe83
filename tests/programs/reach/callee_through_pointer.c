/* Assertions of a function called only through a pointer: it is analyzed as an
   entry of its own with arbitrary arguments, so a violation there is confirmed only by a
   native run from `main` that reaches exactly that assertion, replayed strictly. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
static void visit(int x) {
  if ((x & 7) > 7) reach_error(); // holds, proved
  if (x == 3) reach_error(); // fails, violated
}
static void apply(void (*volatile g)(int), int v) { g(v); }
int main(void) {
  int n = __VERIFIER_nondet_int(); /* 1 natively */
  apply(visit, n + 2);
  return 0;
}
