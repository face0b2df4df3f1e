/* fwd's neighbour resolution: the per-core, per-port ARP tables (RFC 826)
 * the router resolves next hops with, with Linux's neighbour states. ND
 * (IPv6) would sit beside it with the same states. */
#ifndef FWD_NEIGH_H
#define FWD_NEIGH_H
#include <stdint.h>
#include "drivers/net/nic.h"
#include "net/ipv4.h"

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
	uint8_t family;		/* 4: ARP, addr's first 4 bytes (6: ND, to come) */
	uint8_t port;
	uint8_t create;		/* the receiver may learn it new (RFC 826: it was for us) */
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
#endif
