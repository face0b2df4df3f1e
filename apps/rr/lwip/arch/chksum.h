/* The Internet checksum for lwIP (its LWIP_CHKSUM, arch/cc.h). */
#ifndef LWIP_ARCH_CHKSUM_H
#define LWIP_ARCH_CHKSUM_H
#include <stdint.h>
#include <string.h>

/* lwIP's checksum routine (LWIP_CHKSUM, core/inet_chksum.c): the one's
 * complement sum of len bytes as native 16-bit words, not inverted, 8 bytes
 * a step (x86 loads need no alignment, so an odd start needs no swap).
 * Inline: lwIP's is a call and 2 bytes a step. RFC 1071 section 4.1. */
static inline uint16_t rr_chksum(const void *data, int len)
{
	const uint8_t *p = data;
	uint64_t sum = 0, w8;
	uint32_t w4;
	uint16_t w2;
	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w8, p, 8);
		sum += (w8 & 0xffffffffu) + (w8 >> 32);
	}
	if (len & 4) {
		memcpy(&w4, p, 4);
		sum += w4;
		p += 4;
	}
	if (len & 2) {
		memcpy(&w2, p, 2);
		sum += w2;
		p += 2;
	}
	if (len & 1)
		sum += *p;
	while (sum >> 16)
		sum = (sum & 0xffffu) + (sum >> 16);
	return (uint16_t)sum;
}
#endif
