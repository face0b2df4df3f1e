/* The ports' addresses (Linux net/ipv4/devinet.c, net/ipv6/addrconf.c):
 * what ipN= and DHCP give a port, its IPv6 link-local address, the rules an address must meet, and the questions the
 * apps ask of them (is this address ours, a directed broadcast). fwd
 * routes between them; rr, mgmt and ptp answer on them. */
#ifndef NET_IFADDR_H
#define NET_IFADDR_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define IFADDR_PORTS	8	/* = NIC_MAX_PORTS (drivers/net/nic.h, above net/) */
#define IFADDR_VLANS	8	/* VLAN sub-interfaces (ipN.VID=), all ports together */
/* Links: the ports 0..IFADDR_PORTS-1 (untagged frames), then the VLAN
 * sub-interfaces, IFADDR_PORTS + i for ifaddr_vlans[i]. */
#define IFADDR_LINKS	(IFADDR_PORTS + IFADDR_VLANS)

/* An IPv4 address and its prefix, host order (Linux struct in_ifaddr). */
struct ifaddr4 {
	uint32_t addr;		/* 0: none */
	uint8_t len;		/* prefix length, 1..32 */
	uint32_t gw;		/* ipN=...,gw=: where the port's own traffic (rr,
				 * mgmt) to hosts off the subnet goes; 0: none */
};

#define IFADDR6_MAX	4	/* global IPv6 addresses per port */

/* An IPv6 address and its prefix length (Linux struct inet6_ifaddr). */
struct ifaddr6 {
	uint8_t addr[16];	/* network order */
	uint8_t len;		/* prefix length, 1..128 */
};

/* A port's addresses (Linux struct in_device and inet6_dev): one IPv4
 * address, up to IFADDR6_MAX global IPv6 ones and the IPv6 link-local
 * one; each family's questions below keep their own names (ifaddr4_*,
 * ifaddr6_*). */
struct ifaddr {
	struct ifaddr4 v4;	/* ipN=A.B.C.D/LEN, or the DHCP lease */
	struct ifaddr6 v6[IFADDR6_MAX];	/* ipN=...,ADDR6/LEN, in the order given */
	uint8_t n6;		/* how many of v6[] */
	uint8_t ll6[16];	/* fe80::/64 link-local (ifaddr6_link_local); all zero: none */
	uint8_t auto6;		/* ipN=...,auto: rr and mgmt take an IPv6 address
				 * by SLAAC from a router's RA (RFC 4862 5.5) */
	uint8_t dhcp;		/* ipN=dhcp: v4 comes from a lease (apps/mgmt/dhcp.c
				 * sets it while one is held, 0 otherwise) */
};
extern struct ifaddr ifaddrs[IFADDR_LINKS];	/* by link */

/* A VLAN sub-interface, ipN.VID= (IEEE 802.1Q-2018 9.6: frames tagged
 * VID on port N), or ipN.S.C= (QinQ, 802.1ad: frames with an S-tag, TPID
 * 0x88a8 and VID S, outside a C-tag of VID C): its own link, IFADDR_PORTS
 * + its index, with its own addresses (ifaddrs[link]), as Linux's `ip
 * link add link ethN type vlan [proto 802.1ad]` (one, or one on another). */
struct ifaddr_vlan {
	uint8_t port;
	uint16_t vid;		/* 1..4094: the C-tag's */
	uint16_t svid;		/* 1..4094: the S-tag's (ipN.S.C=); 0: no S-tag */
};
extern struct ifaddr_vlan ifaddr_vlans[IFADDR_VLANS];
extern int ifaddr_nvlans;

/* The link of S-VLAN svid's C-VLAN vid on port (svid 0: of C-VLAN vid,
 * untagged outside), or -1: none (a frame of those tags has no
 * sub-interface). */
static inline int ifaddr_tags_link(int port, unsigned svid, unsigned vid)
{
	for (int i = 0; i < ifaddr_nvlans; i++)
		if (ifaddr_vlans[i].vid == vid && ifaddr_vlans[i].svid == svid && ifaddr_vlans[i].port == port)
			return IFADDR_PORTS + i;
	return -1;
}
/* The link of VLAN vid on port (one C-tag), or -1. */
static inline int ifaddr_vlan_link(int port, unsigned vid)
{
	return ifaddr_tags_link(port, 0, vid);
}
/* The S-VLAN ID link's frames carry outside their C-tag (ipN.S.C=), 0 for
 * none. */
static inline unsigned ifaddr_link_svid(int link)
{
	return link < IFADDR_PORTS ? 0 : ifaddr_vlans[link - IFADDR_PORTS].svid;
}
/* The port link is on (a port is its own). */
static inline int ifaddr_link_port(int link)
{
	return link < IFADDR_PORTS ? link : ifaddr_vlans[link - IFADDR_PORTS].port;
}
/* The VLAN ID link's frames carry, 0 for a port's own (untagged). */
static inline unsigned ifaddr_link_vid(int link)
{
	return link < IFADDR_PORTS ? 0 : ifaddr_vlans[link - IFADDR_PORTS].vid;
}
/* link's name after prefix into buf: "ip0", "port0.100", "port0.10.100"
 * (prefix "port"; S-VID then C-VID). Returns buf. */
char *ifaddr_link_name(char *buf, size_t len, const char *prefix, int link);
/* The rules of ipN.VID= and ipN.S.C= for the text sub on port: each VLAN
 * ID decimal 1-4094 without leading zeros, not given before, room for one
 * more. 0 with *svid (0 for ipN.VID=) and *vid set, or -1 with what is
 * wrong in err. For the knob and its unit test. */
