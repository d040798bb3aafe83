/* A copy that skips one index (issue 15, the second copy segment of `memory/copies.rs` and
   the phase predicates of `i != z`): the shape of sv-benchmarks' copysome1. After
   `if (i != z) b[i] = a[i];` over the whole array, b equals a everywhere but at z: the
   first copy segment is [0, 4z) and the second [4z + 4, 4n), each affine in the loop
   counter on its side of z, so that refinement's phase split `i <= z` keeps both exact.
   The fill loop's inputs are equal only by chance, which is no copy. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int a[1000], b[1000];
  int z = 600;
  for (int i = 0; i < 1000; i++) {
    a[i] = __VERIFIER_nondet_int();
    b[i] = __VERIFIER_nondet_int();
  }
  for (int i = 0; i < 1000; i++)
    if (i != z)
      b[i] = a[i];
  for (int x = 0; x < 1000; x++)
    if (x != z)
      if (a[x] != b[x]) reach_error(); // holds
  return 0;
}
