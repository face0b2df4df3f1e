/*
 * fwd L3: the IPv6 router's path of a frame (RFC 8200, RFC 4443, RFC
 * 4861) on the ports with an IPv6 address. The header is checked (length,
 * version, payload length within the frame), the source must be unicast
 * and not ours, not ::1 nor IPv4-mapped; then the destination decides: one
 * of our addresses or a group we joined is delivered here (echo answered,
 * Neighbor Discovery to nd.c), anything else is routed: the extension
 * headers walked (ipv6_ext_walk), the hop limit, the route (lpm6), the
 * scope of a link-local source, the egress MTU (never fragmented) and the
 * next hop's neighbor cache entry (nd.c). Each refusal is a named drop
 * and, where RFC 4443 asks, an ICMPv6 error (icmp6.c).
 */
#include <string.h>
#include "apps/fwd/counters.h"
#include "apps/fwd/icmp6.h"
#include "apps/fwd/l3.h"
#include "apps/fwd/route.h"
#include "net/ifaddr.h"

/* The walk's verdicts as drops, with the Parameter Problem code each
 * answers (-1: none; RFC 8200 4, 4.2; RFC 5095 3; RFC 7112 5). */
static const struct {
	enum fwd_drop drop;
	int code;
} ext_verdict[IPV6_EXT_N] = {
	[IPV6_EXT_TRUNCATED] = { FWD_DROP_ip6_bad_ext, ICMP6_PARAM_HEADER },
	[IPV6_EXT_HBH_NOT_FIRST] = { FWD_DROP_ip6_hbh_not_first, ICMP6_PARAM_NEXTHDR },
	[IPV6_EXT_RH0] = { FWD_DROP_ip6_rh0, ICMP6_PARAM_HEADER },
	[IPV6_EXT_OPT_DISCARD] = { FWD_DROP_ip6_hbh_option, -1 },
	[IPV6_EXT_OPT_ICMP] = { FWD_DROP_ip6_hbh_option, ICMP6_PARAM_OPTION },
};

/* 1 if a is a group port listens to: all-nodes, all-routers, or the
 * solicited-node group of one of its addresses (RFC 4291 2.7.1, 2.8). */
static int joined(int port, const uint8_t a[16])
{
	static const uint8_t ff02[15] = { 0xff, 2 };
	const struct ifaddr *ia = &ifaddrs[port];
	uint8_t g[16];
	if (!memcmp(a, ff02, 15) && (a[15] == 1 || a[15] == 2))
		return 1;
	for (int i = -1; i < ia->n6; i++) {
		ipv6_solicited_node(i < 0 ? ia->ll6 : ia->v6[i].addr, g);
		if (!memcmp(a, g, 16))
			return 1;
	}
	return 0;
}

/* A packet for us (len bytes of IPv6 packet), its walk w: ND to nd.c, an
 * echo request answered, the rest counted local. */
static int ipv6_local(struct nic *nic, struct pkt *p, struct ipv6_hdr *ip, size_t len, const struct ipv6_walk *w)
{
	if (w->proto == IP6_ICMPV6 && w->off + 4 <= len) {
		struct icmp6_hdr *ic = (struct icmp6_hdr *)((uint8_t *)ip + w->off);
		size_t mlen = len - w->off;
		if (ipv6_l4_csum(ip, IP6_ICMPV6, ic, mlen))
			return FWD_DROP_icmp6_bad_csum;
		if (ic->type == ND_NEIGHBOR_SOLICIT || ic->type == ND_NEIGHBOR_ADVERT)
			return nd_input(nic, p, ip, ic, mlen);
		int v = ic->type == ND_ROUTER_SOLICIT ? ra_solicited(nic, ip, (const uint8_t *)ic, mlen) : -2;
		if (v == -1) {
			fwd_st(nic->port)->nd++;
			pkt_free(p);
		}
		if (v != -2)
			return v;
		if (w->off == IPV6_HLEN && icmp6_echo(nic, p, mlen))
			return -1;
	}
	if (ipv6_unspec_or_loopback(ip->saddr, 0))
		return FWD_DROP_ip6_martian_src;	/* only DAD's NS may come from :: */
	fwd_st(nic->port)->local++;
	pkt_free(p);
	return -1;
}

/* The IPv6 header fields that end the fast path's frames early, beside
 * the destination's slot: Next Header values of the headers
 * ipv6_ext_walk examines (Hop-by-Hop 0, Routing 43, Fragment 44, AH 51,
 * Destination Options 60), as bits of a mask of the values below 64. */
#define EXT_HDRS	(1ull << IP6_HOPOPTS | 1ull << IP6_ROUTING | 1ull << IP6_FRAGMENT | 1ull << IP6_AH | \
			 1ull << IP6_DSTOPTS)

static inline __attribute__((always_inline)) unsigned dst6_slot_of(uint64_t hi)
{
	return ((uint32_t)(hi >> 32) * 2654435761u) >> 28;	/* 4 bits: DST_SLOTS */
}

