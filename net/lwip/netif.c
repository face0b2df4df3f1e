/*
 * lwIP netif of a port (lwif.h). Receive does not copy: each frame becomes a
 * custom pbuf (PBUF_REF) whose payload is the pkt's buffer, and the pkt goes
 * back to its pool when lwIP frees the pbuf (lwIP 2.1.3 pbuf_alloced_custom,
 * LWIP_SUPPORT_CUSTOM_PBUF). The pbuf itself lives in the slot's spare room
 * between struct pkt and the buffer (PKT_HEADROOM slots), or comes from the
 * RX_PBUF pool for copybreak's small slots; the frame's Ethernet padding is
 * cut here (lwIP would trim the pbuf again for every short frame). TCP and
 * UDP to the port's address go straight to tcp_input/udp_input (ip_direct,
 * ip_deliver, and fast_input6 for IPv6); IPv4 out to an on-link address
 * gets its Ethernet header from the port's ARP hint (eth_ip_output), IPv6
 * out to a unicast address from its ND hint (eth_ip6_output). Other IPv6
 * takes lwIP's whole path (ethernet_input, ip6_input; lwIP's neighbor
 * cache): the link-local address from the MAC, the global ones of ipN= and, with
 * ipN=...,auto, SLAAC's from a router's RA; the NIC's multicast filter
 * joins the groups MLD joins (all-nodes, the solicited-node groups).
 * Checksums the NIC verified are not checked
 * again (per frame, through the netif's checksum flags). Transmit copies the
 * pbuf chain once into a packet buffer of the port's pool (responses are
 * PBUF_ROM/REF chains, so that is the only copy) and hands the frames to
 * tx_burst in bursts, at lwif_flush.
 */
#include <stdio.h>
#include <string.h>
#include "kernel/mem.h"	/* before lwIP's headers, which rename lwIP's mem_init */
#include "kernel/time.h"
#include "lwip/etharp.h"
#include "lwip/ethip6.h"
#include "lwip/init.h"
#include "lwip/ip.h"
#include "lwip/memp.h"
#include "lwip/nd6.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/prot/icmp6.h"
#include "lwip/prot/ip4.h"
#include "lwip/prot/ip6.h"
#include "lwip/prot/tcp.h"
#include "lwip/prot/udp.h"
#include "lwip/stats.h"
#include "lwip/udp.h"
#include "net/ifaddr.h"
#include "net/lwip/lwif.h"
#include "netif/ethernet.h"

/* Every small-slot buffer of every port could be inside lwIP at once: the
 * pool is filled as ports join (lwif_add); one token element here. */
#define RX_PBUFS 1
#define ETH_MIN_FRAME 60	/* bytes without FCS */

struct rx_pbuf {
	struct pbuf_custom pc;
	struct pkt *pkt;
};
_Static_assert(PKT_HEADROOM - sizeof(struct pkt) >= sizeof(struct rx_pbuf), "rx_pbuf fits a slot's spare room");
static uint32_t rx_held;	/* received frames inside lwIP */
LWIP_MEMPOOL_DECLARE(RX_PBUF, RX_PBUFS, sizeof(struct rx_pbuf), "rx_pbuf");

#define ARP_HINTS 16	/* a power of 2 */
struct arp_hint {
	uint32_t ip;		/* network order; 0: none */
	uint32_t gen;		/* arp_gen when learnt */
	uint32_t our;		/* the netif's address then (network order) */
	uint32_t psum;		/* our -> ip's pseudo-header sum, protocol and length aside, folded */
	u8_t eth[SIZEOF_ETH_HDR + 2];	/* the Ethernet header to ip; 2 spare bytes
					   (copied as 16, overwritten by the packet) */
};

/* An IPv6 destination's Ethernet header (see eth_ip6_output). */
struct nd_hint {
	u8_t ip[16];		/* the destination, network order */
	uint32_t gen;		/* arp_gen when learnt; 0: none */
	u8_t eth[SIZEOF_ETH_HDR + 2];	/* as arp_hint's */
};

struct lwif_port {
	struct netif netif;
	struct arp_hint arp[ARP_HINTS];	/* see eth_ip_output */
	struct nd_hint nd[ARP_HINTS];	/* see eth_ip6_output */
	struct nic *nic;
	const struct lwif_app *app;	/* the app the port was added for */
	u16_t csum_ctrl;	/* lwIP's checksum work on this netif (NETIF_CHECKSUM_*) */
	int ntx;
	struct pkt *txq[NIC_BURST_MAX];
};
static struct lwif_port ports[NIC_MAX_PORTS];
static u16_t udp_mtu;	/* the smallest MTU of the ports (lwif_udp_sendto) */
static uint32_t tx_pending;	/* bit p: port p has frames to flush */

/* lwIP's clock (NO_SYS): milliseconds from the TSC. */
u32_t sys_now(void)
{
	return (u32_t)(now_ns() / 1000000);
}

/* The spare room of a PKT_HEADROOM slot (net/pkt.c), or NULL. */
static struct rx_pbuf *slot_room(struct pkt *k)
{
	return k->buf == (uint8_t *)k + PKT_HEADROOM ? (struct rx_pbuf *)(k + 1) : NULL;
}

static void rx_pbuf_free(struct pbuf *p)
{
	struct rx_pbuf *r = (struct rx_pbuf *)p;
	struct pkt *k = r->pkt;
	if (r != slot_room(k))
		LWIP_MEMPOOL_FREE(RX_PBUF, r);
	pkt_free_inline(k);
	rx_held--;
}

uint32_t lwif_rx_pbufs(void)
{
	return rx_held;
}

uint32_t lwif_rx_pbufs_avail(void)
{
	return memp_RX_PBUF.stats->avail;
}

static void flush_port(struct lwif_port *rp)
{
	struct nic *nic = rp->nic;
	int sent = nic->ops->tx_burst(nic, 0, rp->txq, rp->ntx);
	if (sent < rp->ntx) {
		lwif_count(nic->port, LWIF_tx_ring_full, (uint64_t)(rp->ntx - sent));
		pkt_free_bulk(rp->txq + sent, rp->ntx - sent);
	}
	rp->ntx = 0;
}

