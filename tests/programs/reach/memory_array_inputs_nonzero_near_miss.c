/* Near miss of memory_array_inputs_nonzero.c: the second tile stores the input
   less one, which is 0 for the input 1 (natively every nondet input is 1), so the
   assertion fails. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
extern void *malloc(unsigned long);
void __VERIFIER_assert(int cond) {
  if (!cond) reach_error();
}
int main(void) {
  int n = __VERIFIER_nondet_int() + 5;
  if (n <= 1 || n >= 100000) return 0;
  if (n % 2 != 0) return 0;
  int *a = malloc(sizeof(int) * (unsigned long)n);
  for (int i = 1; i <= n / 2; i++) {
    int v = __VERIFIER_nondet_int();
    if (v != 0) a[2 * i - 2] = v; else a[2 * i - 2] = 10;
    v = __VERIFIER_nondet_int();
    if (v != 0) a[2 * i - 1] = v - 1; else a[2 * i - 1] = 10;
  }
  for (int i = 0; i < n; i++)
    __VERIFIER_assert(a[i] != 0); // fails
  return 0;
}