/* Remember ip's destination for l3v6_fast_run: its frame was just
 * forwarded out of port out to mac, a neighbor whose address is in use
 * (REACHABLE, DELAY or PROBE: RFC 4861 7.3.3 sends to the cached address
 * while it is checked) unless that batch is mixed. */
static void dst6_remember(struct l3_core *c, const struct ipv6_hdr *ip, int out, const uint8_t mac[ETH_ALEN])
{
	uint64_t lo, hi;
	uint8_t hdr[12];
	if (c->tx[out].mixed || l3_nics[out]->mtu < IPV6_HLEN)
		return;	/* the fast path writes no kinds; see l3_tx_typed */
	memcpy(&lo, ip->daddr, 8);
	memcpy(&hi, ip->daddr + 8, 8);
	struct dst6_slot *ds = &c->dst6[dst6_slot_of(hi)];
	memcpy(hdr, mac, ETH_ALEN);
	memcpy(hdr + ETH_ALEN, l3_nics[out]->mac, ETH_ALEN);
	memcpy(&ds->mac_lo, hdr, 8);
	memcpy(&ds->mac_hi, hdr + 8, 4);
	ds->lo = lo;
	ds->hi = hi;
	ds->room = l3_nics[out]->mtu - IPV6_HLEN;
	ds->out = out;
	ds->b = &c->tx[out];
	ds->epoch = c->epoch;
}

/* 1 if source lo:hi (its two halves as in the header) may be forwarded
 * by the fast path: a global unicast address that is not ours (no
 * ff00::/8, fe80::/10, nothing in ::/64: ::, ::1 and ::ffff:0:0/96 among
 * it; those go the full path, whose checks say which). */
static int fast_src6(uint64_t lo, uint64_t hi)
{
	uint8_t a[16];
	memcpy(a, &lo, 8);
	memcpy(a + 8, &hi, 8);
	return lo && !ipv6_multicast(a) && !ipv6_link_local(a) && ifaddr6_port_of(a) < 0;
}

/* The full path's way for a forwarded frame, for what can be seen at
 * once: to our MAC, IPv6, no tag the NIC took off (PKT_RX_VLAN), no
 * extension header the walk would examine,
 * hop limit > 1, the payload length within the frame and the out port's
 * MTU, a valid source (fast_src6; a frame from the source of the one
 * before it needs it not checked again) and a destination remembered in
 * this epoch (struct dst6_slot). */
int l3v6_fast_run(struct l3_core *c, struct pkt **pkts, int i, int n, uint64_t our)
{
	const uint64_t epoch = c->epoch;
	const struct dst6_slot *ds = 0;
	uint64_t src_lo = 0, src_hi = 0;	/* the last source found valid; src_lo 0: none (no valid one has it) */
	for (; i < n; i++) {
		struct pkt *p = pkts[i];
		uint8_t *d = p->data;	/* a whole buffer: the bytes read exist */
		uint8_t *ip = d + ETH_HLEN;
		uint64_t w0, s_lo, s_hi, d_lo, d_hi;
		uint32_t w3;
		memcpy(&w0, d, 8);		/* destination MAC, 2 bytes more */
		memcpy(&w3, d + 12, 4);		/* EtherType, version, traffic class */
		memcpy(&s_lo, ip + 8, 8);
		memcpy(&s_hi, ip + 16, 8);
		memcpy(&d_lo, ip + 24, 8);
		memcpy(&d_hi, ip + 32, 8);
		if (!ds || d_lo != ds->lo || d_hi != ds->hi) {
			ds = &c->dst6[dst6_slot_of(d_hi)];
			if (d_lo != ds->lo || d_hi != ds->hi || ds->epoch != epoch)
				break;
		}
		if (s_lo != src_lo || s_hi != src_hi || !src_lo) {
			if (!fast_src6(s_lo, s_hi))
				break;
			src_lo = s_lo;
			src_hi = s_hi;
		}
		uint32_t pl = get16(ip + 4);
		uint8_t nh = ip[6];
		if ((((w0 ^ our) << 16) | ((w3 & 0xf0ffff) ^ 0x60dd86)) || (p->flags & PKT_RX_VLAN) || ip[7] <= 1 || pl > ds->room ||
		    pl + IPV6_HLEN + ETH_HLEN > p->len || (nh < 64 && (EXT_HDRS >> nh & 1)))
			break;
		struct txb *b = ds->b;
		p->len = (uint16_t)(pl + IPV6_HLEN + ETH_HLEN);
		memcpy(d, &ds->mac_lo, 8);
		memcpy(d + 8, &ds->mac_hi, 4);
		ip[7]--;
		if (b->n == TXB_MAX)
			l3_tx_flush(ds->out);
		b->p[b->n++] = p;
	}
	return i;
}

