/* Ethernet, IPv4, ICMP and ARP helpers for the L3 router: see ipv4.h. */
#include <string.h>
#include "net/ipv4.h"
#include "net/pkt.h"

/* One's complement sum folded to 16 bits (RFC 1071 section 4.1). */
static uint16_t fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

uint64_t inet_sum(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (i < len)
		sum += (uint32_t)p[i] << 8;
	return sum;
}

uint16_t inet_csum_fold(uint64_t sum)
{
	return (uint16_t)~fold(sum);
}

uint16_t inet_csum(const void *buf, size_t len)
{
	return inet_csum_fold(inet_sum(buf, len));
}

uint16_t inet_csum_update(uint16_t hc, uint16_t m, uint16_t m_new)
{
	return (uint16_t)~fold((uint32_t)(uint16_t)~hc + (uint16_t)~m + m_new);
}

/* The checksum of len bytes at b whose 16-bit field at off does not count
 * (summed, then taken out again), plus sum (a pseudo-header's). */
static uint16_t csum_without(const uint8_t *b, uint32_t len, uint32_t off, uint64_t sum)
{
	return inet_csum_fold(sum + inet_sum(b, len) + (uint16_t)~get16(b + off));
}

/* Store checksum c at off of out (outlen bytes) if it lies inside. */
static void csum_put(uint8_t *out, uint32_t outlen, uint32_t off, uint16_t c)
{
	if (off + 2 <= outlen)
		put16(out + off, c);
}

void csum_offload_fill(uint32_t flags, const uint8_t *f, uint32_t len, uint8_t *out, uint32_t outlen)
{
	const uint8_t *ip = f + ETH_HLEN;
	int ip6 = !!(flags & PKT_TX_IP6), udp = !!(flags & PKT_TX_UDP);
	uint32_t l4 = ETH_HLEN + (ip6 ? 40 : IPV4_HLEN), field = udp ? 6 : 16, l4len;
	if (len < l4)
		return;
	if (flags & PKT_TX_IP_CSUM)
		csum_put(out, outlen, ETH_HLEN + 10, csum_without(ip, IPV4_HLEN, 10, 0));
	if (!(flags & PKT_TX_L4_CSUM))
		return;
	l4len = ip6 ? get16(ip + 4) : (uint32_t)get16(ip + 2) - IPV4_HLEN;
	if (l4len < field + 2 || l4len > len - l4)
		return;
	uint64_t pseudo = (ip6 ? inet_sum(ip + 8, 32) : inet_sum(ip + 12, 8)) + l4len + (udp ? 17u : 6u);
	uint16_t c = csum_without(f + l4, l4len, field, pseudo);
	csum_put(out, outlen, l4 + field, udp && !c ? 0xffff : c);
}

enum ipv4_check ipv4_check(const void *ip, size_t len)
{
	return ipv4_check_hw(ip, len, IPV4_HW_UNCHECKED);
}

const char *ipv4_check_name(enum ipv4_check c)
{
	static const char *const names[IPV4_CHECK_N] = {
		"ok", "too_short", "bad_version", "bad_ihl", "bad_totlen", "bad_csum",
		"ttl_expired",
	};
	return (unsigned)c < IPV4_CHECK_N ? names[c] : "?";
}

/* May a router send an ICMP error about this datagram (RFC 1812 4.3.2.7)? */
static int icmp_error_allowed(const struct eth_hdr *eth, const struct ipv4_hdr *ip,
			      size_t hlen, size_t avail)
{
	uint32_t src = ntoh32(ip->saddr), dst = ntoh32(ip->daddr);

	if (eth->dst[0] & 1)				/* link-layer broadcast/multicast */
		return 0;
	if ((dst >> 28) == 0xe || dst == 0xffffffff)	/* multicast, limited broadcast */
		return 0;
	if (ipv4_martian_src(src))			/* 0/8, 127/8, 224/3 */
		return 0;
	if (ntoh16(ip->frag_off) & IPV4_OFFSET)		/* not the first fragment */
		return 0;
	if (ip->proto == IP_PROTO_ICMP) {
		if (avail <= hlen)	/* cannot tell: do not risk an error about an error */
			return 0;
		uint8_t t = ((const uint8_t *)ip)[hlen];
		if (t == 3 || t == 4 || t == 5 || t == 11 || t == 12)	/* RFC 792 errors */
			return 0;
	}
	return 1;
}

size_t icmp_error_build(uint8_t *out, size_t cap, const uint8_t *frame, size_t len,
			uint8_t type, uint8_t code, const uint8_t our_mac[ETH_ALEN],
			uint32_t our_ip)
{
	const struct eth_hdr *eth = (const void *)frame;
	const struct ipv4_hdr *ip = (const void *)(frame + ETH_HLEN);

	if (len < ETH_HLEN + IPV4_HLEN || ntoh16(eth->type) != ETHERTYPE_IPV4 ||
	    ip->ver_ihl >> 4 != 4)
		return 0;
	size_t avail = len - ETH_HLEN, hlen = (size_t)(ip->ver_ihl & 0xf) * 4;
	size_t tot = ntoh16(ip->tot_len);
	if (hlen < IPV4_HLEN || hlen > avail || !icmp_error_allowed(eth, ip, hlen, avail))
		return 0;
	if (tot > avail)
		tot = avail;
	size_t quote = hlen + (tot > hlen + 8 ? 8 : tot > hlen ? tot - hlen : 0);
	size_t n = ETH_HLEN + IPV4_HLEN + ICMP_HLEN + quote;
	if (cap < n)
		return 0;

	struct eth_hdr *oe = (void *)out;
	memcpy(oe->dst, eth->src, ETH_ALEN);
	memcpy(oe->src, our_mac, ETH_ALEN);
	oe->type = hton16(ETHERTYPE_IPV4);

	struct ipv4_hdr *oi = (void *)(out + ETH_HLEN);
	*oi = (struct ipv4_hdr){
		.ver_ihl = 0x45, .tos = ICMP_ERROR_TOS,
		.tot_len = hton16((uint16_t)(IPV4_HLEN + ICMP_HLEN + quote)),
		.ttl = ICMP_ERROR_TTL, .proto = IP_PROTO_ICMP,
		.saddr = hton32(our_ip), .daddr = ip->saddr,
	};
	oi->csum = hton16(inet_csum(oi, IPV4_HLEN));

	uint8_t *icmp = out + ETH_HLEN + IPV4_HLEN;
	memcpy(icmp + ICMP_HLEN, ip, quote);
	struct icmp_hdr *oc = (void *)icmp;
	*oc = (struct icmp_hdr){ .type = type, .code = code };
	oc->csum = hton16(inet_csum(icmp, ICMP_HLEN + quote));
	return n;
}

