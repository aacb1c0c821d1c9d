/* Small, fast, portable RNG kept inside the game state (one 64-bit word).
 * SplitMix64 (Steele, Lea, Flood 2014): passes BigCrush, one add + mix per draw,
 * and every seed is a valid state, so a copied state replays identically. */
#ifndef GLORY_RNG_H
#define GLORY_RNG_H
#include <stdint.h>

static inline uint64_t gr_rng_next(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform integer in [0, n), n >= 1 (Lemire's multiply-shift with rejection). */
static inline uint32_t gr_rng_below(uint64_t *state, uint32_t n) {
    uint64_t m = (uint64_t)(uint32_t)gr_rng_next(state) * (uint64_t)n;
    uint32_t low = (uint32_t)m;
    if (low < n) {
        uint32_t threshold = (uint32_t)(-n) % n;
        while (low < threshold) {
            m = (uint64_t)(uint32_t)gr_rng_next(state) * (uint64_t)n;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* Mix a user seed so that nearby seeds give unrelated streams. */
static inline uint64_t gr_rng_seed(uint64_t seed) {
    uint64_t s = seed ^ 0x6A09E667F3BCC909ULL;
    return gr_rng_next(&s);
}

#endif
