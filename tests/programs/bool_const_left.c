/* Comparisons of a widened boolean with the constant on the left.
   Each assertion reads its own boolean: an execution that reaches an error ends there. */
extern _Bool __VERIFIER_nondet_bool(void);
extern void reach_error(void);
#define B __VERIFIER_nondet_bool()
int main(void) {
  _Bool a = B, b = B, c = B, d = B, e = B, f = B;
  if (0u <= (unsigned)a) { if (a) reach_error(); }             // fails
  if (!(0 > (int)b)) { if (!b) reach_error(); }                // fails
  if (0 < (int)c) { if (!c) reach_error(); }                   // holds, proved in classic-poly focus-interval focus-poly
  if (0u >= (unsigned)d) { if (d) reach_error(); }             // holds, proved in classic-poly focus-interval focus-poly
  if (0 != (int)(signed char)e) { if (!e) reach_error(); }     // holds, proved in classic-poly focus-interval focus-poly
  if (0u < (unsigned)(signed char)f) { if (f) reach_error(); } // fails
  return 0;
}