void lwif_flush(void)
{
	while (tx_pending) {
		int i = __builtin_ctz(tx_pending);
		tx_pending &= tx_pending - 1;
		flush_port(&ports[i]);
	}
}

/* The IPv4 pseudo-header's sum for L4 protocol proto of l4len bytes
 * (RFC 9293 3.1), as 16-bit words in memory order, not folded. */
static uint64_t pseudo_sum(const struct ip_hdr *ip, u8_t proto, u16_t l4len)
{
	return (uint64_t)ip4_addr_get_u32(&ip->src) + ip4_addr_get_u32(&ip->dest) + PP_HTONS(proto) +
	       lwip_htons(l4len);
}

/* A sum of 16-bit words (as pseudo_sum's, below 2^35) folded to 16 bits
 * with end-around carries (RFC 1071 2 (B)). */
static u16_t fold(uint64_t sum)
{
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (u16_t)((sum & 0xffff) + (sum >> 16));
}

/* The L4 checksum, complete, of TCP or UDP (udp) header l4 of l4len
 * bytes whose pseudo-header sums to psum, the field 0 before; UDP sends
 * 0 as ffff (RFC 768). */
static u16_t l4_csum(void *l4, u16_t l4len, uint64_t psum, int udp)
{
	u16_t c = (u16_t)~fold(psum + lwif_chksum(l4, l4len));
	return c || !udp ? c : 0xffff;
}

/* Store c (memory order) in the checksum field of TCP or UDP (udp)
 * header l4. */
static inline void l4_field_set(void *l4, int udp, u16_t c)
{
	memcpy((u8_t *)l4 + (udp ? 6 : 16), &c, 2);
}

/* The checksums lwIP left to the NIC on a port with checksum insertion
 * (PKT_TX_IP_CSUM, PKT_TX_L4_CSUM, PKT_TX_UDP: the driver's IPv4 context
 * covers a 20-byte IPv4 header and TCP or UDP after it): the request, and
 * for TCP or UDP the pseudo-header's sum in the checksum field, which the
 * NIC sums with the segment (8254x SDM 3.3.6, TUCSO). A header with
 * options (an echo reply keeps the request's) is summed here instead
 * (csum_options, counted tx_csum_sw). ICMP carries lwIP's own checksum;
 * a fragment's UDP checksum was summed by lwIP (lwif_udp_sendto). */
static __attribute__((noinline)) void csum_options(struct lwif_port *rp, struct ip_hdr *ip, int l4, int udp)
{
	u16_t hlen = IPH_HL_BYTES(ip), l4len = (u16_t)(lwip_ntohs(IPH_LEN(ip)) - hlen);
	u8_t *th = (u8_t *)ip + hlen;
	IPH_CHKSUM_SET(ip, (u16_t)~lwif_chksum(ip, hlen));
	if (l4)
		l4_field_set(th, udp, l4_csum(th, l4len, pseudo_sum(ip, IPH_PROTO(ip), l4len), udp));
	lwif_count(rp->nic->port, LWIF_tx_csum_sw, 1);
}

/* The request for frame k of rp, sent with ARP hint h (or NULL): the
 * pseudo-header's sum from the hint's when the packet is between the
 * hint's addresses (a response on its connection or to its client), else
 * from the header. */
static inline void csum_request(struct lwif_port *rp, struct pkt *k, const struct arp_hint *h)
{
	struct ip_hdr *ip = (struct ip_hdr *)(k->data + SIZEOF_ETH_HDR);
	u8_t proto = IPH_PROTO(ip);
	int udp = proto == IP_PROTO_UDP;
	int l4 = (proto == IP_PROTO_TCP || udp) && !(IPH_OFFSET(ip) & PP_HTONS(IP_OFFMASK | IP_MF));
	if (IPH_HL(ip) != IP_HLEN / 4) {
		csum_options(rp, ip, l4, udp);
		return;
	}
	k->flags |= PKT_TX_IP_CSUM;
	if (l4) {
		u16_t l4len = (u16_t)(lwip_ntohs(IPH_LEN(ip)) - IP_HLEN);
		if (h && ip4_addr_get_u32(&ip->src) == h->our && ip4_addr_get_u32(&ip->dest) == h->ip) {
			uint32_t sum = h->psum + PP_HTONS(proto) + lwip_htons(l4len);
			sum = (sum & 0xffff) + (sum >> 16);
			l4_field_set(ip + 1, udp, (u16_t)((sum & 0xffff) + (sum >> 16)));
		} else {
			l4_field_set(ip + 1, udp, fold(pseudo_sum(ip, proto, l4len)));
		}
		k->flags |= PKT_TX_L4_CSUM | (udp ? PKT_TX_UDP : 0);
	}
}

/* The TCP or UDP checksum of IPv6 frame k of rp (right after the fixed
 * header, as lwIP sends them), which lwIP leaves 0 on a port with
 * checksum insertion (its netif's NETIF_CHECKSUM_GEN_TCP and _UDP are off
 * for both families). RFC 8200 8.1's pseudo-header summed into the field
 * and the request (PKT_TX_L4_CSUM | PKT_TX_IP6, with PKT_TX_UDP) where the
 * driver takes IPv6 (nic->tx_csum6), else the whole sum here, counted
 * tx_csum_sw. A fragment's UDP checksum was summed by lwIP
 * (lwif_udp_sendto): its next header is the Fragment header. */
