/* fwd's ICMPv6 (RFC 4443): the errors the router sends about packets it
 * cannot forward, from the same per-port token bucket as ICMP's
 * (icmp.c), and the echo replies of its addresses; icmp6_finish
 * (net/ipv6.h) writes the headers of the ICMPv6 messages it builds. */
#ifndef FWD_ICMP6_H
#define FWD_ICMP6_H
#include <stddef.h>
#include <stdint.h>
#include "drivers/net/nic.h"
#include "net/ipv6.h"

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
