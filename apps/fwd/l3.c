/*
 * fwd L3: an IPv4 router on the ports with an address (RFC 1812).
 *
 * Per burst, each frame: ARP for our address is answered in place or
 * learnt from; IPv4 to our MAC is checked (ipv4_check), delivered to us
 * (counted `local`; an ICMP echo request is answered) or looked up in the LPM table (a burst's
 * repeated source and destination are checked and looked up once); its next hop's MAC comes
 * from the ARP table, or the frame waits, held in the next hop's queue of
 * ARP_HOLD, while ARP requests go out every ARP_RETRY_MS up to ARP_TRIES
 * times. Once a frame to a destination is forwarded, later frames to it
 * that pass a few header checks take the fast path (struct dst_slot,
 * fast_run) until the tables change: the full path's decisions about the
 * destination reused, the source checked inline, a rewrite and a queue
 * slot per frame.
 * Frames leave in one tx_burst per port at the end of the burst.
 * TTL expiry and no route send ICMP errors, ICMP_RATE per second per port.
 * Nothing is allocated per frame except the ICMP errors and ARP requests.
 */
#include <stdio.h>
#include <string.h>
#include "apps/fwd/counters.h"
#include "apps/fwd/l3.h"
#include "kernel/cpu.h"
#include "kernel/knobs.h"
#include "kernel/mem.h"
#include "kernel/time.h"
#include "net/addr.h"
#include "net/ifaddr.h"
#include "net/ipv4.h"

#define ARP_SLOTS	32	/* ARP table entries per port and core */
#define ARP_PROBE	8	/* slots an address may sit in, from its hash */
#define ARP_NEG_MS	1000	/* a next hop that never answered: frames dropped for this long */
#define ARP_HOLD	8	/* frames held per unresolved next hop */
#define ARP_TRIES	3	/* requests before giving up */
#define ARP_RETRY_MS	100
#define ICMP_RATE	100	/* ICMP errors per second per port (and burst) */
#define TXB_MAX		64

/* Entry states (Linux neighbour names): INCOMPLETE asks, REACHABLE is
 * confirmed within arp_timeout, PROBE still forwards with the old MAC
 * while it asks again, FAILED is the negative cache. */
enum { ARP_FREE, ARP_INCOMPLETE, ARP_REACHABLE, ARP_PROBE_STATE, ARP_FAILED };
static const char *const arp_state_names[] = { "free", "incomplete", "reachable", "probe", "failed" };
enum { TX_FWD, TX_ARP_REPLY, TX_LOCAL, TX_OWN };	/* what a queued frame counts as */

struct arp_entry {
	uint32_t ip;
	uint8_t port, state, tries, nheld;
	uint8_t mac[ETH_ALEN];
	uint64_t retry_tsc;	/* INCOMPLETE, PROBE: next request or give-up; FAILED: end */
	uint64_t confirmed_tsc;	/* last reply or request from it */
	struct pkt *held[ARP_HOLD];
};

/* Frames queued out of one port. While the batch is unmixed (only
 * TX_FWD frames from the burst's port) kind[] and in[] are not written:
 * the first other frame fills them in for those before it (tx_typed). */
struct txb {
	int n;
	int mixed;	/* holds a frame that is not TX_FWD from the burst's port */
	struct pkt *p[TXB_MAX];
	uint8_t kind[TXB_MAX];
	uint8_t in[TXB_MAX];	/* port the frame counts on */
};

/* A destination the full path forwarded a frame to, for fast_run: what it
 * decided (not ours, unicast, not martian, not a directed broadcast,
 * routed out of port `out` to a resolved next hop) depends on the
 * destination and the tables only. Valid while epoch equals the core's,
 * which moves on when the addresses or routes change (ifaddr_gen, seen at the
 * start of a burst), when the core's ARP table changes (arp_new,
 * arp_update, a give-up in fwd_l3_idle) and when a batch gets mixed
 * (tx_typed). */
struct dst_slot {
	uint32_t daddr;		/* as in the header (network order) */
	uint32_t room;		/* out port's MTU less IPV4_HLEN */
	uint64_t epoch;
	uint64_t mac_lo;	/* the next hop's MAC and the first 2 bytes of ours */
	uint32_t mac_hi;	/* the last 4 bytes of ours */
	int out;
	struct txb *b;		/* out port's batch */
};
#define DST_SLOTS	16	/* per core, by a hash of the destination */

