/*
 * fwd's ICMP: the errors the router sends about frames it cannot forward
 * (time exceeded, net unreachable, fragmentation needed), ICMP_RATE per
 * second per port and core from a token bucket, and the echo replies of
 * its own addresses.
 */
#include <string.h>
#include "apps/fwd/counters.h"
#include "apps/fwd/icmp.h"
#include "apps/fwd/l3.h"
#include "kernel/time.h"
#include "net/ifaddr.h"

#define ICMP_RATE	100	/* ICMP errors per second per port (and burst) */

/* Token bucket: may port send an ICMP error now? */
static int icmp_allowed(int port, uint64_t now)
{
	uint64_t per = tsc.hz / ICMP_RATE;
	struct icmp_bucket *b = &l3_me()->icmp[port];
	uint64_t n = (now - b->last_tsc) / per;
	if (n) {
		b->tokens = b->tokens + n >= ICMP_RATE ? ICMP_RATE : b->tokens + (uint32_t)n;
		b->last_tsc = b->tokens == ICMP_RATE ? now : b->last_tsc + n * per;
	}
	if (!b->tokens)
		return 0;
	b->tokens--;
	return 1;
}

struct pkt *icmp_error_buf(struct nic *nic, uint64_t now)
{
	struct fwd_stats *st = fwd_st(nic->port);
	if (!icmp_allowed(nic->port, now)) {
		st->ev[FWD_EV_icmp_rate_limited]++;
		return 0;
	}
	struct pkt *e = pkt_alloc(nic->pool);
	if (!e)
		st->ev[FWD_EV_icmp_no_buffer]++;
	return e;
}

void icmp_error(struct nic *nic, struct pkt *p, uint8_t type, uint8_t code, uint64_t now)
{
	struct fwd_stats *st = fwd_st(nic->port);
	struct pkt *e = icmp_error_buf(nic, now);
	if (!e)
		return;
	size_t len = icmp_error_build(e->data, nic->pool->buf_size, p->data, p->len, type, code,
				      nic->mac, ifaddrs[nic->port].v4.addr);
	if (!len) {
		st->ev[FWD_EV_icmp_suppressed]++;
		l3_me()->icmp[nic->port].tokens++;
		pkt_free(e);
		return;
	}
	e->len = (uint16_t)len;
	e->port = (uint16_t)nic->port;
	st->ev[FWD_EV_icmp_sent]++;
	l3_tx_add(nic->port, e, TX_OWN);
}

/* RFC 792, RFC 1812 4.3.3.6. */
int icmp_echo(struct nic *nic, struct pkt *p, struct ipv4_hdr *ip)
{
	if (!icmp_echo_reply(p->data, ip, nic->mac))
		return 0;
	l3_tx_add(nic->port, p, TX_LOCAL);
	return 1;
}
