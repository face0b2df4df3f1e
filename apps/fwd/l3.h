/* fwd L3, the IPv4 and IPv6 router: its entry points for the app
 * (fwd.c), and the per-core state its files share: l3.c (the IPv4
 * forwarding path), l3v6.c (IPv6's), tx.c (the TX batches), neigh.c (ARP),
 * nd.c (IPv6 Neighbor Discovery), icmp.c and icmp6.c (errors and echo),
 * route.c (the routing tables and the router's memory). */
#ifndef FWD_L3_H
#define FWD_L3_H
#include <stdint.h>
#include <string.h>
#include "apps/fwd/counters.h"
#include "apps/fwd/icmp.h"
#include "apps/fwd/neigh.h"
#include "drivers/net/nic.h"
#include "kernel/cpu.h"
#include "kernel/smp.h"
#include "net/ipv4.h"
#include "net/ipv6.h"

/* fwd_l3_port[p]: fwd routes on port p (it has an address); fwd_l3_any:
 * the router's state exists (l3_cores), so some port routes. */
extern uint8_t fwd_l3_port[FWD_LINKS];
extern int fwd_l3_any;
/* l3_nics[link]: what the router sends a link's frames through and
 * names it by: a port's own NIC, or for a VLAN sub-interface (link
 * NIC_MAX_PORTS and up) one whose tx_burst tags each frame and hands it
 * to the port's (vlan.c); NULL: no such link. Set by fwd_l3_init. */
extern struct nic *l3_nics[FWD_LINKS];
/* The VLAN sub-interfaces fwd routes on: links NIC_MAX_PORTS up to
 * NIC_MAX_PORTS + fwd_l3_nvlans. */
extern int fwd_l3_nvlans;
/* The link after l (l3_link_next(-1): the first): the ports, then the
 * sub-interfaces fwd routes on; FWD_LINKS after the last. */
static inline int l3_link_next(int l)
{
	if (++l < nic_count)
		return l;
	if (l < NIC_MAX_PORTS)
		l = NIC_MAX_PORTS;
	return l < NIC_MAX_PORTS + fwd_l3_nvlans ? l : FWD_LINKS;
}
/* A received frame tagged VID on port (its first EtherType 0x8100, room
 * for the tag), or S-VID then C-VID (0x88a8 then 0x8100, QinQ): its
 * sub-interface's link with the tag(s) taken off, or -1 (vlan.c). */
int l3_vlan_untag(int port, struct pkt *p);
/* The same for a frame whose tag the NIC took off (PKT_RX_VLAN, vlan_tci):
 * its sub-interface's link, port for a priority tag (VID 0), -1 for a
 * VLAN without one (vlan_unknown). */
int l3_vlan_rx_tag(int port, struct pkt *p);
/* A burst received on nic whose n frames all carry the tag of one of its
 * port's sub-interfaces (in the frame or stripped by the NIC, any PCP):
 * the tags taken off, the frames' rx count moved to the link, and the
 * link's NIC returned, to route the burst as the link's; else nic, the
 * frames untouched (vlan.c). */
struct nic *l3_vlan_burst(struct nic *nic, struct pkt **pkts, int n);
/* The port link's frames go out of and come in on: the port itself, or
 * a VLAN sub-interface's port (vlan.c). */
struct nic *l3_link_port(int link);
/* The sub-interfaces' NICs into l3_nics (vlan.c); 0, or -1 after
 * printing why. */
int l3_vlan_init(void);
/* 1: each core sends on its own TX queue of every routed port, the one
 * numbered as the core (l3_core.q), so routed ports' RX queues may be
 * polled by any core: every routed port has a queue per core (queues=),
 * and more than one core runs (tx.c, l3_tx_per_core_init). 0: queue q of
 * every routed port is polled by one core, which sends on queue q. */
extern int fwd_l3_tx_per_core;
/* Decide fwd_l3_tx_per_core once the routed ports and l3_cores are known,
 * and say so when more than one core runs (tx.c). */
void l3_tx_per_core_init(void);
/* Build the routing table from the ports' addresses and route= (route.c);
 * 0, or -1 after printing why. */
