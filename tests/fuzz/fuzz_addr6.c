/* Fuzz net/addr.c's IPv6 text forms: whatever addr6_parse and
 * addr6_prefix_parse accept as a whole string, glibc's inet_pton accepts
 * and reads as the same address; addr6_fmt writes what inet_ntop writes
 * (but for ::a.b.c.d, which glibc writes mixed and RFC 5952 does not ask
 * for) and reads back to the address. */
#include <arpa/inet.h>
#include <assert.h>
#include <string.h>
#include "net/addr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static const uint8_t zero12[12];
	char s[64], buf[IPV6_STR_MAX], ref[INET6_ADDRSTRLEN];
	uint8_t a[16], b[16];
	int plen;
	if (len >= sizeof(s))
		return 0;
	memcpy(s, data, len);
	s[len] = 0;
	const char *p = s;
	if (!addr6_parse(&p, a) && !*p) {
		assert(inet_pton(AF_INET6, s, b) == 1 && !memcmp(a, b, 16));
		addr6_fmt(buf, a);
		assert(inet_ntop(AF_INET6, a, ref, sizeof(ref)));
		if (memcmp(a, zero12, 12) || (a[12] == 0 && a[13] == 0))
			assert(!strcmp(buf, ref));
		p = buf;
		assert(!addr6_parse(&p, b) && !*p && !memcmp(a, b, 16));
	}
	p = s;
	if (!addr6_prefix_parse(&p, a, &plen) && !*p) {
		assert(plen >= 0 && plen <= 128);
		char *slash = strchr(s, '/');
		*slash = 0;
		assert(inet_pton(AF_INET6, s, b) == 1 && !memcmp(a, b, 16));
	}
	return 0;
}
