/*
 * Byte order: ntoh16/ntoh32 (hton16/hton32) between network (big-endian)
 * and host order, and get16/get32/put16/put32, big-endian loads and stores
 * at any alignment. __builtin_memcpy of a constant size compiles to one
 * move (-ffreestanding keeps plain memcpy a call).
 */
#ifndef NET_BYTES_H
#define NET_BYTES_H
#include <stdint.h>

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ntoh16(x) __builtin_bswap16(x)
#define ntoh32(x) __builtin_bswap32(x)
#else
#define ntoh16(x) ((uint16_t)(x))
#define ntoh32(x) ((uint32_t)(x))
#endif
#define hton16 ntoh16
#define hton32 ntoh32

/* The big-endian 16-bit value at p. */
static inline uint16_t get16(const uint8_t *p)
{
	uint16_t x;
	__builtin_memcpy(&x, p, 2);
	return ntoh16(x);
}

/* The big-endian 32-bit value at p. */
static inline uint32_t get32(const uint8_t *p)
{
	uint32_t x;
	__builtin_memcpy(&x, p, 4);
	return ntoh32(x);
}

/* Store v big-endian at p. */
static inline void put16(uint8_t *p, uint16_t v)
{
	uint16_t x = hton16(v);
	__builtin_memcpy(p, &x, 2);
}

/* Store v big-endian at p. */
static inline void put32(uint8_t *p, uint32_t v)
{
	uint32_t x = hton32(v);
	__builtin_memcpy(p, &x, 4);
}
#endif
