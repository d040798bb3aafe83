/* Requirements passed on through callers: a helper needs `n` bytes at `buf`, a `static`
   function passes its own parameters on, and its only caller gives local arrays large
   enough. The same helper reached from a function visible outside, which passes on its
   caller's length, keeps its precondition. */

static void clear(unsigned char *buf, int n) {
    for (int i = 0; i < n; i++)
        buf[i] = 0; /* a buffer passed on by a static caller */
}

static void clear_twice(unsigned char *buf, int n) {
    clear(buf, n);
    clear(buf, n / 2);
}

int reset(void) {
    unsigned char small[16], large[64];
    clear_twice(small, 16);
    clear_twice(large, 40);
    return small[3] + large[39];
}

static void fill(unsigned char *buf, int n) {
    for (int i = 0; i < n; i++)
        buf[i] = 1; /* a length from outside */
}

static void fill_all(unsigned char *buf, int n) {
    fill(buf, n);
}

void fill_exported(unsigned char *buf, int n) {
    fill_all(buf, n);
}
