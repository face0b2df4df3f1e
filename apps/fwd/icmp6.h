/* fwd's ICMPv6 (RFC 4443): the errors the router sends about packets it
 * cannot forward, from the same per-port token bucket as ICMP's
 * (icmp.c), the echo replies of its addresses, and the headers of the
 * ICMPv6 messages it builds (errors, echo replies, ND). */
#ifndef FWD_ICMP6_H
#define FWD_ICMP6_H
#include <stddef.h>
#include <stdint.h>
#include "drivers/net/nic.h"
#include "net/ipv6.h"

/* The Ethernet and IPv6 headers and the ICMPv6 checksum of the message of
 * len bytes that follows them in frame: to dmac from smac, from src to
 * dst (any of these may point into frame itself), with hop limit hops. */
void icmp6_finish(uint8_t *frame, const uint8_t dmac[6], const uint8_t smac[6], const uint8_t src[16],
		  const uint8_t dst[16], size_t len, uint8_t hops);
/* Send ICMPv6 (type, code, data: MTU or pointer) about p back out of the
 * port it came in on, unless RFC 4443 2.4 (e) forbids it (icmp6_suppressed:
 * about an ICMPv6 error (w: p's header walk, NULL if it failed), to a
 * multicast destination but for Packet Too Big and the Parameter Problem
 * of an option of action 10, from a source that is not unicast) or the
 * bucket is empty (icmp_rate_limited). p stays the caller's. */
void icmp6_error(struct nic *nic, struct pkt *p, uint8_t type, uint8_t code, uint32_t data,
		 const struct ipv6_walk *w, uint64_t now);
/* An echo request to our unicast address (ICMPv6 right after the IPv6
 * header, len bytes) becomes its reply in place, queued back out. Returns
 * 1 if it did; 0 leaves the frame as it was. */
int icmp6_echo(struct nic *nic, struct pkt *p, size_t len);
#endif
