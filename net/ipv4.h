/*
 * Ethernet, IPv4, ICMP and ARP for the L3 router: header layouts, the
 * Internet checksum (RFC 1071), its incremental update (RFC 1624), IPv4
 * header checks (RFC 1812 5.2.2), ICMP error replies (RFC 792, RFC 1812
 * 4.3.2) and ARP (RFC 826).
 *
 * Frames are untagged Ethernet II without FCS. Header structs are packed
 * and every multi-byte field is in network byte order (convert with
 * ntoh16/ntoh32); addresses in function arguments are in host order
 * (10.0.0.1 = 0x0a000001) unless the argument is a byte array.
 */
#ifndef NET_IPV4_H
#define NET_IPV4_H
#include <stddef.h>
#include <stdint.h>
#include "net/bytes.h"

#define ETH_ALEN	6
#define ETH_HLEN	14	/* bytes of struct eth_hdr */
#define ETH_ZLEN	60	/* smallest frame without FCS, bytes */
#define ETHERTYPE_IPV4	0x0800
#define ETHERTYPE_ARP	0x0806

#define IPV4_HLEN	20	/* header without options, bytes */
#define IP_PROTO_ICMP	1
#define IPV4_DF		0x4000	/* frag_off: don't fragment */
#define IPV4_MF		0x2000	/* frag_off: more fragments */
#define IPV4_OFFSET	0x1fff	/* frag_off: fragment offset, 8-byte units */

#define ICMP_HLEN		8
#define ICMP_DEST_UNREACH	3	/* RFC 792: codes below */
#define ICMP_NET_UNREACH	0
#define ICMP_HOST_UNREACH	1
#define ICMP_FRAG_NEEDED	4	/* fragmentation needed and DF set */
#define ICMP_TIME_EXCEEDED	11
#define ICMP_EXC_TTL		0	/* time to live exceeded in transit */
#define ICMP_ERROR_TTL		64	/* TTL of the errors we send */
#define ICMP_ERROR_TOS		0xc0	/* precedence 6, RFC 1812 4.3.2.5 */

#define ARP_LEN		28	/* Ethernet/IPv4 ARP packet, bytes */
#define ARP_HTYPE_ETH	1
#define ARP_REQUEST	1
#define ARP_REPLY	2

struct eth_hdr {
	uint8_t dst[ETH_ALEN];
	uint8_t src[ETH_ALEN];
	uint16_t type;		/* ETHERTYPE_*, network order */
} __attribute__((packed));

struct ipv4_hdr {
	uint8_t ver_ihl;	/* version 4 << 4 | header length in 32-bit words */
	uint8_t tos;
	uint16_t tot_len;	/* header + payload, bytes */
	uint16_t id;
	uint16_t frag_off;	/* flags (IPV4_MF, DF) and offset */
	uint8_t ttl;
	uint8_t proto;
	uint16_t csum;
	uint32_t saddr;
	uint32_t daddr;
} __attribute__((packed));

struct icmp_hdr {
	uint8_t type;
	uint8_t code;
	uint16_t csum;		/* over the ICMP header and data */
	uint32_t rest;		/* unused (zero) in the errors built here */
} __attribute__((packed));

struct arp_hdr {
	uint16_t htype;		/* ARP_HTYPE_ETH */
	uint16_t ptype;		/* ETHERTYPE_IPV4 */
	uint8_t hlen;		/* ETH_ALEN */
	uint8_t plen;		/* 4 */
	uint16_t oper;		/* ARP_REQUEST or ARP_REPLY */
	uint8_t sha[ETH_ALEN];
	uint8_t spa[4];		/* network order */
	uint8_t tha[ETH_ALEN];
	uint8_t tpa[4];
} __attribute__((packed));

/* The netmask of a /len prefix, host order (len 0..32). */
static inline uint32_t ipv4_mask(int len)
{
	return len ? ~0u << (32 - len) : 0;
}

/* 1 if a (host order) is never a datagram's source (RFC 1812 5.3.7):
 * 0/8, 127/8, or 224/3 (multicast and class E). */
static inline int ipv4_martian_src(uint32_t a)
{
	return (a >> 24) == 0 || (a >> 24) == 127 || a >= 0xe0000000u;
}