int fwd_l3_init(void);
/* A burst received on an L3 port. */
void fwd_l3_rx(struct nic *nic, int q, struct pkt **pkts, int n);
/* ARP retries and give-ups (neigh.c); returns frames handled. */
int fwd_l3_idle(void);
/* Frames waiting for ARP that arrived on port p. */
uint64_t fwd_l3_held(int port);
/* `fwd arp`: every ARP entry of every core: port, address, MAC, state, ms
 * since it was last confirmed, frames held. */
void fwd_l3_arp_show(void);
/* `fwd nd`: every neighbor cache entry of every core, as `fwd arp` (nd.c). */
void fwd_l3_nd_show(void);
/* `fwd routes`: the connected subnets and the routes, with next hop and port. */
void fwd_l3_routes_show(void);

#define TXB_MAX		64
enum { TX_FWD, TX_ARP_REPLY, TX_LOCAL, TX_OWN, TX_ND };	/* what a queued frame counts as */

/* Frames queued out of one port. While the batch is unmixed (only
 * TX_FWD frames from the burst's port) kind[] and in[] are not written:
 * the first other frame fills them in for those before it (l3_tx_typed). */
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
 * which moves on when the addresses or routes change (ifaddr_gen, seen at
 * the start of a burst), when the core's ARP table changes (arp_new,
 * arp_update, a give-up in arp_timers) and when a batch gets mixed
 * (l3_tx_typed). */
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

/* A source address fast_run found valid (not martian, not ours, not a
 * port subnet's broadcast: depends on the address and the port addresses
 * only), valid while epoch equals the core's, as dst_slot. */
struct src_slot {
	uint64_t key;		/* 1 << 32 | the address as in the header: 0 is no key */
	uint64_t epoch;
};
#define SRC_SLOTS	64	/* per core, by a hash of the source */

/* dst_slot's IPv6 kin, for l3v6_fast_run: an IPv6 destination the full
 * path forwarded a frame to (not ours, not multicast, not link-local nor
 * martian, routed out of `out` to a REACHABLE, DELAY or PROBE neighbor).
 * Valid while epoch equals the core's, as dst_slot (nd.c moves it on
 * whenever an entry's state or MAC changes, except DELAY to PROBE). */
struct dst6_slot {
	uint64_t lo, hi;	/* the destination's two halves as in the header */
	uint64_t epoch;
	uint64_t mac_lo;	/* the next hop's MAC and the first 2 bytes of ours */
	uint32_t mac_hi;	/* the last 4 bytes of ours */
	uint32_t room;		/* out port's MTU less IPV6_HLEN: the largest payload length */
	int out;
	struct txb *b;		/* out port's batch */
};

/* One core's router state: each core routes with its own ARP table, TX
 * batches and ICMP rate buckets (so the rate limit is per core). ncpus of
 * them from free pages once a port routes (l3_cores_alloc): 62 KB a core
 * that boxes which do not route keep. */
struct l3_core {
	struct arp_entry arp[FWD_LINKS][ARP_SLOTS];	/* one table per link */
	struct nd_entry nd[FWD_LINKS][ND_SLOTS];	/* the IPv6 neighbor caches */
	struct txb tx[FWD_LINKS];
	struct icmp_bucket icmp[FWD_LINKS];
	uint64_t next_timer_tsc;	/* the next timer pass; 0 from a core that posted to mbox */
	int q;			/* TX queue it sends on: its core number (fwd_l3_tx_per_core),
				 * else the RX queue of this burst */
	int in;			/* port of this burst */
	uint64_t rx_tsc;	/* TSC at this burst's start (ptp_tc's software ingress time) */
	int mix;		/* a sub-interface's frame came in this burst: every batch
				 * is mixed until its end (l3_tx_mix_all) */
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
	struct src_slot src[SRC_SLOTS];
	struct dst6_slot dst6[DST_SLOTS];
	struct neigh_mbox mbox[MAX_CPUS];	/* bindings other cores learnt, by poster (neigh.c) */
	int drains;		/* this core runs the timer pass, which reads mbox */
};
extern struct l3_core *l3_cores;

/* The running cores' router state, zeroed, from free pages (route.c);
 * fwd_l3_init calls it once a port routes. 0, or -1 after printing the
 * bytes it needed. */
