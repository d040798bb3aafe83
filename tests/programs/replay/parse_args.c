/* A program that parses its first argument. */
#include <assert.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc < 2)
        return 1;
    int n = atoi(argv[1]);
    assert(n < 100);
    return 0;
}