static inline unsigned dst_slot_of(uint32_t daddr)
{
	return (daddr * 2654435761u) >> 28;	/* 4 bits: DST_SLOTS */
}

/* One core's router state: each core routes with its own ARP table, TX
 * batches and ICMP rate buckets (so the rate limit is per core). ncpus of
 * them from free pages once a port routes (l3_cores_alloc): 30 KB a core
 * that boxes which do not route keep. */
static struct l3_core {
	struct arp_entry arp[NIC_MAX_PORTS][ARP_SLOTS];	/* one table per port */
	struct txb tx[NIC_MAX_PORTS];
	struct bucket {
		uint64_t last_tsc;
		uint32_t tokens;
	} icmp[NIC_MAX_PORTS];
	uint64_t next_timer_tsc;
	int q;			/* TX queue of this burst */
	int in;			/* port of this burst */
	struct arp_entry *last;	/* the entry the last routed frame used (any state) */
	/* Within a burst: the last source found valid, the last destination
	 * found routable (not ours, unicast, not martian, not a directed
	 * broadcast) and its LPM next hop; 0 = none (0 is never either, and a
	 * frame carrying 0 is always checked). */
	uint32_t ok_src, ok_dst;
	uint16_t ok_nh;
	uint64_t ok_saddr;	/* fast_run's last valid source (network order) | 1 << 32; 0: none */
	uint64_t epoch;		/* see struct dst_slot */
	uint32_t gen;		/* the ifaddr_gen epoch last moved on for */
	struct dst_slot dst[DST_SLOTS];
} *l3_cores;

int l3_cores_alloc(void)
{
	size_t bytes = (size_t)ncpus * sizeof(*l3_cores);
	l3_cores = dma_alloc(bytes, 64);
	if (!l3_cores) {
		printf("fwd: no memory for the router's state of %d core(s) (%lu bytes)\n", ncpus, (unsigned long)bytes);
		return -1;
	}
	return 0;
}

/* The calling core's router state. */
static inline struct l3_core *me(void)
{
	return &l3_cores[cpu_id_fast()];
}

static void tx_flush(int port)
{
	struct txb *b = &me()->tx[port];
	struct nic *out = nics[port];
	int sent = b->n ? out->ops->tx_burst(out, me()->q % out->nqueues, b->p, b->n) : 0;
	if (!b->mixed) {	/* the common batch: frames routed from the burst's port */
		int in = me()->in;
		fwd_st(in)->forwarded += (uint64_t)sent;
		if (sent < b->n) {
			fwd_drop(in, FWD_DROP_tx_ring_full, (uint64_t)(b->n - sent));
			pkt_free_bulk(b->p + sent, b->n - sent);
		}
		b->n = 0;
		return;
	}
	for (int i = 0; i < b->n; i++) {
		int in = b->in[i];
		if (b->kind[i] == TX_OWN) {
			if (i >= sent) {
				fwd_st(port)->ev[FWD_EV_own_tx_ring_full]++;
				pkt_free(b->p[i]);
			}
		} else if (i < sent) {
			if (b->kind[i] == TX_FWD)
				fwd_st(in)->forwarded++;
			else if (b->kind[i] == TX_LOCAL)
				fwd_st(in)->local++;
			else
				fwd_st(in)->arp++;
		} else {
			fwd_drop(in, FWD_DROP_tx_ring_full, 1);
			pkt_free(b->p[i]);
		}
	}
	b->n = 0;
	b->mixed = 0;
}

/* Record the kind and port of b's next frame p; the first time, also of
 * the unmixed frames before it (TX_FWD from the burst's port, c->in). */
static void tx_typed(struct l3_core *c, struct txb *b, struct pkt *p, int kind)
{
	if (!b->mixed) {
		memset(b->kind, TX_FWD, (size_t)b->n);
		memset(b->in, c->in, (size_t)b->n);
		b->mixed = 1;
		c->epoch++;	/* destinations queued to b go the full path */
	}
	b->in[b->n] = (uint8_t)p->port;
	b->kind[b->n] = (uint8_t)kind;
}