enum arp_check arp_parse(const uint8_t *frame, size_t len, struct arp_info *a)
{
	const struct eth_hdr *eth = (const void *)frame;
	const struct arp_hdr *h = (const void *)(frame + ETH_HLEN);

	if (len < ETH_HLEN + ARP_LEN)
		return ARP_TOO_SHORT;
	if (ntoh16(eth->type) != ETHERTYPE_ARP)
		return ARP_NOT_ARP;
	if (ntoh16(h->htype) != ARP_HTYPE_ETH)
		return ARP_BAD_HTYPE;
	if (ntoh16(h->ptype) != ETHERTYPE_IPV4)
		return ARP_BAD_PTYPE;
	if (h->hlen != ETH_ALEN)
		return ARP_BAD_HLEN;
	if (h->plen != 4)
		return ARP_BAD_PLEN;
	a->op = ntoh16(h->oper);
	if (a->op != ARP_REQUEST && a->op != ARP_REPLY)
		return ARP_BAD_OP;
	if (h->sha[0] & 1)
		return ARP_BAD_SHA;
	memcpy(a->sha, h->sha, ETH_ALEN);
	memcpy(a->tha, h->tha, ETH_ALEN);
	a->spa = (uint32_t)h->spa[0] << 24 | h->spa[1] << 16 | h->spa[2] << 8 | h->spa[3];
	a->tpa = (uint32_t)h->tpa[0] << 24 | h->tpa[1] << 16 | h->tpa[2] << 8 | h->tpa[3];
	return ARP_OK;
}

static void put_ip(uint8_t p[4], uint32_t a)
{
	p[0] = (uint8_t)(a >> 24);
	p[1] = (uint8_t)(a >> 16);
	p[2] = (uint8_t)(a >> 8);
	p[3] = (uint8_t)a;
}

size_t arp_build(uint8_t *out, size_t cap, uint16_t op, const uint8_t sha[ETH_ALEN],
		 uint32_t spa, const uint8_t tha[ETH_ALEN], uint32_t tpa)
{
	if (cap < ETH_ZLEN || (op != ARP_REQUEST && op != ARP_REPLY))
		return 0;
	memset(out, 0, ETH_ZLEN);
	struct eth_hdr *eth = (void *)out;
	struct arp_hdr *h = (void *)(out + ETH_HLEN);

	if (op == ARP_REQUEST)
		memset(eth->dst, 0xff, ETH_ALEN);
	else
		memcpy(eth->dst, tha, ETH_ALEN);
	memcpy(eth->src, sha, ETH_ALEN);
	eth->type = hton16(ETHERTYPE_ARP);
	h->htype = hton16(ARP_HTYPE_ETH);
	h->ptype = hton16(ETHERTYPE_IPV4);
	h->hlen = ETH_ALEN;
	h->plen = 4;
	h->oper = hton16(op);
	memcpy(h->sha, sha, ETH_ALEN);
	put_ip(h->spa, spa);
	if (op == ARP_REPLY)
		memcpy(h->tha, tha, ETH_ALEN);
	put_ip(h->tpa, tpa);
	return ETH_ZLEN;
}

int icmp_echo_reply(uint8_t *frame, struct ipv4_hdr *ip, const uint8_t our_mac[ETH_ALEN])
{
	unsigned ihl = (ip->ver_ihl & 15u) * 4, tot = ntoh16(ip->tot_len);
	uint32_t src = ntoh32(ip->saddr);
	struct icmp_hdr *icmp = (struct icmp_hdr *)((uint8_t *)ip + ihl);
	if (ip->proto != IP_PROTO_ICMP || tot < ihl + ICMP_HLEN ||
	    (ntoh16(ip->frag_off) & (IPV4_MF | IPV4_OFFSET)) || icmp->type != 8 || icmp->code ||
	    inet_csum(icmp, tot - ihl) || ipv4_martian_src(src))
		return 0;
	struct eth_hdr *eth = (struct eth_hdr *)frame;
	memcpy(eth->dst, eth->src, ETH_ALEN);
	memcpy(eth->src, our_mac, ETH_ALEN);
	ip->saddr = ip->daddr;
	ip->daddr = hton32(src);
	ip->ttl = ICMP_ERROR_TTL;
	ip->csum = 0;
	ip->csum = hton16(inet_csum(ip, ihl));
	icmp->type = 0;
	icmp->csum = hton16(inet_csum_update(ntoh16(icmp->csum), 8 << 8, 0));
	return 1;
}
