// A pointer walk that stops at the first element equal to the last one: it never passes
// the last element, since there both reads read the same element.
#include <stdlib.h>
extern int __VERIFIER_nondet_int(void);

int main(void) {
    int n = __VERIFIER_nondet_int();
    if (n < 1 || n > 1000)
        return 0;
    int *v = malloc(n * sizeof(int));
    for (int k = 0; k < n; k++)
        v[k] = __VERIFIER_nondet_int();
    int *p = v;
    while (*p != v[n - 1]) /* read until the last element's value */
        p++;
    int at = (int)(p - v);
    free(v);
    return at;
}
