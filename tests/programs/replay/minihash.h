/* A small hashing library written like xxHash: its internal functions are `static inline`
 * in the header, its public functions have prototypes of their own. */
#ifndef MINIHASH_H
#define MINIHASH_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#define MH_PRIME 0x9E3779B1u

uint32_t minihash(const void *data, size_t len, uint32_t seed);
uint32_t minihash_wide(const void *data, size_t len, uint32_t seed);

static inline uint32_t mh_read32(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static inline uint32_t mh_round(uint32_t acc, uint32_t lane) {
    acc += lane * MH_PRIME;
    return (acc << 13) | (acc >> 19);
}

/* The bytes after the last lane: fewer than a lane of four. */
static inline uint32_t mh_tail(const unsigned char *p, size_t rem, uint32_t acc) {
    assert(rem < 4);
    while (rem--)
        acc = mh_round(acc, *p++);
    return acc;
}

static inline uint32_t mh_hash_internal(const unsigned char *p, size_t len, uint32_t seed,
                                        size_t stripe) {
    uint32_t acc = seed + MH_PRIME;
    size_t n_stripes = len / stripe;
    for (size_t i = 0; i < n_stripes; i++)
        acc = mh_round(acc, mh_read32(p + i * stripe));
    return mh_tail(p + n_stripes * stripe, len - n_stripes * stripe, acc);
}

#endif