int ifaddr_vlan_check(int port, const char *sub, unsigned *svid, unsigned *vid, char *err, size_t errlen);

/* The rules of ipN= for a/len on port: a unicast host address (not 0/8,
 * 127/8, 224/4 and up), not its subnet's network or broadcast address
 * (/30 and wider), a subnet no other port has. 0, or -1 with what is
 * wrong in err. Also for DHCP leases. */
int ifaddr4_check(int port, uint32_t a, int len, char *err, size_t errlen);
/* Port's IPv4 address a/len (host order), and the hint (ifaddr4_hint). */
void ifaddr4_set(int port, uint32_t a, int len);
/* 1 if addr (host order) is one of our IPv4 addresses. */
int ifaddr4_is_local(uint32_t addr);
/* 1 if addr is the broadcast or network address of a port's subnet of
 * /30 or wider (a directed broadcast, RFC 1812 5.3.5.2; the network
 * address is the old all-zeros form). */
int ifaddr4_directed_broadcast(uint32_t addr);

/* The rules of ipN= for an IPv6 a/len on port: a global unicast address
 * (not ::, ::1, multicast ff00::/8, link-local fe80::/10 (each port has
 * its own, from its MAC), IPv4-mapped ::ffff:0:0/96), not the subnet-router
 * anycast address of its prefix (RFC 4291 2.6.1; /127 excepted, RFC 6164),
 * a prefix no other port has. 0, or -1 with what is wrong in err. */
int ifaddr6_check(int port, const uint8_t a[16], int len, char *err, size_t errlen);
/* Port's link-local address fe80::/64 with the modified EUI-64 interface
 * identifier of mac (RFC 4291 2.5.6 and appendix A, RFC 4862 5.3);
 * ifaddr6_set_changed follows. */
void ifaddr6_link_local(int port, const uint8_t mac[6]);

/* Every port's IPv6 addresses (global and link-local) by a hash of the
 * whole address, open addressing: "is this ours, and whose" in one probe
 * for most addresses, as the fast path asks it of every frame's source
 * and destination. Rebuilt whenever a port's IPv6 addresses change. */
#define IFADDR6_SLOTS	128	/* power of 2, > 1.5 x IFADDR_LINKS x (IFADDR6_MAX + 1) */
struct ifaddr6_own {
	uint64_t lo, hi;	/* the address's two halves as in memory */
	uint8_t port1;		/* its link + 1 (ifaddrs[] index); 0: a free slot */
};
extern struct ifaddr6_own ifaddr6_own[IFADDR6_SLOTS];

static inline unsigned ifaddr6_hash(uint64_t lo, uint64_t hi)
{
	return (unsigned)(((lo ^ hi * 31) * 0x9e3779b97f4a7c15ull) >> 57);	/* 7 bits: IFADDR6_SLOTS */
}
/* The port a is an IPv6 address of, or -1. */
static inline int ifaddr6_port_of(const uint8_t a[16])
{
	uint64_t lo, hi;
	memcpy(&lo, a, 8);
	memcpy(&hi, a + 8, 8);
	for (unsigned h = ifaddr6_hash(lo, hi);; h = (h + 1) % IFADDR6_SLOTS) {
		const struct ifaddr6_own *o = &ifaddr6_own[h];
		if (!o->port1 || (o->lo == lo && o->hi == hi))
			return o->port1 - 1;
	}
}
/* After a port's IPv6 addresses changed (ifaddrs[].v6, n6, ll6):
 * ifaddr6_own rebuilt, ifaddr_gen moved on. Not while a port routes. */
void ifaddr6_set_changed(void);
/* 1 if a is one of link port's IPv6 addresses (link-local or global); a
 * VLAN sub-interface has its port's link-local address (the same MAC, as
 * Linux gives it), which ifaddr6_own holds for the port. */
static inline int ifaddr6_on_port(int port, const uint8_t a[16])
{
	return ifaddr6_port_of(a) == port || (port >= IFADDR_PORTS && !memcmp(a, ifaddrs[port].ll6, 16));
}

/* Moves on whenever an address is set (ifaddr4_set), and when fwd has
 * built its routes: what a fast path remembered about destinations is
 * then stale (apps/fwd/l3.c, struct dst_slot). */
extern uint32_t ifaddr_gen;

/* Bit ifaddr4_hash(a) is set for every address ever set and for the
 * network and broadcast addresses of its subnet, so a clear bit means
 * "none of those" without looking (set bits may be stale). */
extern uint64_t ifaddr4_hint;
static inline unsigned ifaddr4_hash(uint32_t addr)
{
	return (addr * 2654435761u) >> 26;
}
static inline int ifaddr4_hinted(uint32_t addr)
{
	return ifaddr4_hint >> ifaddr4_hash(addr) & 1;
}
/* ifaddr4_is_local and ifaddr4_directed_broadcast for a fast path: most
 * addresses are ruled out by the hint. */
static inline int ifaddr4_local(uint32_t addr)
{
	return ifaddr4_hinted(addr) && ifaddr4_is_local(addr);
}
static inline int ifaddr4_bcast(uint32_t addr)
{
	return ifaddr4_hinted(addr) && ifaddr4_directed_broadcast(addr);
}
/* 1 if addr may not be a datagram's source, as far as the ports' addresses
 * tell: one of ours, or a port subnet's broadcast or network address (RFC
 * 1812 5.3.7, 4.2.2.11: a broadcast never sends). */
static inline int ifaddr4_bad_src(uint32_t addr)
{
	return ifaddr4_hinted(addr) && (ifaddr4_is_local(addr) || ifaddr4_directed_broadcast(addr));
}
#endif
