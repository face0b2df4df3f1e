/*
 * fwd's IPv6 Neighbor Discovery (RFC 4861): each core's neighbor cache per
 * port, Neighbor Solicitations for our addresses answered (DAD probes for
 * them defended, RFC 4862 5.4.3), the cache learnt from solicitations and
 * advertisements (7.2.3, 7.2.5) on every core (neigh.c's mailboxes), the
 * next hops of routed frames solicited (ARP_HOLD frames held meanwhile)
 * and their entries run through INCOMPLETE, REACHABLE, STALE, DELAY and
 * PROBE with the RFC's timers (7.3.3; section 10's constants, without
 * ReachableTime's random factor). Redirects are neither sent nor followed
 * (a Redirect received counts `local`), nor are Router Solicitations
 * answered.
 */
#include <stdio.h>
#include <string.h>
#include "apps/fwd/counters.h"
#include "apps/fwd/icmp6.h"
#include "apps/fwd/l3.h"
#include "apps/fwd/neigh.h"
#include "apps/fwd/route.h"
#include "kernel/time.h"
#include "net/addr.h"
#include "net/ifaddr.h"

#define ND_PROBE_SLOTS		8	/* slots an address may sit in, from its hash */
#define ND_RETRANS_MS		1000	/* RETRANS_TIMER */
#define ND_SOLICITS		3	/* MAX_MULTICAST_SOLICIT, MAX_UNICAST_SOLICIT */
#define ND_REACHABLE_MS		30000	/* REACHABLE_TIME */
#define ND_DELAY_MS		5000	/* DELAY_FIRST_PROBE_TIME */
#define ND_NEG_MS		1000	/* FAILED: frames dropped for this long */

static const char *const nd_state_names[] = { "free", "incomplete", "reachable", "stale", "delay", "probe", "failed" };

static unsigned nd_hash(const uint8_t a[16])
{
	uint32_t x;
	memcpy(&x, a + 12, 4);
	return (x * 2654435761u) >> 27;	/* 5 bits: ND_SLOTS */
}

struct nd_entry *nd_find(int port, const uint8_t addr[16])
{
	unsigned h = nd_hash(addr);
	for (unsigned i = 0; i < ND_PROBE_SLOTS; i++) {
		struct nd_entry *e = &l3_me()->nd[port][(h + i) % ND_SLOTS];
		if (e->state != ND_FREE && !memcmp(e->addr, addr, 16))
			return e;
	}
	return 0;
}

/* A slot for addr on port: a free or failed one, else a STALE one (an
 * entry no routed frame needed lately); NULL when none can go. */
static struct nd_entry *nd_new(int port, const uint8_t addr[16])
{
	unsigned h = nd_hash(addr);
	struct nd_entry *victim = 0;
	for (unsigned i = 0; i < ND_PROBE_SLOTS; i++) {
		struct nd_entry *e = &l3_me()->nd[port][(h + i) % ND_SLOTS];
		if (e->state == ND_FREE || e->state == ND_FAILED) {
			victim = e;
			break;
		}
		if (e->state == ND_STALE && !victim)
			victim = e;
	}
	if (victim) {
		*victim = (struct nd_entry){ .port = (uint8_t)port, .state = ND_INCOMPLETE };
		memcpy(victim->addr, addr, 16);
	}
	return victim;
}

/* Solicit e's address: multicast to its solicited-node group while
 * INCOMPLETE, unicast to its known MAC in PROBE (RFC 4861 7.2.2, 7.3.3),
 * from our link-local address with our link-layer address. */
static void nd_solicit(struct nd_entry *e)
{
	struct nic *nic = l3_nics[e->port];
	struct pkt *p = pkt_alloc(nic->pool);
	if (!p) {
		fwd_st(e->port)->ev[FWD_EV_nd_no_buffer]++;
		return;
	}
	uint8_t *m = p->data + ETH_HLEN + IPV6_HLEN, dst[16], dmac[ETH_ALEN];
	memset(m, 0, ND_MSG_LEN + 8);
	m[0] = ND_NEIGHBOR_SOLICIT;
	memcpy(m + 8, e->addr, 16);
	m[24] = ND_OPT_SLLA;
	m[25] = 1;	/* 8 bytes */
	memcpy(m + 26, nic->mac, ETH_ALEN);
	if (e->state == ND_PROBE) {
		memcpy(dst, e->addr, 16);
		memcpy(dmac, e->mac, ETH_ALEN);
	} else {
		ipv6_solicited_node(e->addr, dst);
		ipv6_mcast_mac(dst, dmac);
	}
	icmp6_finish(p->data, dmac, nic->mac, ifaddrs[e->port].ll6, dst, ND_MSG_LEN + 8, ND_HOP_LIMIT);
	p->len = ETH_HLEN + IPV6_HLEN + ND_MSG_LEN + 8;
	p->port = e->port;
	fwd_st(e->port)->ev[FWD_EV_nd_solicits]++;
	l3_tx_add(e->port, p, TX_OWN);
}

