/* fwd's routing table: the connected subnets of the ports fwd routes on
 * and the route= routes, in an LPM table whose results index l3_nh. */
#ifndef FWD_ROUTE_H
#define FWD_ROUTE_H
#include <stdint.h>
#include "apps/fwd/counters.h"
#include "drivers/net/nic.h"
#include "net/lpm.h"
#include "net/lpm6.h"

#define L3_ROUTES_MAX	64	/* route= knobs */
#define L3_NH_MAX	(FWD_LINKS + L3_ROUTES_MAX)

/* An LPM result: out of link port (a port or a VLAN sub-interface), to gw (0: to the destination itself, on a
 * connected subnet). Next hop i < FWD_LINKS is link i's subnet. */
struct l3_nh {
	uint32_t gw;
	uint8_t port;
};
extern struct l3_nh l3_nh[L3_NH_MAX];
extern struct lpm l3_lpm;

/* An IPv6 LPM result: out of link port, to gw (all zero: to the destination
 * itself, on a connected prefix). Next hop i < FWD_LINKS is link i's
 * prefixes. */
struct l3_nh6 {
	uint8_t gw[16];
	uint8_t port;
};
extern struct l3_nh6 l3_nh6[L3_NH_MAX];
extern struct lpm6 l3_lpm6;
/* fwd_l3_v6[p]: link p routes IPv6 (it has an IPv6 address). */
extern uint8_t fwd_l3_v6[FWD_LINKS];

/* 1 if addr is the next hop of a configured route out of port (its ARP
 * entry is never evicted for another). */
int l3_is_next_hop(int port, uint32_t addr);
#endif
