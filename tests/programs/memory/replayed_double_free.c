/* A block freed twice when the input is 5: the memory check of the second `free` is
 * violated, with a counterexample replayed under the address sanitizer. */
#include <stdlib.h>

extern int __VERIFIER_nondet_int(void);

int main(void) {
    int n = __VERIFIER_nondet_int();
    char *p = malloc(8);
    if (!p)
        return 0;
    p[0] = 1;
    if (n == 5)
        free(p);
    free(p); /* invalid-free */
    return 0;
}
