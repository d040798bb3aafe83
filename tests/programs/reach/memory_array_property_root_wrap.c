/* Near miss of the index roots of predicate segments: the address takes the
   index `(int)k` of a `long long k` that does not fit in an `int` (k = 2^32 + j stores
   element j), so the element holds 3 * (2^32 + j), not 3 * j: the property `b[(int)k] ==
   3 * k` read through the root `k` must not be taken as kept by these stores. Natively
   every nondet input is 1: n = 4. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
extern void *malloc(unsigned long);
int main(void) {
  int n = __VERIFIER_nondet_int() + 3;
  if (n <= 0 || n > 1000) return 0;
  long long *b = malloc(sizeof(long long) * (unsigned long)n);
  long long base = 4294967296LL;
  for (long long k = base; k < base + n; k++) b[(int)k] = 3 * k;
  for (long long k = 0; k < n; k++)
    if (b[(int)k] != 3 * k) reach_error(); // fails
  return 0;
}
