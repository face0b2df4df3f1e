/*
 * fwd's Router Advertisements (RFC 4861 6) on the IPv6 ports with ra6=1,
 * as radvd sends them by default: from the port's link-local address to
 * all-nodes, with its link-layer address, the MTU and a Prefix
 * Information option for each of its prefixes (on-link; autonomous for
 * the /64s, so a Linux peer configures an address by SLAAC, RFC 4862 5.5,
 * and a default route via us). Sent at start, then every 16 s for the
 * first three (6.2.4: MAX_INITIAL_RTR_ADVERTISEMENTS,
 * MAX_INITIAL_RTR_ADVERT_INTERVAL), then every RA_INTERVAL_S; a Router
 * Solicitation (6.2.6) brings the next one forward, no sooner than 3 s
 * after the last (MIN_DELAY_BETWEEN_RAS). One core sends them: the lowest
 * that runs the router's timers. A VLAN sub-interface (ipN.VID=) with IPv6
 * prefixes is a link of its own: with ra6=1 on its port it gets its own
 * RAs, tagged (its prefixes, the port's link-local address and MAC).
 */
#include <string.h>
#include "apps/fwd/counters.h"
#include "apps/fwd/icmp6.h"
#include "apps/fwd/l3.h"
#include "apps/fwd/route.h"
#include "kernel/knobs.h"
#include "kernel/time.h"
#include "net/ifaddr.h"

#define RA_INTERVAL_S	200	/* MinRtrAdvInterval's default; radvd picks 200-600 s */
#define RA_INITIAL	3	/* MAX_INITIAL_RTR_ADVERTISEMENTS */
#define RA_INITIAL_S	16	/* MAX_INITIAL_RTR_ADVERT_INTERVAL */
#define RA_MIN_DELAY_S	3	/* MIN_DELAY_BETWEEN_RAS */
#define RA_LIFETIME_S	1800	/* router lifetime: 3 x MaxRtrAdvInterval */
#define RA_VALID_S	86400	/* prefix lifetimes, radvd's defaults */
#define RA_PREFERRED_S	14400

static int64_t ra6[NIC_MAX_PORTS];
static const struct knob_range ra6_range[] = { { 0, 1 } };
KNOB(ra6, .name = "ra6", .type = KNOB_INT, .ranges = ra6_range, .nranges = 1, .ival = ra6, .per_port = 1,
     .help = "fwd: send IPv6 Router Advertisements on the port and its VLAN sub-interfaces (each link's "
	     "prefixes, so Linux peers autoconfigure an address and a default route via it; RFC 4861 6, RFC 4862); "
	     "default 0");

static uint64_t ra_next_tsc[FWD_LINKS];	/* the next RA, per link; 0: at the next timer pass */
static uint64_t ra_last_tsc[FWD_LINKS];
static int ra_sent[FWD_LINKS];

/* The RA of port into p (RFC 4861 4.2, 4.6.1-4.6.4); its length. */
static size_t ra_build(int port, struct pkt *p)
{
	static const uint8_t all_nodes[16] = { 0xff, 2, [15] = 1 };
	const struct ifaddr *ia = &ifaddrs[port];
	uint8_t *m = p->data + ETH_HLEN + IPV6_HLEN, dmac[ETH_ALEN];
	size_t n = 16;
	memset(m, 0, 16 + 8 + 8 + 32 * IFADDR6_MAX);
	m[0] = ND_ROUTER_ADVERT;
	m[4] = 64;					/* Cur Hop Limit */
	put16(m + 6, RA_LIFETIME_S);
	m[n] = ND_OPT_SLLA;
	m[n + 1] = 1;
	memcpy(m + n + 2, l3_nics[port]->mac, ETH_ALEN);
	n += 8;
	m[n] = 5;					/* MTU */
	m[n + 1] = 1;
	put32(m + n + 4, l3_nics[port]->mtu);
	n += 8;
	for (int i = 0; i < ia->n6; i++, n += 32) {
		m[n] = 3;				/* Prefix Information */
		m[n + 1] = 4;
		m[n + 2] = ia->v6[i].len;
		m[n + 3] = (uint8_t)(0x80 | (ia->v6[i].len == 64 ? 0x40 : 0));	/* L, A */
		put32(m + n + 4, RA_VALID_S);
		put32(m + n + 8, RA_PREFERRED_S);
		for (int b = 0; b < ia->v6[i].len; b++)
			m[n + 16 + b / 8] |= (uint8_t)(ia->v6[i].addr[b / 8] & (0x80 >> b % 8));
	}
	ipv6_mcast_mac(all_nodes, dmac);
	icmp6_finish(p->data, dmac, l3_nics[port]->mac, ia->ll6, all_nodes, n, ND_HOP_LIMIT);
	return ETH_HLEN + IPV6_HLEN + n;
}

/* Send port's RA now and set the next. */
static void ra_send(int port, uint64_t now)
{
	struct pkt *p = pkt_alloc(l3_nics[port]->pool);
	if (!p) {
		fwd_st(port)->ev[FWD_EV_nd_no_buffer]++;
		return;
	}
	p->len = (uint16_t)ra_build(port, p);
	p->port = (uint16_t)port;
	fwd_st(port)->ev[FWD_EV_ra_sent]++;
	l3_tx_add(port, p, TX_OWN);
	ra_last_tsc[port] = now;
	ra_next_tsc[port] = now + tsc.hz * (++ra_sent[port] < RA_INITIAL ? RA_INITIAL_S : RA_INTERVAL_S);
}

void ra_timers(uint64_t now)
{
	int me = cpu_id_fast();
	for (int c = 0; c < me; c++)
		if (__atomic_load_n(&l3_cores[c].drains, __ATOMIC_RELAXED))
			return;	/* a lower core sends them */
	for (int p = l3_link_next(-1); p < FWD_LINKS; p = l3_link_next(p)) {
		uint64_t next = __atomic_load_n(&ra_next_tsc[p], __ATOMIC_RELAXED);
		if (fwd_l3_v6[p] && ra6[ifaddr_link_port(p)] && now >= next &&
		    (next || !ra_sent[p] || now - ra_last_tsc[p] >= tsc.hz * RA_MIN_DELAY_S))
			ra_send(p, now);
	}
}

int ra_solicited(struct nic *nic, const struct ipv6_hdr *ip, const uint8_t *m, size_t len)
{
	const uint8_t *o = m + 8;
	if (ip->hop_limit != ND_HOP_LIMIT)
		return FWD_DROP_nd_hop_limit;
	if (m[1] != 0)
		return FWD_DROP_nd_bad_code;
	if (len < 8)
		return FWD_DROP_nd_too_short;
	for (size_t i = 0; i < len - 8; i += o[i + 1] * 8u)	/* 6.1.1: options of length > 0 */
		if (i + 2 > len - 8 || o[i + 1] == 0 || i + o[i + 1] * 8u > len - 8 ||
		    (o[i] == ND_OPT_SLLA && ipv6_unspec_or_loopback(ip->saddr, 0)))
			return FWD_DROP_nd_bad_option;
	if (!ra6[ifaddr_link_port(nic->port)])
		return -1;	/* no RA on this link: ND counted, discarded (6.2.6) */
	__atomic_store_n(&ra_next_tsc[nic->port], 0, __ATOMIC_RELAXED);
	return -1;
}
