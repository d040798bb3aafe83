/* Arrays initialized by loops (segments of smashed arrays): a loop that stores a
   constant at increasing indices leaves a range of elements holding it, so a later read
   inside the range gives the constant; a loop that rewrites each element moves the ranges.
   Without the segments, every "holds" below is unknown (any element of a summary may be
   read). Natively every nondet input is 1: n = 4, k = j = 1. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int() + 3;
  if (n <= 0 || n > 1000) return 0;
  int k = __VERIFIER_nondet_int();
  if (k < 0 || k >= n) return 0;
  int a[1000];
  for (int i = 0; i < n; i++) a[i] = 7;
  if (a[k] != 7) reach_error(); // holds, proved
  for (int i = 0; i < n; i++) a[i] = a[i] + 1;
  if (a[k] != 8) reach_error(); // holds, proved
  /* Near miss: a store inside the range cuts it, d[k] is 5 now. */
  int d[1000];
  for (int i = 0; i < n; i++) d[i] = 7;
  d[k] = 5;
  int j = __VERIFIER_nondet_int();
  if (j < 0 || j >= n) return 0;
  if (d[j] != 7) reach_error(); // fails, violated
  return 0;
}
