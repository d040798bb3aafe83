/* Convention functions the program defines are the program's functions:
 * this nondet function always returns 5, and this assumption function assumes nothing. */
extern void reach_error(void);
int __VERIFIER_nondet_int(void) { return 5; }
extern int polyfocus_nondet_int(void);
void __VERIFIER_assume(int c) { (void)c; }
void __VERIFIER_assert(int c) { if (!c) reach_error(); }
int main(void) {
  int x = __VERIFIER_nondet_int();
  __VERIFIER_assert(x == 5);        // holds, proved
  int y = polyfocus_nondet_int();
  __VERIFIER_assume(y > 0);
  __VERIFIER_assert(y > 0);         // fails
  return 0;
}
