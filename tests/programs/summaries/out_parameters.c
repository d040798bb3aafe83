// Summaries of what calls write through their pointer arguments: each call assumes the
// invariant at the callee's returns over its integer parameters, its result and the
// integers the objects of its pointer parameters hold at its entry and at its return. The
// runs of the annotations are tests/return_summaries.rs's, every function analyzed on its
// own: `on` and `off` (`-Z return-summaries`).
#include "polyfocus.h"
#include <stdlib.h>

// Each `void NAME(void)` reads two inputs and is an entry of its own for the analysis
// (`--entry`, see tests/return_summaries.rs); natively, `main` runs them all.

void two_bits(unsigned *val, unsigned reg) { *val = reg & 3u; }

// Moves `*pos` forward by `n` when `n` is within `[0, 1000]`; says whether it did.
int advance(int *pos, int n) {
  if (n < 0 || n > 1000)
    return 0;
  *pos += n;
  return 1;
}

struct cursor {
  int pos;
  int limit;
};

void clamp(struct cursor *c) {
  if (c->pos > c->limit)
    c->pos = c->limit;
}

// The last decimal digit of `x` into `*digit` when `x` is not negative (0), else -1 and
// `*digit` unchanged.
int last_digit(int *digit, int x) {
  if (x < 0)
    return -1;
  *digit = x % 10;
  return 0;
}

// Moves the cursor `*ip` past a length coded in bytes of 255 and a last byte, up to `end`.
unsigned skip_length(const unsigned char **ip, const unsigned char *end) {
  if (*ip == 0)
    abort();
  unsigned s, length = 0;
  do {
    s = **ip;
    (*ip)++;
    length += s;
  } while (s == 255 && *ip < end);
  return length;
}

void written_bits(void) {
  unsigned bits = 7;
  two_bits(&bits, (unsigned)polyfocus_nondet_int());
  (void)polyfocus_nondet_int();
  polyfocus_assert(bits <= 3); // holds, proved in on, unknown in off
  polyfocus_assert(bits == 0); // fails
}

void cursor_moves_forward(void) {
  int pos = 5;
  int ok = advance(&pos, polyfocus_nondet_int());
  (void)polyfocus_nondet_int();
  polyfocus_assert(pos >= 5); // holds, proved in on, unknown in off
  polyfocus_assert(!ok || pos <= 1005); // holds, proved in on, unknown in off
  polyfocus_assert(pos == 5); // fails
}

// A field the callee only reads bounds the one it writes.
void field_within_its_limit(void) {
  struct cursor c = {polyfocus_nondet_int(), polyfocus_nondet_int()};
  clamp(&c);
  polyfocus_assert(c.pos <= c.limit); // holds, proved in on, unknown in off
  polyfocus_assert(c.pos < c.limit); // fails
}

// What holds on one outcome only: a relation of the result, the argument and the digit
// says it (`x >= 0` exactly when 0 is returned).
void digit_on_success(void) {
  int digit = 20;
  int r = last_digit(&digit, polyfocus_nondet_int());
  (void)polyfocus_nondet_int();
  polyfocus_assert(r != 0 || digit < 10); // holds, proved in on, unknown in off
  polyfocus_assert(digit < 10); // fails
}

// The cursor the callee moves stays a pointer that is not NULL: the word of the pointer it
// stores (zero exactly when the pointer is NULL) is above zero, read unsigned.
void cursor_stays_valid(void) {
  unsigned char buf[4] = {255, (unsigned char)polyfocus_nondet_int(), 1, 2};
  (void)polyfocus_nondet_int();
  const unsigned char *ip = buf;
  skip_length(&ip, buf + 4);
  polyfocus_assert(ip != 0); // holds, proved in on, unknown in off
  polyfocus_assert(ip == buf); // fails
}

int main(void) {
  written_bits();
  cursor_moves_forward();
  field_within_its_limit();
  digit_on_success();
  cursor_stays_valid();
  return 0;
}
