// Pointers into two distinct live objects are unequal while each points inside its
// object; one past the end of one may be the start of another, and a freed object's
// address may be given again, so those comparisons stay open.
#include <assert.h>
#include <stdlib.h>
extern int __VERIFIER_nondet_int(void);

int g[4];

int main(void) {
    int local[3];
    char *p = malloc(16);
    char *q = malloc(24);
    int k = __VERIFIER_nondet_int();
    if (k < 0 || k >= 16)
        k = 0;
    assert(p + k != q); /* inside two live objects */
    assert((void *)local != (void *)g); /* a local and a global */
    int met = 0;
    if (p + 16 == q) /* one past the end */
        met = 1;
    free(p);
    char *r = malloc(16);
    if (p == r) /* a freed object's address */
        met = 2;
    assert(met != 2); /* the address may be reused */
    free(q);
    free(r);
    return local[0] + g[0] - local[0];
}
