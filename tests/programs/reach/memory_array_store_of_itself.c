/* A store of the value an element holds: `a[i - 1] = a[i - 1]` changes no byte of
   memory, so the range filled so far keeps its property (`ssa.rs` drops the store). Natively
   n = 10 and every element is its index. The near miss writes the element one past it. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
void __VERIFIER_assert(int cond) {
  if (!cond) reach_error();
}
int main(void) {
  int n = __VERIFIER_nondet_int() + 9;
  if (n <= 1 || n > 100000) return 0;
  int a[n];
  int b[n];
  for (int i = 0; i < n; i++) {
    a[i] = i;
    if (i > 0) a[i - 1] = a[i - 1];
  }
  for (int i = 0; i < n; i++)
    __VERIFIER_assert(a[i] >= i); // holds, proved
  for (int i = 0; i < n; i++) {
    b[i] = i;
    if (i > 0) b[i - 1] = b[i];
  }
  for (int i = 0; i < n; i++)
    __VERIFIER_assert(b[i] >= i); // holds, proved
  return 0;
}
