// A pointer walk to a value that no element may hold runs past the end of the array.
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
    while (*p != v[n - 1] + 1) /* read until a value maybe absent */
        p++;
    int at = (int)(p - v);
    free(v);
    return at;
}
