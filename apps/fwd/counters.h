/* fwd's counters: every frame fwd receives ends in forwarded, local, arp,
 * nd or one named drop (or waits, held, for its next hop's ARP or ND
 * reply), per
 * port and per core. A leaf: fwd.c, the L3 files and the /metrics page
 * include it; it includes nothing of fwd. */
#ifndef FWD_COUNTERS_H
#define FWD_COUNTERS_H
#include <stdint.h>
#include "drivers/net/nic.h"
#include "kernel/smp.h"

/* Links fwd counts on: the ports, then the VLAN sub-interfaces (ipN.VID=,
 * net/ifaddr.h's IFADDR_LINKS). */
#define FWD_LINKS	(NIC_MAX_PORTS + 8)

/* Why a frame was not forwarded, as printed by the `fwd` command. */
#define FWD_DROPS(X) \
	X(runt) X(no_peer) X(tx_ring_full) X(not_ipv4) X(not_our_mac) \
	X(too_short) X(bad_version) X(bad_ihl) X(bad_totlen) X(bad_csum) \
	X(martian_src) X(ttl_expired) X(not_unicast) X(martian_dst) X(directed_broadcast) \
	X(source_route) X(no_route) X(mtu_exceeded) X(arp_unresolved) \
	X(arp_queue_full) X(arp_table_full) X(arp_bad) X(arp_not_ours) \
	X(ip6_too_short) X(ip6_bad_version) X(ip6_bad_paylen) X(ip6_martian_src) X(ip6_martian_dst) \
	X(ip6_mcast_not_joined) X(ip6_beyond_scope) X(ip6_bad_ext) X(ip6_hbh_not_first) X(ip6_rh0) \
	X(ip6_hbh_option) X(ip6_hop_limit) X(ip6_no_route) X(ip6_too_big) X(icmp6_bad_csum) \
	X(nd_hop_limit) X(nd_bad_code) X(nd_too_short) X(nd_mcast_target) X(nd_bad_option) \
	X(nd_dad_bad) X(nd_na_solicited_mcast) X(nd_not_ours) X(nd_unresolved) X(nd_queue_full) \
	X(nd_table_full) X(vlan_unknown)

/* Things the L3 router does besides handling received frames: frames of
 * its own (ICMP errors, ARP requests and replies) and why some were not sent. */
#define FWD_EVENTS(X) \
	X(icmp_sent) X(icmp_rate_limited) X(icmp_no_buffer) X(icmp_suppressed) \
	X(arp_requests) X(arp_no_buffer) X(arp_conflict) X(own_tx_ring_full) X(neigh_mbox_full) \
	X(icmp6_sent) X(icmp6_suppressed) X(nd_solicits) X(nd_no_buffer) X(nd_conflict) X(ra_sent)
#define FWD_EVENT_ENUM(name) FWD_EV_##name,
enum fwd_event { FWD_EVENTS(FWD_EVENT_ENUM) FWD_EV_N };

#define FWD_DROP_ENUM(name) FWD_DROP_##name,
enum fwd_drop { FWD_DROPS(FWD_DROP_ENUM) FWD_DROP_N };

/* Per-port forwarding counters, one set per core (a port's queues may be
 * polled by several cores); each core writes only its own. */
struct fwd_stats {
	uint64_t rx;			/* frames the app received */
	uint64_t forwarded;		/* frames handed to tx_burst and taken */
	uint64_t local;			/* L3: IPv4 to one of our addresses; L2 ptp_tc=p2p: Pdelay */
	uint64_t arp;			/* L3: ARP for our address: answered or learnt */
	uint64_t nd;			/* L3: IPv6 Neighbor Discovery for us: answered or learnt */
	uint64_t drop[FWD_DROP_N];
	uint64_t ev[FWD_EV_N];		/* L3 events, not frames received */
};
extern struct fwd_stats fwd_stats[MAX_CPUS][FWD_LINKS];	/* by link */

/* The calling core's counters of port. */
static inline struct fwd_stats *fwd_st(int port)
{
	return &fwd_stats[cpu_id_fast()][port];
}
/* Port's counters summed over every core, into out. */
void fwd_stats_sum(int port, struct fwd_stats *out);

/* Count n frames received on port as dropped for reason (and as dropped
 * by the calling core, for its softnet line). */
void fwd_drop(int port, enum fwd_drop reason, uint64_t n);

/* fwd_drop_names[r]: the name of reason r as `fwd` and /metrics print it. */
extern const char *const fwd_drop_names[FWD_DROP_N];
/* fwd_ev_names[e]: the name of event e. */
extern const char *const fwd_ev_names[FWD_EV_N];
/* fwd's /metrics families (struct app .metrics, net/prom.h). */
struct prom;
void fwd_metrics(struct prom *o);

#endif
