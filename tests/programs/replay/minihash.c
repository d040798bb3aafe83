/* The library's public functions. `minihash_wide` reads lanes of eight bytes, so its tail
 * can hold up to seven bytes, which `mh_tail` does not expect: a bug. */
#include "minihash.h"

uint32_t minihash(const void *data, size_t len, uint32_t seed) {
    return mh_hash_internal((const unsigned char *)data, len, seed, 4);
}

uint32_t minihash_wide(const void *data, size_t len, uint32_t seed) {
    return mh_hash_internal((const unsigned char *)data, len, seed, 8);
}