static inline void csum6(struct lwif_port *rp, struct pkt *k)
{
	struct ip6_hdr *ip = (struct ip6_hdr *)(k->data + SIZEOF_ETH_HDR);
	u8_t nexth = IP6H_NEXTH(ip);
	if (nexth != IP6_NEXTH_TCP && nexth != IP6_NEXTH_UDP)
		return;
	int udp = nexth == IP6_NEXTH_UDP;
	u16_t l4len = IP6H_PLEN(ip);
	uint64_t sum = lwif_chksum(&ip->src, 32) + (uint64_t)lwip_htons(l4len) + PP_HTONS(nexth);
	if (rp->nic->tx_csum6) {
		l4_field_set(ip + 1, udp, fold(sum));
		k->flags |= PKT_TX_L4_CSUM | PKT_TX_IP6 | (udp ? PKT_TX_UDP : 0);
		return;
	}
	l4_field_set(ip + 1, udp, l4_csum(ip + 1, l4len, sum, udp));
	lwif_count(rp->nic->port, LWIF_tx_csum_sw, 1);
}

/* Count a frame lwIP could not send on rp (reason e) and return err. */
static __attribute__((noinline)) err_t frame_refused(struct lwif_port *rp, enum lwif_event e, err_t err)
{
	lwif_count(rp->nic->port, e, 1);
	return err;
}

/* Copy n bytes from src to dst in 16-byte moves, four to a step, the
 * last move overlapping the one before (newlib's memcpy moves 8 bytes a
 * step, with a call and an alignment prologue); fewer than 16 bytes by
 * memcpy. */
static inline void copy_bytes(u8_t *dst, const u8_t *src, unsigned n)
{
	if (n < 16) {
		memcpy(dst, src, n);
		return;
	}
	unsigned i = 0;
	for (; i + 64 <= n; i += 64) {
		__builtin_memcpy(dst + i, src + i, 16);
		__builtin_memcpy(dst + i + 16, src + i + 16, 16);
		__builtin_memcpy(dst + i + 32, src + i + 32, 16);
		__builtin_memcpy(dst + i + 48, src + i + 48, 16);
	}
	for (; i + 16 <= n; i += 16)
		__builtin_memcpy(dst + i, src + i, 16);
	if (i < n)
		__builtin_memcpy(dst + n - 16, src + n - 16, 16);
}

/* Copy the tot_len bytes of pbuf chain p into buf: a short single pbuf
 * (16 to 128 bytes: a small response, an ACK) in 16-byte moves unrolled,
 * the last overlapping. */
#define COPY_UNROLLED_MAX 128
static inline void pbuf_to_buf(const struct pbuf *p, u8_t *buf)
{
	unsigned n = p->len;
	if (!p->next && n >= 16 && n <= COPY_UNROLLED_MAX) {
		const u8_t *src = p->payload;
		for (unsigned i = 16; i < n; i += 16)
			__builtin_memcpy(buf + i - 16, src + i - 16, 16);
		__builtin_memcpy(buf + n - 16, src + n - 16, 16);
		return;
	}
	for (unsigned left = p->tot_len; p && left; p = p->next) {
		n = p->len < left ? p->len : left;
		copy_bytes(buf, p->payload, n);
		buf += n;
		left -= n;
	}
}

/* A packet buffer of rp's pool holding Ethernet header eth (16 bytes
 * are read: an ARP or ND hint's) or none (NULL: p is the whole frame),
 * then the pbuf chain p, padded to the Ethernet minimum, queued for the
 * next flush; h: the ARP hint of an IPv4 packet, or NULL. ERR_BUF (too
 * long) or ERR_MEM (no buffer), counted. */
static err_t frame_out(struct lwif_port *rp, const u8_t *eth, const struct arp_hint *h, struct pbuf *p)
{
	struct nic *nic = rp->nic;
	unsigned hlen = eth ? SIZEOF_ETH_HDR : 0, len = hlen + p->tot_len;
	if (len > nic->pool->buf_size)
		return frame_refused(rp, LWIF_tx_no_room, ERR_BUF);
	struct pkt *k = pkt_alloc_inline(nic->pool);
	if (!k)
		return frame_refused(rp, LWIF_tx_no_buffer, ERR_MEM);
	if (eth)
		memcpy(k->data, eth, SIZEOF_ETH_HDR + 2);
	pbuf_to_buf(p, k->data + hlen);
	if (nic->tx_csum_on) {
		u16_t type = ((const struct eth_hdr *)k->data)->type;
		if (type == PP_HTONS(ETHTYPE_IP))
			csum_request(rp, k, h);
		else if (type == PP_HTONS(ETHTYPE_IPV6))
			csum6(rp, k);
	}
	if (len < ETH_MIN_FRAME && !(k->flags & PKT_TX_L4_CSUM)) {
		/* The padding: a constant size is a few stores, not a call (the
		 * buffer holds at least 2 * ETH_MIN_FRAME bytes). */
		memset(k->data + len, 0, ETH_MIN_FRAME);
		len = ETH_MIN_FRAME;
	}
	k->len = (uint16_t)len;
	k->port = (uint16_t)nic->port;
	lwif_count(nic->port, LWIF_tx_bytes, len);
	rp->txq[rp->ntx++] = k;
	tx_pending |= 1u << nic->port;
	if (rp->ntx == NIC_BURST_MAX) {
		flush_port(rp);
		tx_pending &= ~(1u << nic->port);
	}
	return ERR_OK;
}

/* lwIP's link output (ARP, and IPv4 through etharp_output): p is the
 * whole frame. */
static err_t linkoutput(struct netif *netif, struct pbuf *p)
{
	return frame_out(netif->state, NULL, NULL, p);
}

/* The Ethernet address of an on-link destination as lwIP's ARP table
 * held it, remembered per port until the table may have changed: the
 * next ARP frame lwIP takes in, the next ARP period (the second lwIP's
 * ARP timer ages its table in) or a new address of the netif. Meanwhile
 * IPv4 packets to that destination get their Ethernet header here instead
 * of through etharp_output and ethernet_output. The first packet of each
 * period goes through etharp_output, so that lwIP still asks again for an
 * address in use before it expires (etharp.c, ARP_AGE_REREQUEST_USED);
 * an entry lwIP lets expire (ARP_MAXAGE, a peer silent to those requests)
 * is used here until the period ends, at most a second. */
static uint32_t arp_gen = 1;

void lwif_arp_tick(void)
{
	arp_gen++;
}

