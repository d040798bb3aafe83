// A zero-terminated buffer whose terminator the program stores itself, walked by a
// length loop: every access stays inside the buffer.
extern int __VERIFIER_nondet_int(void);
extern char __VERIFIER_nondet_char(void);

int main(void) {
    int size = __VERIFIER_nondet_int();
    if (size < 1)
        return 0;
    char *text = __builtin_alloca(size);
    for (int i = 0; i < size - 1; i++)
        text[i] = __VERIFIER_nondet_char();
    text[size - 1] = '\0';
    int n = 0;
    while (text[n] != '\0')
        n++;
    return n;
}
