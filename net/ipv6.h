/*
 * IPv6 and ICMPv6 for the L3 router: header layouts (RFC 8200 3, 4;
 * RFC 4443 2.1; RFC 4861 4), the upper-layer checksum with its
 * pseudo-header (RFC 8200 8.1), the walk of the extension header chain
 * (RFC 8200 4, RFC 5095, RFC 7112), and the multicast groups of
 * RFC 4291 2.7. Addresses are 16-byte arrays in network order.
 */
#ifndef NET_IPV6_H
#define NET_IPV6_H
#include <stddef.h>
#include <stdint.h>
#include "net/bytes.h"

#define ETHERTYPE_IPV6	0x86dd
#define IPV6_HLEN	40
#define IPV6_MIN_MTU	1280	/* RFC 8200 5: an ICMPv6 error fits in it */

/* Next Header values (IANA "Assigned Internet Protocol Numbers"). */
#define IP6_HOPOPTS	0
#define IP6_ROUTING	43
#define IP6_FRAGMENT	44
#define IP6_ESP		50
#define IP6_AH		51
#define IP6_ICMPV6	58
#define IP6_NONE	59
#define IP6_DSTOPTS	60

/* ICMPv6 types and codes (RFC 4443 2.1, 3, 4; RFC 4861 4). */
#define ICMP6_DST_UNREACH	1
#define ICMP6_DST_NOROUTE	0	/* no route to destination */
#define ICMP6_DST_BEYOND_SCOPE	2	/* beyond scope of source address */
#define ICMP6_PACKET_TOO_BIG	2
#define ICMP6_TIME_EXCEEDED	3
#define ICMP6_PARAM_PROB	4
#define ICMP6_PARAM_HEADER	0	/* erroneous header field */
#define ICMP6_PARAM_NEXTHDR	1	/* unrecognized Next Header type */
#define ICMP6_PARAM_OPTION	2	/* unrecognized IPv6 option */
#define ICMP6_PARAM_CHAIN	3	/* first fragment has incomplete header chain (RFC 7112) */
#define ICMP6_ECHO_REQUEST	128
#define ICMP6_ECHO_REPLY	129
#define ND_ROUTER_SOLICIT	133
#define ND_ROUTER_ADVERT	134
#define ND_NEIGHBOR_SOLICIT	135
#define ND_NEIGHBOR_ADVERT	136
#define ND_REDIRECT		137
#define ND_HOP_LIMIT		255	/* ND messages are sent, and must arrive, with it (RFC 4861 7.1) */
#define ND_OPT_SLLA		1	/* source link-layer address option */
#define ND_OPT_TLLA		2	/* target link-layer address option */
#define ND_NA_ROUTER		0x80000000u	/* NA flags (RFC 4861 4.4), host order */
#define ND_NA_SOLICITED		0x40000000u
#define ND_NA_OVERRIDE		0x20000000u
#define ND_MSG_LEN		24	/* NS and NA: header, flags, target */
#define ICMP6_DST_PORT		4	/* Destination Unreachable: port unreachable */
#define ICMP6_ERROR_HOPS	64	/* hop limit of the errors a host sends */

struct ipv6_hdr {
	uint32_t vtc_flow;	/* version 6 << 28 | traffic class | flow label */
	uint16_t payload_len;	/* bytes after this header */
	uint8_t nexthdr;
	uint8_t hop_limit;
	uint8_t saddr[16];
	uint8_t daddr[16];
} __attribute__((packed));

struct icmp6_hdr {
	uint8_t type;
	uint8_t code;
	uint16_t csum;
	uint32_t data;		/* MTU, pointer, echo id/seq, ND flags */
} __attribute__((packed));

static inline int ipv6_multicast(const uint8_t a[16])
{
	return a[0] == 0xff;
}
/* fe80::/10 (RFC 4291 2.5.6). */
static inline int ipv6_link_local(const uint8_t a[16])
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}
/* 1 if a is :: (unspecified, loopback 0) or ::1 (loopback 1). */
int ipv6_unspec_or_loopback(const uint8_t a[16], int loopback);

