/*
 * fwd's routing tables: the connected subnets of the ports fwd routes on
 * (their addresses: net/ifaddr.h) and route= (static routes via a next
 * hop on a connected subnet, IPv4 or IPv6), turned into the LPM tables
 * at init, with the rest of the router's memory (each core's state,
 * struct l3_core).
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
#include "net/ipv6.h"

/* LPM first-level stride: 3 MiB + 12 KiB per group of prefixes longer
 * than /20 (net/lpm.h), small enough for a 128 MiB guest. */
#define L3_LPM_BITS	20
#define L3_LPM_GROUPS	64
/* IPv6: 1.3 MiB, room for 170 /64 prefixes that share no bytes past /16. */
#define L3_LPM6_GROUPS	1024

_Static_assert(IFADDR_PORTS == NIC_MAX_PORTS, "net/ifaddr.h holds an address per port");
_Static_assert(IFADDR_LINKS == FWD_LINKS, "net/ifaddr.h holds an address per link");

struct l3_nh l3_nh[L3_NH_MAX];
struct lpm l3_lpm;
struct l3_nh6 l3_nh6[L3_NH_MAX];
struct lpm6 l3_lpm6;
uint8_t fwd_l3_port[FWD_LINKS];
uint8_t fwd_l3_v6[FWD_LINKS];
struct nic *l3_nics[FWD_LINKS];
int fwd_l3_nvlans;
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

static struct {
	uint8_t prefix[16], gw[16];
	uint8_t len;
	int8_t port;	/* a link-local next hop's (%portN), else -1 */
	uint16_t vid;	/* its sub-interface's C-VLAN (%portN.VID, %portN.S.C), else 0 */
	uint16_t svid;	/* its QinQ sub-interface's S-VLAN (%portN.S.C), else 0 */
} routes6[L3_ROUTES_MAX];
static int nroutes6;

#define ROUTE6_FORMS	"PREFIX6/LEN,ADDR6[%portN[.VID|.S.C]]"

/* The bits of a beyond len cleared, into out. */
static void prefix6_mask(const uint8_t a[16], int len, uint8_t out[16])
{
	for (int i = 0; i < 16; i++)
		out[i] = (uint8_t)(i * 8 >= len ? 0 : i * 8 + 8 <= len ? a[i] : a[i] & (0xff00 >> (len - i * 8)));
}

/* ".VID" at *s, VID 1-4094 in decimal without leading zeros (802.1Q
 * Table 9-2): *vid and *s past it. 0, or -1 with *s where it went wrong. */
static int parse_vid(const char **s, uint16_t *vid)
{
	const char *d = *s + 1;
	unsigned v = 0;
	if (**s != '.' || *d < '1' || *d > '9')
		return -1;
	for (; *d >= '0' && *d <= '9' && v <= 4094; d++)
		v = v * 10 + (unsigned)(*d - '0');
	if (v > 4094)
		return -1;
	*vid = (uint16_t)v;
	*s = d;
	return 0;
}

/* route=PREFIX6/LEN,NEXTHOP6[%portN[.VID|.S.C]] at v (the sub-interface
 * as ipN.VID= and ipN.S.C= name it). 0, or -1 with what is wrong. */