/* Solicitation number `tries` for e, the next ND_RETRANS_MS from now. */
static void nd_ask(struct nd_entry *e, int tries, uint64_t now)
{
	e->tries = (uint8_t)tries;
	e->timer_tsc = now + tsc.hz * ND_RETRANS_MS / 1000;
	nd_solicit(e);
}

/* e is in state st at mac (NULL: the one it has); frames held leave. */
static void nd_set(struct nd_entry *e, int st, const uint8_t *mac)
{
	if (mac)
		memcpy(e->mac, mac, ETH_ALEN);
	e->state = (uint8_t)st;
	l3_me()->epoch++;	/* the fast path's destinations through e go the full path */
	if (st == ND_REACHABLE)
		e->confirmed_tsc = rdtsc();
	for (int i = 0; i < e->nheld; i++)
		l3_forward6(l3_me(), e->held[i], e->port, e->mac, 0);
	e->nheld = 0;
}

/* RFC 4861 7.2.3 (m from an NS: a new or changed address is STALE) and
 * 7.2.5 (from an NA) on the calling core. */
void nd_apply(const struct neigh_msg *m)
{
	struct nd_entry *e = nd_find(m->port, m->addr);
	int solicited = m->flags & ND_MSG_SOLICITED, override = m->flags & ND_MSG_OVERRIDE;
	int same = e && ((m->flags & ND_MSG_NO_LLA) || !memcmp(e->mac, m->mac, ETH_ALEN));
	if (!(m->flags & ND_MSG_NA)) {
		if (!e && m->create && (e = nd_new(m->port, m->addr)))
			same = 0;
		if (e && (e->state == ND_INCOMPLETE || !same))
			nd_set(e, ND_STALE, m->mac);
		return;
	}
	if (!e || e->state == ND_FAILED)
		return;	/* an NA never creates an entry */
	if (e->state == ND_INCOMPLETE && (m->flags & ND_MSG_NO_LLA))
		return;
	if (e->state == ND_INCOMPLETE)
		nd_set(e, solicited ? ND_REACHABLE : ND_STALE, m->mac);
	else if (!override && !same) {	/* 7.2.5: REACHABLE goes STALE, any other state ignores it */
		if (e->state == ND_REACHABLE)
			nd_set(e, ND_STALE, 0);
	} else if (solicited)
		nd_set(e, ND_REACHABLE, same ? 0 : m->mac);
	else if (!same)
		nd_set(e, ND_STALE, m->mac);
}

/* The ND options after the 24 bytes of an NS or NA: each of length > 0
 * within len (RFC 4861 7.1.1, 7.1.2); the link-layer address option of
 * type want into *lla (NULL if none). 0, or -1. */
static int nd_options(const uint8_t *m, size_t len, int want, const uint8_t **lla)
{
	*lla = 0;
	for (size_t i = ND_MSG_LEN; i < len;) {
		if (i + 2 > len || m[i + 1] == 0 || i + m[i + 1] * 8u > len)
			return -1;
		if (m[i] == want && m[i + 1] == 1)
			*lla = m + i + 2;
		i += m[i + 1] * 8u;
	}
	return 0;
}

/* Answer an NS for our target with an NA in its own buffer (RFC 4861
 * 7.2.4): solicited to its source, or to all-nodes for a DAD probe. */
