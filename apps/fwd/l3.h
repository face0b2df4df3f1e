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

/* A port's address (ipN=); addr 0: none, the port is not L3. Host order.
 * dhcp: ipN=dhcp, the management port's address comes from a DHCP lease
 * (apps/mgmt/dhcp.c sets addr and len while it holds one, 0 otherwise). */
struct l3_if {
	uint32_t addr;
	uint8_t len;		/* prefix length, 1..32 */
	uint8_t dhcp;
};
extern struct l3_if l3_if[NIC_MAX_PORTS];

/* An LPM result: out of port, to gw (0: to the destination itself, on a
 * connected subnet). Next hop i < NIC_MAX_PORTS is port i's subnet. */
struct l3_nh {
	uint32_t gw;
	uint8_t port;
};
extern struct l3_nh l3_nh[L3_NH_MAX];
extern struct lpm l3_lpm;

/* The rules of ipN= for address a/len on port: a unicast host address
 * (not 0/8, 127/8, 224/4 and up), not its subnet's network or broadcast
 * address (/30 and wider), a subnet no other port has. 0, or -1 with what
 * is wrong in err. Also for DHCP leases. */
int l3_if_check(int port, uint32_t a, int len, char *err, size_t errlen);
/* Port's address a/len (host order), and the hints (l3_addr_hint). */
void l3_if_set(int port, uint32_t a, int len);
/* Moves on whenever the addresses or routes change (l3_if_set,
 * fwd_l3_init): what the fast path remembered about destinations is
 * then dropped (l3.c, struct dst_slot). */
extern uint32_t l3_gen;

/* 1 if addr (host order) is one of our interface addresses. */
int l3_is_local(uint32_t addr);
/* 1 if addr is the next hop of a configured route out of port (its ARP
 * entry is never evicted for another). */
int l3_is_next_hop(int port, uint32_t addr);
/* 1 if addr is the broadcast or network address of a connected subnet of
 * /30 or wider (a directed broadcast, RFC 1812 5.3.5.2; the network
 * address is the old all-zeros form). */
int l3_directed_broadcast(uint32_t addr);

/* Bit l3_addr_hash(a) is set for every address ipN= ever gave and for
 * the network and broadcast addresses of its subnet, so a clear bit means
 * "none of those" without looking (set bits may be stale). */
extern uint64_t l3_addr_hint;
static inline unsigned l3_addr_hash(uint32_t addr)
{
	return (addr * 2654435761u) >> 26;
}
static inline int l3_hinted(uint32_t addr)
{
	return l3_addr_hint >> l3_addr_hash(addr) & 1;
}
/* l3_is_local and l3_directed_broadcast for the fast path: most addresses
 * are ruled out by the hint. */
static inline int l3_local(uint32_t addr)
{
	return l3_hinted(addr) && l3_is_local(addr);
}
static inline int l3_bcast(uint32_t addr)
{
	return l3_hinted(addr) && l3_directed_broadcast(addr);
}
#endif
