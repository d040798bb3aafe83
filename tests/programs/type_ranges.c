#include "polyfocus.h"

int main(void) {
    int key = polyfocus_nondet_int();
    unsigned u = polyfocus_nondet_uint();
    int lo = 0;
    for (int i = 0; i < 10; i++) {
        lo = lo + 2;
        u = u / 2;
    }
    polyfocus_assert(lo == 20);
    polyfocus_assert(key != 7 || lo > 0);
    return 0;
}
