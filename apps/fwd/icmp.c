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

void icmp_error(struct nic *nic, struct pkt *p, uint8_t type, uint8_t code, uint64_t now)
{
	struct fwd_stats *st = fwd_st(nic->port);
	if (!icmp_allowed(nic->port, now)) {
		st->ev[FWD_EV_icmp_rate_limited]++;
		return;
	}
	struct pkt *e = pkt_alloc(nic->pool);
	if (!e) {
		st->ev[FWD_EV_icmp_no_buffer]++;
		return;
	}
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
	unsigned ihl = (ip->ver_ihl & 15u) * 4, tot = ntoh16(ip->tot_len);
	uint32_t src = ntoh32(ip->saddr);
	struct icmp_hdr *icmp = (struct icmp_hdr *)((uint8_t *)ip + ihl);
	if (ip->proto != IP_PROTO_ICMP || tot < ihl + ICMP_HLEN ||
	    (ntoh16(ip->frag_off) & (IPV4_MF | IPV4_OFFSET)) || icmp->type != 8 || icmp->code ||
	    inet_csum(icmp, tot - ihl) || ipv4_martian_src(src))
		return 0;
	struct eth_hdr *eth = (struct eth_hdr *)p->data;
	memcpy(eth->dst, eth->src, ETH_ALEN);
	memcpy(eth->src, nic->mac, ETH_ALEN);
	ip->saddr = ip->daddr;
	ip->daddr = hton32(src);
	ip->ttl = ICMP_ERROR_TTL;
	ip->csum = 0;
	ip->csum = hton16(inet_csum(ip, ihl));
	icmp->type = 0;
	icmp->csum = hton16(inet_csum_update(ntoh16(icmp->csum), 8 << 8, 0));
	l3_tx_add(nic->port, p, TX_LOCAL);
	return 1;
}
