/* The other translation unit of global_other_unit.c (native run only). */
extern int counter;
void bump(void) { counter++; }
