/* Pairs of arrays through pointer parameters: `fill` keeps b[i] == a[i] + 1 when
   `a` and `b` are two arrays, but its caller may pass the same array twice, and then the
   second store overwrites the first (natively: a == b, so b[0] == a[0] and the assertion
   fails). A store through one parameter empties the segments of the other's object, and
   two bases that may be one object get no pair segment at all. */
// entry: fill
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
void __VERIFIER_assert(int cond) {
  if (!cond) reach_error();
}
void fill(int *a, int *b, int n) {
  if (n <= 0 || n > 1000) return;
  for (int i = 0; i < n; i++) {
    int k = __VERIFIER_nondet_int() + i;
    if (k < 0 || k > 1000) k = 0;
    a[i] = k;
    b[i] = k + 1;
  }
  for (int i = 0; i < n; i++)
    __VERIFIER_assert(b[i] == a[i] + 1); // fails
}
int main(void) {
  int x[10];
  fill(x, x, 10);
  return 0;
}