/* Queue p out of port on core c (me()), counted as kind (TX_FWD from the
 * burst's port keeps the batch unmixed; in_burst: p is a frame of this
 * burst, so from that port). Inline: it runs once per routed frame. */
static inline __attribute__((always_inline))
void tx_add_on(struct l3_core *c, int port, struct pkt *p, int kind, const int in_burst)
{
	struct txb *b = &c->tx[port];
	if (b->n == TXB_MAX)
		tx_flush(port);
	if (b->mixed || kind != TX_FWD || (!in_burst && p->port != c->in))
		tx_typed(c, b, p, kind);
	b->p[b->n++] = p;
}

static void tx_add(int port, struct pkt *p, int kind)
{
	tx_add_on(me(), port, p, kind, 0);
}

static void tx_flush_all(void)
{
	for (int p = 0; p < nic_count; p++)
		if (me()->tx[p].n)
			tx_flush(p);
}

static int64_t arp_timeout = 60;
static const struct knob_range arp_timeout_range[] = { { 1, 3600 } };
KNOB(arp_timeout, .name = "arp_timeout", .type = KNOB_INT, .ranges = arp_timeout_range, .nranges = 1,
     .ival = &arp_timeout,
     .help = "fwd: seconds an ARP entry stays reachable without news before it is asked again "
	     "(3 requests 100 ms apart, forwarding meanwhile); default 60");

static unsigned arp_hash(uint32_t ip)
{
	return (ip * 2654435761u) >> 27;	/* 5 bits: ARP_SLOTS */
}

static struct arp_entry *arp_find(int port, uint32_t ip)
{
	unsigned h = arp_hash(ip);
	for (unsigned i = 0; i < ARP_PROBE; i++) {
		struct arp_entry *e = &me()->arp[port][(h + i) % ARP_SLOTS];
		if (e->state != ARP_FREE && e->ip == ip)
			return e;
	}
	return 0;
}

/* A slot for ip on port: a free or failed one, else a resolved one that is
 * not the next hop of a configured route (so strangers' ARP can never push
 * those out); NULL when none of the slots ip may use can go. */
static struct arp_entry *arp_new(int port, uint32_t ip)
{
	unsigned h = arp_hash(ip);
	struct arp_entry *victim = 0;
	for (unsigned i = 0; i < ARP_PROBE; i++) {
		struct arp_entry *e = &me()->arp[port][(h + i) % ARP_SLOTS];
		if (e->state == ARP_FREE || e->state == ARP_FAILED) {
			victim = e;
			break;
		}
		if (e->state == ARP_REACHABLE && !victim && !l3_is_next_hop(port, e->ip))
			victim = e;
	}
	if (victim) {
		*victim = (struct arp_entry){ .ip = ip, .port = (uint8_t)port, .state = ARP_INCOMPLETE };
		me()->epoch++;	/* it may have been a destination's next hop */
	}
	return victim;
}

/* Rewrite a routed frame for its next hop and queue it out of port on
 * core c (me()). */
static inline __attribute__((always_inline))
void forward(struct l3_core *c, struct pkt *p, int port, const uint8_t mac[ETH_ALEN], const int in_burst)
{
	struct eth_hdr *eth = (struct eth_hdr *)p->data;
	/* Bytes past the IPv4 total length (Ethernet padding, or trailing
	 * garbage) are not part of the datagram (RFC 1812 5.2.2): not sent on. */
	p->len = (uint16_t)(ETH_HLEN + ntoh16(((struct ipv4_hdr *)(p->data + ETH_HLEN))->tot_len));
	memcpy(eth->dst, mac, ETH_ALEN);
	memcpy(eth->src, nics[port]->mac, ETH_ALEN);
	ipv4_ttl_dec((struct ipv4_hdr *)(p->data + ETH_HLEN));
	tx_add_on(c, port, p, TX_FWD, in_burst);
}

static void arp_request(struct arp_entry *e)
{
	struct nic *nic = nics[e->port];
	struct pkt *p = pkt_alloc(nic->pool);
	if (!p) {
		fwd_st(e->port)->ev[FWD_EV_arp_no_buffer]++;
		return;
	}
	p->len = (uint16_t)arp_build(p->data, nic->pool->buf_size, ARP_REQUEST, nic->mac,
				     ifaddrs[e->port].v4.addr, 0, e->ip);
	p->port = e->port;
	fwd_st(e->port)->ev[FWD_EV_arp_requests]++;
	tx_add(e->port, p, TX_OWN);
}

