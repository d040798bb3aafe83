/* Near miss of memory_array_store_of_itself.c: `a[i - 1] = a[i - 1] - 1` is no store
   of the element's own value; natively a[0] == -1 and the assertion fails. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
void __VERIFIER_assert(int cond) {
  if (!cond) reach_error();
}
int main(void) {
  int n = __VERIFIER_nondet_int() + 9;
  if (n <= 1 || n > 100000) return 0;
  int a[n];
  for (int i = 0; i < n; i++) {
    a[i] = i;
    if (i > 0) a[i - 1] = a[i - 1] - 1;
  }
  for (int i = 0; i < n; i++)
    __VERIFIER_assert(a[i] >= i); // fails, violated
  return 0;
}
