// Pointers that are uninitialized on some path: a dereference through the indeterminate
// value (or a pointer walked from it) is undefined whatever the value; a pointer assigned
// on every path before its use is not.
extern int __VERIFIER_nondet_int(void);

static int length(const char *s) {
    int n = 0;
    while (s[n] != '\0') /* walk of the uninitialized pointer */
        n++;
    return n;
}

int main(void) {
    char buf[4];
    for (int i = 0; i < 4; i++)
        buf[i] = (char)__VERIFIER_nondet_int();
    char *assigned;
    char *never;
    int k = __VERIFIER_nondet_int();
    if (k > 0)
        assigned = buf;
    else
        assigned = buf + 1;
    int total = assigned[k & 1]; /* read through an assigned pointer */
    if (k == 7)
        total += length(never);
    return total;
}
