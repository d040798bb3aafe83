/* Foreign code calls back an external function of the program, which writes a static
   global and asserts. */
// native-with: static_global_setter_ext.c
extern void reach_error(void);
static int flag;
void set_flag(int x) {
  if (x == 3) reach_error(); // fails
  flag = 1;
}
extern void ext(void);
int main(void) {
  ext();
  if (flag) reach_error(); // fails
  return 0;
}
