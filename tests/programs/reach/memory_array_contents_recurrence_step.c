/* Near miss of memory_array_contents_recurrence.c: a[i] = a[i - 1] + 3 from
   a[0] = 2 holds 3k + 2, so b holds (3k^2 + k + 2) / 2, which is i * i + i + 1 only at
   0 and 1 (n = 5 natively: b[2] = 8, not 7). */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
extern void *malloc(unsigned long);
int main(void) {
  int n = __VERIFIER_nondet_int() + 4;
  if (n <= 0 || n > 100000) return 0;
  long long *a = malloc(sizeof(long long) * (unsigned long)n);
  long long *b = malloc(sizeof(long long) * (unsigned long)n);
  for (long long i = 0; i < n; i++) {
    if (i == 0) a[0] = 2;
    else a[i] = a[i - 1] + 3;
  }
  for (long long i = 0; i < n; i++) {
    if (i == 0) b[0] = 1;
    else b[i] = b[i - 1] + a[i - 1];
  }
  for (long long i = 0; i < n; i++)
    if (b[i] != i * i + i + 1) reach_error(); // fails, violated
  return 0;
}