/* Internet checksum (RFC 1071) of len bytes: the one's complement of the
 * one's complement sum of the 16-bit big-endian words, an odd last byte
 * padded with zero. In host order: store it with hton16. Summing over data
 * that holds its own correct checksum gives 0. */
uint16_t inet_csum(const void *buf, size_t len);
/* The pieces of inet_csum, for data in several parts (a pseudo-header,
 * then the message): inet_sum adds len bytes as 16-bit big-endian words,
 * unfolded (each part but the last of even length); inet_csum_fold
 * turns the total into the checksum (host order). */
uint64_t inet_sum(const void *buf, size_t len);
uint16_t inet_csum_fold(uint64_t sum);

/* Checksum hc (host order) after a 16-bit word of the data changes from m
 * to m' (host order): RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'). Unlike
 * RFC 1141's HC' = HC + m - m' it never turns a correct 0x0000 into 0xFFFF
 * (RFC 1624 section 3), so it equals a full recomputation. */
uint16_t inet_csum_update(uint16_t hc, uint16_t m, uint16_t m_new);

/*
 * The checksums a NIC inserts for a frame's transmit requests (net/pkt.h
 * flags PKT_TX_IP_CSUM, PKT_TX_L4_CSUM with PKT_TX_IP6 and PKT_TX_UDP: a
 * 20-byte IPv4 or 40-byte IPv6 header after the Ethernet header, TCP or
 * UDP right after it), summed over the len-byte frame f and written into
 * out, a copy of its first outlen bytes, where the fields lie inside it.
 * What the fields hold in f is left out of the sums: 0 or the
 * pseudo-header sum the stack left for the NIC, or the NIC's own result
 * (QEMU's models write the L4 checksum back into the buffer). UDP's
 * computed 0 is written 0xffff (RFC 768). A frame shorter than its
 * headers or its IP length says is left as it is.
 */
void csum_offload_fill(uint32_t flags, const uint8_t *f, uint32_t len, uint8_t *out, uint32_t outlen);

/* Outcome of ipv4_check, in the order the checks run. */
enum ipv4_check {
	IPV4_OK,
	IPV4_TOO_SHORT,		/* fewer than IPV4_HLEN bytes */
	IPV4_BAD_VERSION,	/* version is not 4 */
	IPV4_BAD_IHL,		/* header length < 20 or beyond the bytes given */
	IPV4_BAD_TOTLEN,	/* total length < header length or beyond the bytes given */
	IPV4_BAD_CSUM,		/* header checksum wrong */
	IPV4_TTL_EXPIRED,	/* TTL <= 1: the header is sound but may not be forwarded */
	IPV4_CHECK_N
};

/* Check the IPv4 header at ip, of which len bytes (the rest of the frame)
 * are readable, as a router must before forwarding (RFC 1812 5.2.2, TTL
 * 5.3.1). Fragments and options pass. Returns the first failed check. */
enum ipv4_check ipv4_check(const void *ip, size_t len);

/* The checks of ipv4_check before the checksum (length, version, IHL,
 * total length), for a receiver whose NIC verified the header checksum.
 * Inline: it runs once per routed frame. */
static inline enum ipv4_check ipv4_check_fields(const void *ip, size_t len)
{
	const struct ipv4_hdr *h = ip;

	if (len < IPV4_HLEN)
		return IPV4_TOO_SHORT;
	if (h->ver_ihl == 0x45) {	/* the common header: version 4, no options */
		size_t tot = ntoh16(h->tot_len);
		return tot < IPV4_HLEN || tot > len ? IPV4_BAD_TOTLEN : IPV4_OK;
	}
	if (h->ver_ihl >> 4 != 4)
		return IPV4_BAD_VERSION;
	size_t hlen = (size_t)(h->ver_ihl & 0xf) * 4;
	if (hlen < IPV4_HLEN || hlen > len)
		return IPV4_BAD_IHL;
	size_t tot = ntoh16(h->tot_len);
	if (tot < hlen || tot > len)
		return IPV4_BAD_TOTLEN;
	return IPV4_OK;
}

