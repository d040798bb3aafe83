// Summaries of what functions that stay calls return: each call assumes the invariant at
// the callee's returns over its integer parameters, its result and the integers it leaves
// where its out-parameters point. The runs of the
// annotations are tests/return_summaries.rs's, every function analyzed on its own:
// `on` and `off` (`-Z return-summaries`).
#include "polyfocus.h"

// Each `void NAME(void)` reads two inputs and is an entry of its own for the analysis
// (`--entry`, see tests/return_summaries.rs); natively, `main` runs them all.

int low_bit(int x) { return x & 1; }

int smaller(int a, int b) { return a < b ? a : b; }

// A callee that calls another: its summary rests on the summary of `smaller`.
int smallest(int a, int b, int c) { return smaller(smaller(a, b), c); }

// The index of `key` in `a[0..n)`, or -1.
int find(const int *a, int n, int key) {
  for (int i = 0; i < n; i++)
    if (a[i] == key)
      return i;
  return -1;
}

unsigned low_byte(unsigned x) { return x & 255u; }

long sum(long a, long b) { return a + b; }

void result_is_a_bit(void) {
  int x = polyfocus_nondet_int();
  (void)polyfocus_nondet_int();
  int b = low_bit(x);
  polyfocus_assert(b == 0 || b == 1); // holds, proved in on, unknown in off
  polyfocus_assert(b == 0); // fails
}

void minimum_of_two(void) {
  int a = polyfocus_nondet_int();
  int b = polyfocus_nondet_int();
  int m = smaller(a, b);
  polyfocus_assert(m <= a && m <= b); // holds, proved in on, unknown in off
  polyfocus_assert(m < a); // fails
}

void minimum_of_three(void) {
  int a = polyfocus_nondet_int();
  int b = polyfocus_nondet_int();
  int m = smallest(a, b, 7);
  polyfocus_assert(m <= 7); // holds, proved in on, unknown in off
  polyfocus_assert(m < 7); // fails
}

void index_within_the_length(void) {
  int a[8] = {3, 1, 4, 1, 5, 9, 2, 6};
  int key = polyfocus_nondet_int();
  (void)polyfocus_nondet_int();
  int i = find(a, 8, key);
  polyfocus_assert(i >= -1); // holds, proved in on, unknown in off
  // `find` returns -1 for any `n <= 0` too: no convex relation of `n` bounds its result.
  polyfocus_assert(i < 8); // holds, unknown
  polyfocus_assert(i >= 0); // fails
}

void unsigned_result_in_range(void) {
  unsigned x = (unsigned)polyfocus_nondet_int();
  (void)polyfocus_nondet_int();
  unsigned r = low_byte(x);
  polyfocus_assert(r < 256); // holds, proved in on, unknown in off
  polyfocus_assert(r < 255); // fails
}

// `r == a + b` over 64-bit values may wrap in the lifter's evaluation: no clause says it.
void wide_sum_has_no_clause(void) {
  long a = polyfocus_nondet_int();
  long b = polyfocus_nondet_int();
  long s = sum(a, b);
  polyfocus_assert(s == a + b); // holds, unknown
}

// Out-parameters: what a function leaves where a pointer parameter points, related to
// its result, is assumed of what the caller reads there after the call.

// Clamps the int `v` points to into [0, 100], and returns it.
int clamp_percent(int *v) {
  int x = *v;
  if (x < 0)
    x = 0;
  if (x > 100)
    x = 100;
  *v = x;
  return x;
}

// Stores the low four bits of `x` where `val` points when `avail` covers them, and says
// whether it did; `*val` is left as it was when not.
int take_bits(unsigned avail, unsigned *val, unsigned x) {
  if (avail < 4)
    return 0;
  *val = x & 15u;
  return 1;
}

void out_parameter_in_range(void) {
  int x = polyfocus_nondet_int();
  (void)polyfocus_nondet_int();
  clamp_percent(&x);
  polyfocus_assert(x >= 0 && x <= 100); // holds, proved in on, unknown in off
  polyfocus_assert(x < 100); // fails
}

// Only the result tells whether `bits` was written: the summary relates the two.
void out_parameter_when_the_call_succeeds(void) {
  unsigned bits = 0;
  int avail = polyfocus_nondet_int();
  int x = polyfocus_nondet_int();
  if (!take_bits((unsigned)avail, &bits, (unsigned)x))
    return;
  polyfocus_assert(bits < 16); // holds, proved in on, unknown in off
  polyfocus_assert(bits < 15); // fails
}

int main(void) {
  result_is_a_bit();
  minimum_of_two();
  minimum_of_three();
  index_within_the_length();
  unsigned_result_in_range();
  wide_sum_has_no_clause();
  out_parameter_in_range();
  out_parameter_when_the_call_succeeds();
  return 0;
}
