/* Functions nothing calls: their assertions hold, and are reported, not skipped. */
extern void reach_error(void);
static void check(int x) {
  if (x == 3) reach_error(); // holds, proved
}
void helper(int x) {
  check(x);
  if (x == 4) reach_error(); // holds, proved
}
int main(void) { return 0; }
