/* fwd's routing table: the connected subnets of the ports fwd routes on
 * and the route= routes, in an LPM table whose results index l3_nh. */
#ifndef FWD_ROUTE_H
#define FWD_ROUTE_H
#include <stdint.h>
#include "drivers/net/nic.h"
#include "net/lpm.h"

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