/* eth_ip_output without a hint for dst: through lwIP's etharp_output,
 * and the hint learnt from lwIP's table when dst is on-link and known. */
static __attribute__((noinline)) err_t eth_ip_output_arp(struct netif *netif, struct pbuf *p, const ip4_addr_t *dst,
							  struct arp_hint *h)
{
	struct lwif_port *rp = netif->state;
	err_t err = etharp_output(netif, p, dst);
	const ip4_addr_t *found;
	struct eth_addr *mac;
	if (err == ERR_OK && ip4_addr_netcmp(dst, netif_ip4_addr(netif), netif_ip4_netmask(netif)) &&
	    etharp_find_addr(netif, dst, &mac, &found) >= 0) {
		*h = (struct arp_hint){ .ip = ip4_addr_get_u32(dst), .gen = arp_gen,
					.our = ip4_addr_get_u32(netif_ip4_addr(netif)) };
		h->psum = fold((uint64_t)h->ip + h->our);
		struct eth_hdr *eth = (struct eth_hdr *)h->eth;
		memcpy(&eth->dest, mac, ETH_HWADDR_LEN);
		memcpy(&eth->src, rp->nic->mac, ETH_HWADDR_LEN);
		eth->type = PP_HTONS(ETHTYPE_IP);
	}
	return err;
}

/* netif->output: IPv4 packet p to next hop dst. */
static err_t eth_ip_output(struct netif *netif, struct pbuf *p, const ip4_addr_t *dst)
{
	struct lwif_port *rp = netif->state;
	uint32_t ip = ip4_addr_get_u32(dst);
	struct arp_hint *h = &rp->arp[ip >> 24 & (ARP_HINTS - 1)];	/* by the last byte */
	if (h->ip == ip && h->gen == arp_gen && h->our == ip4_addr_get_u32(netif_ip4_addr(netif)))
		return frame_out(rp, h->eth, h, p);
	return eth_ip_output_arp(netif, p, dst, h);
}

/* eth_ip6_output without a hint for unicast dst: lwIP's neighbor cache
 * (nd6_get_next_hop_addr_or_queue, as ethip6_output asks it: the next
 * hop, NUD's state moves, the packet queued while the address is
 * resolved), and the hint learnt when it gave an address. */
static __attribute__((noinline)) err_t eth_ip6_output_nd(struct lwif_port *rp, struct pbuf *p, const ip6_addr_t *dst,
							 struct nd_hint *h)
{
	const u8_t *mac;
	err_t err = nd6_get_next_hop_addr_or_queue(&rp->netif, p, dst, &mac);
	if (err != ERR_OK || !mac)
		return err;
	memcpy(h->ip, dst->addr, 16);
	h->gen = arp_gen;
	struct eth_hdr *eth = (struct eth_hdr *)h->eth;
	memcpy(&eth->dest, mac, ETH_HWADDR_LEN);
	memcpy(&eth->src, rp->nic->mac, ETH_HWADDR_LEN);
	eth->type = PP_HTONS(ETHTYPE_IPV6);
	return frame_out(rp, h->eth, NULL, p);
}

/* 1 if ICMPv6 packet p is an error message lwIP made (a Parameter
 * Problem, reassembly's Time Exceeded, a port unreachable for a datagram
 * it took) past port's bucket, shared with filter.c's port unreachable
 * (RFC 4443 2.4 (f)): counted icmp_rate_limited, not sent. */
static __attribute__((noinline)) int icmp6_error_limited(struct lwif_port *rp, const struct pbuf *p)
{
	if (p->len <= IP6_HLEN || ((const u8_t *)p->payload)[IP6_HLEN] >= ICMP6_TYPE_EREQ)	/* 128 up: informational */
		return 0;
	if (lwif_icmp_allowed(rp->nic->port))
		return 0;
	lwif_count(rp->nic->port, LWIF_icmp_rate_limited, 1);
	return 1;
}

/* netif->output_ip6: IPv6 packet p to dst. A unicast destination's
 * Ethernet header is remembered per port as eth_ip_output's ARP hints
 * are, for the same period (arp_gen: the next ARP or ICMPv6 frame lwIP
 * takes in, which ND's are, or the next second), so that lwIP's neighbor
 * cache sees the destination in use once a period and its reachability
 * state moves as it would (RFC 4861 7.3.3: STALE to DELAY to PROBE).
 * Multicast goes through ethip6_output. */
static err_t eth_ip6_output(struct netif *netif, struct pbuf *p, const ip6_addr_t *dst)
{
	struct lwif_port *rp = netif->state;
	const u8_t *ip6 = p->payload;
	if (ip6[6] == IP6_NEXTH_ICMP6 && icmp6_error_limited(rp, p))
		return ERR_OK;
	if (ip6_addr_ismulticast(dst))
		return ethip6_output(netif, p, dst);
	struct nd_hint *h = &rp->nd[dst->addr[3] >> 24 & (ARP_HINTS - 1)];	/* by the last byte */
	if (h->gen == arp_gen && !memcmp(h->ip, dst->addr, 16))
		return frame_out(rp, h->eth, NULL, p);
	return eth_ip6_output_nd(rp, p, dst, h);
}

/* netif->mld_mac_filter: the NIC's multicast filter joins the Ethernet
 * group of IPv6 group (33:33 and its last 32 bits, RFC 2464 7) when MLD
 * joins it. A group MLD leaves (an address removed) stays in the filter,
 * which has no removal: ip6_input drops what no group of the netif wants. */
static err_t mld_filter(struct netif *netif, const ip6_addr_t *group, enum netif_mac_filter_action action)
{
	struct lwif_port *rp = netif->state;
	const u8_t *g = (const u8_t *)&group->addr[3];
	const uint8_t mac[6] = { 0x33, 0x33, g[0], g[1], g[2], g[3] };
	if (action == NETIF_ADD_MAC_FILTER && nic_mc_add(rp->nic, mac)) {
		printf("lwip: %s: multicast filter full: IPv6 group not joined\n", rp->nic->name);
		return ERR_MEM;
	}
	return ERR_OK;
}

