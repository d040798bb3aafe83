/* One memory error per input value, each on a line of its own marked by a comment: the
 * native replay of memory checks (built with the address sanitizer) must name its kind and
 * line. Input 0 returns with a block allocated and unreachable (a leak); input 9 overflows
 * a signed addition (UBSan's handler, not the sanitizer's). */
#include <stdlib.h>
#include <string.h>

extern int __VERIFIER_nondet_int(void);

int table[4];

int main(void) {
    char *p = malloc(10);
    char local[4];
    /* Through pointers: UBSan checks the subscripts of the arrays themselves. */
    char *on_stack = local;
    int *global = table;
    int *null = 0;
    int big = 2147483647;
    int x = __VERIFIER_nondet_int();
    if (x == 1)
        p[10] = 1; /* heap-overflow */
    if (x == 2)
        on_stack[x + 2] = 1; /* stack-overflow */
    if (x == 3)
        global[x + 1] = 1; /* global-overflow */
    if (x == 4)
        *null = 1; /* null-deref */
    if (x == 5) {
        free(p);
        return p[2]; /* use-after-free */
    }
    if (x == 6) {
        free(p);
        free(p); /* double-free */
    }
    if (x == 7)
        free(p + 1); /* bad-free */
    if (x == 8)
        memset(p, 0, 11); /* memset-overflow */
    if (x == 9)
        return big + x; /* overflow */
    if (x == 0)
        p = 0; /* leak */
    else
        free(p);
    return local[0] = 0;
}
