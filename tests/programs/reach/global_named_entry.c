/* A library function may be called any number of times: its globals are arbitrary. */
// entry: f
// native-with: global_named_entry_main.c
extern void reach_error(void);
int calls;
void f(void) {
  if (calls == 1) reach_error(); // fails
  calls++;
}
