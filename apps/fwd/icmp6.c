/*
 * fwd's ICMPv6 (RFC 4443): Destination Unreachable, Packet Too Big, Time
 * Exceeded and Parameter Problem about packets the router cannot forward,
 * each quoting as much of the packet as keeps the error within the
 * minimum MTU (2.4 c), from the port's address of the source's scope;
 * echo replies of the router's own addresses (4.2).
 */
#include <string.h>
#include "apps/fwd/counters.h"
#include "apps/fwd/icmp6.h"
#include "apps/fwd/l3.h"
#include "net/ifaddr.h"

#define ICMP6_HOPS	64	/* hop limit of the errors and replies we send */

/* RFC 4443 2.4 (e); see icmp6_error. */
static int icmp6_suppressed(const struct pkt *p, uint8_t type, uint8_t code, const struct ipv6_walk *w)
{
	const struct ipv6_hdr *ip = (const struct ipv6_hdr *)(p->data + ETH_HLEN);
	size_t avail = (size_t)p->len - ETH_HLEN;
	if (ipv6_multicast(ip->saddr) || ipv6_unspec_or_loopback(ip->saddr, 0))
		return 1;
	if (ipv6_multicast(ip->daddr) && type != ICMP6_PACKET_TOO_BIG &&
	    !(type == ICMP6_PARAM_PROB && code == ICMP6_PARAM_OPTION && w && w->mcast_ok))
		return 1;
	/* An ICMPv6 error (types below 128), or one whose type is cut off. */
	return w && w->proto == IP6_ICMPV6 && (w->off >= avail || ((const uint8_t *)ip)[w->off] < 128);
}

/* Our address on port to answer src from (RFC 4443 2.2): the link-local
 * one to a link-local source or when the port has no other. */
static const uint8_t *icmp6_src(int port, const uint8_t src[16])
{
	const struct ifaddr *ia = &ifaddrs[port];
	return ipv6_link_local(src) || !ia->n6 ? ia->ll6 : ia->v6[0].addr;
}

void icmp6_error(struct nic *nic, struct pkt *p, uint8_t type, uint8_t code, uint32_t data,
		 const struct ipv6_walk *w, uint64_t now)
{
	struct fwd_stats *st = fwd_st(nic->port);
	const struct ipv6_hdr *ip = (const struct ipv6_hdr *)(p->data + ETH_HLEN);
	if (icmp6_suppressed(p, type, code, w)) {
		st->ev[FWD_EV_icmp6_suppressed]++;
		return;
	}
	struct pkt *e = icmp_error_buf(nic, now);
	if (!e)
		return;
	size_t quote = (size_t)p->len - ETH_HLEN, room = IPV6_MIN_MTU - IPV6_HLEN - 8;
	if (quote > IPV6_HLEN + (size_t)ntoh16(ip->payload_len))
		quote = IPV6_HLEN + ntoh16(ip->payload_len);	/* not the Ethernet padding */
	if (room > nic->pool->buf_size - ETH_HLEN - IPV6_HLEN - 8)
		room = nic->pool->buf_size - ETH_HLEN - IPV6_HLEN - 8;
	quote = quote < room ? quote : room;
	uint8_t *m = e->data + ETH_HLEN + IPV6_HLEN;
	m[0] = type;
	m[1] = code;
	put32(m + 4, data);
	memcpy(m + 8, ip, quote);
	icmp6_finish(e->data, ((const struct eth_hdr *)p->data)->src, nic->mac, icmp6_src(nic->port, ip->saddr),
		     ip->saddr, 8 + quote, ICMP6_HOPS);
	e->len = (uint16_t)(ETH_HLEN + IPV6_HLEN + 8 + quote);
	e->port = (uint16_t)nic->port;
	st->ev[FWD_EV_icmp6_sent]++;
	l3_tx_add(nic->port, e, TX_OWN);
}

int icmp6_echo(struct nic *nic, struct pkt *p, size_t len)
{
	struct ipv6_hdr *ip = (struct ipv6_hdr *)(p->data + ETH_HLEN);
	uint8_t *m = (uint8_t *)(ip + 1);
	if (ipv6_multicast(ip->daddr) || len < 8 || m[0] != ICMP6_ECHO_REQUEST || m[1] != 0)
		return 0;
	m[0] = ICMP6_ECHO_REPLY;
	icmp6_finish(p->data, ((struct eth_hdr *)p->data)->src, nic->mac, ip->daddr, ip->saddr, len, ICMP6_HOPS);
	p->len = (uint16_t)(ETH_HLEN + IPV6_HLEN + len);
	l3_tx_add(nic->port, p, TX_LOCAL);
	return 1;
}
