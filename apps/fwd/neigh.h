/* fwd's neighbour resolution: the per-core, per-port ARP tables (RFC 826)
 * the router resolves next hops with, with Linux's neighbour states, and
 * beside them the IPv6 neighbor caches (nd.c, RFC 4861 with its states). */
#ifndef FWD_NEIGH_H
#define FWD_NEIGH_H
#include <stdint.h>
#include "drivers/net/nic.h"
#include "net/ipv4.h"
#include "net/ipv6.h"

#define ARP_SLOTS	32	/* ARP table entries per port and core */
#define ARP_HOLD	8	/* frames held per unresolved next hop */
#define NEIGH_MBOX	16	/* bindings in flight from one core to another */

/* Entry states (Linux neighbour names): INCOMPLETE asks, REACHABLE is
 * confirmed within arp_timeout, PROBE still forwards with the old MAC
 * while it asks again, FAILED is the negative cache. */
enum { ARP_FREE, ARP_INCOMPLETE, ARP_REACHABLE, ARP_PROBE_STATE, ARP_FAILED };

struct arp_entry {
	uint32_t ip;
	uint8_t port, state, tries, nheld;
	uint8_t mac[ETH_ALEN];
	uint64_t retry_tsc;	/* INCOMPLETE, PROBE: next request or give-up; FAILED: end */
	uint64_t confirmed_tsc;	/* last reply or request from it */
	struct pkt *held[ARP_HOLD];
};

/* A neighbour binding one core learnt from the wire, for the others: ARP
 * (and ND) replies are not RSS-hashed, so they arrive on one core while
 * every core routes through the port. */
struct neigh_msg {
	uint8_t family;		/* 4: ARP, addr's first 4 bytes; 6: ND */
	uint8_t port;
	uint8_t create;		/* the receiver may learn it new (RFC 826: it was for us;
				 * RFC 4861 7.2.3: an NS's source link-layer address) */
	uint8_t flags;		/* ND: an NA's ND_MSG_* (0: from an NS) */
	uint8_t mac[ETH_ALEN];
	uint8_t addr[16];	/* network order */
};

/* Bindings from one core to another: single producer (the learning core
 * writes m[] and head), single consumer (the owner reads them in its
 * timer pass and writes tail); no locks. */
struct neigh_mbox {
	uint32_t head, tail;	/* free running; head - tail messages waiting */
	struct neigh_msg m[NEIGH_MBOX];
};

/* The calling core's entry for ip on port, or NULL. */
struct arp_entry *arp_find(int port, uint32_t ip);
/* An ARP frame received on an L3 port: answered, learnt from or dropped
 * (arp_bad, arp_not_ours). */
void arp_input(struct nic *nic, struct pkt *p);
/* Routed frame p waits for hop on port out, whose entry e (or NULL) is
 * not resolved: held, and asked for when new. Returns the drop reason,
 * or -1 when p is held. */
int arp_hold(struct arp_entry *e, int out, uint32_t hop, struct pkt *p, uint64_t now);
/* Binding m, learnt from the wire by the calling core: applied here and
 * posted to every other core that routes. */
void neigh_learn(const struct neigh_msg *m);

#define ND_SLOTS	32	/* neighbor cache entries per port and core */
#define ND_MSG_NA	1	/* neigh_msg flags: from an NA */
#define ND_MSG_SOLICITED 2	/* its S flag */
#define ND_MSG_OVERRIDE	4	/* its O flag */
#define ND_MSG_NO_LLA	8	/* it had no target link-layer address option */

/* Neighbor cache states (RFC 4861 7.3.2), and FAILED: a negative cache
 * entry as ARP's (an address that never answered, for a second). */
enum { ND_FREE, ND_INCOMPLETE, ND_REACHABLE, ND_STALE, ND_DELAY, ND_PROBE, ND_FAILED };

struct nd_entry {
	uint8_t addr[16];
	uint8_t port, state, tries, nheld;
	uint8_t mac[ETH_ALEN];
	uint64_t timer_tsc;	/* INCOMPLETE, PROBE: next solicitation or give-up;
				 * DELAY: the first probe; FAILED: end */
	uint64_t confirmed_tsc;	/* last reachability confirmation (REACHABLE until
				 * ND_REACHABLE_MS after it) */
	struct pkt *held[ARP_HOLD];
};

/* The calling core's entry for addr on port, or NULL. */
struct nd_entry *nd_find(int port, const uint8_t addr[16]);
/* A Neighbor Solicitation or Advertisement (ic, len bytes, checksum
 * checked) to us on nic: validated (RFC 4861 7.1), answered, learnt from.
 * Returns a drop reason, or -1 when p was taken (an NA queued in its
 * place) or counted nd and freed. */
int nd_input(struct nic *nic, struct pkt *p, struct ipv6_hdr *ip, struct icmp6_hdr *ic, size_t len);
/* Routed frame p for hop out of port out: forwarded when the entry e (or
 * NULL) has a link-layer address (STALE starts the DELAY timer), else
 * held and solicited. Returns a drop reason, or -1 when p went on. */
int nd_resolve(struct nd_entry *e, int out, const uint8_t hop[16], struct pkt *p, uint64_t now);
/* ND binding m on the calling core (neigh.c's mailboxes). */
void nd_apply(const struct neigh_msg *m);
/* The calling core's neighbor cache timers (RFC 4861 7.3.3); returns
 * frames handled. */
int nd_timers(uint64_t now);
/* Router Advertisements due on ports with ra6=1, from the lowest core
 * that runs the timers (ra.c). */
void ra_timers(uint64_t now);
/* A Router Solicitation (m, len bytes, checksum checked) on nic, checked
 * as RFC 4861 6.1.1 asks: the port's next RA brought forward (on a port
 * without ra6=1, discarded as 6.2.6 says of a non-advertising interface).
 * Returns a drop reason or -1 (the caller counts it nd). */
int ra_solicited(struct nic *nic, const struct ipv6_hdr *ip, const uint8_t *m, size_t len);
/* Frames waiting for ND that arrived on port. */
uint64_t nd_held(int port);
#endif
