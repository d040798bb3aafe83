/* The client of table_of_functions.c (native run only). */
typedef int (*op)(int);
extern int (*const ops[1])(int);
op get_dec(void);
int main(void) { get_dec()(7); ops[0](5); return 0; }
