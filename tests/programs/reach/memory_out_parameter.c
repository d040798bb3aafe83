/* Out-parameters of a callee that stay in memory (the array is indexed at a variable
   offset), and a local whose address escapes, written back after the call. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
extern void observe(const int *p);
// native-with: memory_out_parameter_observe.c
static void fill(int *out, int n) {
  for (int i = 0; i < n; i++) out[i] = 7;
}
int main(void) {
  int a[8];
  int n = __VERIFIER_nondet_int();
  if (n < 1 || n > 8) return 0;
  a[0] = 7;
  fill(a, n);
  int k = __VERIFIER_nondet_int() - 1;
  if (k < 0 || k >= n) return 0;
  int seen = 1;
  observe(&seen);
  seen = 2;
  if (seen != 2) reach_error(); // holds, proved
  if (a[k] == 7) reach_error(); // fails
  return 0;
}