static void nd_advertise(struct nic *nic, struct pkt *p, struct ipv6_hdr *ip, const uint8_t *target, int dad)
{
	static const uint8_t all_nodes[16] = { 0xff, 2, [15] = 1 };
	uint8_t dst[16], dmac[ETH_ALEN], tgt[16];
	uint8_t *m = (uint8_t *)(ip + 1);
	memcpy(tgt, target, 16);
	memcpy(dst, dad ? all_nodes : ip->saddr, 16);
	if (dad)
		ipv6_mcast_mac(dst, dmac);
	else
		memcpy(dmac, ((struct eth_hdr *)p->data)->src, ETH_ALEN);
	memset(m, 0, ND_MSG_LEN + 8);
	m[0] = ND_NEIGHBOR_ADVERT;
	put32(m + 4, ND_NA_ROUTER | ND_NA_OVERRIDE | (dad ? 0 : ND_NA_SOLICITED));
	memcpy(m + 8, tgt, 16);
	m[24] = ND_OPT_TLLA;
	m[25] = 1;
	memcpy(m + 26, nic->mac, ETH_ALEN);
	icmp6_finish(p->data, dmac, nic->mac, tgt, dst, ND_MSG_LEN + 8, ND_HOP_LIMIT);
	p->len = ETH_HLEN + IPV6_HLEN + ND_MSG_LEN + 8;
	l3_tx_add(nic->port, p, TX_ND);
}

/* An NS to us (RFC 4861 7.1.1 checked): its source learnt, our target
 * answered. Returns a drop reason or -1. */
static int nd_ns(struct nic *nic, struct pkt *p, struct ipv6_hdr *ip, const uint8_t *m, size_t len)
{
	const uint8_t *slla;
	int dad = ipv6_unspec_or_loopback(ip->saddr, 0);
	uint8_t group[16];
	if (nd_options(m, len, ND_OPT_SLLA, &slla))
		return FWD_DROP_nd_bad_option;
	ipv6_solicited_node(m + 8, group);
	if (dad && (slla || memcmp(ip->daddr, group, 16)))
		return FWD_DROP_nd_dad_bad;
	if (!ifaddr6_on_port(nic->port, m + 8))
		return FWD_DROP_nd_not_ours;
	if (slla && !dad) {
		struct neigh_msg n = { .family = 6, .port = (uint8_t)nic->port, .create = 1 };
		memcpy(n.mac, slla, ETH_ALEN);
		memcpy(n.addr, ip->saddr, 16);
		neigh_learn(&n);
	}
	nd_advertise(nic, p, ip, m + 8, dad);
	return -1;
}

/* An NA to us (RFC 4861 7.1.2 checked): learnt, on every core. */
static int nd_na(struct nic *nic, struct pkt *p, struct ipv6_hdr *ip, const uint8_t *m, size_t len)
{
	const uint8_t *tlla;
	uint32_t flags = get32(m + 4);
	if (nd_options(m, len, ND_OPT_TLLA, &tlla))
		return FWD_DROP_nd_bad_option;
	if (ipv6_multicast(ip->daddr) && (flags & ND_NA_SOLICITED))
		return FWD_DROP_nd_na_solicited_mcast;
	if (ifaddr6_on_port(nic->port, m + 8)) {	/* someone else claims our address */
		char who[MAC_STR_MAX];
		if (!fwd_st(nic->port)->ev[FWD_EV_nd_conflict]++)
			printf("fwd: %s: NA from %s claims our address\n", nic->name,
			       mac_str(who, ((struct eth_hdr *)p->data)->src));
		return FWD_DROP_nd_not_ours;
	}
	struct neigh_msg n = { .family = 6, .port = (uint8_t)nic->port, .flags = ND_MSG_NA };
	n.flags |= (uint8_t)((flags & ND_NA_SOLICITED ? ND_MSG_SOLICITED : 0) | (flags & ND_NA_OVERRIDE ? ND_MSG_OVERRIDE : 0));
	memcpy(n.addr, m + 8, 16);
	if (tlla)
		memcpy(n.mac, tlla, ETH_ALEN);
	else
		n.flags |= ND_MSG_NO_LLA;
	neigh_learn(&n);
	fwd_st(nic->port)->nd++;
	pkt_free(p);
	return -1;
}

int nd_input(struct nic *nic, struct pkt *p, struct ipv6_hdr *ip, struct icmp6_hdr *ic, size_t len)
{
	const uint8_t *m = (const uint8_t *)ic;
	if (ip->hop_limit != ND_HOP_LIMIT)
		return FWD_DROP_nd_hop_limit;	/* not from this link */
	if (ic->code != 0)
		return FWD_DROP_nd_bad_code;
	if (len < ND_MSG_LEN)
		return FWD_DROP_nd_too_short;
	if (ipv6_multicast(m + 8))
		return FWD_DROP_nd_mcast_target;
	return ic->type == ND_NEIGHBOR_SOLICIT ? nd_ns(nic, p, ip, m, len) : nd_na(nic, p, ip, m, len);
}