/* 1 if the 20-byte IPv4 header at ip (IHL 5; the caller checked it) holds
 * a correct header checksum, for receivers whose NIC did not check it
 * (virtio-net; an Intel one with IPCS clear); the same verdict as
 * inet_csum(ip, 20) == 0 (RFC 1812 5.2.2: a router verifies it). The
 * one's complement sum of 16-bit words is their integer sum modulo 0xffff
 * (a nonzero multiple giving 0xffff, -0), and a header with its right
 * checksum sums to -0 (RFC 1071 1, 2). 0xffff divides 2^64 - 1, so the
 * header's two 64-bit words and its last 32-bit one are added with their
 * carries folded back in (end-around, modulo 2^64 - 1), as Linux's
 * ip_fast_csum does with adc: the total is a multiple of 0xffff exactly
 * when the 16-bit sum is; a little-endian load swaps each 16-bit word's
 * bytes, which multiplies it by 2^8 (mod 0xffff), prime to 0xffff: no
 * change (RFC 1071 2(B)). The first carry goes into the 32-bit word (no
 * overflow), and after a carry out of the second add the total is below
 * 2^32, so the last fold cannot carry. Never 0: version 4 is in it.
 * Inline: it runs once per routed frame: three loads, an add and two adc,
 * and gcc tests the multiple of 0xffff with one multiply. */
static inline int ipv4_hdr20_csum_ok(const void *ip)
{
	const uint8_t *b = ip;
	uint64_t w0, w1, s, t;
	uint32_t w2;

	__builtin_memcpy(&w0, b, 8);
	__builtin_memcpy(&w1, b + 8, 8);
	__builtin_memcpy(&w2, b + 16, 4);
	uint64_t c = __builtin_add_overflow(w0, w1, &s);
	c = __builtin_add_overflow(s, w2 + c, &t);	/* the first carry, end-around */
	return (t + c) % 0xffff == 0;			/* and the second */
}

/* What the NIC found of an IPv4 header checksum (its descriptor's IPCS
 * and IPE bits, 82574 7.1.4.2 / 82576 7.1.5.2). */
enum ipv4_hw_csum {
	IPV4_HW_UNCHECKED,	/* the NIC did not check it (IPCS clear) */
	IPV4_HW_GOOD,		/* checked, correct */
	IPV4_HW_BAD,		/* checked, wrong (IPE) */
};

/* ipv4_check for a received header whose checksum the NIC may have
 * verified: hw GOOD skips the software sum, BAD fails it, UNCHECKED sums
 * it in software. The checks run in ipv4_check's order, so the result is
 * the same as ipv4_check's whenever the NIC's verdict is right. */
static inline enum ipv4_check ipv4_check_hw(const void *ip, size_t len, enum ipv4_hw_csum hw)
{
	const struct ipv4_hdr *h = ip;
	enum ipv4_check c = ipv4_check_fields(ip, len);

	if (c != IPV4_OK)
		return c;
	if (hw != IPV4_HW_GOOD &&
	    (hw == IPV4_HW_BAD || (h->ver_ihl == 0x45 ? !ipv4_hdr20_csum_ok(ip) :
				   inet_csum(ip, (size_t)(h->ver_ihl & 0xf) * 4) != 0)))
		return IPV4_BAD_CSUM;
	if (h->ttl <= 1)
		return IPV4_TTL_EXPIRED;
	return IPV4_OK;
}

/* Name of a check result for counters: "ok", "too_short", "bad_version",
 * "bad_ihl", "bad_totlen", "bad_csum", "ttl_expired". */
const char *ipv4_check_name(enum ipv4_check c);

/* Decrement the TTL of a checked header (TTL >= 1) and update its checksum
 * incrementally (RFC 1624; RFC 1812 5.3.1). The TTL is the high byte of
 * its 16-bit word, which drops by 0x0100, so the checksum rises by 0x0100
 * in one's complement: on the stored (network order) field, add
 * hton16(0x0100) and fold the end-around carry, as Linux's ip_decrease_ttl.
 * The result equals RFC 1624 eqn. 3, ~(~HC + ~m + m'), for every HC.
 * Inline: it runs once per routed frame. */
