/* A table defined `const` holds its initializer in every execution: no call of unknown
   code, store through an unknown pointer or call that writes through its arguments changes
   it (writing it is undefined behaviour, and it lies in read-only memory). A table that is
   not `const` holds what that code leaves. */
// native-with: constant_tables_scribble.c
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
extern void look(const unsigned char *table);
extern void scribble(unsigned char *table);
static const unsigned char SHIFTS[8] = {1, 1, 2, 2, 2, 2, 1, 2};
static unsigned char shifts[8] = {1, 1, 2, 2, 2, 2, 1, 2};
int main(void) {
  look(SHIFTS);
  scribble(shifts);
  unsigned c = (unsigned)__VERIFIER_nondet_int(); /* 1 natively */
  for (int round = 0; round < 8; round++) {
    unsigned s = SHIFTS[round];
    c = (c << s) | (c >> (28 - s));
    if (s < 1 || s > 2) reach_error(); // holds, proved
  }
  if (shifts[1] != 1) reach_error(); // fails, unknown
  return (int)(c & 1);
}