/* ip is at mac on port (entry e, or a new one): frames held for it leave now. */
static void arp_update(struct arp_entry *e, int port, uint32_t ip, const uint8_t mac[ETH_ALEN])
{
	if (!e && !(e = arp_new(port, ip)))
		return;
	memcpy(e->mac, mac, ETH_ALEN);
	e->state = ARP_REACHABLE;
	e->confirmed_tsc = rdtsc();
	me()->epoch++;	/* the MAC may be new */
	for (int i = 0; i < e->nheld; i++)
		forward(me(), e->held[i], port, mac, 0);
	e->nheld = 0;
}

static void arp_input(struct nic *nic, struct pkt *p)
{
	struct arp_info a;
	int port = nic->port;
	uint32_t our = ifaddrs[port].v4.addr, m = ~0u << (32 - ifaddrs[port].v4.len);
	if (arp_parse(p->data, p->len, &a) != ARP_OK) {
		fwd_drop(port, FWD_DROP_arp_bad, 1);
		pkt_free(p);
		return;
	}
	/* Someone else claims our address (RFC 5227 2.4): say so, never learn it. */
	if (a.spa == our && memcmp(a.sha, nic->mac, ETH_ALEN)) {
		char who[MAC_STR_MAX];
		if (!fwd_st(port)->ev[FWD_EV_arp_conflict]++)
			printf("fwd: %s: ARP from %s claims our address\n", nic->name, mac_str(who, a.sha));
	}
	/* RFC 826 "Packet Reception": a sender already in the table is updated
	 * from any ARP packet (gratuitous ones too), before asking whether the
	 * packet is for us; a new sender is learnt only from packets for us
	 * (not an RFC 5227 probe's sender 0, not one off our subnet). */
	int ok_sender = a.spa && (a.spa & m) == (our & m) && a.spa != our;
	struct arp_entry *e = ok_sender ? arp_find(port, a.spa) : 0;
	if (e)
		arp_update(e, port, a.spa, a.sha);
	if (a.tpa != our) {
		fwd_drop(port, FWD_DROP_arp_not_ours, 1);
		pkt_free(p);
		return;
	}
	if (ok_sender && !e)
		arp_update(0, port, a.spa, a.sha);
	if (a.op == ARP_REQUEST) {
		p->len = (uint16_t)arp_build(p->data, p->pool->buf_size, ARP_REPLY, nic->mac, our,
					     a.sha, a.spa);
		tx_add(port, p, TX_ARP_REPLY);
	} else {
		fwd_st(port)->arp++;
		pkt_free(p);
	}
}

/* Token bucket: may port send an ICMP error now? */
static int icmp_allowed(int port, uint64_t now)
{
	uint64_t per = tsc.hz / ICMP_RATE;
	struct bucket *b = &me()->icmp[port];
	uint64_t n = (now - b->last_tsc) / per;
	if (n) {
		b->tokens = b->tokens + n >= ICMP_RATE ? ICMP_RATE : b->tokens + (uint32_t)n;
		b->last_tsc = b->tokens == ICMP_RATE ? now : b->last_tsc + n * per;
	}
	if (!b->tokens)
		return 0;
	b->tokens--;
	return 1;
}

/* Send ICMP (type, code) about p back out of the port it came in on. */
static void icmp_error(struct nic *nic, struct pkt *p, uint8_t type, uint8_t code, uint64_t now)
{
	struct fwd_stats *st = fwd_st(nic->port);
	if (!icmp_allowed(nic->port, now)) {
		st->ev[FWD_EV_icmp_rate_limited]++;
		return;
	}
	struct pkt *e = pkt_alloc(nic->pool);
	if (!e) {
		st->ev[FWD_EV_icmp_no_buffer]++;
		return;
	}
	size_t len = icmp_error_build(e->data, nic->pool->buf_size, p->data, p->len, type, code,
				      nic->mac, ifaddrs[nic->port].v4.addr);
	if (!len) {
		st->ev[FWD_EV_icmp_suppressed]++;
		me()->icmp[nic->port].tokens++;
		pkt_free(e);
		return;
	}
	e->len = (uint16_t)len;
	e->port = (uint16_t)nic->port;
	st->ev[FWD_EV_icmp_sent]++;
	tx_add(nic->port, e, TX_OWN);
}

