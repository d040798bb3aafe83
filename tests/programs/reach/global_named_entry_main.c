/* The client of global_named_entry.c (native run only). */
void f(void);
int main(void) { f(); f(); return 0; }
