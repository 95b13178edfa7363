/* FNV-1a 64-bit hashing of byte strings and of numbers in a fixed little-endian byte order, so
 * that a hash does not depend on the machine's endianness. Used by cm_data_hash and the
 * checkpoint checksum. Not installed. */
#ifndef CM_HASH_H
#define CM_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CM_FNV_OFFSET 0xcbf29ce484222325ULL
#define CM_FNV_PRIME 0x100000001b3ULL

/* continue hash h over n bytes */
static inline uint64_t cm_fnv1a(uint64_t h, const void* data, size_t n) {
  const unsigned char* p = (const unsigned char*)data;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= CM_FNV_PRIME;
  }
  return h;
}

/* continue hash h over the 8 bytes of x, least significant first */
static inline uint64_t cm_fnv1a_u64(uint64_t h, uint64_t x) {
  for (int i = 0; i < 8; i++) {
    h ^= (x >> (8 * i)) & 0xffu;
    h *= CM_FNV_PRIME;
  }
  return h;
}

/* the IEEE-754 bit pattern of x (so -0.0 and 0.0 differ, and every NaN payload counts) */
static inline uint64_t cm_double_bits(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

static inline double cm_bits_double(uint64_t u) {
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}

#endif
