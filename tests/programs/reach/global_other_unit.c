/* A global with external linkage written by a function of another translation unit. */
// native-with: global_other_unit_bump.c
extern void reach_error(void);
int counter;
extern void bump(void);
int main(void) {
  bump();
  if (counter == 1) reach_error(); // fails
  return 0;
}
