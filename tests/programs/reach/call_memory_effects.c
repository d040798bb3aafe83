/* Calls of functions that are not inlined (recursive ones here) clobber only what their
   memory effects, as LLVM infers them, say they may write: nothing for a function that
   only reads, the objects its pointer arguments point into for one that writes only
   through them, and everything other code may reach for one that writes a global. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int total;
static int sum(const int *a, int n) { return n <= 0 ? 0 : a[n - 1] + sum(a, n - 1); }
static void fill(int *a, int n) {
  if (n <= 0) return;
  a[n - 1] = n;
  fill(a, n - 1);
}
static void count(int n) {
  if (n <= 0) return;
  total++;
  count(n - 1);
}
int main(void) {
  int n = __VERIFIER_nondet_int(); /* 1 natively */
  int kept = 7, other = 3, b[4];
  total = 5;
  int s = sum(&kept, 1);
  fill(b, 4);
  if (kept != 7) reach_error(); // holds, proved
  if (total != 5) reach_error(); // holds, proved
  if (s != 7) reach_error(); // holds, unknown
  fill(&other, 1);
  if (other != 1 && other != 3) reach_error(); // holds, unknown
  if (kept != 7) reach_error(); // holds, proved
  count(n);
  if (total != 5) reach_error(); // fails
  return 0;
}
