/* At -O2, `c ? x + 1 : 0` becomes `select c, (add nsw x, 1), 0`: with c == 0 and
   x == INT_MAX the add overflows into an unused poison, which is no undefined behaviour
  . */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
extern void use(int);
int main(void) {
  int x = __VERIFIER_nondet_int();
  int c = __VERIFIER_nondet_int();
  int y = c ? x + 1 : 0;
  use(y);
  if (x == 2147483647) reach_error();          // fails
  return 0;
}
