/* Lookup tables of more distinct constants than a choice holds: a load at any index reads
   a value within the table's bounds, signed for `int` entries from -1 to 361, unsigned for
   `unsigned char` entries up to 250, and nothing tighter: the largest entry is read. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
static const int squares[20] = {-1, 1, 4, 9, 16, 25, 36, 49, 64, 81, 100, 121, 144, 169, 196, 225, 256, 289, 324, 361};
static const unsigned char steps[20] = {0, 12, 24, 36, 48, 60, 72, 84, 96, 108, 120, 132, 144, 156, 168, 180, 192, 204, 216, 250};
int main(void) {
  int k = __VERIFIER_nondet_int() + 18; /* 19 in the native run */
  if (k < 0 || k >= 20) return 0;
  int s = squares[k];
  if (s < -1 || s > 361) reach_error(); // holds, proved
  if (steps[k] > 250) reach_error(); // holds, proved
  if (s + steps[k] > 611) reach_error(); // holds, proved
  if (s == 361) reach_error(); // fails
  return 0;
}
