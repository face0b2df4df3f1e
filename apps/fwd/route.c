/*
 * fwd's routing table: the connected subnets of the ports fwd routes on
 * (their addresses: net/ifaddr.h) and route= (static routes via a next
 * hop on a connected subnet), turned into the LPM table at init, with the
 * rest of the router's memory (each core's state, struct l3_core).
 */
#include <stdio.h>
#include <string.h>
#include "apps/app.h"
#include "apps/fwd/fwd.h"
#include "apps/fwd/l3.h"
#include "apps/fwd/route.h"
#include "kernel/knobs.h"
#include "kernel/mem.h"
#include "net/addr.h"
#include "net/ifaddr.h"
#include "net/ipv4.h"

/* LPM first-level stride: 3 MiB + 12 KiB per group of prefixes longer
 * than /20 (net/lpm.h), small enough for a 128 MiB guest. */
#define L3_LPM_BITS	20
#define L3_LPM_GROUPS	64

_Static_assert(IFADDR_PORTS == NIC_MAX_PORTS, "net/ifaddr.h holds an address per port");

struct l3_nh l3_nh[L3_NH_MAX];
struct lpm l3_lpm;
uint8_t fwd_l3_port[NIC_MAX_PORTS];
int fwd_l3_any;

struct l3_core *l3_cores;

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

static struct {
	uint32_t prefix, gw;
	uint8_t len;
} routes[L3_ROUTES_MAX];
static int nroutes;

/* route=PREFIX/LEN,NEXTHOP; the next hop is checked against the connected
 * subnets at init, when every ipN= is known. */
static int parse_route(const char *v, char *err, size_t errlen)
{
	uint32_t prefix, gw;
	int len;
	const char *s = v;
	if (ipv4_prefix_parse(&s, &prefix, &len) || *s++ != ',' || ipv4_parse(&s, &gw) || *s) {
		snprintf(err, errlen, "'%.40s' is not A.B.C.D/LEN,A.B.C.D", v);
		return -1;
	}
	if (prefix & ~ipv4_mask(len)) {
		snprintf(err, errlen, "'%.40s': bits beyond /%d are set in the prefix", v, len);
		return -1;
	}
	for (int i = 0; i < nroutes; i++)
		if (routes[i].prefix == prefix && routes[i].len == len) {
			snprintf(err, errlen, "'%.40s': a route to this prefix was given before", v);
			return -1;
		}
	if (nroutes == L3_ROUTES_MAX) {
		snprintf(err, errlen, "more than %d routes", L3_ROUTES_MAX);
		return -1;
	}
	routes[nroutes].prefix = prefix;
	routes[nroutes].len = (uint8_t)len;
	routes[nroutes].gw = gw;
	nroutes++;
	return 0;
}

static void show_route(char *buf, size_t len)
{
	char p[IPV4_STR_MAX], g[IPV4_STR_MAX];
	size_t used = 0;
	buf[0] = 0;
	for (int i = 0; i < nroutes && used + 40 < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s/%u,%s", i ? " " : "",
					 ipv4_str(p, routes[i].prefix), routes[i].len, ipv4_str(g, routes[i].gw));
}
KNOB(route, .name = "route", .type = KNOB_FUNC, .parse = parse_route, .show = show_route,
     .repeatable = 1,
     .accepted = "A.B.C.D/LEN,A.B.C.D (prefix, next hop on a connected subnet; decimal without leading zeros; one route per prefix), e.g. 10.2.0.0/16,10.1.0.2",
     .help = "fwd: static route, repeatable, up to 64; default none");

int l3_is_next_hop(int port, uint32_t addr)
{
	for (int i = 0; i < L3_NH_MAX; i++)
		if (l3_nh[i].gw == addr && l3_nh[i].port == port && addr)
			return 1;
	return 0;
}

void fwd_l3_routes_show(void)
{
	char a[IPV4_STR_MAX], g[IPV4_STR_MAX];
	if (!fwd_l3_any && memchr(fwd_l3_port, 1, sizeof(fwd_l3_port))) {
		printf("fwd: no routing table: no memory for it at boot; the ports with an address drop what they receive (no_route)\n");
		return;
	}
	printf("%-18s %-15s %s\n", "prefix", "via", "port");
	for (int p = 0; p < NIC_MAX_PORTS; p++) {
		if (!fwd_l3_port[p])
			continue;
		ipv4_str(a, ifaddrs[p].v4.addr & ipv4_mask(ifaddrs[p].v4.len));
		printf("%s/%-*u %-15s %s\n", a, (int)(17 - strlen(a)), ifaddrs[p].v4.len, "connected", nics[p]->name);
	}
	for (int i = 0; i < nroutes; i++) {
		uint16_t nh = (uint16_t)(NIC_MAX_PORTS + i);
		if (l3_nh[nh].gw != routes[i].gw)
			continue;	/* refused at boot */
		ipv4_str(a, routes[i].prefix);
		ipv4_str(g, routes[i].gw);
		printf("%s/%-*u %-15s %s\n", a, (int)(17 - strlen(a)), routes[i].len, g, nics[l3_nh[nh].port]->name);
	}
}

