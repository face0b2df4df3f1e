/*
 * The checks in front of lwIP, so that what lwIP would drop silently or
 * answer without limit ends in a named counter: the Ethernet type, the IPv4
 * header (RFC 1122 3.2.1; the checksum only when the NIC did not verify
 * it), the destination, the protocol, TCP options
 * (RFC 9293 3.1: a length below 2 or past the header), SYNs the port's
 * app refuses (lwif_app.syn_full: rr's beyond rr_conns established
 * connections, half-open ones making way), and UDP to a port not the
 * app's (ICMP port unreachable, at most 100
 * per second per port, as the router's errors), IPv4 from a source the
 * app does not allow (lwif_app.allowed: mgmt_allow=). On a port whose address
 * comes from DHCP (ipN=dhcp), DHCP replies go to lwIP's client whatever
 * their destination (the offered address or broadcast, RFC 2131 4.1).
 * IPv6 (filter6): the fixed header (RFC 8200 3: version, the payload
 * length within the frame), a source that may send (not multicast, RFC
 * 4291 2.7), a destination of the port's (its addresses in lwIP, all-nodes
 * ff02::1, a solicited-node group ff02::1:ff00:0/104, RFC 4291 2.7.1),
 * then as IPv4 by what follows the header; extension headers and
 * fragments go to lwIP, which walks them (ip6_input). UDP to a port not
 * the app's at one of the port's unicast addresses gets ICMPv6's port
 * unreachable (RFC 4443 3.1), from the same bucket as ICMP's (RFC 4443
 * 2.4 (f)).
 */
#include <string.h>
#include "kernel/cpu.h"
#include "kernel/time.h"
#include "net/ifaddr.h"
#include "net/ipv4.h"
#include "net/ipv6.h"
#include "net/lwip/lwif.h"

#define IP_PROTO_TCP	6
#define IP_PROTO_UDP	17
#define TCP_HLEN	20
#define TCP_SYN		0x02
#define TCP_ACK		0x10
#define ICMP_PORT_UNREACH 3
#define ICMP_RATE	100	/* errors per second per port, and the bucket */
#define DHCP_SERVER_PORT 67
#define DHCP_CLIENT_PORT 68
/* The end of a fragment's data in its datagram, bytes, at most: with a
 * header of up to 60 bytes the datagram is then at most 65480, what
 * lwIP's largest heap block holds when it copies an echo request
 * (lwippools.h). Past it, lwIP's 16-bit allocation size (mem_size_t with
 * MEM_USE_POOLS) plus its pool helper wraps for copies of 65481-65488
 * bytes into a 256-byte block: such fragments are dropped here. */
#define FRAG_END_MAX	(65480 - 60)

static struct {
	uint32_t tokens;
	uint64_t last_tsc;
} bucket[NIC_MAX_PORTS];

static int drop(struct nic *nic, struct pkt *p, enum lwif_drop why)
{
	lwif_stats[nic->port].drop[why]++;
	pkt_free(p);
	return -1;
}

int lwif_icmp_allowed(int port)
{
	uint64_t now = rdtsc(), per = tsc.hz / ICMP_RATE, n = (now - bucket[port].last_tsc) / per;
	if (n) {
		uint64_t t = bucket[port].tokens + n;
		bucket[port].tokens = t >= ICMP_RATE ? ICMP_RATE : (uint32_t)t;
		bucket[port].last_tsc = t >= ICMP_RATE ? now : bucket[port].last_tsc + n * per;
	}
	if (!bucket[port].tokens)
		return 0;
	bucket[port].tokens--;
	return 1;
}

/* ICMP's (our_ip: the port's IPv4 address) or ICMPv6's (our_ip 0) port
 * unreachable about UDP frame p, sent now unless the port's bucket is
 * empty (icmp_rate_limited). */
static void port_unreachable(struct nic *nic, struct pkt *p, uint32_t our_ip)
{
	if (!lwif_icmp_allowed(nic->port)) {
		lwif_count(nic->port, LWIF_icmp_rate_limited, 1);
		return;
	}
	struct pkt *e = pkt_alloc(nic->pool);
	if (!e) {
		lwif_count(nic->port, LWIF_tx_no_buffer, 1);
		return;
	}
	size_t len = our_ip ? icmp_error_build(e->data, nic->pool->buf_size, p->data, p->len, ICMP_DEST_UNREACH,
					       ICMP_PORT_UNREACH, nic->mac, our_ip)
			    : icmp6_error_build(e->data, nic->pool->buf_size, p->data, p->len, ICMP6_DST_UNREACH,
						ICMP6_DST_PORT, nic->mac);
	e->len = (uint16_t)len;
	if (!len || !nic->ops->tx_burst(nic, 0, &e, 1)) {
		pkt_free(e);
		return;
	}
	lwif_count(nic->port, LWIF_icmp_unreach_sent, 1);
}

