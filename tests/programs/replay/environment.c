/* A limit read from the environment, with a default when it is unset. */
#include <assert.h>
#include <stdlib.h>

int main(void) {
    const char *text = getenv("LIMIT");
    long limit = text ? strtol(text, NULL, 10) : 10;
    assert(limit <= 1000);
    return 0;
}