/* An ICMP echo request to us (RFC 792, RFC 1812 4.3.3.6) becomes its echo
 * reply in place, back out of the port it came in on. Returns 1 if it
 * did; 0 leaves the frame as it was. */
static int icmp_echo(struct nic *nic, struct pkt *p, struct ipv4_hdr *ip)
{
	unsigned ihl = (ip->ver_ihl & 15u) * 4, tot = ntoh16(ip->tot_len);
	uint32_t src = ntoh32(ip->saddr);
	struct icmp_hdr *icmp = (struct icmp_hdr *)((uint8_t *)ip + ihl);
	if (ip->proto != IP_PROTO_ICMP || tot < ihl + ICMP_HLEN ||
	    (ntoh16(ip->frag_off) & (IPV4_MF | IPV4_OFFSET)) || icmp->type != 8 || icmp->code ||
	    inet_csum(icmp, tot - ihl) || (src >> 24) == 0 || (src >> 24) == 127 || src >= 0xe0000000u)
		return 0;
	struct eth_hdr *eth = (struct eth_hdr *)p->data;
	memcpy(eth->dst, eth->src, ETH_ALEN);
	memcpy(eth->src, nic->mac, ETH_ALEN);
	ip->saddr = ip->daddr;
	ip->daddr = hton32(src);
	ip->ttl = ICMP_ERROR_TTL;
	ip->csum = 0;
	ip->csum = hton16(inet_csum(ip, ihl));
	icmp->type = 0;
	icmp->csum = hton16(inet_csum_update(ntoh16(icmp->csum), 8 << 8, 0));
	tx_add(nic->port, p, TX_LOCAL);
	return 1;
}

/* 1 if the header carries a loose or strict source route option (LSRR
 * 131, SSRR 137; RFC 791). Options are walked with their lengths checked. */
static int ip_source_routed(const struct ipv4_hdr *ip)
{
	const uint8_t *o = (const uint8_t *)ip + IPV4_HLEN;
	unsigned n = (ip->ver_ihl & 15u) * 4 - IPV4_HLEN;
	for (unsigned i = 0; i < n;) {
		uint8_t t = o[i];
		if (t == 0)
			return 0;	/* end of options */
		if (t == 1) {
			i++;		/* no-op */
			continue;
		}
		if (t == 131 || t == 137)
			return 1;
		if (i + 1 >= n || o[i + 1] < 2)
			return 0;	/* malformed: passed on as received */
		i += o[i + 1];
	}
	return 0;
}

/* Remember ip's destination for fast_run: its frame was just forwarded
 * out of port out to mac (unless that batch is mixed). */
static void dst_remember(struct l3_core *c, const struct ipv4_hdr *ip, int out, const uint8_t mac[ETH_ALEN])
{
	struct dst_slot *ds = &c->dst[dst_slot_of(ip->daddr)];
	uint8_t hdr[12];
	if (c->tx[out].mixed || nics[out]->mtu < IPV4_HLEN)
		return;	/* fast_run writes no kinds; see tx_typed */
	memcpy(hdr, mac, ETH_ALEN);
	memcpy(hdr + ETH_ALEN, nics[out]->mac, ETH_ALEN);
	memcpy(&ds->mac_lo, hdr, 8);
	memcpy(&ds->mac_hi, hdr + 8, 4);
	ds->daddr = ip->daddr;
	ds->room = nics[out]->mtu - IPV4_HLEN;
	ds->out = out;
	ds->b = &c->tx[out];
	ds->epoch = c->epoch;
}

/* Forward pkts[i..n) while each frame would take the full path's way to
 * a forwarded frame for reasons fast_run can see at once: to our MAC,
 * IPv4 with a 20-byte header and the NIC's word that its checksum is
 * right, TTL > 1, a total length within the frame and the out port's MTU,
 * a valid source (the last one, or not 0/8, 127/8, 224/3 and not one of
 * our addresses) and a destination remembered in this
 * epoch. A frame with the addresses of the one before it needs neither
 * looked at again. Returns the index of the first frame that does not
 * fit (the full path's). our: the receiving port's MAC in the low 48 bits. */