static err_t port_netif_init(struct netif *netif)
{
	struct lwif_port *rp = netif->state;
	netif->name[0] = 'p';
	netif->name[1] = (char)('0' + rp->nic->port);
	netif->output = eth_ip_output;
	netif->output_ip6 = eth_ip6_output;
	netif->mld_mac_filter = mld_filter;
	netif->linkoutput = linkoutput;
	netif->mtu = (u16_t)rp->nic->mtu;
	netif->hwaddr_len = ETH_HWADDR_LEN;
	memcpy(netif->hwaddr, rp->nic->mac, ETH_HWADDR_LEN);
	netif->flags = NETIF_FLAG_BROADCAST | NETIF_FLAG_ETHARP | NETIF_FLAG_ETHERNET | NETIF_FLAG_LINK_UP |
		       NETIF_FLAG_MLD6;
	return ERR_OK;
}

/* rp's IPv6 addresses: the link-local one from the MAC (slot 0, as
 * ifaddr6_link_local gives fwd), the global ones of ipN=, each through
 * DAD (tentative until lwIP's ND timer has probed it), and SLAAC with
 * ipN=...,auto (RFC 4862: RS at start, prefixes from RAs); all-nodes
 * ff02::1 in the NIC's filter (RFC 4291 2.7.1). lwIP takes on-link
 * prefixes as /64 (nd6_is_prefix_in_netif): other lengths are not kept.
 * 0, or -1 (printed). */
static int add_ip6(struct lwif_port *rp)
{
	struct nic *nic = rp->nic;
	const struct ifaddr *ia = &ifaddrs[nic->port];
	static const uint8_t all_nodes[6] = { 0x33, 0x33, 0, 0, 0, 1 };
	ifaddr6_link_local(nic->port, nic->mac);
	netif_create_ip6_linklocal_address(&rp->netif, 1);
	for (int i = 0; i < ia->n6; i++) {
		ip6_addr_t a;
		s8_t idx;
		memcpy(a.addr, ia->v6[i].addr, 16);
		ip6_addr_assign_zone(&a, IP6_UNICAST, &rp->netif);
		if (netif_add_ip6_address(&rp->netif, &a, &idx) != ERR_OK) {
			printf("lwip: %s: lwIP refused IPv6 address %d\n", nic->name, i + 1);
			return -1;
		}
	}
	rp->netif.ip6_autoconfig_enabled = ia->auto6;
	if (nic_mc_add(nic, all_nodes)) {
		printf("lwip: %s: multicast filter full: no IPv6\n", nic->name);
		return -1;
	}
	return 0;
}

/* lwif_udp_sendto for a datagram longer than some port's MTU: lwIP
 * sums it (NETIF_CHECKSUM_GEN_UDP on for those ports while it sends), as
 * the NIC sees only its fragments. */
static __attribute__((noinline)) err_t udp_sendto_summed(struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *dst,
							 u16_t port, unsigned len)
{
	for (int i = 0; i < NIC_MAX_PORTS; i++)
		if (ports[i].nic && len > ports[i].netif.mtu)
			ports[i].netif.chksum_flags |= NETIF_CHECKSUM_GEN_UDP;
	err_t err = udp_sendto(pcb, p, dst, port);
	for (int i = 0; i < NIC_MAX_PORTS; i++)
		if (ports[i].nic)
			ports[i].netif.chksum_flags = (u16_t)((ports[i].netif.chksum_flags & ~NETIF_CHECKSUM_GEN_UDP) |
							      (ports[i].csum_ctrl & NETIF_CHECKSUM_GEN_UDP));
	return err;
}

/* 1: dst is the source of the datagram lwIP is delivering on netif in,
 * sent to one of in's unicast addresses, and pcb is bound to no address
 * or netif: its answer leaves from that address (lwif_udp_sendto). */
static inline int udp_is_answer(const struct udp_pcb *pcb, const ip_addr_t *dst, const struct netif *in)
{
	const ip_addr_t *to = ip_current_dest_addr();
	if (!in || !ip_addr_isany(&pcb->local_ip) || pcb->netif_idx != NETIF_NO_INDEX ||
	    !ip_addr_cmp(dst, ip_current_src_addr()))
		return 0;
	return IP_IS_V6(to) ? !ip6_addr_ismulticast(ip_2_ip6(to)) : ip4_addr_cmp(ip_2_ip4(to), netif_ip4_addr(in));
}

err_t lwif_udp_sendto(struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *dst, u16_t port)
{
	unsigned len = (IP_IS_V6(dst) ? IP6_HLEN : IP_HLEN) + UDP_HLEN + p->tot_len;
	if (__builtin_expect(len > udp_mtu, 0))
		return udp_sendto_summed(pcb, p, dst, port, len);
	struct netif *in = ip_current_input_netif();
	if (udp_is_answer(pcb, dst, in))
		return udp_sendto_if_src(pcb, p, dst, port, in, ip_current_dest_addr());
	return udp_sendto(pcb, p, dst, port);
}

