/* Copies between arrays (copy segments and memoized loads): a loop that copies
   a[i] into b[i] leaves a range of b whose elements equal a's at the same index, so a
   later b[k] inside it reads what a[k] reads; a chain of copies reads through both.
   Without them every "holds" below is unknown (two loads of summaries are two unrelated
   choices). Natively every nondet input is 1: n = 4, k = 1. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int() + 3;
  if (n <= 0 || n > 1000) return 0;
  int a[1000], b[1000], c[1000];
  for (int i = 0; i < n; i++) a[i] = __VERIFIER_nondet_int();
  for (int i = 0; i < n; i++) b[i] = a[i];
  for (int i = 0; i < n; i++) c[i] = b[i];
  int k = __VERIFIER_nondet_int();
  if (k < 0 || k >= n) return 0;
  if (a[k] != b[k]) reach_error(); // holds, proved
  if (c[k] != a[k]) reach_error(); // holds, proved
  /* Near miss: the source changes after the copy. */
  a[k] = a[k] ^ 1;
  if (a[k] != c[k]) reach_error(); // fails, violated
  return 0;
}
