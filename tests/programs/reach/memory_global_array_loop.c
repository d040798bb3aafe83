/* A global array written in a loop at a variable index: one summary cell. A load
   of it reads any element: a choice among the constants some element may hold (the
   initializer's zero, the table's 5, 6, 7), or anything once a non-constant is stored
   (`g[i] = i`), so the first assertion is not annotated: it holds, but the summary cannot
   show it (it was proved while loads of a summary cell all read one element, unsoundly). */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int g[10];
const int table[3] = {5, 6, 7};
int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 10) return 0;
  for (int i = 0; i < n; i++) g[i] = i;
  int k = __VERIFIER_nondet_int();
  if (k < 0 || k >= 10) return 0;
  if (g[k] < 0 || g[k] > 9) reach_error();
  int local[3] = {1, 2, 3};
  if (local[k % 3] > 3) reach_error(); // holds, proved
  if (table[k % 3] < 5) reach_error(); // holds, proved
  if (g[k] != k) reach_error(); // fails
  return 0;
}
