/* A loop that writes one element past a heap block: the memory check of the write is
 * violated, with a counterexample replayed under the address sanitizer. */
#include <stdlib.h>

extern int __VERIFIER_nondet_int(void);

int main(void) {
    int n = __VERIFIER_nondet_int();
    if (n < 1 || n > 100)
        return 0;
    int *a = malloc(n * sizeof(int));
    if (!a)
        return 0;
    for (int i = 0; i <= n; i++)
        a[i] = i; /* out-of-bounds */
    free(a);
    return 0;
}
