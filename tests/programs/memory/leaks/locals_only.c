// No object of the heap: memory on the stack only (`alloca`, locals). Nothing can leak,
// and the report says that its leak checks (none) cover the whole program.
extern int __VERIFIER_nondet_int(void);

int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n < 1 || n > 100)
    n = 1;
  int *a = __builtin_alloca(n * sizeof(int));
  int b[4] = {0};
  for (int i = 0; i < n; i++)
    a[i] = b[i % 4];
  return a[n - 1];
}