static int parse_route6(const char *v, char *err, size_t errlen)
{
	uint8_t prefix[16], gw[16], m[16];
	int len, port = -1;
	uint16_t vid = 0, svid = 0;
	const char *s = v;
	int bad = addr6_prefix_parse(&s, prefix, &len) || *s++ != ',' || addr6_parse(&s, gw);
	if (!bad && !strncmp(s, "%port", 5) && s[5] >= '0' && s[5] < '0' + NIC_MAX_PORTS) {
		port = s[5] - '0';
		s += 6;
		bad = *s == '.' && parse_vid(&s, &vid);
		if (!bad && *s == '.') {
			svid = vid;
			bad = parse_vid(&s, &vid);
		}
	}
	if (bad || *s) {
		snprintf(err, errlen, "'%.60s' is not %s", v, ROUTE6_FORMS);
		return -1;
	}
	prefix6_mask(prefix, len, m);
	if (memcmp(m, prefix, 16)) {
		snprintf(err, errlen, "'%.60s': bits beyond /%d are set in the prefix", v, len);
		return -1;
	}
	if (ipv6_link_local(gw) != (port >= 0)) {
		snprintf(err, errlen, "'%.60s': a link-local next hop needs its port (%%portN), a global one none", v);
		return -1;
	}
	for (int i = 0; i < nroutes6; i++)
		if (!memcmp(routes6[i].prefix, prefix, 16) && routes6[i].len == len) {
			snprintf(err, errlen, "'%.60s': a route to this prefix was given before", v);
			return -1;
		}
	if (nroutes6 == L3_ROUTES_MAX) {
		snprintf(err, errlen, "more than %d IPv6 routes", L3_ROUTES_MAX);
		return -1;
	}
	memcpy(routes6[nroutes6].prefix, prefix, 16);
	memcpy(routes6[nroutes6].gw, gw, 16);
	routes6[nroutes6].len = (uint8_t)len;
	routes6[nroutes6].vid = vid;
	routes6[nroutes6].svid = svid;
	routes6[nroutes6++].port = (int8_t)port;
	return 0;
}

/* route=PREFIX/LEN,NEXTHOP of either family; the next hop is checked
 * against the connected subnets at init, when every ipN= is known. */
