/* An empty error function: an optimizer deletes its calls. */
extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 5) reach_error();                    // fails
  if (x > 5 && x < 3) reach_error();           // holds, proved
  return 0;
}
