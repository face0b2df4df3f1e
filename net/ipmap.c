/* tcprewrite's address maps (see ipmap.h). */
#include <stdio.h>
#include <string.h>
#include "net/addr.h"
#include "net/bytes.h"
#include "net/ipmap.h"
#include "net/ipv4.h"
#include "net/ipv6.h"
#include "net/vlan.h"

#define IP_PROTO_TCP	6
#define IP_PROTO_UDP	17

/* One side of a pair at *s: IPv4 "A.B.C.D/LEN" or IPv6 "[ADDR/LEN]". */
static int side_parse(const char **s, uint8_t a[16], uint8_t *len, uint8_t *alen)
{
	int l;
	if (**s != '[') {
		uint32_t v;
		if (ipv4_prefix_parse(s, &v, &l))
			return -1;
		memset(a, 0, 16);
		put32(a, v);
		*len = (uint8_t)l;
		*alen = 4;
		return 0;
	}
	(*s)++;
	if (addr6_prefix_parse(s, a, &l) || **s != ']')
		return -1;
	(*s)++;
	*len = (uint8_t)l;
	*alen = 16;
	return 0;
}

int ipmap_parse(struct ipmap *m, const char *s, char *err, size_t errlen)
{
	struct ipmap t = { 0 };
	const char *at = s;
	if (!strcmp(s, "off")) {
		*m = t;
		return 0;
	}
	while (*at) {
		struct ipmap_pair *p = &t.p[t.n];
		uint8_t to_alen;
		const char *pair = at;
		if (t.n == IPMAP_MAX) {
			snprintf(err, errlen, "more than %d pairs (accepted: %s)", IPMAP_MAX, IPMAP_ACCEPTED);
			return -1;
		}
		if (side_parse(&at, p->from, &p->from_len, &p->alen) || *at++ != ':' ||
		    side_parse(&at, p->to, &p->to_len, &to_alen) || (*at && *at != ',') || to_alen != p->alen) {
			size_t n = strcspn(pair, ",");
			snprintf(err, errlen, "bad pair '%.*s' (accepted: %s)", (int)n, pair, IPMAP_ACCEPTED);
			return -1;
		}
		t.n++;
		if (*at == ',' && !*++at) {
			snprintf(err, errlen, "a pair after the last ',' (accepted: %s)", IPMAP_ACCEPTED);
			return -1;
		}
	}
	if (!t.n) {
		snprintf(err, errlen, "accepted: %s", IPMAP_ACCEPTED);
		return -1;
	}
	*m = t;
	return 0;
}

static size_t side_show(char *buf, size_t len, const uint8_t *a, int plen, int alen)
{
	char s[IPV6_STR_MAX];
	if (alen == 4)
		return (size_t)snprintf(buf, len, "%s/%d", ipv4_str(s, get32(a)), plen);
	return (size_t)snprintf(buf, len, "[%s/%d]", addr6_fmt(s, a), plen);
}

void ipmap_show(const struct ipmap *m, char *buf, size_t len)
{
	size_t o = 0;
	snprintf(buf, len, "off");
	for (int i = 0; i < m->n && o < len; i++) {
		const struct ipmap_pair *p = &m->p[i];
		if (i)
			o += (size_t)snprintf(buf + o, len - o, ",");
		if (o < len)
			o += side_show(buf + o, len - o, p->from, p->from_len, p->alen);
		if (o < len)
			o += (size_t)snprintf(buf + o, len - o, ":");
		if (o < len)
			o += side_show(buf + o, len - o, p->to, p->to_len, p->alen);
	}
}

/* Whether the first plen bits of a and b agree. */
static int prefix_match(const uint8_t *a, const uint8_t *b, int plen)
{
	int whole = plen / 8, rest = plen % 8;
	if (memcmp(a, b, (size_t)whole))
		return 0;
	return !rest || !((a[whole] ^ b[whole]) & (uint8_t)(0xff << (8 - rest)));
}