/* 1 if the TCP options (between the fixed header and doff) are sound. */
static int tcp_options_ok(const uint8_t *tcp, unsigned hlen)
{
	for (unsigned i = TCP_HLEN; i < hlen;) {
		uint8_t kind = tcp[i];
		if (kind == 0)
			return 1;
		if (kind == 1) {
			i++;
			continue;
		}
		if (i + 1 >= hlen || tcp[i + 1] < 2 || i + tcp[i + 1] > hlen)
			return 0;
		i += tcp[i + 1];
	}
	return 1;
}

static int tcp_check(struct nic *nic, struct pkt *p, const struct lwif_app *app, const uint8_t *l4, unsigned l4len)
{
	if (l4len < TCP_HLEN)
		return drop(nic, p, LWIF_too_short);
	unsigned hlen = (unsigned)(l4[12] >> 4) * 4;
	if (hlen < TCP_HLEN || hlen > l4len || !tcp_options_ok(l4, hlen))
		return drop(nic, p, LWIF_tcp_bad_option);
	uint16_t dport = (uint16_t)(l4[2] << 8 | l4[3]);
	if ((l4[13] & (TCP_SYN | TCP_ACK)) == TCP_SYN && app->syn_full && app->ours(dport) &&
	    app->syn_full(nic->port))
		return drop(nic, p, LWIF_syn_over_limit);
	return LWIF_tcp;
}

/* 1 if the IPv4 packet is an unfragmented DHCP reply (UDP 67 to 68) on a
 * port that takes its address from DHCP. */
static int dhcp_reply(int port, const struct ipv4_hdr *ip)
{
	unsigned ihl = (unsigned)(ip->ver_ihl & 15) * 4;
	const uint8_t *udp = (const uint8_t *)ip + ihl;
	return ifaddrs[port].dhcp && ip->proto == IP_PROTO_UDP && !(ip->frag_off & hton16(IPV4_MF | IPV4_OFFSET)) &&
	       ntoh16(ip->tot_len) >= ihl + 8 && udp[0] == 0 && udp[1] == DHCP_SERVER_PORT && udp[2] == 0 &&
	       udp[3] == DHCP_CLIENT_PORT;
}

/* 1 if IPv6 address a (network order) is one port takes frames to:
 * its own in lwIP, all-nodes, or a solicited-node group (lwIP checks it
 * is one of the netif's). */
static int ours6(int port, const uint8_t a[16])
{
	static const uint8_t all_nodes[16] = { 0xff, 2, [15] = 1 };
	static const uint8_t sol_node[13] = { 0xff, 2, [11] = 1, [12] = 0xff };
	if (a[0] == 0xff)
		return !memcmp(a, all_nodes, 16) || !memcmp(a, sol_node, 13);
	return lwif_ip6_ours(port, a);
}

/* lwif_filter for an IPv6 frame (the Ethernet type checked). */
static int filter6(struct nic *nic, struct pkt *p, const struct lwif_app *app)
{
	if (p->len < ETH_HLEN + IPV6_HLEN)
		return drop(nic, p, LWIF_too_short);
	const struct ipv6_hdr *ip = (const struct ipv6_hdr *)(p->data + ETH_HLEN);
	if (ntoh32(ip->vtc_flow) >> 28 != 6)
		return drop(nic, p, LWIF_bad_version);
	unsigned plen = ntoh16(ip->payload_len);
	if (plen == 0 || plen > (unsigned)(p->len - ETH_HLEN - IPV6_HLEN))	/* 0: a jumbogram (RFC 2675) */
		return drop(nic, p, LWIF_bad_totlen);
	if (ipv6_multicast(ip->saddr))
		return drop(nic, p, LWIF_bad_saddr);
	if (app->allowed6 && !app->allowed6(ip->saddr))
		return drop(nic, p, LWIF_not_allowed);
	if (!ours6(nic->port, ip->daddr))
		return drop(nic, p, LWIF_not_ours);
	const uint8_t *l4 = (const uint8_t *)(ip + 1);
	switch (ip->nexthdr) {
	case IP6_ICMPV6:
		return LWIF_icmp6;
	case IP_PROTO_TCP:
		return ipv6_multicast(ip->daddr) ? drop(nic, p, LWIF_not_ours) : tcp_check(nic, p, app, l4, plen);
	case IP_PROTO_UDP:
		if (plen < 8)
			return drop(nic, p, LWIF_too_short);
		if (!app->ours((uint16_t)(l4[2] << 8 | l4[3]))) {
			if (!ipv6_multicast(ip->daddr))
				port_unreachable(nic, p, 0);
			return drop(nic, p, LWIF_udp_closed_port);
		}
		return LWIF_udp;
	case IP6_FRAGMENT:
		if (plen < 8)
			return drop(nic, p, LWIF_too_short);
		if ((ntoh16(*(const uint16_t *)(l4 + 2)) & ~7u) + plen - 8 > FRAG_END_MAX)
			return drop(nic, p, LWIF_frag_too_long);
		return LWIF_fragment;
	case IP6_HOPOPTS:
	case IP6_ROUTING:
	case IP6_DSTOPTS:
		return LWIF_ipv6_ext;
	default:
		return drop(nic, p, LWIF_bad_proto);
	}
}