int l3_cores_alloc(void);

/* The calling core's router state. */
static inline struct l3_core *l3_me(void)
{
	return &l3_cores[cpu_id_fast()];
}

/* The TX batches (tx.c). Send what is queued out of port (and count
 * it), on the calling core. */
void l3_tx_flush(int port);
/* l3_tx_flush for every port. */
void l3_tx_flush_all(void);
/* Record the kind and port of b's next frame p; the first time, also of
 * the unmixed frames before it (TX_FWD from the burst's port, c->in). */
void l3_tx_typed(struct l3_core *c, struct txb *b, struct pkt *p, int kind);
/* Make every batch of core c mixed (kinds and ports written) until the
 * burst's end, so each frame queued counts on its own p->port: called
 * before a VLAN sub-interface's frame, which counts on its link. */
void l3_tx_mix_all(struct l3_core *c);
/* Queue p out of port on the calling core, counted as kind. */
void l3_tx_add(int port, struct pkt *p, int kind);

/* Queue p out of port on core c (l3_me()), counted as kind (TX_FWD from
 * the burst's port keeps the batch unmixed; in_burst: p is a frame of
 * this burst, so from that port). Inline: it runs once per routed frame. */
static inline __attribute__((always_inline))
void l3_tx_add_on(struct l3_core *c, int port, struct pkt *p, int kind, const int in_burst)
{
	struct txb *b = &c->tx[port];
	if (b->n == TXB_MAX)
		l3_tx_flush(port);
	if (b->mixed || kind != TX_FWD || (!in_burst && p->port != c->in))
		l3_tx_typed(c, b, p, kind);
	b->p[b->n++] = p;
}

/* Rewrite a routed frame for its next hop (mac) and queue it out of port
 * on core c (l3_me()). */
static inline __attribute__((always_inline))
void l3_forward(struct l3_core *c, struct pkt *p, int port, const uint8_t mac[ETH_ALEN], const int in_burst)
{
	struct eth_hdr *eth = (struct eth_hdr *)p->data;
	/* Bytes past the IPv4 total length (Ethernet padding, or trailing
	 * garbage) are not part of the datagram (RFC 1812 5.2.2): not sent on. */
	p->len = (uint16_t)(ETH_HLEN + ntoh16(((struct ipv4_hdr *)(p->data + ETH_HLEN))->tot_len));
	memcpy(eth->dst, mac, ETH_ALEN);
	memcpy(eth->src, l3_nics[port]->mac, ETH_ALEN);
	ipv4_ttl_dec((struct ipv4_hdr *)(p->data + ETH_HLEN));
	l3_tx_add_on(c, port, p, TX_FWD, in_burst);
}
/* An IPv6 frame received on a port that routes IPv6, on the calling
 * core (l3v6.c). Returns the drop reason, or -1 when the frame went on
 * (local, nd, queued or held). */
int ipv6_input(struct nic *nic, struct pkt *p, uint64_t now);
/* Forward pkts[i..n) of a burst on core c while each is an IPv6 frame
 * the full path would forward for reasons seen at once (l3v6.c); our:
 * the receiving port's MAC in the low 48 bits. Returns the index of the
 * first frame that is not (ipv6_input's or ipv4's). */
int l3v6_fast_run(struct l3_core *c, struct pkt **pkts, int i, int n, uint64_t our);

/* Rewrite a routed IPv6 frame for its next hop (mac), hop limit less one,
 * and queue it out of port on core c. */
static inline void l3_forward6(struct l3_core *c, struct pkt *p, int port, const uint8_t mac[ETH_ALEN], const int in_burst)
{
	struct eth_hdr *eth = (struct eth_hdr *)p->data;
	struct ipv6_hdr *ip = (struct ipv6_hdr *)(p->data + ETH_HLEN);
	p->len = (uint16_t)(ETH_HLEN + IPV6_HLEN + ntoh16(ip->payload_len));	/* not the padding */
	memcpy(eth->dst, mac, ETH_ALEN);
	memcpy(eth->src, l3_nics[port]->mac, ETH_ALEN);
	ip->hop_limit--;
	l3_tx_add_on(c, port, p, TX_FWD, in_burst);
}
#endif
