/* An error function called through a pointer: the indirect call is an error site. */
// reason: whose address escapes
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
static void ok(void) {}
int main(void) {
  void (*f)(void) = __VERIFIER_nondet_int() ? reach_error : ok;
  f(); // fails
  return 0;
}
