/* Near miss of memory_array_contents_recurrence.c: the base is b[0] = 2, so every
   element is one more than i * i + i + 1 and the first comparison fails. */
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
    else a[i] = a[i - 1] + 2;
  }
  for (long long i = 0; i < n; i++) {
    if (i == 0) b[0] = 2;
    else b[i] = b[i - 1] + a[i - 1];
  }
  for (long long i = 0; i < n; i++)
    if (b[i] != i * i + i + 1) reach_error(); // fails, violated
  return 0;
}