/* The route and the next hop of a packet to forward. */
static int ipv6_route(struct nic *nic, struct pkt *p, struct ipv6_hdr *ip, size_t len,
		      const struct ipv6_walk *w, uint64_t now)
{
	if (ip->hop_limit <= 1) {	/* RFC 8200 3, RFC 4443 3.3 */
		icmp6_error(nic, p, ICMP6_TIME_EXCEEDED, 0, 0, w, now);
		return FWD_DROP_ip6_hop_limit;
	}
	uint16_t nh = lpm6_lookup(&l3_lpm6, ip->daddr);
	if (nh == LPM6_NONE) {
		icmp6_error(nic, p, ICMP6_DST_UNREACH, ICMP6_DST_NOROUTE, 0, w, now);
		return FWD_DROP_ip6_no_route;
	}
	int out = l3_nh6[nh].port;
	if (ipv6_link_local(ip->saddr) && out != nic->port) {	/* RFC 4291 2.5.6 */
		icmp6_error(nic, p, ICMP6_DST_UNREACH, ICMP6_DST_BEYOND_SCOPE, 0, w, now);
		return FWD_DROP_ip6_beyond_scope;
	}
	if (len > l3_nics[out]->mtu) {	/* RFC 8200 5: never fragmented on the way */
		icmp6_error(nic, p, ICMP6_PACKET_TOO_BIG, 0, l3_nics[out]->mtu, w, now);
		return FWD_DROP_ip6_too_big;
	}
	static const uint8_t zero[16];
	const uint8_t *hop = memcmp(l3_nh6[nh].gw, zero, 16) ? l3_nh6[nh].gw : ip->daddr;
	struct nd_entry *e = nd_find(out, hop);
	int v = nd_resolve(e, out, hop, p, now);
	if (v == -1 && e && e->state != ND_INCOMPLETE)	/* forwarded, not held: REACHABLE, DELAY or PROBE */
		dst6_remember(l3_me(), ip, out, e->mac);
	return v;
}

int ipv6_input(struct nic *nic, struct pkt *p, uint64_t now)
{
	struct ipv6_hdr *ip = (struct ipv6_hdr *)(p->data + ETH_HLEN);
	size_t flen = (size_t)p->len - ETH_HLEN, len;
	struct ipv6_walk w;
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	if (flen < IPV6_HLEN)
		return FWD_DROP_ip6_too_short;
	if (p->data[ETH_HLEN] >> 4 != 6)
		return FWD_DROP_ip6_bad_version;
	len = IPV6_HLEN + ntoh16(ip->payload_len);
	if (len > flen || (len == IPV6_HLEN && ip->nexthdr == IP6_HOPOPTS))	/* a jumbogram: not on Ethernet */
		return FWD_DROP_ip6_bad_paylen;
	if (ipv6_multicast(ip->saddr) || ipv6_unspec_or_loopback(ip->saddr, 1) || !memcmp(ip->saddr, mapped, 12) ||
	    ifaddr6_port_of(ip->saddr) >= 0)
		return FWD_DROP_ip6_martian_src;	/* RFC 4291 2.5.3, 2.5.5.2, 2.7; ours: a loop or a spoof */
	int mcast = ipv6_multicast(ip->daddr);
	if (mcast && !joined(nic->port, ip->daddr))
		return FWD_DROP_ip6_mcast_not_joined;	/* a router here forwards no multicast */
	if (!mcast && memcmp(p->data, nic->mac, ETH_ALEN))
		return FWD_DROP_not_our_mac;
	enum ipv6_ext v = ipv6_ext_walk((const uint8_t *)ip, len, &w);
	if (v != IPV6_EXT_OK) {
		int code = ext_verdict[v].code;
		if (v == IPV6_EXT_TRUNCATED && w.frag)
			code = ICMP6_PARAM_CHAIN;
		if (code >= 0)
			icmp6_error(nic, p, ICMP6_PARAM_PROB, (uint8_t)code, (uint32_t)w.ptr, 0, now);
		return ext_verdict[v].drop;
	}
	int own = ifaddr6_port_of(ip->daddr);
	if (mcast || (ipv6_link_local(ip->daddr) ? own == nic->port || ifaddr6_on_port(nic->port, ip->daddr) : own >= 0))
		return ipv6_local(nic, p, ip, len, &w);
	if (ipv6_unspec_or_loopback(ip->saddr, 0))
		return FWD_DROP_ip6_martian_src;	/* :: is for DAD, to us */
	if (ipv6_unspec_or_loopback(ip->daddr, 0) || ipv6_unspec_or_loopback(ip->daddr, 1) ||
	    !memcmp(ip->daddr, mapped, 12))
		return FWD_DROP_ip6_martian_dst;
	if (ipv6_link_local(ip->daddr))
		return FWD_DROP_ip6_beyond_scope;	/* another host's on this link: never routed */
	return ipv6_route(nic, p, ip, len, &w, now);
}