static inline __attribute__((always_inline))
int fast_run(struct l3_core *c, struct pkt **pkts, int i, int n, uint64_t our)
{
	const uint64_t epoch = c->epoch;
	const struct dst_slot *ds = 0;
	uint64_t last = 0;	/* the addresses ds and ok_saddr were checked for */
	for (; i < n; i++) {
		struct pkt *p = pkts[i];
		uint8_t *d = p->data;	/* a whole buffer: the bytes read exist */
		uint64_t w0, sd;
		uint32_t w3;
		uint16_t tl;
		memcpy(&w0, d, 8);			/* destination MAC, 2 bytes more */
		memcpy(&w3, d + 12, 4);			/* EtherType, version/IHL, TOS */
		memcpy(&tl, d + ETH_HLEN + 2, 2);	/* total length */
		memcpy(&sd, d + ETH_HLEN + 12, 8);	/* source, destination */
		if (sd != last || !ds) {
			uint32_t sa = (uint32_t)sd, da = (uint32_t)(sd >> 32);
			ds = &c->dst[dst_slot_of(da)];
			if (da != ds->daddr || ds->epoch != epoch)
				break;
			if ((1ull << 32 | sa) != c->ok_saddr) {	/* no address can equal "none" */
				uint32_t src = ntoh32(sa);
				if ((src >> 24) == 0 || (src >> 24) == 127 || src >= 0xe0000000u || ifaddr4_local(src))
					break;
				c->ok_saddr = 1ull << 32 | sa;
			}
			last = sd;
		}
		uint32_t tot = ntoh16(tl);
		if ((((w0 ^ our) << 16) | ((w3 & 0xffffff) ^ 0x450008)) ||
		    !(p->flags & PKT_RX_IP_CSUM_OK) || d[ETH_HLEN + 8] <= 1 ||
		    tot - IPV4_HLEN > ds->room || tot + ETH_HLEN > p->len)
			break;
		struct txb *b = ds->b;
		p->len = (uint16_t)(tot + ETH_HLEN);
		memcpy(d, &ds->mac_lo, 8);
		memcpy(d + 8, &ds->mac_hi, 4);
		ipv4_ttl_dec((struct ipv4_hdr *)(d + ETH_HLEN));
		if (b->n == TXB_MAX)
			tx_flush(ds->out);
		b->p[b->n++] = p;
	}
	return i;
}

static const enum fwd_drop check_drop[IPV4_CHECK_N] = {
	[IPV4_TOO_SHORT] = FWD_DROP_too_short, [IPV4_BAD_VERSION] = FWD_DROP_bad_version,
	[IPV4_BAD_IHL] = FWD_DROP_bad_ihl, [IPV4_BAD_TOTLEN] = FWD_DROP_bad_totlen,
	[IPV4_BAD_CSUM] = FWD_DROP_bad_csum, [IPV4_TTL_EXPIRED] = FWD_DROP_ttl_expired,
};

/* One IPv4 frame to our MAC on core (me()): the router's full path. Returns the drop
 * reason, or -1 when the frame went on (local, queued or held). */
