// Relational congruences: relations modulo 2, 4 and 2^32 between values that the polyhedra
// lose, next to near misses that wrap-around or a different parity breaks. The runs of the
// annotations are tests/congruences.rs's: `on` and `off` (`-Z relational-congruences`).
#include "polyfocus.h"

// Each function reads two inputs (w, n) and is an entry of its own for the analysis
// (`--entry`, see tests/congruences.rs); natively, `main` runs them all.

// ikos 02's shape: x and y stay equal because z stays odd, and z's parity stays odd
// because x + y is even (z += x + y + w, w even).
void parity_couples(void) {
  (void)polyfocus_nondet_int();
  int n = polyfocus_nondet_int();
  polyfocus_assume(n >= 0 && n <= 1000);
  int z = 1, x = 0, y = 0, w = 0;
  for (int i = 0; i < n; i++) {
    z += x + y + w;
    y++;
    if (z % 2 == 1)
      x++;
    w += 2;
  }
  polyfocus_assert(x == y); // holds, proved in on, unknown in off
}

// The same loop from an even z: the first test fails, x falls behind.
void parity_differs(void) {
  (void)polyfocus_nondet_int();
  int n = polyfocus_nondet_int();
  polyfocus_assume(n >= 0 && n <= 1000);
  int z = 2, x = 0, y = 0, w = 0;
  for (int i = 0; i < n; i++) {
    z += x + y + w;
    y++;
    if (z % 2 == 1)
      x++;
    w += 2;
  }
  polyfocus_assert(x == y); // fails
}

// Two unsigned counters from one arbitrary start, incremented together: equal modulo
// 2^32 even when both wrap, hence equal (loop-invariants/eq2).
void equal_modulo_two_to_the_32(void) {
  unsigned w = (unsigned)polyfocus_nondet_int();
  int n = polyfocus_nondet_int();
  polyfocus_assume(n >= 0 && n <= 1000);
  unsigned y = w + 1;
  unsigned z = w;
  z++;
  for (int i = 0; i < n; i++) {
    y++;
    z++;
  }
  polyfocus_assert(y == z); // holds, proved in on, unknown in off
}

// A 64-bit copy does not wrap with the 32-bit counter (w = 0xffffffff, one step).
void wider_copy_does_not_wrap(void) {
  unsigned w = (unsigned)polyfocus_nondet_int();
  int n = polyfocus_nondet_int();
  polyfocus_assume(n >= 0 && n <= 1000);
  unsigned y = w;
  unsigned long long z = w;
  for (int i = 0; i < n; i++) {
    y++;
    z++;
  }
  polyfocus_assert(y == z); // fails
}

// s = 2x modulo 2^32 from an arbitrary start (2*w wraps): the product wraps the same way.
void doubled_counter(void) {
  unsigned w = (unsigned)polyfocus_nondet_int();
  int n = polyfocus_nondet_int();
  polyfocus_assume(n >= 0 && n <= 1000);
  unsigned x = w, s = 2 * w;
  for (int i = 0; i < n; i++) {
    s += 2;
    x++;
  }
  polyfocus_assert(s == x * 2); // holds, proved in on, unknown in off
}

// An 8-bit counter wraps at 256, the 32-bit sum does not.
void doubled_narrow_counter(void) {
  unsigned w = (unsigned)polyfocus_nondet_int();
  int n = polyfocus_nondet_int();
  polyfocus_assume(n >= 0 && n <= 1000);
  unsigned char x = (unsigned char)w;
  unsigned s = 2 * (unsigned)x;
  for (int i = 0; i < n; i++) {
    s += 2;
    x++;
  }
  polyfocus_assert(s == x * 2u); // fails
}

// A multiple of 4 stays one under unsigned += 4: 4 divides 2^32.
void stride_four_survives_wrap(void) {
  unsigned w = (unsigned)polyfocus_nondet_int();
  int n = polyfocus_nondet_int();
  polyfocus_assume(n >= 0 && n <= 1000);
  unsigned u = w - w % 4;
  for (int i = 0; i < n; i++)
    u += 4;
  polyfocus_assert(u % 4 == 0); // holds, proved in on, unknown in off
}

// A multiple of 3 does not: 4294967295 + 3 wraps to 2.
void stride_three_breaks_under_wrap(void) {
  unsigned w = (unsigned)polyfocus_nondet_int();
  int n = polyfocus_nondet_int();
  polyfocus_assume(n >= 0 && n <= 1000);
  unsigned u = w - w % 3;
  for (int i = 0; i < n; i++)
    u += 3;
  polyfocus_assert(u % 3 == 0); // fails
}

// C's % of a negative number is negative: an odd negative z has z % 2 == -1, so the
// counters part when z may be negative.
void negative_remainder(void) {
  int z0 = polyfocus_nondet_int();
  int n = polyfocus_nondet_int();
  polyfocus_assume(n >= 0 && n <= 1000);
  int z = z0 | 1, x = 0, y = 0;
  for (int i = 0; i < n; i++) {
    y++;
    if (z % 2 == 1)
      x++;
    z += 2;
  }
  polyfocus_assert(x == y); // fails
}

int main(void) {
  parity_couples();
  parity_differs();
  equal_modulo_two_to_the_32();
  wider_copy_does_not_wrap();
  doubled_counter();
  doubled_narrow_counter();
  stride_four_survives_wrap();
  stride_three_breaks_under_wrap();
  negative_remainder();
  return 0;
}