static inline void ipv4_ttl_dec(struct ipv4_hdr *ip)
{
	uint32_t sum = (uint32_t)ip->csum + hton16(0x0100);

	ip->csum = (uint16_t)(sum + (sum >= 0xffff));
	ip->ttl--;
}

/* Build into out (cap bytes) the ICMP error (type, code) a router sends
 * about the IPv4 frame `frame` (len bytes, from its Ethernet header): an
 * Ethernet frame from our_mac back to the frame's source MAC, an IPv4
 * header from our_ip (the receiving interface's address) to the offending
 * source, TTL ICMP_ERROR_TTL, TOS ICMP_ERROR_TOS, ID 0, and the ICMP
 * message quoting the offending IP header and the first 8 bytes of its data
 * as received (RFC 792; fewer if the datagram has fewer). Returns the frame
 * length (ETH_HLEN + IPV4_HLEN + ICMP_HLEN + quote), or 0 when no error may
 * be sent (RFC 1812 4.3.2.7): the frame is not IPv4 or is shorter than its
 * IP header, it is a non-initial fragment, an ICMP error itself, or it was
 * sent to a link-layer broadcast/multicast, to an IP multicast or limited
 * broadcast address, or from an address that is not a unicast host (0/8,
 * 127/8, 224/3); or cap is too small. out and frame must not overlap. */
size_t icmp_error_build(uint8_t *out, size_t cap, const uint8_t *frame, size_t len,
			uint8_t type, uint8_t code, const uint8_t our_mac[ETH_ALEN],
			uint32_t our_ip);

/* Turn the ICMP echo request in frame (from its Ethernet header; its IPv4
 * header already checked, ip points at it) into its echo reply in place
 * (RFC 792; RFC 1122 3.2.2.6, RFC 1812 4.3.3.6): back to the sender's MAC
 * from our_mac, the addresses swapped, TTL ICMP_ERROR_TTL, checksums
 * updated. Returns 1, or 0 with the frame untouched when it is not an
 * unfragmented echo request with a good ICMP checksum from a unicast host. */
int icmp_echo_reply(uint8_t *frame, struct ipv4_hdr *ip, const uint8_t our_mac[ETH_ALEN]);

/* An Ethernet/IPv4 ARP packet, addresses in host order. */
struct arp_info {
	uint16_t op;		/* ARP_REQUEST or ARP_REPLY */
	uint8_t sha[ETH_ALEN];
	uint32_t spa;
	uint8_t tha[ETH_ALEN];
	uint32_t tpa;
};

/* Outcome of arp_parse. */
enum arp_check {
	ARP_OK,
	ARP_TOO_SHORT,		/* fewer than ETH_HLEN + ARP_LEN bytes */
	ARP_NOT_ARP,		/* ethertype is not ETHERTYPE_ARP */
	ARP_BAD_HTYPE,		/* hardware type not Ethernet */
	ARP_BAD_PTYPE,		/* protocol type not IPv4 */
	ARP_BAD_HLEN,		/* hardware address length not 6 */
	ARP_BAD_PLEN,		/* protocol address length not 4 */
	ARP_BAD_OP,		/* neither request nor reply */
	ARP_BAD_SHA,		/* sender MAC is multicast/broadcast (RFC 1812 3.3.2) */
};

/* Parse the ARP frame `frame` (len bytes from the Ethernet header; padding
 * after the packet is ignored) into *a (RFC 826). Returns ARP_OK, or the
 * first check that failed (*a is then unspecified). */
enum arp_check arp_parse(const uint8_t *frame, size_t len, struct arp_info *a);

/* Build an ARP frame into out (cap bytes): a request (op ARP_REQUEST, sent
 * to the broadcast MAC, target MAC zero; tha ignored and may be NULL) or a
 * reply (ARP_REPLY, sent to tha), from sha/spa about tpa. Padded with zeros
 * to ETH_ZLEN. Returns ETH_ZLEN, or 0 if cap < ETH_ZLEN or op is neither. */
size_t arp_build(uint8_t *out, size_t cap, uint16_t op, const uint8_t sha[ETH_ALEN],
		 uint32_t spa, const uint8_t tha[ETH_ALEN], uint32_t tpa);

#endif
