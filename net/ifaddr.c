/*
 * The ports' addresses: the ip0..ip7 knobs (a port's IPv4 address and
 * prefix, or dhcp), the rules an address must meet, and the lookups the
 * apps make: is an address ours, is it a directed broadcast.
 */
#include <stdio.h>
#include <string.h>
#include "kernel/knobs.h"
#include "net/addr.h"
#include "net/ifaddr.h"
#include "net/ipv4.h"

struct ifaddr ifaddrs[IFADDR_PORTS];
uint64_t ifaddr4_hint;
uint32_t ifaddr_gen;

int ifaddr4_check(int port, uint32_t a, int len, char *err, size_t errlen)
{
	uint32_t host = ~ipv4_mask(len);
	if (len <= 30 && ((a & host) == 0 || (a & host) == host)) {
		snprintf(err, errlen, "the subnet's network or broadcast address");
		return -1;
	}
	if (ipv4_martian_src(a)) {
		snprintf(err, errlen, "not a unicast host address");
		return -1;
	}
	for (int p = 0; p < IFADDR_PORTS; p++) {
		const struct ifaddr4 *o = &ifaddrs[p].v4;
		int l = len < o->len ? len : o->len;
		if (p != port && o->addr && !((a ^ o->addr) & ipv4_mask(l))) {
			char s[IPV4_STR_MAX];
			snprintf(err, errlen, "overlaps ip%d=%s/%u: a subnet may be on one port only",
				 p, ipv4_str(s, o->addr), o->len);
			return -1;
		}
	}
	return 0;
}

void ifaddr4_set(int port, uint32_t a, int len)
{
	ifaddrs[port].v4.addr = a;
	ifaddrs[port].v4.len = (uint8_t)len;
	ifaddr4_hint |= 1ull << ifaddr4_hash(a) | 1ull << ifaddr4_hash(a & ipv4_mask(len)) |
			1ull << ifaddr4_hash(a | ~ipv4_mask(len));
	__atomic_fetch_add(&ifaddr_gen, 1, __ATOMIC_RELEASE);	/* after the address */
}

int ifaddr4_is_local(uint32_t addr)
{
	if (!addr)
		return 0;	/* ports without an address hold 0 */
	for (int p = 0; p < IFADDR_PORTS; p++)
		if (ifaddrs[p].v4.addr == addr)
			return 1;
	return 0;
}

int ifaddr4_directed_broadcast(uint32_t addr)
{
	for (int p = 0; p < IFADDR_PORTS; p++) {
		const struct ifaddr4 *a = &ifaddrs[p].v4;
		uint32_t host = ~ipv4_mask(a->len);
		if (a->addr && a->len <= 30 && ((addr ^ a->addr) & ~host) == 0 &&
		    ((addr & host) == host || (addr & host) == 0))
			return 1;
	}
	return 0;
}

#define IP_FORMS	"not A.B.C.D/LEN[,gw=A.B.C.D] or dhcp"

/* ",gw=A.B.C.D" at s, a host of a/len's subnet other than a, into *gw;
 * "" leaves it 0. 0, or -1 with what is wrong in err. */
static int parse_gw(const char *s, uint32_t a, int len, uint32_t *gw, char *err, size_t errlen)
{
	uint32_t host = ~ipv4_mask(len);
	*gw = 0;
	if (!*s)
		return 0;
	if (strncmp(s, ",gw=", 4) || (s += 4, ipv4_parse(&s, gw)) || *s) {
		snprintf(err, errlen, "%s", IP_FORMS);
		return -1;
	}
	if ((*gw ^ a) & ~host || *gw == a || (len <= 30 && ((*gw & host) == 0 || (*gw & host) == host))) {
		snprintf(err, errlen, "gw= must be another host of the port's subnet");
		return -1;
	}
	return 0;
}

static int parse_ip(int port, const char *v, char *err, size_t errlen)
{
	uint32_t a, gw;
	int len;
	const char *s = v;
	if (!strcmp(v, "dhcp")) {
		ifaddrs[port] = (struct ifaddr){ .dhcp = 1 };
		return 0;
	}
	if (ipv4_prefix_parse(&s, &a, &len) || len < 1) {
		snprintf(err, errlen, "%s", IP_FORMS);
		return -1;
	}
	if (parse_gw(s, a, len, &gw, err, errlen) || ifaddr4_check(port, a, len, err, errlen))
		return -1;
	ifaddrs[port] = (struct ifaddr){ .v4.gw = gw };
	ifaddr4_set(port, a, len);
	return 0;
}

static void show_ip(int port, char *buf, size_t len)
{
	char a[IPV4_STR_MAX], g[IPV4_STR_MAX];
	const struct ifaddr *ia = &ifaddrs[port];
	buf[0] = 0;
	if (ia->dhcp)
		snprintf(buf, len, "dhcp");
	else if (ia->v4.addr && !ia->v4.gw)
		snprintf(buf, len, "%s/%u", ipv4_str(a, ia->v4.addr), ia->v4.len);
	else if (ia->v4.addr)
		snprintf(buf, len, "%s/%u,gw=%s", ipv4_str(a, ia->v4.addr), ia->v4.len, ipv4_str(g, ia->v4.gw));
}

#define IP_KNOB(n) \
	static int parse_ip##n(const char *v, char *e, size_t l) { return parse_ip(n, v, e, l); } \
	static void show_ip##n(char *b, size_t l) { show_ip(n, b, l); } \
	KNOB(ip##n, .name = "ip" #n, .type = KNOB_FUNC, .parse = parse_ip##n, .show = show_ip##n, \
	     .accepted = "A.B.C.D/LEN[,gw=A.B.C.D], LEN 1-32, decimal without leading zeros, e.g. 10.0.0.1/24 or " \
			 "10.0.0.1/24,gw=10.0.0.254; subnets of two ports may not overlap; gw another host of the subnet; " \
			 "or dhcp (the management port only)", \
	     .help = "port" #n "'s IPv4 address and prefix: fwd routes at L3 on it, rr, mgmt and ptp (udp4) answer on it; " \
		     "gw: the router rr and mgmt answer hosts off the subnet through (the first port with one, " \
		     "as lwIP has one default route; fwd routes with route=); " \
		     "dhcp: the management port's address (and router) from a DHCP lease; default none (fwd: L2)")
IP_KNOB(0);
IP_KNOB(1);
IP_KNOB(2);
IP_KNOB(3);
IP_KNOB(4);
IP_KNOB(5);
IP_KNOB(6);
IP_KNOB(7);
