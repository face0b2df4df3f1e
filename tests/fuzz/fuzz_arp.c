/* Fuzz arp_parse and arp_build (net/ipv4.c, RFC 826): any frame in; a
 * frame accepted has Ethernet/IPv4 lengths and types and a unicast sender
 * MAC, and building a reply from it and parsing that gives the same
 * addresses back. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "net/ipv4.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	uint8_t *in = malloc(len ? len : 1);
	memcpy(in, data, len);
	struct arp_info a, b;
	enum arp_check c = arp_parse(in, len, &a);
	if (c == ARP_OK) {
		const struct arp_hdr *h = (const void *)(in + ETH_HLEN);
		assert(len >= ETH_HLEN + ARP_LEN && h->hlen == 6 && h->plen == 4);
		assert(ntoh16(h->htype) == 1 && ntoh16(h->ptype) == ETHERTYPE_IPV4);
		assert((a.op == ARP_REQUEST || a.op == ARP_REPLY) && !(a.sha[0] & 1));
		uint8_t out[ETH_ZLEN];
		const uint8_t me[ETH_ALEN] = { 2, 0, 0, 0, 0, 1 };
		assert(arp_build(out, sizeof(out), ARP_REPLY, me, a.tpa, a.sha, a.spa) == ETH_ZLEN);
		assert(arp_parse(out, sizeof(out), &b) == ARP_OK);
		assert(b.op == ARP_REPLY && b.spa == a.tpa && b.tpa == a.spa && !memcmp(b.tha, a.sha, 6));
		assert(arp_build(out, ETH_ZLEN - 1, ARP_REPLY, me, 1, a.sha, 2) == 0);
	}
	free(in);
	return 0;
}
