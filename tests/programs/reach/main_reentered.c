/* Foreign code may call main again: a static global keeps its value across the calls. */
// native-with: main_reentered_ext.c
extern void reach_error(void);
extern void again(void);
static int runs;
int main(void) {
  if (runs == 1) reach_error(); // fails
  runs = 1;
  again();
  return 0;
}