static void *lpm_dma(void *ctx, size_t bytes)
{
	(void)ctx;
	return dma_alloc(bytes, 0);
}

static void print_route(const char *what, int i)
{
	char p[IPV4_STR_MAX], g[IPV4_STR_MAX];
	printf("fwd: route=%s/%u,%s %s\n", ipv4_str(p, routes[i].prefix), routes[i].len, ipv4_str(g, routes[i].gw),
	       what);
}

/* The ports fwd routes on (fwd_l3_port): those it runs on that have an
 * address. An address of a port that does not exist is dropped. Returns
 * how many, or -1 after printing why (ipN=dhcp on a port fwd runs on). */
static int l3_ports(void)
{
	int n = 0;
	for (int p = 0; p < NIC_MAX_PORTS; p++) {
		struct ifaddr *ia = &ifaddrs[p];
		char a[IPV4_STR_MAX];
		if (p >= nic_count) {
			if (ia->v4.addr)
				printf("fwd: ip%d=%s/%u: no port%d; ignored\n", p, ipv4_str(a, ia->v4.addr), ia->v4.len, p);
			ia->v4.addr = 0;
			continue;
		}
		if (!app_runs_on(&app_fwd, p))
			continue;	/* another app's address (rr, mgmt): never routed to */
		if (ia->dhcp) {
			printf("fwd: ip%d=dhcp is for the management port (mgmt=port%d); a port that routes needs ip%d=A.B.C.D/LEN\n",
			       p, p, p);
			return -1;
		}
		fwd_l3_port[p] = ia->v4.addr != 0;
		n += fwd_l3_port[p];
	}
	return n;
}

/* The router's memory: the LPM table and each core's state. 0, or -1
 * after printing what it needed. */
static int l3_alloc(void)
{
	if (lpm_init(&l3_lpm, L3_LPM_BITS, L3_LPM_GROUPS, 2 * L3_NH_MAX, lpm_dma, NULL)) {
		printf("fwd: no memory for the routing table (%lu bytes)\n",
		       (unsigned long)lpm_mem_size(L3_LPM_BITS, L3_LPM_GROUPS, 2 * L3_NH_MAX));
		return -1;
	}
	return l3_cores_alloc();
}

/* The routed ports' subnets into the table, next hop p for port p. 0, or
 * -1 after printing that the table is full. */
static int l3_connect(void)
{
	for (int p = 0; p < NIC_MAX_PORTS; p++) {
		const struct ifaddr4 *ia = &ifaddrs[p].v4;
		char a[IPV4_STR_MAX];
		if (!fwd_l3_port[p])
			continue;
		l3_nh[p] = (struct l3_nh){ .gw = 0, .port = (uint8_t)p };
		if (lpm_add(&l3_lpm, ia->addr & ipv4_mask(ia->len), ia->len, (uint16_t)p)) {
			printf("fwd: ip%d: routing table full\n", p);
			return -1;
		}
		printf("fwd: %s routes at L3, %s/%u\n", nics[p]->name, ipv4_str(a, ia->addr), ia->len);
	}
	return 0;
}

/* route= into the table, each whose next hop is on a connected subnet:
 * every next hop is checked against the connected subnets alone, before
 * any route could cover it. A refused route is printed and gone (show
 * config lists what is in force). */
static void l3_add_routes(void)
{
	uint16_t via[L3_ROUTES_MAX];
	int kept = 0;
	for (int i = 0; i < nroutes; i++) {
		uint16_t v = lpm_lookup(&l3_lpm, routes[i].gw);
		const char *why = v >= NIC_MAX_PORTS ? "refused: the next hop is on no connected subnet (ipN=)" :
				  ifaddr4_is_local(routes[i].gw) ? "refused: the next hop is one of our own addresses" :
				  ifaddr4_directed_broadcast(routes[i].gw) ?
				  "refused: the next hop is its subnet's network or broadcast address" : 0;
		if (why) {
			print_route(why, i);
			continue;
		}
		via[kept] = v;
		routes[kept++] = routes[i];
	}
	nroutes = kept;
	for (int i = 0; i < nroutes; i++) {
		uint16_t nh = (uint16_t)(NIC_MAX_PORTS + i);
		l3_nh[nh] = (struct l3_nh){ .gw = routes[i].gw, .port = (uint8_t)via[i] };
		if (lpm_add(&l3_lpm, routes[i].prefix, routes[i].len, nh)) {
			print_route("refused: routing table full", i);
			continue;
		}
		print_route(nics[via[i]]->name, i);
	}
}

/* The router's state is taken only when a port fwd runs on routes, and a
 * want of it stops the routed ports alone: L2 pairs forward on. */
int fwd_l3_init(void)
{
	int n = l3_ports();
	if (n <= 0)
		return n;
	if (l3_alloc()) {
		printf("fwd: the ports with an address drop what they receive (no_route); L2 pairs forward\n");
		return 0;
	}
	if (l3_connect())
		return -1;
	l3_add_routes();
	fwd_l3_any = 1;
	__atomic_fetch_add(&ifaddr_gen, 1, __ATOMIC_RELEASE);
	return 0;
}
