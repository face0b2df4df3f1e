/* Fuzz net/ipv4.c's header checks against an independent reading of RFC
 * 791/1812: whatever bytes arrive, ipv4_check must say OK exactly when the
 * header is sound, never read past len, and ipv4_ttl_dec must keep the
 * checksum correct (RFC 1624). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "net/ipv4.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	/* An exact-size heap copy: ASan catches a read past len. */
	uint8_t *ip = malloc(len ? len : 1);
	memcpy(ip, data, len);
	enum ipv4_check c = ipv4_check(ip, len);
	assert(ipv4_check_name(c)[0] != '?');
	if (len >= IPV4_HLEN) {
		const struct ipv4_hdr *h = (const void *)ip;
		size_t hl = (size_t)(h->ver_ihl & 15) * 4, tot = ntoh16(h->tot_len);
		int sound = h->ver_ihl >> 4 == 4 && hl >= IPV4_HLEN && hl <= len && tot >= hl && tot <= len &&
			    inet_csum(ip, hl) == 0;
		assert(sound == (c == IPV4_OK || c == IPV4_TTL_EXPIRED));
		if (c == IPV4_OK) {
			struct ipv4_hdr *w = (void *)ip;
			uint8_t ttl = w->ttl;
			ipv4_ttl_dec(w);
			assert(w->ttl == ttl - 1);
			assert(inet_csum(ip, hl) == 0);	/* still a correct header */
		}
	} else {
		assert(c == IPV4_TOO_SHORT);
	}
	free(ip);
	return 0;
}