/* The solicited-node group of a, ff02::1:ffXX:XXXX (RFC 4291 2.7.1). */
void ipv6_solicited_node(const uint8_t a[16], uint8_t group[16]);
/* The Ethernet MAC of multicast group g, 33:33 and its last 4 bytes (RFC 2464 7). */
void ipv6_mcast_mac(const uint8_t g[16], uint8_t mac[6]);

/* The checksum of upper-layer message l4 (len bytes, its checksum field
 * included) with ip's pseudo-header for proto (RFC 8200 8.1), host order:
 * 0 when a received message's is right; store hton16 of it to fill one in
 * whose field is 0. */
uint16_t ipv6_l4_csum(const struct ipv6_hdr *ip, uint8_t proto, const void *l4, size_t len);

/* The Ethernet and IPv6 headers and the ICMPv6 checksum of the message of
 * len bytes that follows them in frame: to dmac from smac, from src to
 * dst (any of these may point into frame itself), with hop limit hops. */
void icmp6_finish(uint8_t *frame, const uint8_t dmac[6], const uint8_t smac[6], const uint8_t src[16],
		  const uint8_t dst[16], size_t len, uint8_t hops);

/* Build into out (cap bytes) the ICMPv6 error (type, code; the 32-bit
 * field 0) a host sends about the IPv6 frame `frame` (len bytes from its
 * Ethernet header, its fixed header checked) it was the destination of:
 * back to the frame's source MAC from our_mac, from the packet's
 * destination to its source, hop limit ICMP6_ERROR_HOPS, quoting as much
 * of the packet as keeps the error within the minimum MTU (RFC 4443 2.4
 * (c)). Returns the frame's length, or 0 when no error may be sent (RFC
 * 4443 2.4 (e): the packet was to a multicast address, from one that is
 * multicast or unspecified, or is an ICMPv6 error right after the fixed
 * header) or cap is too small. out
 * and frame must not overlap. */
size_t icmp6_error_build(uint8_t *out, size_t cap, const uint8_t *frame, size_t len, uint8_t type, uint8_t code,
			 const uint8_t our_mac[6]);

/* What the extension header walk found. */
enum ipv6_ext {
	IPV6_EXT_OK,
	IPV6_EXT_TRUNCATED,	/* a header runs past the packet */
	IPV6_EXT_HBH_NOT_FIRST,	/* Hop-by-Hop after the first (RFC 8200 4.1) */
	IPV6_EXT_RH0,		/* Routing Header type 0 (RFC 5095) */
	IPV6_EXT_OPT_DISCARD,	/* an unknown HbH option says discard (action 01) */
	IPV6_EXT_OPT_ICMP,	/* an unknown HbH option says discard and tell (10, 11) */
	IPV6_EXT_N
};

/* Where the walk ended. */
struct ipv6_walk {
	uint8_t proto;		/* the upper-layer (or ESP, No Next Header) value; for a
				 * fragment past the first, IP6_FRAGMENT */
	uint8_t frag;		/* a Fragment header was seen */
	uint8_t mcast_ok;	/* IPV6_EXT_OPT_ICMP: the action was 10, so multicast too */
	size_t off;		/* upper-layer header's offset from the IPv6 header */
	size_t ptr;		/* a failure: the offending octet's offset (ICMPv6 pointer) */
};

/*
 * Walk the extension headers of the IPv6 packet at ip, len bytes (the
 * header and its payload length, within the frame), as a router that
 * is not the destination: Hop-by-Hop options examined (RFC 8200 4.3:
 * Pad1, PadN, Router Alert and Jumbo Payload known, others acted on by
 * their two high bits), Routing, Fragment, Destination Options and AH
 * stepped over (a fragment with offset > 0 ends the walk), a Routing
 * Header of type 0 refused. Returns the verdict and fills w.
 */
enum ipv6_ext ipv6_ext_walk(const uint8_t *ip, size_t len, struct ipv6_walk *w);
#endif