int nd_resolve(struct nd_entry *e, int out, const uint8_t hop[16], struct pkt *p, uint64_t now)
{
	if (e && e->state == ND_FAILED) {
		if (now < e->timer_tsc)
			return FWD_DROP_nd_unresolved;
		e->state = ND_FREE;
		e = 0;
	}
	if (e && e->state != ND_INCOMPLETE) {
		if (e->state == ND_STALE) {	/* 7.3.3: first use of a stale entry */
			e->state = ND_DELAY;
			e->timer_tsc = now + tsc.hz * ND_DELAY_MS / 1000;
		}
		l3_forward6(l3_me(), p, out, e->mac, 1);
		return -1;
	}
	if (!e) {
		if (!(e = nd_new(out, hop)))
			return FWD_DROP_nd_table_full;
		nd_ask(e, 1, now);
	}
	if (e->nheld == ARP_HOLD)
		return FWD_DROP_nd_queue_full;
	e->held[e->nheld++] = p;
	return -1;
}

/* One entry's timers (RFC 4861 7.3.3); returns frames dropped. */
static int nd_timer(struct nd_entry *e, uint64_t now)
{
	if (e->state == ND_REACHABLE && now - e->confirmed_tsc > tsc.hz / 1000 * ND_REACHABLE_MS) {
		e->state = ND_STALE;
		l3_me()->epoch++;	/* its next use starts DELAY (7.3.3): the full path's */
		return 0;
	}
	if ((e->state != ND_INCOMPLETE && e->state != ND_DELAY && e->state != ND_PROBE) || now < e->timer_tsc)
		return 0;
	if (e->state == ND_DELAY) {
		e->state = ND_PROBE;
		nd_ask(e, 1, now);
		return 0;
	}
	if (e->tries < ND_SOLICITS) {
		nd_ask(e, e->tries + 1, now);
		return 0;
	}
	int n = e->nheld;
	for (int k = 0; k < n; k++) {
		fwd_drop(e->held[k]->port, FWD_DROP_nd_unresolved, 1);
		pkt_free(e->held[k]);
	}
	e->nheld = 0;
	e->state = ND_FAILED;	/* 7.3.3: the entry goes; here a short negative cache */
	l3_me()->epoch++;	/* a PROBE entry the fast path sent to */
	e->timer_tsc = now + tsc.hz * ND_NEG_MS / 1000;
	return n;
}

int nd_timers(uint64_t now)
{
	int done = 0;
	for (int p = l3_link_next(-1); p < FWD_LINKS; p = l3_link_next(p))
		for (int i = 0; fwd_l3_v6[p] && i < ND_SLOTS; i++)
			done += nd_timer(&l3_me()->nd[p][i], now);
	return done;
}

uint64_t nd_held(int port)
{
	uint64_t n = 0;
	for (int c = 0; l3_cores && c < ncpus; c++)
		for (int q = l3_link_next(-1); q < FWD_LINKS; q = l3_link_next(q))
			for (int i = 0; i < ND_SLOTS; i++)
				for (int k = 0; k < l3_cores[c].nd[q][i].nheld; k++)
					n += l3_cores[c].nd[q][i].held[k]->port == port;
	return n;
}

void fwd_l3_nd_show(void)
{
	uint64_t now = rdtsc();
	printf("%-4s %-6s %-39s %-17s %-10s %10s %4s\n", "core", "port", "address", "mac", "state", "age_ms", "held");
	for (int c = 0; l3_cores && c < ncpus; c++)
		for (int p = l3_link_next(-1); p < FWD_LINKS; p = l3_link_next(p))
			for (int i = 0; i < ND_SLOTS; i++) {
				const struct nd_entry *e = &l3_cores[c].nd[p][i];
				if (e->state == ND_FREE)
					continue;
				char a[IPV6_STR_MAX], m[MAC_STR_MAX];
				printf("%-4d %-6s %-39s %s %-10s %10lu %4u\n", c, l3_nics[p]->name, addr6_fmt(a, e->addr),
				       e->state == ND_INCOMPLETE || e->state == ND_FAILED ? "-                " : mac_str(m, e->mac),
				       nd_state_names[e->state],
				       e->confirmed_tsc ? (unsigned long)((now - e->confirmed_tsc) / (tsc.hz / 1000)) : 0ul,
				       e->nheld);
			}
}
