/*
 * The ports' addresses: the ip0..ip7 knobs (a port's IPv4 address and
 * prefix, or dhcp, and its IPv6 addresses), the IPv6 link-local address,
 * the rules an address must meet, and the lookups the apps make: is an
 * address ours, is it a directed broadcast.
 */
#include <stdio.h>
#include <string.h>
#include "kernel/knobs.h"
#include "net/addr.h"
#include "net/ifaddr.h"
#include "net/ipv4.h"

struct ifaddr ifaddrs[IFADDR_LINKS];
struct ifaddr_vlan ifaddr_vlans[IFADDR_VLANS];
int ifaddr_nvlans;
struct ifaddr6_own ifaddr6_own[IFADDR6_SLOTS];
uint64_t ifaddr4_hint;
uint32_t ifaddr_gen;

char *ifaddr_link_name(char *buf, size_t len, const char *prefix, int link)
{
	if (link < IFADDR_PORTS)
		snprintf(buf, len, "%s%d", prefix, link);
	else if (ifaddr_link_svid(link))
		snprintf(buf, len, "%s%d.%u.%u", prefix, ifaddr_link_port(link), ifaddr_link_svid(link),
			 ifaddr_link_vid(link));
	else
		snprintf(buf, len, "%s%d.%u", prefix, ifaddr_link_port(link), ifaddr_link_vid(link));
	return buf;
}

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
	for (int p = 0; p < IFADDR_LINKS; p++) {
		const struct ifaddr4 *o = &ifaddrs[p].v4;
		int l = len < o->len ? len : o->len;
		if (p != port && o->addr && !((a ^ o->addr) & ipv4_mask(l))) {
			char s[IPV4_STR_MAX], n[16];
			snprintf(err, errlen, "overlaps %s=%s/%u: a subnet may be on one link only",
				 ifaddr_link_name(n, sizeof(n), "ip", p), ipv4_str(s, o->addr), o->len);
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
	for (int p = 0; p < IFADDR_LINKS; p++)
		if (ifaddrs[p].v4.addr == addr)
			return 1;
	return 0;
}

int ifaddr4_directed_broadcast(uint32_t addr)
{
	for (int p = 0; p < IFADDR_LINKS; p++) {
		const struct ifaddr4 *a = &ifaddrs[p].v4;
		uint32_t host = ~ipv4_mask(a->len);
		if (a->addr && a->len <= 30 && ((addr ^ a->addr) & ~host) == 0 &&
		    ((addr & host) == host || (addr & host) == 0))
			return 1;
	}
	return 0;
}

/* 1 if the first len bits of a and b are equal. */
static int prefix6_eq(const uint8_t a[16], const uint8_t b[16], int len)
{
	for (int i = 0; i < len; i++)
		if ((a[i / 8] ^ b[i / 8]) >> (7 - i % 8) & 1)
			return 0;
	return 1;
}

int ifaddr6_check(int port, const uint8_t a[16], int len, char *err, size_t errlen)
{
	static const uint8_t zero[16], mapped[16] = { [10] = 0xff, [11] = 0xff };
	uint8_t iid[16] = { 0 };
	for (int i = len; i < 128; i++)
		iid[i / 8] |= (uint8_t)(a[i / 8] & (0x80 >> i % 8));
	const char *why = prefix6_eq(a, zero, 127) ? "the unspecified or loopback address" :
			  a[0] == 0xff ? "a multicast address" :
			  a[0] == 0xfe && (a[1] & 0xc0) == 0x80 ? "link-local: each port has its own, from its MAC" :
			  prefix6_eq(a, mapped, 96) ? "an IPv4-mapped address" :
			  len < 127 && !memcmp(iid, zero, 16) ? "the subnet-router anycast address of its prefix" : 0;
	if (why) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	for (int p = 0; p < IFADDR_LINKS; p++)
		for (int i = 0; p != port && i < ifaddrs[p].n6; i++) {
			const struct ifaddr6 *o = &ifaddrs[p].v6[i];
			if (prefix6_eq(a, o->addr, len < o->len ? len : o->len)) {
				char s[IPV6_STR_MAX], n[16];
				snprintf(err, errlen, "overlaps %s/%u on %s=: a subnet may be on one link only",
					 addr6_fmt(s, o->addr), o->len, ifaddr_link_name(n, sizeof(n), "ip", p));
				return -1;
			}
		}
	return 0;
}

/* ifaddr6_own from every port's addresses (a link-local of all zero is none). */
static void own6_build(void)
{
	static const uint8_t zero[16];
	memset(ifaddr6_own, 0, sizeof(ifaddr6_own));
	for (int p = 0; p < IFADDR_LINKS; p++)
		for (int i = -1; i < ifaddrs[p].n6; i++) {
			const uint8_t *a = i < 0 ? ifaddrs[p].ll6 : ifaddrs[p].v6[i].addr;
			uint64_t lo, hi;
			if (!memcmp(a, zero, 16) || ifaddr6_port_of(a) >= 0)
				continue;
			memcpy(&lo, a, 8);
			memcpy(&hi, a + 8, 8);
			unsigned h = ifaddr6_hash(lo, hi);
			while (ifaddr6_own[h].port1)
				h = (h + 1) % IFADDR6_SLOTS;
			ifaddr6_own[h] = (struct ifaddr6_own){ .lo = lo, .hi = hi, .port1 = (uint8_t)(p + 1) };
		}
}

void ifaddr6_set_changed(void)
{
	own6_build();
	__atomic_fetch_add(&ifaddr_gen, 1, __ATOMIC_RELEASE);
}

void ifaddr6_link_local(int port, const uint8_t mac[6])
{
	uint8_t *a = ifaddrs[port].ll6;
	static const uint8_t fe80[8] = { 0xfe, 0x80 };
	memcpy(a, fe80, 8);
	a[8] = mac[0] ^ 2;	/* the universal/local bit inverted */
	a[9] = mac[1];
	a[10] = mac[2];
	a[11] = 0xff;
	a[12] = 0xfe;
	a[13] = mac[3];
	a[14] = mac[4];
	a[15] = mac[5];
	ifaddr6_set_changed();
}

#define IP_FORMS	"not A.B.C.D/LEN[,gw=A.B.C.D][,ADDR6/LEN...][,auto] or dhcp"

/* gw, a host of a/len's subnet other than a; 0 is none. 0, or -1 with
 * what is wrong in err. */
static int check_gw(uint32_t gw, uint32_t a, int len, char *err, size_t errlen)
{
	uint32_t host = ~ipv4_mask(len);
	if (gw && (!a || (gw ^ a) & ~host || gw == a || (len <= 30 && ((gw & host) == 0 || (gw & host) == host)))) {
		snprintf(err, errlen, "gw= must be another host of the port's subnet");
		return -1;
	}
	return 0;
}

/* One item of ipN= at *s (A.B.C.D/LEN, gw=A.B.C.D, auto or ADDR6/LEN) into ia;
 * advances *s past it. 0, or -1 with what is wrong in err. */
static int parse_ip_item(int port, const char **s, struct ifaddr *ia, char *err, size_t errlen)
{
	const char *t = *s;
	uint32_t a;
	uint8_t a6[16];
	int len;
	if (!ipv4_prefix_parse(&t, &a, &len) && len >= 1) {
		if (ia->v4.addr) {
			snprintf(err, errlen, "one IPv4 address per port");
			return -1;
		}
		ia->v4.addr = a;
		ia->v4.len = (uint8_t)len;
		*s = t;
		return ifaddr4_check(port, a, len, err, errlen);
	}
	if (t = *s, !strncmp(t, "gw=", 3) && (t += 3, !ipv4_parse(&t, &a)) && !ia->v4.gw) {
		ia->v4.gw = a;
		*s = t;
		return 0;
	}
	if (!strncmp(*s, "auto", 4) && ((*s)[4] == ',' || !(*s)[4]) && !ia->auto6) {
		ia->auto6 = 1;
		*s += 4;
		return 0;
	}
	if (t = *s, !addr6_prefix_parse(&t, a6, &len) && len >= 1) {
		if (ia->n6 == IFADDR6_MAX) {
			snprintf(err, errlen, "more than %d IPv6 addresses", IFADDR6_MAX);
			return -1;
		}
		memcpy(ia->v6[ia->n6].addr, a6, 16);
		ia->v6[ia->n6++].len = (uint8_t)len;
		*s = t;
		return ifaddr6_check(port, a6, len, err, errlen);
	}
	snprintf(err, errlen, "%s", IP_FORMS);
	return -1;
}

static int parse_ip(int port, const char *v, char *err, size_t errlen)
{
	struct ifaddr ia = { 0 };
	if (port >= IFADDR_PORTS && (strstr(v, "dhcp") || strstr(v, "gw=") || strstr(v, "auto"))) {
		snprintf(err, errlen, "a VLAN sub-interface takes A.B.C.D/LEN and/or ADDR6/LEN only (fwd routes on it)");
		return -1;
	}
	if (!strcmp(v, "dhcp") || !strcmp(v, "dhcp,auto")) {
		ifaddrs[port] = (struct ifaddr){ .dhcp = 1, .auto6 = v[4] == ',' };
		ifaddr6_set_changed();
		return 0;
	}
	for (const char *s = v;; s++) {
		if (parse_ip_item(port, &s, &ia, err, errlen))
			return -1;
		if (!*s)
			break;
		if (*s != ',' || !s[1]) {
			snprintf(err, errlen, "%s", IP_FORMS);
			return -1;
		}
	}
	if (check_gw(ia.v4.gw, ia.v4.addr, ia.v4.len, err, errlen))
		return -1;
	uint32_t a = ia.v4.addr;
	ia.v4.addr = 0;
	memcpy(ia.ll6, ifaddrs[port].ll6, 16);
	ifaddrs[port] = ia;
	ifaddr6_set_changed();
	if (a)
		ifaddr4_set(port, a, ia.v4.len);
	return 0;
}

static void show_ip(int port, char *buf, size_t len)
{
	char a[IPV4_STR_MAX], g[IPV4_STR_MAX], a6[IPV6_STR_MAX];
	const struct ifaddr *ia = &ifaddrs[port];
	size_t n = 0;
	buf[0] = 0;
	if (ia->dhcp)
		n = (size_t)snprintf(buf, len, "dhcp");
	else if (ia->v4.addr && !ia->v4.gw)
		n = (size_t)snprintf(buf, len, "%s/%u", ipv4_str(a, ia->v4.addr), ia->v4.len);
	else if (ia->v4.addr)
		n = (size_t)snprintf(buf, len, "%s/%u,gw=%s", ipv4_str(a, ia->v4.addr), ia->v4.len, ipv4_str(g, ia->v4.gw));
	for (int i = 0; i < ia->n6 && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s/%u", n ? "," : "", addr6_fmt(a6, ia->v6[i].addr), ia->v6[i].len);
	if (ia->auto6 && n < len)
		snprintf(buf + n, len - n, "%sauto", n ? "," : "");
}

/* A VLAN ID at *s, decimal 1-4094 without leading zeros, up to the end
 * or a '.': 0 and *s past it, or -1. */
static int parse_vid(const char **s, unsigned *vid)
{
	const char *d = *s;
	unsigned v = 0;
	while (*d >= '0' && *d <= '9' && v <= 4094)
		v = v * 10 + (unsigned)(*d++ - '0');
	if ((*d && *d != '.') || d == *s || **s == '0' || v < 1 || v > 4094)
		return -1;
	*s = d;
	*vid = v;
	return 0;
}

int ifaddr_vlan_check(int port, const char *sub, unsigned *svid, unsigned *vid, char *err, size_t errlen)
{
	const char *s = sub;
	unsigned a, b = 0;
	if (parse_vid(&s, &a) || (*s && (s++, parse_vid(&s, &b) || *s))) {
		snprintf(err, errlen, "VLAN ID '%.16s' is not 1-4094, nor S.C two of them for QinQ (decimal without "
			 "leading zeros; 0 is a priority tag, 4095 reserved: IEEE 802.1Q-2018 Table 9-2)", sub);
		return -1;
	}
	*svid = b ? a : 0;
	*vid = b ? b : a;
	if (ifaddr_tags_link(port, *svid, *vid) >= 0) {
		snprintf(err, errlen, "ip%d.%s= given before: one sub-interface per port and VLAN", port, sub);
		return -1;
	}
	if (ifaddr_nvlans == IFADDR_VLANS) {
		snprintf(err, errlen, "more than %d VLAN sub-interfaces", IFADDR_VLANS);
		return -1;
	}
	return 0;
}

/* ipN.VID= and ipN.S.C=: a VLAN sub-interface of port N with its addresses. */
static int parse_vlan(int port, const char *sub, const char *v, char *err, size_t errlen)
{
	unsigned svid, vid;
	if (ifaddr_vlan_check(port, sub, &svid, &vid, err, errlen))
		return -1;
	ifaddr_vlans[ifaddr_nvlans] = (struct ifaddr_vlan){ .port = (uint8_t)port, .vid = (uint16_t)vid,
							      .svid = (uint16_t)svid };
	if (parse_ip(IFADDR_PORTS + ifaddr_nvlans, v, err, errlen))
		return -1;
	ifaddr_nvlans++;
	return 0;
}

/* show config's ipN.VID= lines: port's i-th sub-interface that has an
 * address (fwd took those of a port that does not exist away at boot). */
static int show_vlan(int port, int i, char *sub, size_t sublen, char *buf, size_t len)
{
	for (int v = 0; v < ifaddr_nvlans; v++) {
		const struct ifaddr *ia = &ifaddrs[IFADDR_PORTS + v];
		if (ifaddr_vlans[v].port == port && (ia->v4.addr || ia->n6) && i-- == 0) {
			if (ifaddr_vlans[v].svid)
				snprintf(sub, sublen, "%u.%u", ifaddr_vlans[v].svid, ifaddr_vlans[v].vid);
			else
				snprintf(sub, sublen, "%u", ifaddr_vlans[v].vid);
			show_ip(IFADDR_PORTS + v, buf, len);
			return 0;
		}
	}
	return -1;
}

#define IP_KNOB(n) \
	static int parse_ip##n(const char *v, char *e, size_t l) { return parse_ip(n, v, e, l); } \
	static int parse_vlan##n(const char *sub, const char *v, char *e, size_t l) { return parse_vlan(n, sub, v, e, l); } \
	static void show_ip##n(char *b, size_t l) { show_ip(n, b, l); } \
	static int show_vlan##n(int i, char *s, size_t sl, char *b, size_t l) { return show_vlan(n, i, s, sl, b, l); } \
	KNOB(ip##n, .name = "ip" #n, .type = KNOB_FUNC, .parse = parse_ip##n, .show = show_ip##n, \
	     .parse_sub = parse_vlan##n, .show_sub = show_vlan##n, \
	     .accepted = "A.B.C.D/LEN[,gw=A.B.C.D] and/or up to 4 ADDR6/LEN and/or auto, comma-separated (LEN 1-32 or " \
			 "1-128, decimal without leading zeros), e.g. 10.0.0.1/24,gw=10.0.0.254,2001:db8::1/64; " \
			 "no subnet on two links; gw another host of the subnet; or dhcp[,auto] (management port only); " \
			 "ip" #n ".VID=A.B.C.D/LEN[,ADDR6/LEN...]: a VLAN sub-interface, VID 1-4094, once per VID, up to 8 in all; " \
			 "ip" #n ".S.C=...: one for QinQ frames (802.1ad S-tag S outside C-tag C)", \
	     .help = "port" #n "'s IPv4 address and prefix and IPv6 addresses: fwd routes at L3 on them, rr and mgmt answer on both " \
		     "families (IPv6 also on the link-local address from the MAC; lwIP takes IPv6 prefixes as /64), ptp (udp4) on IPv4; " \
		     "auto: rr and mgmt also take an IPv6 address by SLAAC from a router's RA; " \
		     "gw: the router rr and mgmt answer hosts off the subnet through (the first port with one, " \
		     "as lwIP has one default route; fwd routes with route=); " \
		     "dhcp: the management port's address (and router) from a DHCP lease; " \
		     "ip" #n ".VID=: fwd routes on VLAN VID of the port as its own link (802.1Q tags), e.g. ip" #n ".100=10.100.0.1/24; " \
		     "default none (fwd: L2)")
IP_KNOB(0);
IP_KNOB(1);
IP_KNOB(2);
IP_KNOB(3);
IP_KNOB(4);
IP_KNOB(5);
IP_KNOB(6);
IP_KNOB(7);
