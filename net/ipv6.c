/* IPv6 and ICMPv6 helpers for the L3 router and lwIP's ports: see ipv6.h. */
#include <string.h>
#include "net/ipv4.h"
#include "net/ipv6.h"

int ipv6_unspec_or_loopback(const uint8_t a[16], int loopback)
{
	static const uint8_t zero[15];
	return !memcmp(a, zero, 15) && a[15] == loopback;
}

void ipv6_solicited_node(const uint8_t a[16], uint8_t g[16])
{
	static const uint8_t pre[13] = { 0xff, 0x02, [11] = 1, [12] = 0xff };
	memcpy(g, pre, 13);
	memcpy(g + 13, a + 13, 3);
}

void ipv6_mcast_mac(const uint8_t g[16], uint8_t mac[6])
{
	mac[0] = mac[1] = 0x33;
	memcpy(mac + 2, g + 12, 4);
}

uint16_t ipv6_l4_csum(const struct ipv6_hdr *ip, uint8_t proto, const void *l4, size_t len)
{
	uint8_t tail[8] = { 0 };	/* upper-layer length (32 bits), zero, next header */
	put32(tail, (uint32_t)len);
	tail[7] = proto;
	return inet_csum_fold(inet_sum(ip->saddr, 32) + inet_sum(tail, 8) + inet_sum(l4, len));
}

/* The Hop-by-Hop options at h (hlen bytes, from its header's offset off):
 * each option's length within the header, unknown ones by their action
 * bits (RFC 8200 4.2). */
static enum ipv6_ext hbh_options(const uint8_t *h, size_t hlen, size_t off, struct ipv6_walk *w)
{
	for (size_t i = 2; i < hlen;) {
		uint8_t t = h[i];
		if (t == 0) {		/* Pad1 */
			i++;
			continue;
		}
		if (i + 2 > hlen || i + 2 + h[i + 1] > hlen) {
			w->ptr = off + i;
			return IPV6_EXT_TRUNCATED;
		}
		/* PadN, Router Alert (RFC 2711), Jumbo Payload (RFC 2675: not
		 * on links of Ethernet's MTU, and the payload length here is
		 * never 0, so the packet is checked by its length already). */
		if (t != 1 && t != 5 && t != 0xc2 && t >> 6) {
			w->ptr = off + i;
			w->mcast_ok = t >> 6 == 2;
			return t >> 6 == 1 ? IPV6_EXT_OPT_DISCARD : IPV6_EXT_OPT_ICMP;
		}
		i += 2u + h[i + 1];
	}
	return IPV6_EXT_OK;
}

enum ipv6_ext ipv6_ext_walk(const uint8_t *ip, size_t len, struct ipv6_walk *w)
{
	size_t off = IPV6_HLEN, nh_at = 6;	/* where the current Next Header value sits */
	uint8_t nh = ip[6];
	*w = (struct ipv6_walk){ 0 };
	for (;;) {
		size_t hlen;
		if (nh != IP6_HOPOPTS && nh != IP6_ROUTING && nh != IP6_FRAGMENT && nh != IP6_DSTOPTS &&
		    nh != IP6_AH)
			break;	/* upper layer, ESP, No Next Header */
		if (nh == IP6_HOPOPTS && off != IPV6_HLEN) {
			w->ptr = nh_at;
			return IPV6_EXT_HBH_NOT_FIRST;
		}
		if (off + 8 > len) {
			w->ptr = nh_at;
			return IPV6_EXT_TRUNCATED;
		}
		const uint8_t *h = ip + off;
		hlen = nh == IP6_FRAGMENT ? 8 : nh == IP6_AH ? ((size_t)h[1] + 2) * 4 : ((size_t)h[1] + 1) * 8;
		if (off + hlen > len) {
			w->ptr = off + 1;
			return IPV6_EXT_TRUNCATED;
		}
		if (nh == IP6_ROUTING && h[2] == 0) {
			w->ptr = off + 2;
			return IPV6_EXT_RH0;
		}
		if (nh == IP6_HOPOPTS) {
			enum ipv6_ext v = hbh_options(h, hlen, off, w);
			if (v != IPV6_EXT_OK)
				return v;
		}
		if (nh == IP6_FRAGMENT) {
			w->frag = 1;
			if (get16(h + 2) >> 3) {	/* not the first: no headers follow */
				w->proto = IP6_FRAGMENT;
				w->off = off + 8;
				return IPV6_EXT_OK;
			}
		}
		nh_at = off;
		nh = h[0];
		off += hlen;
	}
	w->proto = nh;
	w->off = off;
	return IPV6_EXT_OK;
}

void icmp6_finish(uint8_t *frame, const uint8_t dmac[6], const uint8_t smac[6], const uint8_t src[16],
		  const uint8_t dst[16], size_t len, uint8_t hops)
{
	uint8_t d[ETH_ALEN], s[ETH_ALEN], sa[16], da[16];
	memcpy(d, dmac, ETH_ALEN);
	memcpy(s, smac, ETH_ALEN);
	memcpy(sa, src, 16);
	memcpy(da, dst, 16);
	struct eth_hdr *eth = (struct eth_hdr *)frame;
	struct ipv6_hdr *ip = (struct ipv6_hdr *)(frame + ETH_HLEN);
	struct icmp6_hdr *ic = (struct icmp6_hdr *)(ip + 1);
	memcpy(eth->dst, d, ETH_ALEN);
	memcpy(eth->src, s, ETH_ALEN);
	eth->type = hton16(ETHERTYPE_IPV6);
	ip->vtc_flow = hton32(6u << 28);
	ip->payload_len = hton16((uint16_t)len);
	ip->nexthdr = IP6_ICMPV6;
	ip->hop_limit = hops;
	memcpy(ip->saddr, sa, 16);
	memcpy(ip->daddr, da, 16);
	ic->csum = 0;
	ic->csum = hton16(ipv6_l4_csum(ip, IP6_ICMPV6, ic, len));
}

size_t icmp6_error_build(uint8_t *out, size_t cap, const uint8_t *frame, size_t len, uint8_t type, uint8_t code,
			 const uint8_t our_mac[6])
{
	const struct ipv6_hdr *ip = (const struct ipv6_hdr *)(frame + ETH_HLEN);
	if (len < ETH_HLEN + IPV6_HLEN || ipv6_multicast(ip->saddr) || ipv6_unspec_or_loopback(ip->saddr, 0) ||
	    ipv6_multicast(ip->daddr) ||
	    (ip->nexthdr == IP6_ICMPV6 && (len == ETH_HLEN + IPV6_HLEN || frame[ETH_HLEN + IPV6_HLEN] < 128)))
		return 0;
	size_t quote = len - ETH_HLEN, room = IPV6_MIN_MTU - IPV6_HLEN - 8;
	if (quote > IPV6_HLEN + (size_t)ntoh16(ip->payload_len))
		quote = IPV6_HLEN + ntoh16(ip->payload_len);	/* not the Ethernet padding */
	quote = quote < room ? quote : room;
	if (cap < ETH_HLEN + IPV6_HLEN + 8 + quote)
		return 0;
	uint8_t *m = out + ETH_HLEN + IPV6_HLEN;
	m[0] = type;
	m[1] = code;
	put32(m + 4, 0);
	memcpy(m + 8, ip, quote);
	icmp6_finish(out, ((const struct eth_hdr *)frame)->src, our_mac, ip->daddr, ip->saddr, 8 + quote, ICMP6_ERROR_HOPS);
	return ETH_HLEN + IPV6_HLEN + 8 + quote;
}
