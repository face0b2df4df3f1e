/* The Internet checksum for lwIP (its LWIP_CHKSUM, arch/cc.h). */
#ifndef LWIP_ARCH_CHKSUM_H
#define LWIP_ARCH_CHKSUM_H
#include <stdint.h>
#include <string.h>

/* lwIP's checksum routine (LWIP_CHKSUM, core/inet_chksum.c): the one's
 * complement sum of len bytes as native 16-bit words, not inverted. Summed
 * as 64-bit words with end-around carry (2^64 = 1 modulo 2^16 - 1), 32
 * bytes a step by an add-with-carry chain, then folded to 16 bits (RFC 1071
 * sections 2 (B) and 4.1); x86 loads need no alignment, so an odd start
 * needs no swap. Inline: lwIP's is a call and 2 bytes a step; ~8
 * instructions per 32 bytes (8-byte steps of 32-bit halves were ~36). */
static inline uint16_t lwif_chksum(const void *data, int len)
{
	const uint8_t *p = data;
	uint64_t sum = 0, w8;
	uint32_t w4;
	uint16_t w2;
	for (; len >= 32; p += 32, len -= 32)
		__asm__("addq 0(%[p]), %[s]\n\tadcq 8(%[p]), %[s]\n\tadcq 16(%[p]), %[s]\n\t"
			"adcq 24(%[p]), %[s]\n\tadcq $0, %[s]"
			: [s] "+r"(sum)
			: [p] "r"(p), "m"(*(const uint8_t(*)[32])p)
			: "cc");
	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w8, p, 8);
		sum += w8;
		sum += sum < w8;	/* the end-around carry */
	}
	sum = (sum & 0xffffffffu) + (sum >> 32);	/* < 2^33 */
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
