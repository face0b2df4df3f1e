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

#define PAIR_SHOWN	64	/* characters of a bad pair a message quotes */

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
			size_t n = strcspn(pair, ",");	/* shown up to PAIR_SHOWN, so the forms fit */
			snprintf(err, errlen, "bad pair '%.*s%s' (accepted: %s)", (int)(n < PAIR_SHOWN ? n : PAIR_SHOWN),
				 pair, n > PAIR_SHOWN ? "..." : "", IPMAP_ACCEPTED);
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

/*
 * The upper-layer header of IPv6 packet ip (len bytes), as the packet's
 * ends see it: its offset, or 0 when none is here (a later fragment, ESP,
 * No Next Header, a header cut short), its protocol in *proto. Hop-by-Hop
 * and Destination Options, Routing (any type, RH0 too: a capture replays
 * what it holds), Fragment and AH headers are stepped over, their options
 * not acted on (net/ipv6.c's ipv6_ext_walk is a router's, which refuses
 * some). *dst_in_sum: 0 when a Routing header's Segments Left is not 0,
 * as then the pseudo-header carries the final destination, the Routing
 * header's last address, not the header's (RFC 8200 8.1); no map rewrites
 * addresses inside a Routing header (as tcprewrite).
 */
static uint32_t ipv6_l4(const uint8_t *ip, uint32_t len, uint8_t *proto, int *dst_in_sum)
{
	uint32_t off = IPV6_HLEN;
	uint8_t nh = ip[6];
	*dst_in_sum = 1;
	while (nh == IP6_HOPOPTS || nh == IP6_ROUTING || nh == IP6_FRAGMENT || nh == IP6_DSTOPTS ||
	       nh == IP6_AH) {
		const uint8_t *h = ip + off;
		if (off + 8 > len || (nh == IP6_FRAGMENT && get16(h + 2) >> 3))
			return 0;
		if (nh == IP6_ROUTING && h[3])
			*dst_in_sum = 0;
		off += nh == IP6_FRAGMENT ? 8 : nh == IP6_AH ? ((uint32_t)h[1] + 2) * 4 : ((uint32_t)h[1] + 1) * 8;
		nh = h[0];
	}
	*proto = nh;
	return off <= len ? off : 0;
}

/* IPv4 packet ip (room bytes): source by src, destination by dst. */
static int rewrite_ipv4(const struct ipmap *src, const struct ipmap *dst, uint8_t *ip, uint32_t room)
{
	uint8_t old[16];
	int changed = 0;
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
	return changed;
}

/* IPv6 packet ip (room bytes): source by src, destination by dst. */
static int rewrite_ipv6(const struct ipmap *src, const struct ipmap *dst, uint8_t *ip, uint32_t room)
{
	uint8_t old[16], proto = 0;
	int changed = 0, dst_in_sum;
	uint32_t plen = IPV6_HLEN + get16(ip + 4);
	uint32_t l4 = ipv6_l4(ip, plen < room ? plen : room, &proto, &dst_in_sum);
	for (int d = 0; d < 2; d++) {
		uint8_t *a = ip + 8 + 16 * d;
		if (!map_addr(d ? dst : src, a, 16, old))
			continue;
		changed++;
		if (l4 && (!d || dst_in_sum))
			l4_fix(proto, ip + l4, room - l4, old, a, 16);
	}
	return changed;
}

/* ARP packet at arp (room bytes) over IPv4, a request or a reply: its
 * sender and target protocol addresses by m (RFC 826's ar$spa, ar$tpa). */
static int rewrite_arp(const struct ipmap *m, uint8_t *arp, uint32_t room)
{
	uint8_t old[16];
	int changed = 0;
	if (room < 8 || get16(arp + 2) != ETHERTYPE_IPV4 || arp[5] != 4 ||
	    (get16(arp + 6) != ARP_REQUEST && get16(arp + 6) != ARP_REPLY) || 8u + 2u * (arp[4] + 4u) > room)
		return 0;
	for (int d = 0; d < 2; d++)
		changed += map_addr(m, arp + 8 + arp[4] + d * (arp[4] + 4u), 4, old);
	return changed;
}

int ipmap_rewrite(const struct ipmap *src, const struct ipmap *dst, uint8_t *f, uint32_t len)
{
	struct vlan_tags v;
	vlan_parse(f, len, &v);
	uint8_t *ip = f + v.l3;
	uint32_t room = len - v.l3;
	if (v.type == ETHERTYPE_IPV4 && room >= IPV4_HLEN && (ip[0] >> 4) == 4)
		return rewrite_ipv4(src, dst, ip, room);
	if (v.type == ETHERTYPE_IPV6 && room >= IPV6_HLEN && (ip[0] >> 4) == 6)
		return rewrite_ipv6(src, dst, ip, room);
	return 0;
}

int ipmap_pnat(const struct ipmap *m, uint8_t *f, uint32_t len)
{
	struct vlan_tags v;
	vlan_parse(f, len, &v);
	if (v.type == ETHERTYPE_ARP)
		return rewrite_arp(m, f + v.l3, len - v.l3);
	return ipmap_rewrite(m, m, f, len);
}
