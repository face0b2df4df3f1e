/* fwd's ICMP: the errors the router sends (RFC 792, RFC 1812 4.3.2),
 * ICMP_RATE per second per port and core, and the echo replies of its
 * addresses (RFC 1812 4.3.3.6). */
#ifndef FWD_ICMP_H
#define FWD_ICMP_H
#include <stdint.h>
#include "drivers/net/nic.h"
#include "net/ipv4.h"

/* A token bucket of ICMP errors for one port on one core. */
struct icmp_bucket {
	uint64_t last_tsc;
	uint32_t tokens;
};

/* A buffer for an ICMP or ICMPv6 error out of nic, if its token bucket
 * allows one now (a token taken): NULL after counting icmp_rate_limited or
 * icmp_no_buffer. */
struct pkt *icmp_error_buf(struct nic *nic, uint64_t now);
/* Send ICMP (type, code) about p back out of the port it came in on,
 * unless the bucket is empty (icmp_rate_limited) or RFC 1812 4.3.2.7
 * forbids it (icmp_suppressed). p stays the caller's. */
void icmp_error(struct nic *nic, struct pkt *p, uint8_t type, uint8_t code, uint64_t now);
/* An ICMP echo request to us becomes its echo reply in place, queued back
 * out of the port it came in on. Returns 1 if it did; 0 leaves the frame
 * as it was. */
int icmp_echo(struct nic *nic, struct pkt *p, struct ipv4_hdr *ip);
#endif
