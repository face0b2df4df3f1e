/* Building and classifying trafgen's test frames (see frame.h). */
#include "frame.h"

#include <string.h>

#define ETH_HLEN 14
#define IP_HLEN 20
#define IP6_HLEN 40
#define UDP_HLEN 8
#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_ARP 0x0806
#define ETHERTYPE_IPV6 0x86dd
#define ETHERTYPE_VLAN 0x8100  /* 802.1Q C-tag TPID */
#define IPPROTO_UDP_ 17
#define IPPROTO_ICMPV6_ 58
#define ND_NS 135              /* ICMPv6 types, RFC 4861 4.3-4.4 */
#define ND_NA 136
#define ND_LEN 24              /* NS/NA up to the options */
#define NA_LEN (ND_LEN + 8)    /* with the target link-layer address option */
#define ARP_LEN 28
#define MIN_FRAME 60   /* carried bytes of a 64-byte frame */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static void put48(uint8_t *p, uint64_t v)
{
	put16(p, v >> 32);
	put32(p + 2, v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static uint64_t get48(const uint8_t *p)
{
	return (uint64_t)get16(p) << 32 | get32(p + 2);
}

uint32_t csum_add(uint32_t sum, const uint8_t *buf, size_t len)
{
	uint64_t s = sum;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += get16(buf + i);
	if (len & 1)
		s += (uint32_t)buf[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint32_t)s;
}

/* Bytes of the Ethernet header of the frame buf[0..len): 14, or 18 under
 * one 802.1Q tag. The EtherType ends it. */
static size_t l2_len(const uint8_t *buf, size_t len)
{
	return len >= ETH_HLEN + FRAME_VLAN_HLEN && get16(buf + 12) == ETHERTYPE_VLAN ?
	       ETH_HLEN + FRAME_VLAN_HLEN : ETH_HLEN;
}

/* The Ethernet header's length of a request frame_parse classified (its
 * whole header is there). */
static size_t req_l2_len(const uint8_t *req)
{
	return l2_len(req, ETH_HLEN + FRAME_VLAN_HLEN);
}

/* Writes the Ethernet header (l2 bytes, req_l2_len) of an answer to req:
 * to its source, from mac, under its tag if it had one, of EtherType type. */
static void reply_l2(uint8_t *out, const uint8_t *req, size_t l2, uint64_t mac, uint16_t type)
{
	memcpy(out, req + 6, 6);
	put48(out + 6, mac);
	memcpy(out + 12, req + 12, l2 - ETH_HLEN);   /* the tag, if any */
	put16(out + l2 - 2, type);
}

/* Element s mod n of range r. */
static uint64_t pick(const struct range *r, uint64_t s)
{
	return r->n == 1 ? r->lo : r->lo + s % r->n;
}

/* The UDP checksum's pseudo-header sum (RFC 768) for a datagram of
 * udp_len bytes from the IPv4 header at ip. */
static uint32_t pseudo_sum(const uint8_t *ip, uint16_t udp_len)
{
	return csum_add(IPPROTO_UDP_ + udp_len, ip + 12, 8);
}

/* The same over IPv6 (RFC 8200 8.1) for `len` bytes of protocol `next`. */
static uint32_t pseudo_sum6(const uint8_t *ip6, uint8_t next, uint16_t len)
{
	return csum_add((uint32_t)next + len, ip6 + 8, 32);
}

/* Writes the IPv4 header of a UDP datagram of udp_len bytes at ip.
 * Returns the UDP checksum's pseudo-header sum. */
static uint32_t ipv4_build(uint8_t *ip, const struct flow_spec *f, uint64_t seq, uint16_t udp_len)
{
	ip[0] = 0x45;                  /* version 4, 5 words */
	ip[1] = 0;                     /* DSCP/ECN */
	put16(ip + 2, IP_HLEN + udp_len);
	put16(ip + 4, 0);              /* identification: unused with DF (RFC 6864) */
	put16(ip + 6, 0x4000);         /* DF, offset 0 */
	ip[8] = 64;                    /* TTL */
	ip[9] = IPPROTO_UDP_;
	put16(ip + 10, 0);
	put32(ip + 12, (uint32_t)pick(&f->src_ip, seq));
	put32(ip + 16, (uint32_t)pick(&f->dst_ip, seq));
	put16(ip + 10, (uint16_t)~csum_add(0, ip, IP_HLEN));
	return pseudo_sum(ip, udp_len);
}

/* Writes the IPv6 header (RFC 8200 3) of a UDP datagram of udp_len bytes
 * at ip6. Returns the UDP checksum's pseudo-header sum. */
static uint32_t ipv6_build(uint8_t *ip6, const struct flow_spec *f, uint64_t seq, uint16_t udp_len)
{
	put32(ip6, 6u << 28);          /* version 6, traffic class 0, flow label 0 */
	put16(ip6 + 4, udp_len);       /* payload length */
	ip6[6] = IPPROTO_UDP_;         /* next header */
	ip6[7] = 64;                   /* hop limit */
	memcpy(ip6 + 8, f->src_ip6, 12);
	put32(ip6 + 20, (uint32_t)pick(&f->src_ip, seq));
	memcpy(ip6 + 24, f->dst_ip6, 12);
	put32(ip6 + 36, (uint32_t)pick(&f->dst_ip, seq));
	return pseudo_sum6(ip6, IPPROTO_UDP_, udp_len);
}

size_t frame_build(uint8_t *buf, const struct flow_spec *f, unsigned size,
		   uint16_t stream, uint64_t seq, uint64_t ts_ns)
{
	size_t len = size - FRAME_FCS, ip_hlen = f->ip6 ? IP6_HLEN : IP_HLEN;
	size_t l2 = f->vlan ? ETH_HLEN + FRAME_VLAN_HLEN : ETH_HLEN;
	uint16_t udp_len = (uint16_t)(len - l2 - ip_hlen);
	uint8_t *ip = buf + l2, *udp = ip + ip_hlen, *pl = udp + UDP_HLEN;
	uint32_t sum;

	put48(buf, pick(&f->dst_mac, seq));
	put48(buf + 6, pick(&f->src_mac, seq));
	if (f->vlan) {
		put16(buf + 12, ETHERTYPE_VLAN);
		put16(buf + 14, f->vlan_tci);
	}
	put16(ip - 2, f->ip6 ? ETHERTYPE_IPV6 : ETHERTYPE_IPV4);
	sum = f->ip6 ? ipv6_build(ip, f, seq, udp_len) : ipv4_build(ip, f, seq, udp_len);

	put16(udp, (uint16_t)pick(&f->src_port, seq));
	put16(udp + 2, (uint16_t)pick(&f->dst_port, seq));
	put16(udp + 4, udp_len);
	put16(udp + 6, 0);

	put16(pl, TG_MAGIC);
	put16(pl + 2, stream);
	put32(pl + 4, seq >> 32);
	put32(pl + 8, (uint32_t)seq);
	put48(pl + 12, ts_ns & TG_TS_MASK);
	memset(pl + TG_HDR_LEN, 0, udp_len - UDP_HLEN - TG_HDR_LEN);

	/* The zero fill adds nothing to the sum; a sum of 0 is sent as
	 * 0xffff (RFC 768; required over IPv6, RFC 8200 8.1). */
	sum = csum_add(sum, udp, UDP_HLEN + TG_HDR_LEN);
	put16(udp + 6, sum == 0xffff ? 0xffff : (uint16_t)~sum);
	return len;
}

static enum frame_kind parse_arp(const uint8_t *buf, size_t len, size_t l2, uint8_t target[16])
{
	const uint8_t *a = buf + l2;

	if (len < l2 + ARP_LEN || get16(a) != 1 || get16(a + 2) != ETHERTYPE_IPV4 ||
	    a[4] != 6 || a[5] != 4 || get16(a + 6) != 1)
		return FRAME_OTHER;
	memset(target, 0, 12);
	memcpy(target + 12, a + 24, 4);
	return FRAME_ARP_REQUEST;
}

/* The UDP datagram udp[0..udp_len) after its header checks: our payload
 * header into *h if the checksum (with the pseudo-header sum `pseudo`) is
 * right. A checksum of 0 passes when zero_ok (IPv4). */
static enum frame_kind parse_udp(const uint8_t *udp, size_t udp_len, uint32_t pseudo,
				 bool zero_ok, struct tg_hdr *h)
{
	const uint8_t *pl = udp + UDP_HLEN;

	if (get16(udp + 6) == 0 ? !zero_ok : csum_add(pseudo, udp, udp_len) != 0xffff)
		return FRAME_BAD;
	h->stream = get16(pl + 2);
	h->seq = (uint64_t)get32(pl + 4) << 32 | get32(pl + 8);
	h->ts = get48(pl + 12);
	return FRAME_OURS;
}

static enum frame_kind parse_ipv4(const uint8_t *buf, size_t len, size_t l2, struct tg_hdr *h)
{
	const uint8_t *ip = buf + l2, *udp;
	size_t ihl, ip_len, udp_len;

	if (len < l2 + IP_HLEN || ip[0] >> 4 != 4 || ip[9] != IPPROTO_UDP_)
		return FRAME_OTHER;
	ihl = (size_t)(ip[0] & 15) * 4;
	udp = ip + ihl;
	if (ihl < IP_HLEN || len < l2 + ihl + UDP_HLEN + TG_HDR_LEN ||
	    get16(udp + UDP_HLEN) != TG_MAGIC)
		return FRAME_OTHER;

	ip_len = get16(ip + 2);
	udp_len = get16(udp + 4);
	if (csum_add(0, ip, ihl) != 0xffff || ip_len > len - l2 ||
	    ip_len < ihl + UDP_HLEN + TG_HDR_LEN || udp_len != ip_len - ihl ||
	    (get16(ip + 6) & 0x3fff) != 0)
		return FRAME_BAD;
	return parse_udp(udp, udp_len, pseudo_sum(ip, (uint16_t)udp_len), true, h);
}

/* A Neighbor Solicitation (RFC 4861 4.3) from a unicast source: not from
 * :: (a DAD probe, RFC 4862 5.4, which we never answer). */
static enum frame_kind parse_ns(const uint8_t *buf, size_t len, size_t l2, uint8_t target[16])
{
	static const uint8_t unspecified[16];
	const uint8_t *ip6 = buf + l2, *icmp = ip6 + IP6_HLEN;

	if (len < l2 + IP6_HLEN + ND_LEN || icmp[0] != ND_NS || icmp[1] != 0 ||
	    ip6[7] != 255 || memcmp(ip6 + 8, unspecified, 16) == 0)
		return FRAME_OTHER;
	memcpy(target, icmp + 8, 16);
	return FRAME_ND_SOLICIT;
}

static enum frame_kind parse_ipv6(const uint8_t *buf, size_t len, size_t l2, struct tg_hdr *h,
				  uint8_t target[16])
{
	const uint8_t *ip6 = buf + l2, *udp = ip6 + IP6_HLEN;
	size_t pl_len;

	if (len < l2 + IP6_HLEN || ip6[0] >> 4 != 6)
		return FRAME_OTHER;
	if (ip6[6] == IPPROTO_ICMPV6_)
		return parse_ns(buf, len, l2, target);
	if (ip6[6] != IPPROTO_UDP_ || len < l2 + IP6_HLEN + UDP_HLEN + TG_HDR_LEN ||
	    get16(udp + UDP_HLEN) != TG_MAGIC)
		return FRAME_OTHER;
	pl_len = get16(ip6 + 4);
	if (pl_len > len - l2 - IP6_HLEN || pl_len < UDP_HLEN + TG_HDR_LEN ||
	    get16(udp + 4) != pl_len)
		return FRAME_BAD;
	return parse_udp(udp, pl_len, pseudo_sum6(ip6, IPPROTO_UDP_, (uint16_t)pl_len), false, h);
}

enum frame_kind frame_parse(const uint8_t *buf, size_t len, struct tg_hdr *h,
			    uint8_t target[16])
{
	size_t l2;

	if (len < ETH_HLEN)
		return FRAME_OTHER;
	l2 = l2_len(buf, len);
	switch (get16(buf + l2 - 2)) {
	case ETHERTYPE_ARP:
		return parse_arp(buf, len, l2, target);
	case ETHERTYPE_IPV4:
		return parse_ipv4(buf, len, l2, h);
	case ETHERTYPE_IPV6:
		return parse_ipv6(buf, len, l2, h, target);
	default:
		return FRAME_OTHER;
	}
}

size_t arp_reply_build(uint8_t *out, const uint8_t *req, uint64_t mac)
{
	size_t l2 = req_l2_len(req);
	const uint8_t *q = req + l2;
	uint8_t *a = out + l2;

	memset(out, 0, MIN_FRAME);
	reply_l2(out, req, l2, mac, ETHERTYPE_ARP);
	put16(a, 1);                       /* Ethernet */
	put16(a + 2, ETHERTYPE_IPV4);
	a[4] = 6;
	a[5] = 4;
	put16(a + 6, 2);                   /* reply */
	put48(a + 8, mac);                 /* sender: us, at the asked address */
	memcpy(a + 14, q + 24, 4);
	memcpy(a + 18, q + 8, 10);         /* target: the asker's MAC and address */
	return MIN_FRAME;
}

size_t nd_advert_build(uint8_t *out, const uint8_t *req, uint64_t mac)
{
	size_t l2 = req_l2_len(req);
	const uint8_t *q = req + l2, *ns = q + IP6_HLEN;
	uint8_t *ip6 = out + l2, *na = ip6 + IP6_HLEN;

	reply_l2(out, req, l2, mac, ETHERTYPE_IPV6);
	put32(ip6, 6u << 28);
	put16(ip6 + 4, NA_LEN);
	ip6[6] = IPPROTO_ICMPV6_;
	ip6[7] = 255;                      /* hop limit, RFC 4861 7.1.2 */
	memcpy(ip6 + 8, ns + 8, 16);       /* from the target address */
	memcpy(ip6 + 24, q + 8, 16);       /* to the asker's address */
	na[0] = ND_NA;
	na[1] = 0;
	put16(na + 2, 0);
	put32(na + 4, 0x60000000);         /* S (solicited), O (override) */
	memcpy(na + 8, ns + 8, 16);
	na[24] = 2;                        /* target link-layer address, 1 x 8 bytes */
	na[25] = 1;
	put48(na + 26, mac);
	put16(na + 2, (uint16_t)~csum_add(pseudo_sum6(ip6, IPPROTO_ICMPV6_, NA_LEN), na, NA_LEN));
	return l2 + IP6_HLEN + NA_LEN;
}
