/* Two pointer parameters of a library entry may point to the same object: a store through
   one may change what the other reads. */
// entry: both
extern void reach_error(void);
int both(int *p, int *q) {
  *p = 1;
  *q = 2;
  if (*p != 1) reach_error(); // fails
  return 0;
}
int main(void) {
  int x;
  return both(&x, &x);
}
