/* Fuzz icmp_error_build (net/ipv4.c): any frame in, and either no error
 * (RFC 1812 4.3.2.7 forbids one, or the frame is not sound enough to quote)
 * or a well-formed one: correct IPv4 and ICMP checksums, to the offender's
 * source from our address, quoting the IP header and at most 8 bytes of
 * data as received (RFC 792), never more than cap bytes written. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "net/ipv4.h"

static const uint8_t our_mac[ETH_ALEN] = { 2, 0, 0, 0, 0, 0xaa };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	if (len < 3)
		return 0;
	uint8_t type = data[0], code = data[1];
	size_t cap = data[2] * 4u;	/* 0..1020: small buffers too */
	data += 3;
	len -= 3;
	uint8_t *in = malloc(len ? len : 1), *out = malloc(cap ? cap : 1);
	memcpy(in, data, len);
	size_t n = icmp_error_build(out, cap, in, len, type, code, our_mac, 0x0a010001);
	if (n) {
		assert(n <= cap && n >= ETH_HLEN + IPV4_HLEN + ICMP_HLEN + IPV4_HLEN);
		const struct ipv4_hdr *oi = (const void *)(out + ETH_HLEN);
		const struct ipv4_hdr *ii = (const void *)(in + ETH_HLEN);
		assert(inet_csum(oi, IPV4_HLEN) == 0);
		assert(ntoh16(oi->tot_len) == n - ETH_HLEN);
		assert(inet_csum(out + ETH_HLEN + IPV4_HLEN, n - ETH_HLEN - IPV4_HLEN) == 0);
		assert(oi->daddr == ii->saddr && ntoh32(oi->saddr) == 0x0a010001);
		assert(!memcmp(out, in + 6, ETH_ALEN) && !memcmp(out + 6, our_mac, ETH_ALEN));
		size_t hl = (size_t)(ii->ver_ihl & 15) * 4, quote = n - ETH_HLEN - IPV4_HLEN - ICMP_HLEN;
		assert(quote >= hl && quote <= hl + 8);
		assert(!memcmp(out + ETH_HLEN + IPV4_HLEN + ICMP_HLEN, ii, quote));
		/* Never about a broadcast/multicast frame or an ICMP error. */
		assert(!(in[0] & 1));
		uint32_t src = ntoh32(ii->saddr);
		assert(src >> 24 != 0 && src >> 24 != 127 && src < 0xe0000000u);
		assert(!(ntoh16(ii->frag_off) & IPV4_OFFSET));
		if (ii->proto == IP_PROTO_ICMP) {
			uint8_t t = ((const uint8_t *)ii)[hl];
			assert(t != 3 && t != 4 && t != 5 && t != 11 && t != 12);
		}
	}
	free(in);
	free(out);
	return 0;
}
