/* Fuzz trafgen's frame parser (tools/trafgen/frame.c), which reads
 * whatever the appliance or a peer sends back: any frame classifies
 * without reading past it; an ARP request or Neighbor Solicitation gets a
 * reply that is not itself a request; a frame built (IPv4 or IPv6) by frame_build parses back as ours with
 * its stream and sequence number. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "tools/trafgen/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	uint8_t *in = malloc(len ? len : 1);
	memcpy(in, data, len);
	struct tg_hdr h;
	uint8_t target[16], t2[16];
	enum frame_kind k = frame_parse(in, len, &h, target);
	assert(k >= FRAME_OURS && k <= FRAME_OTHER);
	if (k == FRAME_ARP_REQUEST) {
		uint8_t out[64];
		assert(arp_reply_build(out, in, 0x020000000022ull) == 60);
		assert(frame_parse(out, 60, &h, t2) == FRAME_OTHER);	/* a reply, not a request */
	}
	if (k == FRAME_ND_SOLICIT) {
		uint8_t out[128];
		assert(nd_advert_build(out, in, 0x020000000022ull) == 86);
		assert(frame_parse(out, 86, &h, t2) == FRAME_OTHER);
	}
	if (len >= 8) {
		struct flow_spec f = { .ip6 = data[0] & 1 };
		uint64_t v[6];
		memcpy(v, data, len >= 48 ? 48 : 8);
		for (int i = 0; i < 6; i++)
			((struct range *)&f)[i] = (struct range){ v[i % 1] ^ (uint64_t)i, 1 + i };
		unsigned min = f.ip6 ? FRAME_SIZE_MIN_IP6 : FRAME_SIZE_MIN;
		unsigned size = min + data[0] % (FRAME_SIZE_MAX - min + 1);
		uint8_t *b = malloc(size - FRAME_FCS);
		assert(frame_build(b, &f, size, data[1], v[0], v[0] >> 8) == size - FRAME_FCS);
		assert(frame_parse(b, size - FRAME_FCS, &h, target) == FRAME_OURS);
		assert(h.stream == data[1] && h.seq == v[0]);
		free(b);
	}
	free(in);
	return 0;
}
