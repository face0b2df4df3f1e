/*
 * Address maps as tcprewrite(1)'s --srcipmap/--dstipmap write them: a list
 * of FROM:TO prefix pairs; an address inside FROM takes TO's network bits
 * and keeps its own host bits (tcpreplay's tcpedit, remap_ipv4/remap_ipv6),
 * the first pair that matches wins. IPv4 "10.0.0.0/8:192.168.0.0/16",
 * IPv6 in brackets "[2001:db8::/32]:[2001:db9::/32]". Rewriting a frame
 * fixes the IPv4 header checksum and the TCP, UDP and ICMPv6 checksums
 * over the pseudo-header (RFC 1624 incremental updates). tcprewrite's
 * --pnat is one map for both addresses, ARP's too (ipmap_pnat).
 */
#ifndef NET_IPMAP_H
#define NET_IPMAP_H
#include <stddef.h>
#include <stdint.h>

#define IPMAP_MAX	4	/* pairs in one map (a knob's value is at most 255 bytes) */
/* The accepted forms, for messages and knob tables. */
#define IPMAP_ACCEPTED "off, or FROM:TO[,FROM:TO...] (up to 4), A.B.C.D/LEN:A.B.C.D/LEN or [ADDR6/LEN]:[ADDR6/LEN]"

/* One FROM:TO pair: 4 (IPv4, addresses in the first 4 bytes of from/to,
 * network order) or 16 bytes of address; prefix lengths in bits. */
struct ipmap_pair {
	uint8_t alen;
	uint8_t from_len, to_len;
	uint8_t from[16], to[16];
};

/* A map: n pairs (0: off). */
struct ipmap {
	int n;
	struct ipmap_pair p[IPMAP_MAX];
};

/* Parses "off" or FROM:TO[,FROM:TO...] (the forms above, both sides of a
 * pair of one family) into m. Returns 0, or -1 with m untouched and a
 * message naming the bad part and the accepted forms in err. */
int ipmap_parse(struct ipmap *m, const char *s, char *err, size_t errlen);
/* m as ipmap_parse takes it ("off" when empty), into buf. */
void ipmap_show(const struct ipmap *m, char *buf, size_t len);
/* Address a (alen bytes, network order) mapped by m in place; 1 if a pair
 * matched, else 0 (a unchanged). */
int ipmap_apply(const struct ipmap *m, uint8_t *a, int alen);

/* Rewrites frame f (len bytes: Ethernet, up to two VLAN tags) in place:
 * its IPv4 or IPv6 source address by src, destination by dst, with the
 * IPv4 header checksum and the TCP/UDP/ICMPv6 checksum of a first fragment
 * updated (a UDP checksum of 0, "none", stays 0). Behind IPv6 extension
 * headers too; with a Routing header whose Segments Left is not 0 the
 * pseudo-header's destination is the final one (RFC 8200 8.1), which no
 * map changes, so a new destination leaves the checksum. ARP is not
 * touched (as tcprewrite's --srcipmap/--dstipmap). A frame cut short keeps
 * what it has. Returns the number of addresses changed (0-2). */
int ipmap_rewrite(const struct ipmap *src, const struct ipmap *dst, uint8_t *f, uint32_t len);
/* tcprewrite's --pnat: ipmap_rewrite(m, m, f, len), and an IPv4 ARP
 * request or reply's sender and target protocol addresses (RFC 826) by m.
 * Returns the number of addresses changed (0-2). */
int ipmap_pnat(const struct ipmap *m, uint8_t *f, uint32_t len);
#endif
