/* A library: static functions reachable through an exported table and an exported getter. */
// native-with: table_of_functions_main.c
extern void reach_error(void);
static int inc(int x) {
  if (x == 5) reach_error(); // fails
  return x + 1;
}
static int dec(int x) {
  if (x == 7) reach_error(); // fails
  return x - 1;
}
int (*const ops[1])(int) = {inc};
typedef int (*op)(int);
op get_dec(void) { return dec; }
