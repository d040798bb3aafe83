/* A length of type size_t near its maximum: the trace shows it unsigned. */
#include <assert.h>
#include <stddef.h>

size_t padded_len(size_t len) {
    if (len > ((size_t)1 << 63))
        assert(len < (size_t)-16);
    return len + 16;
}