static int parse_route(const char *v, char *err, size_t errlen)
{
	uint32_t prefix, gw;
	int len;
	const char *s = v;
	if (strchr(v, ':'))
		return parse_route6(v, err, errlen);
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

/* routes6[i] as route= takes it, into buf. */
static char *route6_str(char *buf, size_t len, int i)
{
	char p[IPV6_STR_MAX], g[IPV6_STR_MAX], port[24] = "";
	if (routes6[i].svid)
		snprintf(port, sizeof(port), "%%port%d.%u.%u", routes6[i].port, routes6[i].svid, routes6[i].vid);
	else if (routes6[i].vid)
		snprintf(port, sizeof(port), "%%port%d.%u", routes6[i].port, routes6[i].vid);
	else if (routes6[i].port >= 0)
		snprintf(port, sizeof(port), "%%port%d", routes6[i].port);
	snprintf(buf, len, "%s/%u,%s%s", addr6_fmt(p, routes6[i].prefix), routes6[i].len, addr6_fmt(g, routes6[i].gw),
		 port);
	return buf;
}

static void show_route(char *buf, size_t len)
{
	char p[IPV4_STR_MAX], g[IPV4_STR_MAX], r6[2 * IPV6_STR_MAX + 24];
	size_t used = 0;
	buf[0] = 0;
	for (int i = 0; i < nroutes && used + 40 < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s/%u,%s", used ? " " : "",
					 ipv4_str(p, routes[i].prefix), routes[i].len, ipv4_str(g, routes[i].gw));
	for (int i = 0; i < nroutes6 && used + sizeof(r6) < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " " : "", route6_str(r6, sizeof(r6), i));
}
KNOB(route, .name = "route", .type = KNOB_FUNC, .parse = parse_route, .show = show_route,
     .repeatable = 1,
     .accepted = "A.B.C.D/LEN,A.B.C.D or " ROUTE6_FORMS " (prefix, next hop on a connected subnet or "
		 "link-local with its port or VLAN sub-interface; decimal without leading zeros; one route per "
		 "prefix), e.g. 10.2.0.0/16,10.1.0.2 or 2001:db8:3::/48,fe80::1%port1 or "
		 "2001:db8:4::/48,fe80::4%port0.100 or 2001:db8:5::/48,fe80::5%port0.10.100",
     .help = "fwd: static route, repeatable, up to 64 of each family; default none");

int l3_is_next_hop(int port, uint32_t addr)
{
	for (int i = 0; i < L3_NH_MAX; i++)
		if (l3_nh[i].gw == addr && l3_nh[i].port == port && addr)
			return 1;
	return 0;
}

/* `fwd routes`' IPv6 lines: connected prefixes, then the routes in force. */
static void routes6_show(void)
{
	char a[IPV6_STR_MAX], g[IPV6_STR_MAX];
	uint8_t m[16];
	for (int p = 0; p < FWD_LINKS; p++) {
		if (!fwd_l3_v6[p])
			continue;
		printf("fe80::/64 %s %s (ours %s)\n", "link-local", l3_nics[p]->name, addr6_fmt(a, ifaddrs[p].ll6));
		for (int i = 0; i < ifaddrs[p].n6; i++) {
			prefix6_mask(ifaddrs[p].v6[i].addr, ifaddrs[p].v6[i].len, m);
			printf("%s/%u %s %s (ours %s)\n", addr6_fmt(a, m), ifaddrs[p].v6[i].len, "connected", l3_nics[p]->name,
			       addr6_fmt(g, ifaddrs[p].v6[i].addr));
		}
	}
	for (int i = 0; i < nroutes6; i++) {
		const struct l3_nh6 *nh = &l3_nh6[FWD_LINKS + i];
		if (memcmp(nh->gw, routes6[i].gw, 16))
			continue;	/* refused at boot */
		printf("%s/%u %s %s\n", addr6_fmt(a, routes6[i].prefix), routes6[i].len, addr6_fmt(g, nh->gw),
		       l3_nics[nh->port]->name);
	}
}

void fwd_l3_routes_show(void)
{
	char a[IPV4_STR_MAX], g[IPV4_STR_MAX];
	if (!fwd_l3_any && memchr(fwd_l3_port, 1, sizeof(fwd_l3_port))) {
		printf("fwd: no routing table: no memory for it at boot; the ports with an address drop what they receive (no_route)\n");
		return;
	}
	printf("%-18s %-15s %s\n", "prefix", "via", "port");
	for (int p = 0; p < FWD_LINKS; p++) {
		if (!fwd_l3_port[p] || !ifaddrs[p].v4.addr)
			continue;
		ipv4_str(a, ifaddrs[p].v4.addr & ipv4_mask(ifaddrs[p].v4.len));
		printf("%s/%-*u %-15s %s\n", a, (int)(17 - strlen(a)), ifaddrs[p].v4.len, "connected", l3_nics[p]->name);
	}
	for (int i = 0; i < nroutes; i++) {
		uint16_t nh = (uint16_t)(FWD_LINKS + i);
		if (l3_nh[nh].gw != routes[i].gw)
			continue;	/* refused at boot */
		ipv4_str(a, routes[i].prefix);
		ipv4_str(g, routes[i].gw);
		printf("%s/%-*u %-15s %s\n", a, (int)(17 - strlen(a)), routes[i].len, g, l3_nics[l3_nh[nh].port]->name);
	}
	routes6_show();
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

/* The VLAN sub-interfaces fwd routes on (ipN.VID=, each its own link):
 * those of a port that exists and runs fwd, which then routes (its
 * untagged frames as its own link, with an address or none); the others
 * printed and their addresses dropped. Returns how many ports began to
 * route for them. */
static int l3_vlan_ports(void)
{
	int n = 0;
	fwd_l3_nvlans = ifaddr_nvlans;
	for (int i = 0; i < ifaddr_nvlans; i++) {
		int link = NIC_MAX_PORTS + i, p = ifaddr_vlans[i].port;
		struct ifaddr *ia = &ifaddrs[link];
		char name[16];
		ifaddr_link_name(name, sizeof(name), "ip", link);
		if (p >= nic_count || !app_runs_on(&app_fwd, p)) {
			if (p >= nic_count)
				printf("fwd: %s=: no port%d; ignored\n", name, p);
			else
				printf("fwd: %s=: port%d runs %s, not fwd; ignored\n", name, p, app_of_port(p)->name);
			ia->v4.addr = 0;
			ia->n6 = 0;
			ifaddr6_set_changed();
			continue;
		}
		fwd_l3_v6[link] = ia->n6 != 0;
		fwd_l3_port[link] = 1;
		n += !fwd_l3_port[p];
		fwd_l3_port[p] = 1;
	}
	return n;
}

/* The ports fwd routes on (fwd_l3_port): those it runs on that have an
 * address or a VLAN sub-interface. An address of a port that does not exist is dropped. Returns
 * how many, or -1 after printing why (ipN=dhcp on a port fwd runs on). */
static int l3_ports(void)
{
	int n = 0;
	for (int p = 0; p < NIC_MAX_PORTS; p++) {
		struct ifaddr *ia = &ifaddrs[p];
		char a[IPV4_STR_MAX];
		l3_nics[p] = p < nic_count ? nics[p] : 0;
		if (p >= nic_count) {
			if (ia->v4.addr)
				printf("fwd: ip%d=%s/%u: no port%d; ignored\n", p, ipv4_str(a, ia->v4.addr), ia->v4.len, p);
			ia->v4.addr = 0;
			if (ia->n6) {
				ia->n6 = 0;
				ifaddr6_set_changed();
			}
			continue;
		}
		if (!app_runs_on(&app_fwd, p))
			continue;	/* another app's address (rr, mgmt): never routed to */
		if (ia->dhcp) {
			printf("fwd: ip%d=dhcp is for the management port (mgmt=port%d); a port that routes needs ip%d=A.B.C.D/LEN\n",
			       p, p, p);
			return -1;
		}
		fwd_l3_v6[p] = ia->n6 != 0;
		fwd_l3_port[p] = ia->v4.addr != 0 || fwd_l3_v6[p];
		n += fwd_l3_port[p];
	}
	return n + l3_vlan_ports();
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
	if (memchr(fwd_l3_v6, 1, sizeof(fwd_l3_v6)) && lpm6_init(&l3_lpm6, L3_LPM6_GROUPS, lpm_dma, NULL)) {
		printf("fwd: no memory for the IPv6 routing table (%lu bytes)\n",
		       (unsigned long)lpm6_mem_size(L3_LPM6_GROUPS));
		return -1;
	}
	return l3_cores_alloc();
}

/* Port p's IPv6 side: its link-local address, the groups it listens to
 * in the NIC's multicast table (all-nodes, all-routers and the
 * solicited-node group of each address, RFC 4291 2.7.1, 2.8; not
 * promiscuous), its prefixes into the table with next hop p. 0, or -1
 * after printing that a table is full. */
static int l3_connect6(int p)
{
	static const uint8_t all_nodes[16] = { 0xff, 2, [15] = 1 }, all_routers[16] = { 0xff, 2, [15] = 2 };
	struct ifaddr *ia = &ifaddrs[p];
	uint8_t g[16], mac[ETH_ALEN];
	char a[IPV6_STR_MAX];
	int full = 0;
	struct nic *nic = nics[ifaddr_link_port(p)];	/* a sub-interface's groups are its port's */
	ifaddr6_link_local(p, l3_nics[p]->mac);
	ipv6_mcast_mac(all_nodes, mac);
	full |= nic_mc_add(nic, mac);
	ipv6_mcast_mac(all_routers, mac);
	full |= nic_mc_add(nic, mac);
	for (int i = -1; i < ia->n6; i++) {
		ipv6_solicited_node(i < 0 ? ia->ll6 : ia->v6[i].addr, g);
		ipv6_mcast_mac(g, mac);
		full |= nic_mc_add(nic, mac);
	}
	if (full) {
		printf("fwd: %s: the NIC's multicast table is full (%d groups)\n", l3_nics[p]->name, NIC_MC_MAX);
		return -1;
	}
	l3_nh6[p] = (struct l3_nh6){ .port = (uint8_t)p };
	for (int i = 0; i < ia->n6; i++) {
		prefix6_mask(ia->v6[i].addr, ia->v6[i].len, g);
		if (lpm6_add(&l3_lpm6, g, ia->v6[i].len, (uint16_t)p)) {
			printf("fwd: %s: IPv6 routing table full\n", l3_nics[p]->name);
			return -1;
		}
		printf("fwd: %s routes IPv6, %s/%u\n", l3_nics[p]->name, addr6_fmt(a, ia->v6[i].addr), ia->v6[i].len);
	}
	printf("fwd: %s link-local %s\n", l3_nics[p]->name, addr6_fmt(a, ia->ll6));
	return 0;
}

/* The link of routes6[i]'s link-local next hop: its port, or its
 * sub-interface (%portN.VID, %portN.S.C); -1 when there is no such
 * sub-interface. */
static int route6_link(int i)
{
	return routes6[i].vid ? ifaddr_tags_link(routes6[i].port, routes6[i].svid, routes6[i].vid) : routes6[i].port;
}

/* route= for IPv6 into the table, each whose next hop is on a connected
 * prefix (or link-local on a link that routes IPv6), as l3_add_routes. */
static void l3_add_routes6(void)
{
	char r[2 * IPV6_STR_MAX + 24];
	uint8_t via[L3_ROUTES_MAX];
	int kept = 0, any = memchr(fwd_l3_v6, 1, sizeof(fwd_l3_v6)) != 0;
	for (int i = 0; i < nroutes6; i++) {
		int ll = routes6[i].port >= 0;
		int v = !any ? (int)LPM6_NONE : ll ? route6_link(i) : (int)lpm6_lookup(&l3_lpm6, routes6[i].gw);
		const char *why = !any ? "refused: no port fwd routes on has an IPv6 address" :
				  ll && v < 0 ? "refused: no such VLAN sub-interface (ipN.VID=, ipN.S.C=)" :
				  ll && !fwd_l3_v6[v] ? "refused: the next hop's link does not route IPv6" :
				  v >= FWD_LINKS ? "refused: the next hop is on no connected prefix (ipN=)" :
				  ifaddr6_port_of(routes6[i].gw) >= 0 ? "refused: the next hop is one of our own addresses" : 0;
		if (why) {
			printf("fwd: route=%s %s\n", route6_str(r, sizeof(r), i), why);
			continue;
		}
		via[kept] = (uint8_t)v;
		routes6[kept++] = routes6[i];
	}
	nroutes6 = kept;
	for (int i = 0; i < nroutes6; i++) {
		uint16_t nh = (uint16_t)(FWD_LINKS + i);
		if (lpm6_add(&l3_lpm6, routes6[i].prefix, routes6[i].len, nh)) {
			printf("fwd: route=%s refused: IPv6 routing table full\n", route6_str(r, sizeof(r), i));
			continue;
		}
		l3_nh6[nh] = (struct l3_nh6){ .port = via[i] };
		memcpy(l3_nh6[nh].gw, routes6[i].gw, 16);
		printf("fwd: route=%s %s\n", route6_str(r, sizeof(r), i), l3_nics[via[i]]->name);
	}
}

/* The routed ports' subnets into the table, next hop p for port p. 0, or
 * -1 after printing that the table is full. */
static int l3_connect(void)
{
	for (int p = 0; p < FWD_LINKS; p++) {
		const struct ifaddr4 *ia = &ifaddrs[p].v4;
		char a[IPV4_STR_MAX];
		if (fwd_l3_v6[p] && l3_connect6(p))
			return -1;
		if (!fwd_l3_port[p] || !ia->addr)
			continue;
		l3_nh[p] = (struct l3_nh){ .gw = 0, .port = (uint8_t)p };
		if (lpm_add(&l3_lpm, ia->addr & ipv4_mask(ia->len), ia->len, (uint16_t)p)) {
			printf("fwd: %s: routing table full\n", l3_nics[p]->name);
			return -1;
		}
		printf("fwd: %s routes at L3, %s/%u\n", l3_nics[p]->name, ipv4_str(a, ia->addr), ia->len);
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
		const char *why = v >= FWD_LINKS ? "refused: the next hop is on no connected subnet (ipN=)" :
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
		uint16_t nh = (uint16_t)(FWD_LINKS + i);
		l3_nh[nh] = (struct l3_nh){ .gw = routes[i].gw, .port = (uint8_t)via[i] };
		if (lpm_add(&l3_lpm, routes[i].prefix, routes[i].len, nh)) {
			print_route("refused: routing table full", i);
			continue;
		}
		print_route(l3_nics[via[i]]->name, i);
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
	if (l3_vlan_init() || l3_connect())
		return -1;
	l3_add_routes();
	l3_add_routes6();
	l3_tx_per_core_init();
	fwd_l3_any = 1;
	__atomic_fetch_add(&ifaddr_gen, 1, __ATOMIC_RELEASE);
	return 0;
}
