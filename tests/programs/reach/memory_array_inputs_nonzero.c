/* Inputs stored only when they are not 0 (array-tiling/pnr3.c): each element is
   an input when it is not 0, else 10, so `a[i] != 0` holds everywhere. A constant segment
   cannot say it (the inputs are not constants): `x != k` is a predicate segment when a
   value that is not a constant is stored. Natively every nondet input is 1: n = 6. */
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
    if (v != 0) a[2 * i - 1] = v; else a[2 * i - 1] = 10;
  }
  for (int i = 0; i < n; i++)
    __VERIFIER_assert(a[i] != 0); // holds, proved
  return 0;
}