int ipmap_apply(const struct ipmap *m, uint8_t *a, int alen)
{
	for (int i = 0; i < m->n; i++) {
		const struct ipmap_pair *p = &m->p[i];
		if (p->alen != alen || !prefix_match(a, p->from, p->from_len))
			continue;
		for (int b = 0; b < p->to_len; b++) {	/* TO's network bits, a's host bits */
			uint8_t bit = (uint8_t)(0x80 >> (b % 8));
			a[b / 8] = (uint8_t)((a[b / 8] & ~bit) | (p->to[b / 8] & bit));
		}
		return 1;
	}
	return 0;
}

/* Checksum field at c (network order) after the n bytes at old became new. */
static void csum_fix(uint8_t *c, const uint8_t *old, const uint8_t *new, int n)
{
	uint16_t hc = (uint16_t)get16(c);
	for (int i = 0; i < n; i += 2)
		hc = inet_csum_update(hc, (uint16_t)get16(old + i), (uint16_t)get16(new + i));
	put16(c, hc);
}

/* Maps address a (alen bytes) by m; its old value into old. 1 if changed. */
static int map_addr(const struct ipmap *m, uint8_t *a, int alen, uint8_t old[16])
{
	memcpy(old, a, (size_t)alen);
	return m->n && ipmap_apply(m, a, alen) && memcmp(old, a, (size_t)alen);
}

/* The checksum of upper-layer proto at l4 (room bytes left in the frame)
 * after an address of the pseudo-header went from old to new. */
static void l4_fix(uint8_t proto, uint8_t *l4, uint32_t room, const uint8_t *old, const uint8_t *new, int alen)
{
	uint32_t at = proto == IP_PROTO_TCP ? 16 : proto == IP_PROTO_UDP ? 6 : proto == IP6_ICMPV6 && alen == 16 ? 2
													 : 0;
	if (!at || at + 2 > room)
		return;
	if (proto == IP_PROTO_UDP && !get16(l4 + at))
		return;			/* no checksum (RFC 768) */
	csum_fix(l4 + at, old, new, alen);
	if (proto == IP_PROTO_UDP && !get16(l4 + at))
		put16(l4 + at, 0xffff);	/* a computed 0 is sent as all ones */
}

/* The upper-layer header of IPv4 packet ip (room bytes): its offset, or 0
 * when there is none here (a later fragment, a bad IHL). */
static uint32_t ipv4_l4(const uint8_t *ip, uint32_t room)
{
	uint32_t ihl = (uint32_t)(ip[0] & 0xf) * 4;
	if (ihl < IPV4_HLEN || ihl > room || (get16(ip + 6) & IPV4_OFFSET))
		return 0;
	return ihl;
}

int ipmap_rewrite(const struct ipmap *src, const struct ipmap *dst, uint8_t *f, uint32_t len)
{
	struct vlan_tags v;
	uint8_t old[16];
	int changed = 0;
	vlan_parse(f, len, &v);
	uint8_t *ip = f + v.l3;
	uint32_t room = len - v.l3;
	if (v.type == ETHERTYPE_IPV4 && room >= IPV4_HLEN && (ip[0] >> 4) == 4) {
		uint32_t l4 = ipv4_l4(ip, room);
		for (int d = 0; d < 2; d++) {
			uint8_t *a = ip + 12 + 4 * d;
			if (!map_addr(d ? dst : src, a, 4, old))
				continue;
			changed++;
			csum_fix(ip + 10, old, a, 4);
			if (l4)
				l4_fix(ip[9], ip + l4, room - l4, old, a, 4);
		}
	} else if (v.type == ETHERTYPE_IPV6 && room >= IPV6_HLEN && (ip[0] >> 4) == 6) {
		struct ipv6_walk w;
		size_t plen = IPV6_HLEN + get16(ip + 4);
		int l4 = ipv6_ext_walk(ip, plen < room ? plen : room, &w) == IPV6_EXT_OK && w.proto != IP6_FRAGMENT;
		for (int d = 0; d < 2; d++) {
			uint8_t *a = ip + 8 + 16 * d;
			if (!map_addr(d ? dst : src, a, 16, old))
				continue;
			changed++;
			if (l4)
				l4_fix(w.proto, ip + w.off, room - (uint32_t)w.off, old, a, 16);
		}
	}
	return changed;
}