int lwif_add(struct nic *nic, uint32_t addr, int prefix_len, const struct lwif_app *app)
{
	static int inited;
	for (int i = 0; i < NIC_MAX_PORTS; i++)
		if (ports[i].nic && ports[i].app != app) {
			printf("%s: %s runs %s: both use lwIP, which runs on one core; use one of them\n", app->name,
			       ports[i].nic->name, ports[i].app->name);
			return -1;
		}
	if (!inited)
		LWIP_MEMPOOL_INIT(RX_PBUF);
	uint32_t bufs = nic->small_pool ? nic->small_pool->size : 0;
	if (lwif_pool_fill(&memp_RX_PBUF, bufs, !inited++)) {
		printf("lwip: %s: no memory for %u RX pbufs\n", nic->name, bufs);
		return -1;
	}
	struct lwif_port *rp = &ports[nic->port];
	ip4_addr_t ip, mask, gw;
	ip4_addr_set_u32(&ip, lwip_htonl(addr));
	ip4_addr_set_u32(&mask, lwip_htonl(prefix_len ? ~0u << (32 - prefix_len) : 0));
	ip4_addr_set_u32(&gw, lwip_htonl(ifaddrs[nic->port].v4.gw));
	rp->nic = nic;
	rp->app = app;
	rp->csum_ctrl = NETIF_CHECKSUM_ENABLE_ALL;
	if (nic->tx_csum) {	/* the NIC sums IPv4 headers, TCP and UDP (csum_request, csum6) */
		nic->tx_csum_on = 1;
		rp->csum_ctrl &= (u16_t)~(NETIF_CHECKSUM_GEN_IP | NETIF_CHECKSUM_GEN_TCP | NETIF_CHECKSUM_GEN_UDP);
	}
	if (!udp_mtu || rp->nic->mtu < udp_mtu)
		udp_mtu = (u16_t)rp->nic->mtu;
	if (!netif_add(&rp->netif, &ip, &mask, &gw, rp, port_netif_init, ethernet_input))
		return -1;
	NETIF_SET_CHECKSUM_CTRL(&rp->netif, rp->csum_ctrl);
	if (add_ip6(rp))
		return -1;
	if (!netif_default || (!ip4_addr_get_u32(netif_ip4_gw(netif_default)) && !ip4_addr_isany_val(gw)))
		netif_set_default(&rp->netif);	/* lwIP's one default route: the first port with a gateway */
	netif_set_up(&rp->netif);
	if (!ifaddrs[nic->port].auto6)
		rp->netif.rs_count = 0;	/* Router Solicitations only for SLAAC */
	return 0;
}

void lwif_set_up(int port, int up)
{
	struct lwif_port *rp = &ports[port];
	if (!rp->nic)
		return;
	if (up) {
		netif_set_up(&rp->netif);
		return;
	}
	/* as lwIP does when a netif's address goes (netif.c): its TCP
	 * connections aborted, each peer sent a RST */
	tcp_netif_ip_addr_changed(&rp->netif.ip_addr, NULL);
	for (int i = 0; i < LWIP_IPV6_NUM_ADDRESSES; i++)
		if (!ip6_addr_isinvalid(netif_ip6_addr_state(&rp->netif, i)))
			tcp_netif_ip_addr_changed(&rp->netif.ip6_addr[i], NULL);
	lwif_flush();
	netif_set_down(&rp->netif);	/* lwIP's ARP and neighbor entries of it go */
	memset(rp->arp, 0, sizeof(rp->arp));
	memset(rp->nd, 0, sizeof(rp->nd));
}

int lwif_port_of_ip(const struct ip_addr *a)
{
	if (IP_IS_V4(a))
		return lwif_port_of_addr(ip4_addr_get_u32(ip_2_ip4(a)));
	for (int i = 0; i < NIC_MAX_PORTS; i++)
		if (ports[i].nic && netif_get_ip6_addr_match(&ports[i].netif, ip_2_ip6(a)) >= 0)
			return i;
	return -1;
}

int lwif_ip6_ours(int port, const uint8_t a[16])
{
	ip6_addr_t x;
	memcpy(x.addr, a, 16);
	ip6_addr_clear_zone(&x);
	for (int i = 0; i < LWIP_IPV6_NUM_ADDRESSES; i++) {
		const ip6_addr_t *o = netif_ip6_addr(&ports[port].netif, i);
		if (!ip6_addr_isinvalid(netif_ip6_addr_state(&ports[port].netif, i)) &&
		    !memcmp(o->addr, x.addr, 16))
			return 1;
	}
	return 0;
}

int lwif_port_of_addr(uint32_t addr_n)
{
	for (int i = 0; i < NIC_MAX_PORTS; i++)
		if (ports[i].nic && ip4_addr_get_u32(netif_ip4_addr(&ports[i].netif)) == addr_n)
			return i;
	return -1;
}

struct netif *lwif_netif(int port)
{
	return ports[port].nic ? &ports[port].netif : NULL;
}

const struct lwif_app *lwif_app_of(int port)
{
	return ports[port].nic ? ports[port].app : NULL;
}

int lwif_expire_half_open(int (*ours)(uint16_t local_port), uint32_t ms, void (*expired)(int port))
{
	for (int n = 0;; n++) {
		struct tcp_pcb *pcb = tcp_active_pcbs;
		while (pcb && !(pcb->state == SYN_RCVD && ours(pcb->local_port) &&
				(tcp_ticks - pcb->tmr) * TCP_SLOW_INTERVAL >= ms))
			pcb = pcb->next;
		if (!pcb)
			return n;
		int port = lwif_port_of_ip(&pcb->local_ip);
		tcp_abandon(pcb, 0);	/* no RST: a flood's forged sources would never answer */
		if (port >= 0 && expired)
			expired(port);
	}
}

int lwif_rx_port(void)
{
	const struct netif *n = ip_current_input_netif();
	return n ? n->name[1] - '0' : 0;
}

/* lwIP's LWIP_HOOK_TCP_INPACKET_PCB (hooks.h): counts RSTs received and
 * data outside the receive window, which lwIP acknowledges and drops
 * silently. */
err_t lwif_tcp_inpacket(struct tcp_pcb *pcb, struct tcp_hdr *hdr, u16_t optlen, u16_t opt1len, u8_t *opt2,
			struct pbuf *p)
{
	(void)optlen;
	(void)opt1len;
	(void)opt2;
	if (TCPH_FLAGS(hdr) & TCP_RST)
		lwif_count(lwif_rx_port(), LWIF_tcp_rst_received, 1);
	else if (pcb->state >= ESTABLISHED && p->tot_len &&
		 !TCP_SEQ_BETWEEN(hdr->seqno, pcb->rcv_nxt, pcb->rcv_nxt + pcb->rcv_wnd - 1))
		lwif_count(lwif_rx_port(), LWIF_tcp_out_of_window, 1);
	return ERR_OK;
}

