#include "polyfocus.h"

struct counter { int hits; int misses; };

int main(void) {
    struct counter st = {0, 0};
    int n = polyfocus_nondet_int();
    polyfocus_assume(n >= 0);
    polyfocus_assume(n <= 1000);
    for (int i = 0; i < n; i++) {
        if (polyfocus_nondet_int()) st.hits++; else st.misses++;
    }
    polyfocus_assert(st.hits + st.misses == n);
    return 0;
}