static int ipv4_input(struct l3_core *core, struct nic *nic, struct pkt *p, uint64_t now)
{
	struct ipv4_hdr *ip = (struct ipv4_hdr *)(p->data + ETH_HLEN);
	enum ipv4_hw_csum hw = p->flags & PKT_RX_IP_CSUM_OK ? IPV4_HW_GOOD :
			       p->flags & PKT_RX_IP_CSUM_BAD ? IPV4_HW_BAD : IPV4_HW_UNCHECKED;
	enum ipv4_check c = ipv4_check_hw(ip, p->len - ETH_HLEN, hw);
	if (c != IPV4_OK && c != IPV4_TTL_EXPIRED)
		return check_drop[c];
	uint32_t dst = ntoh32(ip->daddr), src = ntoh32(ip->saddr);
	/* RFC 1812 5.3.7: no packet from an invalid source, or from one of our
	 * own addresses (a loop or a spoof), is forwarded or answered. */
	if (src != core->ok_src || !src) {
		if ((src >> 24) == 0 || (src >> 24) == 127 || src >= 0xe0000000u || ifaddr4_local(src))
			return FWD_DROP_martian_src;
		core->ok_src = src;
	}
	uint16_t nh = core->ok_nh;
	if (dst != core->ok_dst || !dst) {	/* the burst's last destination needs none of this */
		if (ifaddr4_local(dst)) {
			if (!icmp_echo(nic, p, ip)) {
				fwd_st(nic->port)->local++;
				pkt_free(p);
			}
			return -1;
		}
		if (dst >= 0xe0000000u || dst == 0)
			return FWD_DROP_not_unicast;
		if ((dst >> 24) == 0 || (dst >> 24) == 127)
			return FWD_DROP_martian_dst;	/* RFC 1812 5.3.7: never forwarded */
		if (ifaddr4_bcast(dst))
			return FWD_DROP_directed_broadcast;	/* RFC 2644: off by default */
		nh = LPM_NONE;
	}
	if ((ip->ver_ihl & 15u) > 5 && ip_source_routed(ip))	/* options only */
		return FWD_DROP_source_route;	/* RFC 7126 4.3, 4.4 */
	if (c == IPV4_TTL_EXPIRED) {
		icmp_error(nic, p, ICMP_TIME_EXCEEDED, ICMP_EXC_TTL, now);
		return FWD_DROP_ttl_expired;
	}
	if (nh == LPM_NONE) {	/* a new destination: looked up once per burst */
		nh = lpm_lookup(&l3_lpm, dst);
		if (nh == LPM_NONE) {
			icmp_error(nic, p, ICMP_DEST_UNREACH, ICMP_NET_UNREACH, now);
			return FWD_DROP_no_route;
		}
		core->ok_dst = dst;
		core->ok_nh = nh;
	}
	int out = l3_nh[nh].port;
	uint32_t hop = l3_nh[nh].gw ? l3_nh[nh].gw : dst;
	if (ntoh16(ip->tot_len) > nics[out]->mtu) {
		/* No fragmentation here: DF or not, the datagram is dropped and a
		 * DF one answered with fragmentation needed (RFC 1812 5.2.6, 4.3.2.5). */
		if (ntoh16(ip->frag_off) & IPV4_DF)
			icmp_error(nic, p, ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED, now);
		return FWD_DROP_mtu_exceeded;
	}
	/* Frames of a burst mostly share a next hop: the entry the last one
	 * used, if it is still about hop (no two entries are), saves the search. */
	struct arp_entry *e = core->last;
	if (!e || e->state == ARP_FREE || e->ip != hop || e->port != out)
		e = core->last = arp_find(out, hop);
	if (e && (e->state == ARP_REACHABLE || e->state == ARP_PROBE_STATE)) {
		forward(core, p, out, e->mac, 1);
		dst_remember(core, ip, out, e->mac);
		return -1;
	}
	if (e && e->state == ARP_FAILED) {
		if (now < e->retry_tsc)
			return FWD_DROP_arp_unresolved;	/* negative cache: no request per frame */
		e->state = ARP_FREE;
		e = 0;
	}
	if (!e) {
		if (!(e = arp_new(out, hop)))
			return FWD_DROP_arp_table_full;
		e->tries = 1;
		e->retry_tsc = now + tsc.hz * ARP_RETRY_MS / 1000;
		arp_request(e);
	}
	if (e->nheld == ARP_HOLD)
		return FWD_DROP_arp_queue_full;
	e->held[e->nheld++] = p;
	return -1;
}

void fwd_l3_rx(struct nic *nic, int q, struct pkt **pkts, int n)
{
	uint64_t now = rdtsc();
	struct l3_core *core = me();
	/* An opaque pointer from here on: without this the compiler rebuilds
	 * &l3_cores[id] from the core id at every use (two multiplies). */
	__asm__("" : "+r"(core));
	core->q = q;
	core->in = nic->port;
	core->ok_src = core->ok_dst = 0;	/* the tables may have changed since the last burst */
	core->ok_saddr = 0;
	uint32_t gen = __atomic_load_n(&ifaddr_gen, __ATOMIC_ACQUIRE);
	if (gen != core->gen) {	/* before any table is read */
		core->gen = gen;
		core->epoch++;
	}
	uint64_t our = 0;
	memcpy(&our, nic->mac, ETH_ALEN);
	for (int i = 0; i < n;) {
		if ((i = fast_run(core, pkts, i, n, our)) == n)
			break;
		struct pkt *p = pkts[i++];
		const struct eth_hdr *eth = (const struct eth_hdr *)p->data;
		int why;
		uint16_t type = p->len >= ETH_HLEN ? ntoh16(eth->type) : 0;
		if (type == ETHERTYPE_ARP) {
			arp_input(nic, p);
			continue;
		}
		if (type != ETHERTYPE_IPV4)
			why = FWD_DROP_not_ipv4;
		else if (memcmp(eth->dst, nic->mac, ETH_ALEN))
			why = FWD_DROP_not_our_mac;
		else
			why = ipv4_input(core, nic, p, now);
		if (why >= 0) {
			fwd_drop(nic->port, (enum fwd_drop)why, 1);
			pkt_free(p);
		}
	}
	tx_flush_all();
}

