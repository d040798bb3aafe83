/* An empty error function: an optimizer deletes its calls (issue 12, class 4). */
extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x > 5) reach_error();                    // fails
  if (x > 5 && x < 3) reach_error();           // holds; proved by: all
  return 0;
}
