/* Constructors run before main, destructors after. */
extern void reach_error(void);
int calls;
__attribute__((constructor)) static void init(void) {
  if (calls == 0) reach_error(); // fails
}
__attribute__((destructor)) static void fini(void) {
  if (calls == 0) reach_error(); // fails
}
int main(void) { return 0; }