/* Resend ARP requests that went unanswered for ARP_RETRY_MS; after
 * ARP_TRIES, drop what waits for them (arp_unresolved). */
static __attribute__((noinline)) int arp_timers(uint64_t now)
{
	int done = 0;
	me()->next_timer_tsc = now + tsc.hz / 100;
	uint64_t stale = (uint64_t)arp_timeout * tsc.hz;
	for (int p = 0; p < nic_count; p++) {
		for (int i = 0; i < ARP_SLOTS; i++) {
			struct arp_entry *e = &me()->arp[p][i];
			if (e->state == ARP_REACHABLE && now - e->confirmed_tsc > stale) {
				e->state = ARP_PROBE_STATE;	/* re-resolve, forwarding meanwhile */
				e->tries = 1;
				e->retry_tsc = now + tsc.hz * ARP_RETRY_MS / 1000;
				arp_request(e);
				continue;
			}
			if ((e->state != ARP_INCOMPLETE && e->state != ARP_PROBE_STATE) || now < e->retry_tsc)
				continue;
			if (e->tries < ARP_TRIES) {
				e->tries++;
				e->retry_tsc = now + tsc.hz * ARP_RETRY_MS / 1000;
				arp_request(e);
				done++;
				continue;
			}
			for (int k = 0; k < e->nheld; k++) {
				fwd_drop(e->held[k]->port, FWD_DROP_arp_unresolved, 1);
				pkt_free(e->held[k]);
			}
			done += e->nheld;
			e->nheld = 0;
			e->state = ARP_FAILED;
			me()->epoch++;	/* it may have been a destination's next hop */
			e->retry_tsc = now + tsc.hz * ARP_NEG_MS / 1000;
		}
	}
	tx_flush_all();
	return done;
}

/* Every 10 ms, on a core that routes: arp_timers. The poll loop calls
 * this between bursts, so the common answer is quick. */
int fwd_l3_idle(void)
{
	if (!fwd_l3_any)
		return 0;
	uint64_t now = rdtsc();
	return now < me()->next_timer_tsc ? 0 : arp_timers(now);
}

uint64_t fwd_l3_held(int port)
{
	uint64_t n = 0;
	for (int c = 0; l3_cores && c < ncpus; c++)	/* only running cores and existing ports hold */
		for (int q = 0; q < nic_count; q++)
			for (int i = 0; i < ARP_SLOTS; i++)
				for (int k = 0; k < l3_cores[c].arp[q][i].nheld; k++)
					n += l3_cores[c].arp[q][i].held[k]->port == port;
	return n;
}

void fwd_l3_arp_show(void)
{
	uint64_t now = rdtsc();
	printf("%-4s %-6s %-15s %-17s %-10s %10s %4s\n", "core", "port", "address", "mac", "state", "age_ms",
	       "held");
	for (int c = 0; l3_cores && c < ncpus; c++)
		for (int p = 0; p < nic_count; p++)
			for (int i = 0; i < ARP_SLOTS; i++) {
				const struct arp_entry *e = &l3_cores[c].arp[p][i];
				if (e->state == ARP_FREE)
					continue;
				char a[IPV4_STR_MAX], m[MAC_STR_MAX];
				printf("%-4d %-6s %-15s %s %-10s %10lu %4u\n", c, nics[p]->name, ipv4_str(a, e->ip),
				       mac_str(m, e->mac), arp_state_names[e->state],
				       e->confirmed_tsc ? (unsigned long)((now - e->confirmed_tsc) / (tsc.hz / 1000)) : 0ul,
				       e->nheld);
			}
}