/* 1 if lwIP's ip4_input would accept IPv4 packet ip on netif and hand
 * it on unchanged: sent to the netif's own address (one it has: a DHCP
 * port without its lease takes lwIP's path) from a source that is
 * not a broadcast or multicast address (RFC 1122 3.2.1.3), not a
 * fragment (lwif_filter classed it TCP or UDP, and checked the header and
 * its checksum). Anything else takes lwIP's whole path. */
static int ip_direct(const struct netif *netif, const struct ip_hdr *ip)
{
	uint32_t our = ip4_addr_get_u32(netif_ip4_addr(netif)), mask = ip4_addr_get_u32(netif_ip4_netmask(netif));
	uint32_t src = ip->src.addr, host = ~mask;
	return ip->dest.addr == our && our && src != 0 && src != ~0u && (src & PP_HTONL(0xf0000000UL)) != PP_HTONL(0xe0000000UL) &&
	       ((src & mask) != (our & mask) || (src & host) != host || src == our);
}

/* The direct path's class of a packet by its L4 header l4 (l4len bytes)
 * of protocol proto (IPv4's protocol or IPv6's next header: the same
 * numbers): LWIF_tcp without options and not a SYN (lwif_filter's option
 * and syn_full checks are then not needed), LWIF_udp to one of the app's
 * ports; -1: lwIP's whole path. */
static inline __attribute__((always_inline)) int direct_class(const struct lwif_port *rp, u8_t proto, const u8_t *l4,
							      unsigned l4len)
{
	if (proto == IP_PROTO_TCP)
		return l4len >= TCP_HLEN && l4[12] >> 4 == TCP_HLEN / 4 && !(l4[13] & TCP_SYN) ? LWIF_tcp : -1;
	return proto == IP_PROTO_UDP && rp->app->ours((u16_t)(l4[2] << 8 | l4[3])) ? LWIF_udp : -1;
}

/* p (from its L4 header) to tcp_input (cls LWIF_tcp) or udp_input, the
 * caller having set ip_data as ip4_input / ip6_input would; then ip_data
 * cleared as they leave it. */
static inline __attribute__((always_inline)) void l4_input(struct netif *netif, struct pbuf *p, int cls)
{
	if (cls == LWIF_tcp)
		tcp_input(p, netif);
	else
		udp_input(p, netif);
	ip_data.current_netif = NULL;
	ip_data.current_input_netif = NULL;
	ip_data.current_ip4_header = NULL;
	ip_data.current_ip6_header = NULL;
	ip_data.current_ip_header_tot_len = 0;
	ip_addr_set_zero(&ip_data.current_iphdr_src);
	ip_addr_set_zero(&ip_data.current_iphdr_dest);
}

/* TCP or UDP (cls) packet ip in p's frame straight to tcp_input /
 * udp_input, as ip4_input would hand it on (ip_data set for the
 * callbacks, lwIP's ip.recv counted): without ethernet_input, ip4_input
 * and their header moves. */
static inline __attribute__((always_inline)) void ip_deliver(struct netif *netif, struct rx_pbuf *r, const struct ip_hdr *ip,
							     u16_t ip_len, int cls)
{
	u16_t hlen = IPH_HL_BYTES(ip), l4len = (u16_t)(ip_len - hlen);
	struct pbuf *p = pbuf_alloced_custom(PBUF_RAW, l4len, PBUF_REF, &r->pc, (u8_t *)ip + hlen, l4len);
	IP_STATS_INC(ip.recv);
	ip_data.current_netif = netif;
	ip_data.current_input_netif = netif;
	ip_data.current_ip4_header = ip;
	ip_data.current_ip_header_tot_len = hlen;
	ip_addr_copy_from_ip4(ip_data.current_iphdr_dest, ip->dest);
	ip_addr_copy_from_ip4(ip_data.current_iphdr_src, ip->src);
	l4_input(netif, p, cls);
}

/* The custom pbuf for received frame k (its slot's spare room, or one of
 * the RX_PBUF pool), or NULL (the pool is empty). */
static struct rx_pbuf *rx_pbuf_of(struct pkt *k)
{
	struct rx_pbuf *r = slot_room(k);
	if (!r && !(r = LWIP_MEMPOOL_ALLOC(RX_PBUF)))
		return NULL;
	r->pc.custom_free_function = rx_pbuf_free;
	r->pkt = k;
	rx_held++;
	return r;
}

/* 1 if IPv6 address a is one of netif's in a state that takes packets
 * (preferred or deprecated: not tentative, RFC 4862 5.4). */
static int ip6_valid_ours(const struct netif *netif, const ip6_addr_p_t *a)
{
	for (int i = 0; i < LWIP_IPV6_NUM_ADDRESSES; i++)
		if (ip6_addr_isvalid(netif_ip6_addr_state(netif, i)) &&
		    !memcmp(netif_ip6_addr(netif, i)->addr, a->addr, 16))
			return 1;
	return 0;
}

/* lwif_fast_input for IPv6: TCP (no options, not a SYN) or UDP to one of
 * the app's ports right after the fixed header, to a valid address of
 * the port from a unicast source the app allows, the L4 checksum verified
 * by the NIC: to tcp_input / udp_input as ip6_input would hand it on
 * (ip_data set, lwIP's ip6.recv counted, the zones assigned). */
