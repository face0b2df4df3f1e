/* Building and classifying trafgen's test frames (see frame.h). */
#include "frame.h"

#include <string.h>

#define ETH_HLEN 14
#define IP_HLEN 20
#define UDP_HLEN 8
#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_ARP 0x0806
#define IPPROTO_UDP_ 17
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

size_t frame_build(uint8_t *buf, const struct flow_spec *f, unsigned size,
		   uint16_t stream, uint64_t seq, uint64_t ts_ns)
{
	size_t len = size - FRAME_FCS;
	uint16_t ip_len = (uint16_t)(len - ETH_HLEN), udp_len = ip_len - IP_HLEN;
	uint8_t *ip = buf + ETH_HLEN, *udp = ip + IP_HLEN, *pl = udp + UDP_HLEN;
	uint32_t sum;

	put48(buf, pick(&f->dst_mac, seq));
	put48(buf + 6, pick(&f->src_mac, seq));
	put16(buf + 12, ETHERTYPE_IPV4);

	ip[0] = 0x45;                  /* version 4, 5 words */
	ip[1] = 0;                     /* DSCP/ECN */
	put16(ip + 2, ip_len);
	put16(ip + 4, 0);              /* identification: unused with DF (RFC 6864) */
	put16(ip + 6, 0x4000);         /* DF, offset 0 */
	ip[8] = 64;                    /* TTL */
	ip[9] = IPPROTO_UDP_;
	put16(ip + 10, 0);
	put32(ip + 12, (uint32_t)pick(&f->src_ip, seq));
	put32(ip + 16, (uint32_t)pick(&f->dst_ip, seq));
	put16(ip + 10, (uint16_t)~csum_add(0, ip, IP_HLEN));

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

	/* The zero fill adds nothing to the sum. */
	sum = csum_add(pseudo_sum(ip, udp_len), udp, UDP_HLEN + TG_HDR_LEN);
	put16(udp + 6, sum == 0xffff ? 0xffff : (uint16_t)~sum);
	return len;
}

static enum frame_kind parse_arp(const uint8_t *buf, size_t len, uint32_t *arp_target)
{
	const uint8_t *a = buf + ETH_HLEN;

	if (len < ETH_HLEN + ARP_LEN || get16(a) != 1 || get16(a + 2) != ETHERTYPE_IPV4 ||
	    a[4] != 6 || a[5] != 4 || get16(a + 6) != 1)
		return FRAME_OTHER;
	*arp_target = get32(a + 24);
	return FRAME_ARP_REQUEST;
}

enum frame_kind frame_parse(const uint8_t *buf, size_t len, struct tg_hdr *h,
			    uint32_t *arp_target)
{
	const uint8_t *ip = buf + ETH_HLEN, *udp, *pl;
	size_t ihl, ip_len, udp_len;

	if (len < ETH_HLEN)
		return FRAME_OTHER;
	if (get16(buf + 12) == ETHERTYPE_ARP)
		return parse_arp(buf, len, arp_target);
	if (get16(buf + 12) != ETHERTYPE_IPV4 || len < ETH_HLEN + IP_HLEN ||
	    ip[0] >> 4 != 4 || ip[9] != IPPROTO_UDP_)
		return FRAME_OTHER;
	ihl = (size_t)(ip[0] & 15) * 4;
	udp = ip + ihl;
	pl = udp + UDP_HLEN;
	if (ihl < IP_HLEN || len < ETH_HLEN + ihl + UDP_HLEN + TG_HDR_LEN || get16(pl) != TG_MAGIC)
		return FRAME_OTHER;

	ip_len = get16(ip + 2);
	udp_len = get16(udp + 4);
	if (csum_add(0, ip, ihl) != 0xffff || ip_len > len - ETH_HLEN ||
	    ip_len < ihl + UDP_HLEN + TG_HDR_LEN || udp_len != ip_len - ihl ||
	    (get16(ip + 6) & 0x3fff) != 0)
		return FRAME_BAD;
	if (get16(udp + 6) != 0 &&
	    csum_add(pseudo_sum(ip, (uint16_t)udp_len), udp, udp_len) != 0xffff)
		return FRAME_BAD;

	h->stream = get16(pl + 2);
	h->seq = (uint64_t)get32(pl + 4) << 32 | get32(pl + 8);
	h->ts = get48(pl + 12);
	return FRAME_OURS;
}

size_t arp_reply_build(uint8_t *out, const uint8_t *req, uint64_t mac)
{
	const uint8_t *q = req + ETH_HLEN;
	uint8_t *a = out + ETH_HLEN;

	memset(out, 0, MIN_FRAME);
	memcpy(out, req + 6, 6);           /* to the asker's MAC */
	put48(out + 6, mac);
	put16(out + 12, ETHERTYPE_ARP);
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
