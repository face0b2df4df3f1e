/* fwd L3, the IPv4 router: its entry points for the app (fwd.c), and what
 * the configuration (l3conf.c) hands the fast path (l3.c). */
#ifndef FWD_L3_H
#define FWD_L3_H
#include <stdint.h>
#include "drivers/net/nic.h"
#include "net/lpm.h"

/* fwd_l3_port[p]: port p has an address; fwd_l3_any: some port has. */
extern uint8_t fwd_l3_port[NIC_MAX_PORTS];
extern int fwd_l3_any;
/* Build the routing table from ipN= and route=; 0, or -1 after printing why. */
int fwd_l3_init(void);
/* The running cores' router state (ARP tables, TX batches, ICMP buckets),
 * zeroed, from free pages; fwd_l3_init calls it once a port routes.
 * 0, or -1 after printing the bytes it needed. */
int l3_cores_alloc(void);
/* A burst received on an L3 port. */
void fwd_l3_rx(struct nic *nic, int q, struct pkt **pkts, int n);
/* ARP retries and give-ups; returns frames handled. */
int fwd_l3_idle(void);
/* Frames waiting for ARP that arrived on port p. */
uint64_t fwd_l3_held(int port);
/* `fwd arp`: every ARP entry of every core: port, address, MAC, state, ms
 * since it was last confirmed, frames held. */
void fwd_l3_arp_show(void);
/* `fwd routes`: the connected subnets and the routes, with next hop and port. */
void fwd_l3_routes_show(void);
/* Print the port's address line for the fwd command. */
void fwd_l3_show(int port);

#define L3_ROUTES_MAX	64	/* route= knobs */
#define L3_NH_MAX	(NIC_MAX_PORTS + L3_ROUTES_MAX)

/* An LPM result: out of port, to gw (0: to the destination itself, on a
 * connected subnet). Next hop i < NIC_MAX_PORTS is port i's subnet. */
struct l3_nh {
	uint32_t gw;
	uint8_t port;
};
extern struct l3_nh l3_nh[L3_NH_MAX];
extern struct lpm l3_lpm;

/* 1 if addr is the next hop of a configured route out of port (its ARP
 * entry is never evicted for another). */
int l3_is_next_hop(int port, uint32_t addr);
#endif
