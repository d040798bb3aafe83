/* A local whose address is given to code without a body may be written by it: its value
   after the call is unknown. */
// native-with: memory_escaped_write_set.c
extern void reach_error(void);
extern void set_it(int *p);
int main(void) {
  int e = 5;
  int kept = 4;
  set_it(&e);
  if (kept != 4) reach_error(); // holds, proved
  if (e != 5) reach_error(); // fails
  return 0;
}