static __attribute__((noinline)) int fast_input6(struct lwif_port *rp, struct pkt *k)
{
	struct ip6_hdr *ip = (struct ip6_hdr *)(k->data + SIZEOF_ETH_HDR);
	if (!(k->flags & PKT_RX_L4_CSUM_OK) || k->len < SIZEOF_ETH_HDR + IP6_HLEN + UDP_HLEN || IP6H_V(ip) != 6)
		return -1;
	u16_t plen = IP6H_PLEN(ip);
	const u8_t *l4 = (const u8_t *)(ip + 1), *src = (const u8_t *)ip->src.addr;
	if (plen < UDP_HLEN || plen > k->len - SIZEOF_ETH_HDR - IP6_HLEN || src[0] == 0xff ||
	    ip6_addr_isany_val(ip->src) || !ip6_valid_ours(&rp->netif, &ip->dest) ||
	    (rp->app->allowed6 && !rp->app->allowed6(src)))
		return -1;
	int cls = direct_class(rp, IP6H_NEXTH(ip), l4, plen);
	struct rx_pbuf *r;
	if (cls < 0 || !(r = rx_pbuf_of(k)))
		return -1;
	struct netif *netif = &rp->netif;
	NETIF_SET_CHECKSUM_CTRL(netif, rp->csum_ctrl & (u16_t)~(NETIF_CHECKSUM_CHECK_UDP | NETIF_CHECKSUM_CHECK_TCP));
	struct pbuf *p = pbuf_alloced_custom(PBUF_RAW, plen, PBUF_REF, &r->pc, (u8_t *)l4, plen);
	IP6_STATS_INC(ip6.recv);
	ip_data.current_netif = netif;
	ip_data.current_input_netif = netif;
	ip_data.current_ip6_header = ip;
	ip_data.current_ip_header_tot_len = IP6_HLEN;
	ip_addr_copy_from_ip6_packed(ip_data.current_iphdr_dest, ip->dest);
	ip_addr_copy_from_ip6_packed(ip_data.current_iphdr_src, ip->src);
	ip6_addr_assign_zone(ip_2_ip6(&ip_data.current_iphdr_dest), IP6_UNKNOWN, netif);
	ip6_addr_assign_zone(ip_2_ip6(&ip_data.current_iphdr_src), IP6_UNKNOWN, netif);
	l4_input(netif, p, cls);
	return cls;
}

int lwif_fast_input(struct nic *nic, struct pkt *k)
{
	const uint32_t csum_ok = PKT_RX_IP_CSUM_OK | PKT_RX_L4_CSUM_OK;
	struct lwif_port *rp = &ports[nic->port];
	const struct eth_hdr *eth = (const struct eth_hdr *)k->data;
	const struct ip_hdr *ip = (const struct ip_hdr *)(eth + 1);
	if ((k->flags & csum_ok) != csum_ok || k->len < SIZEOF_ETH_HDR + IP_HLEN + UDP_HLEN ||
	    eth->type != PP_HTONS(ETHTYPE_IP) || IPH_V(ip) != 4 || IPH_HL(ip) != 5)
		return eth->type == PP_HTONS(ETHTYPE_IPV6) ? fast_input6(rp, k) : -1;
	u16_t tot = lwip_ntohs(IPH_LEN(ip)), l4len = (u16_t)(tot - IP_HLEN);
	u32_t our = ip4_addr_get_u32(netif_ip4_addr(&rp->netif));
	/* ip_direct's source checks, with the subnet's broadcast address. */
	u32_t src = ip->src.addr, bcast = our | ~ip4_addr_get_u32(netif_ip4_netmask(&rp->netif));
	if (tot < IP_HLEN + UDP_HLEN || tot > k->len - SIZEOF_ETH_HDR ||
	    (IPH_OFFSET(ip) & PP_HTONS(IP_OFFMASK | IP_MF)) || ip->dest.addr != our || !our ||
	    our != lwip_htonl(ifaddrs[nic->port].v4.addr) || src - 1 >= 0xfffffffeu ||
	    (src & PP_HTONL(0xf0000000UL)) == PP_HTONL(0xe0000000UL) || (src == bcast && src != our) ||
	    (rp->app->allowed && !rp->app->allowed(lwip_ntohl(src))))
		return -1;
	int cls = direct_class(rp, IPH_PROTO(ip), (const u8_t *)ip + IP_HLEN, l4len);
	struct rx_pbuf *r;
	if (cls < 0 || !(r = rx_pbuf_of(k)))
		return -1;
	NETIF_SET_CHECKSUM_CTRL(&rp->netif, rp->csum_ctrl & (u16_t)~(NETIF_CHECKSUM_CHECK_IP | NETIF_CHECKSUM_CHECK_UDP |
								   NETIF_CHECKSUM_CHECK_TCP));
	ip_deliver(&rp->netif, r, ip, tot, cls);
	return cls;
}

int lwif_netif_input(struct nic *nic, struct pkt *k, int cls)
{
	struct lwif_port *rp = &ports[nic->port];
	struct rx_pbuf *r = rx_pbuf_of(k);
	if (!r)
		return -1;
	u16_t check = rp->csum_ctrl;
	if (k->flags & PKT_RX_IP_CSUM_OK)
		check &= (u16_t)~NETIF_CHECKSUM_CHECK_IP;
	if (k->flags & PKT_RX_L4_CSUM_OK)
		check &= (u16_t)~(NETIF_CHECKSUM_CHECK_UDP | NETIF_CHECKSUM_CHECK_TCP);
	NETIF_SET_CHECKSUM_CTRL(&rp->netif, check);
	u16_t len = k->len;
	const struct eth_hdr *eth = (const struct eth_hdr *)k->data;
	if (eth->type == PP_HTONS(ETHTYPE_IP)) {	/* lwif_filter checked tot_len <= the frame */
		const struct ip_hdr *ip = (const struct ip_hdr *)(eth + 1);
		u16_t ip_len = lwip_ntohs(IPH_LEN(ip));
		if ((cls == LWIF_tcp || cls == LWIF_udp) && ip_direct(&rp->netif, ip)) {
			ip_deliver(&rp->netif, r, ip, ip_len, cls);
			return 0;
		}
		if (SIZEOF_ETH_HDR + ip_len < len)
			len = (u16_t)(SIZEOF_ETH_HDR + ip_len);
	}
	struct pbuf *p = pbuf_alloced_custom(PBUF_RAW, len, PBUF_REF, &r->pc, k->data, len);
	if (rp->netif.input(p, &rp->netif) != ERR_OK)
		pbuf_free(p);
	if (cls == LWIF_arp || cls == LWIF_icmp6)	/* lwIP's ARP table or neighbor cache may have changed */
		lwif_arp_tick();
	return 0;
}