int lwif_filter(struct nic *nic, struct pkt *p)
{
	const struct lwif_app *app = lwif_app_of(nic->port);
	if (!app)
		return drop(nic, p, LWIF_not_ours);	/* a port without an address */
	if (p->len < ETH_HLEN)
		return drop(nic, p, LWIF_too_short);
	const struct eth_hdr *eth = (const struct eth_hdr *)p->data;
	if (eth->type == hton16(ETHERTYPE_ARP))
		return LWIF_arp;
	if (eth->type == hton16(ETHERTYPE_IPV6))
		return filter6(nic, p, app);
	if (eth->type != hton16(ETHERTYPE_IPV4))
		return drop(nic, p, LWIF_not_ip);
	const struct ipv4_hdr *ip = (const struct ipv4_hdr *)(p->data + ETH_HLEN);
	enum ipv4_check c = p->flags & PKT_RX_IP_CSUM_OK ? ipv4_check_fields(ip, p->len - ETH_HLEN)
							 : ipv4_check(ip, p->len - ETH_HLEN);
	static const enum lwif_drop why[IPV4_CHECK_N] = {
		[IPV4_TOO_SHORT] = LWIF_too_short, [IPV4_BAD_VERSION] = LWIF_bad_version,
		[IPV4_BAD_IHL] = LWIF_bad_ihl, [IPV4_BAD_TOTLEN] = LWIF_bad_totlen,
		[IPV4_BAD_CSUM] = LWIF_bad_csum,
	};
	if (c != IPV4_OK && c != IPV4_TTL_EXPIRED)
		return drop(nic, p, why[c]);
	if (dhcp_reply(nic->port, ip))
		return LWIF_udp;
	if (app->allowed && !app->allowed(ntoh32(ip->saddr)))
		return drop(nic, p, LWIF_not_allowed);
	uint32_t dst = ntoh32(ip->daddr);
	uint32_t our = ifaddrs[nic->port].v4.addr;
	uint32_t host = ifaddrs[nic->port].v4.len >= 32 ? 0 : ~0u >> ifaddrs[nic->port].v4.len;
	if (!our || (dst != our && dst != 0xffffffffu && dst != (our | host)))
		return drop(nic, p, LWIF_not_ours);
	unsigned ihl = (unsigned)(ip->ver_ihl & 15) * 4, tot = ntoh16(ip->tot_len);
	if (ip->frag_off & hton16(IPV4_MF | IPV4_OFFSET)) {
		if ((ntoh16(ip->frag_off) & IPV4_OFFSET) * 8u + tot - ihl > FRAG_END_MAX)
			return drop(nic, p, LWIF_frag_too_long);
		return LWIF_fragment;
	}
	const uint8_t *l4 = (const uint8_t *)ip + ihl;
	switch (ip->proto) {
	case IP_PROTO_ICMP:
		return LWIF_icmp;
	case IP_PROTO_TCP:
		return tcp_check(nic, p, app, l4, tot - ihl);
	case IP_PROTO_UDP:
		if (tot - ihl < 8)
			return drop(nic, p, LWIF_too_short);
		if (!app->ours((uint16_t)(l4[2] << 8 | l4[3]))) {
			if (dst == our)
				port_unreachable(nic, p, our);
			return drop(nic, p, LWIF_udp_closed_port);
		}
		return LWIF_udp;
	default:
		return drop(nic, p, LWIF_bad_proto);
	}
}
