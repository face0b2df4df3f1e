/* Fuzz the router's whole input path (apps/fwd: fwd.c, tc.c, l3.c, l3v6.c, neigh.c, nd.c, icmp.c, icmp6.c,
 * route.c, tx.c with net/ipv4.c, net/ipv6.c, net/lpm.c, net/lpm6.c, net/pkt.c) against three fake
 * ports: frames in,
 * counters and frames out. The input is a program:
 *   op 0-3  a frame on port op % 3 (port 0: 10.1.0.1/24 and
 *           2001:db8:1::1/64, and on VLAN 100 (ip0.100=, a link of its
 *           own) 10.100.0.1/24 and 2001:db8:100::1/64, on QinQ S-VLAN 10's
 *           C-VLAN 100 (ip0.10.100=) 10.110.0.1/24 and 2001:db8:110::1/64; port 1: 10.2.0.1/24 and 2001:db8:2::1/64,
 *           port 2: L2, paired with itself, a PTP transparent clock
 *           (ptp_tc=e2e, apps/fwd/tc.c)): a flags byte, a
 *           length, the bytes; flags make it easier to reach deep paths:
 *           1 our MAC as destination, 2 EtherType IPv4, 4 EtherType ARP,
 *           8 a correct IPv4 header checksum, 16 the NIC checked the
 *           IPv4 header checksum (its verdict, PKT_RX_IP_CSUM_OK or _BAD,
 *           is right, as a NIC's is), 32 the frame joins the burst of the
 *           frames before it (same port, up to NIC_BURST_MAX; a burst goes
 *           to the app when the next op is not such a frame), 64
 *           EtherType IPv6 with a payload length that fits the frame and,
 *           when the next header is ICMPv6, a correct ICMPv6 checksum;
 *   op 4    the clock moves on by (next byte) * 10 ms and the app's timers
 *           run (ARP and ND retries and give-ups);
 *   op 5    the next transmit call takes at most (next byte) % 4 frames.
 * Checked after every burst: each link's rx = forwarded + drops + local +
 * arp + nd + held, exactly; every frame sent is well formed (a routed IPv4
 * header has a correct checksum, TTL >= 1 and unicast host addresses,
 * never 0/8, 127/8 or 224/3; ARP parses; an IPv6 packet fills the frame,
 * from a unicast source, the ICMPv6 checksums of what the router wrote right; never more than a
 * buffer). At
 * the end, after every timer has run out, every packet is back in its
 * pool. Routes: 10.3.0.0/16 via 10.2.0.2, 10.4.0.0/16 via
 * 10.2.0.99, 0.0.0.0/0 via 10.1.0.254, 2001:db8:3::/48 via 2001:db8:2::2,
 * ::/0 via fe80::1 on port 0, 2001:db8:a::/48 via fe80::a on the QinQ
 * link (%port0.10.100); Router Advertisements on port 1. Frames out of a
 * VLAN link are checked under their tags (S-tag 10 outside C-tag 100 for
 * the QinQ one). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "apps/app.h"
#include "apps/fwd/counters.h"
#include "apps/fwd/fwd.h"
#include "apps/fwd/l3.h"
#include "kernel/cmdline.h"
#include "kernel/cpu.h"
#include "kernel/knobs.h"
#include "net/ifaddr.h"
#include "net/ipv4.h"
#include "net/ipv6.h"
#include "net/vlan.h"
#include "tests/fuzz/fuzz_state.h"
#include "tests/fuzz/arena.h"

#define PORTS 3
static struct nic ports[PORTS];
static int tx_budget = 1 << 30;
static uint64_t sent[PORTS];

/* A routed port's frame out, untagged: well formed (see the top). */
static void check_frame(const struct nic *nic, const uint8_t *f, size_t len)
{
	const struct eth_hdr *e = (const void *)f;
	if (ntoh16(e->type) == ETHERTYPE_ARP) {
		struct arp_info a;
		assert(arp_parse(f, len, &a) == ARP_OK);
	} else if (ntoh16(e->type) == ETHERTYPE_IPV6) {
		const struct ipv6_hdr *ip = (const void *)(f + ETH_HLEN);
		size_t n = ntoh16(ip->payload_len);
		assert(len == ETH_HLEN + IPV6_HLEN + n && ip->hop_limit >= 1);
		assert(!ipv6_multicast(ip->saddr) && !ipv6_unspec_or_loopback(ip->saddr, 1));
		assert(!memcmp(e->src, nic->mac, ETH_ALEN));
		/* ICMPv6 the router wrote (from one of its addresses) has a
		 * right checksum; transit packets keep theirs, as a router
		 * does not check them (RFC 4443 2.3 is the endpoints'). */
		if (ip->nexthdr == IP6_ICMPV6 && ifaddr6_port_of(ip->saddr) >= 0)
			assert(ipv6_l4_csum(ip, IP6_ICMPV6, ip + 1, n) == 0);
	} else {
		assert(ntoh16(e->type) == ETHERTYPE_IPV4);
		const struct ipv4_hdr *ip = (const void *)(f + ETH_HLEN);
		assert(ipv4_check(ip, len - ETH_HLEN) == IPV4_OK || ip->ttl == 1);
		assert(!memcmp(e->src, nic->mac, ETH_ALEN));
		/* routed or ours (ICMP): unicast host addresses both ways */
		uint32_t src = ntoh32(ip->saddr), dst = ntoh32(ip->daddr);
		assert(src >> 24 && src >> 24 != 127 && src < 0xe0000000u);
		assert(dst >> 24 && dst >> 24 != 127 && dst < 0xe0000000u);
	}
}

static int fake_tx(struct nic *nic, int q, struct pkt **pkts, int n)
{
	(void)q;
	int take = n < tx_budget ? n : tx_budget;
	for (int i = 0; i < take; i++) {
		struct pkt *p = pkts[i];
		assert(p->len >= ETH_HLEN && p->len <= p->pool->buf_size);
		if (nic->port == 2) {
			/* L2: whatever came in */
		} else if (get16(p->data + 12) == ETHERTYPE_VLAN || get16(p->data + 12) == ETHERTYPE_QINQ) {
			/* VLAN 100's link or S-VLAN 10's C-VLAN 100 (QinQ), tagged by
			 * vlan.c: checked as the frame under the tags */
			static uint8_t f[PKT_BUF_SIZE];
			size_t tags = get16(p->data + 12) == ETHERTYPE_QINQ ? 2 : 1;
			assert(nic->port == 0 && p->len >= ETH_HLEN + tags * VLAN_HLEN);
			assert(tags == 1 || ((get16(p->data + 14) & 0xfff) == 10 && get16(p->data + 16) == ETHERTYPE_VLAN));
			assert((get16(p->data + 12 + tags * VLAN_HLEN - 2) & 0xfff) == 100);
			memcpy(f, p->data, 12);
			memcpy(f + 12, p->data + 12 + tags * VLAN_HLEN, p->len - 12 - tags * VLAN_HLEN);
			check_frame(nic, f, p->len - tags * VLAN_HLEN);
		} else {
			check_frame(nic, p->data, p->len);
		}
		sent[nic->port]++;
		pkt_free(p);
	}
	return take;
}

static int fake_rx(struct nic *nic, int q, struct pkt **pkts, int n)
{
	(void)nic, (void)q, (void)pkts, (void)n;
	return 0;
}

static const struct nic_ops ops = { .rx_burst = fake_rx, .tx_burst = fake_tx };

static void setup(void)
{
	for (int i = 0; i < PORTS; i++) {
		struct nic *n = &ports[i];
		*n = (struct nic){ .driver = "fake", .model = "fuzz", .ops = &ops, .nqueues = 1,
				   .rxd = 64, .txd = 64, .link_up = 1 };
		n->mac[0] = 2;
		n->mac[5] = (uint8_t)(0x10 + i);
		assert(nic_register(n) == i);
		n->pool = pktpool_create("fuzz", 256, PKT_SLOT);
		n->small_pool = pktpool_create("fuzz", 8, PKT_SMALL_SLOT);
	}
	int errs = cmdline_parse("app=fwd pairs=0-1,2-2 ip0=10.1.0.1/24,2001:db8:1::1/64 "
				 "ip1=10.2.0.1/24,2001:db8:2::1/64 ip0.100=10.100.0.1/24,2001:db8:100::1/64 ip0.10.100=10.110.0.1/24,2001:db8:110::1/64 "
				 "route=10.3.0.0/16,10.2.0.2 route=10.4.0.0/16,10.2.0.99 "
				 "route=0.0.0.0/0,10.1.0.254 route=2001:db8:3::/48,2001:db8:2::2 "
				 "route=::/0,fe80::1%port0 route=2001:db8:a::/48,fe80::a%port0.10.100 ra6=0,1 ptp_tc=e2e", __knobs_start, KNOBS_COUNT, 0, 0);
	assert(errs == 0);
	fuzz_dma_alloc = arena_alloc;	/* the router's per-core state: put back per input */
	assert(apps_start() == 0);
	fuzz_dma_alloc = NULL;
	arena_save();
	kstate_save();
}

static uint64_t sum_drops(const struct fwd_stats *s)
{
	uint64_t n = 0;
	for (int i = 0; i < FWD_DROP_N; i++)
		n += s->drop[i];
	return n;
}

/* Port p's frames: rx = forwarded + drops + local + arp + nd + held. */
static void check_port(int p)
{
	struct fwd_stats sum, *s = &sum;
	fwd_stats_sum(p, &sum);
	assert(s->rx == s->forwarded + sum_drops(s) + s->local + s->arp + s->nd + fwd_l3_held(p));
}

/* Port p's accounts and those of its VLAN sub-interfaces (ip0.100=, ip0.10.100=). */
static void check_links(int p)
{
	check_port(p);
	for (int l = NIC_MAX_PORTS; l < NIC_MAX_PORTS + fwd_l3_nvlans; l++)
		if (ifaddr_link_port(l) == p)
			check_port(l);
}

static void check_accounts(void)
{
	for (int p = 0; p < PORTS; p++)
		check_links(p);
}

/* A frame held for ARP or ND, counted on the link it came in on (a port,
 * or VLAN 100's link). */
static int held_any(void)
{
	for (int p = 0; p < PORTS; p++)
		if (fwd_l3_held(p))
			return 1;
	for (int l = NIC_MAX_PORTS; l < NIC_MAX_PORTS + fwd_l3_nvlans; l++)
		if (fwd_l3_held(l))
			return 1;
	return 0;
}

static void run_timers(void)
{
	for (int i = 0; apps_running[i]; i++)
		if (apps_running[i]->idle)
			apps_running[i]->idle();
	check_accounts();
}

/* The burst being gathered: frames of port burst_port not yet given to
 * the app. */
static struct pkt *burst[NIC_BURST_MAX];
static int burst_n, burst_port;

/* The gathered burst to the app, then the accounts checked. */
static void burst_in(void)
{
	if (!burst_n)
		return;
	app_of_port(burst_port)->rx(&ports[burst_port], 0, burst, burst_n);
	burst_n = 0;
	check_links(burst_port);	/* a burst moves only its own port's (and its links') accounts */
}

/* What a NIC's checksum offload reports of an IPv4 frame (nothing when
 * it is not one whose header it could read). */
static uint32_t hw_csum(const uint8_t *f, size_t len)
{
	const struct ipv4_hdr *ip = (const void *)(f + ETH_HLEN);
	if (len < ETH_HLEN + IPV4_HLEN || ntoh16(((const struct eth_hdr *)f)->type) != ETHERTYPE_IPV4 ||
	    ip->ver_ihl >> 4 != 4)
		return 0;
	size_t hl = (size_t)(ip->ver_ihl & 15) * 4;
	if (hl < IPV4_HLEN || ETH_HLEN + hl > len)
		return 0;
	return inet_csum(ip, hl) ? PKT_RX_IP_CSUM_BAD : PKT_RX_IP_CSUM_OK;
}

/* One frame in on port: built from the flags and bytes at data; it joins
 * the gathered burst (flag 32, same port, room left) or starts a new one. */
static void frame_in(int port, const uint8_t *data, size_t n)
{
	struct nic *nic = &ports[port];
	uint8_t flags = n ? data[0] : 0;
	if (!(flags & 32) || port != burst_port || burst_n == NIC_BURST_MAX)
		burst_in();
	struct pkt *p = pkt_alloc(nic->pool);
	if (!p)
		return;		/* the ring would have had no buffer */
	size_t len = n > 1 ? data[1] * 7u : 0;	/* up to 1785: past a buffer's worth of frame too */
	if (len > n - (n > 2 ? 2 : n))
		len = n > 2 ? n - 2 : 0;
	if (len > 1518)
		len = 1518;	/* the driver drops longer ones */
	memcpy(p->data, data + 2 < data + n ? data + 2 : data, len);
	struct eth_hdr *e = (void *)p->data;
	if (len >= ETH_HLEN) {
		if (flags & 1)
			memcpy(e->dst, nic->mac, ETH_ALEN);
		if (flags & 2)
			e->type = hton16(ETHERTYPE_IPV4);
		if (flags & 4)
			e->type = hton16(ETHERTYPE_ARP);
	}
	if ((flags & 8) && len >= ETH_HLEN + IPV4_HLEN) {
		struct ipv4_hdr *ip = (void *)(p->data + ETH_HLEN);
		size_t hl = (size_t)(ip->ver_ihl & 15) * 4;
		if (hl >= IPV4_HLEN && ETH_HLEN + hl <= len) {
			ip->csum = 0;
			ip->csum = hton16(inet_csum(ip, hl));
		}
	}
	if ((flags & 64) && len >= ETH_HLEN + IPV6_HLEN) {
		struct ipv6_hdr *ip = (void *)(p->data + ETH_HLEN);
		size_t n = len - ETH_HLEN - IPV6_HLEN;
		e->type = hton16(ETHERTYPE_IPV6);
		if (ntoh16(ip->payload_len) > n)
			ip->payload_len = hton16((uint16_t)n);
		n = ntoh16(ip->payload_len);
		if (ip->nexthdr == IP6_ICMPV6 && n >= 4) {
			struct icmp6_hdr *ic = (void *)(ip + 1);
			ic->csum = 0;
			ic->csum = hton16(ipv6_l4_csum(ip, IP6_ICMPV6, ic, n));
		}
	}
	p->len = (uint16_t)len;
	p->port = (uint16_t)port;
	p->queue = 0;
	if (flags & 16)
		p->flags = hw_csum(p->data, len);
	burst_port = port;
	burst[burst_n++] = p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	if (!kstate_saved)
		setup();
	kstate_restore();
	arena_restore();
	fuzz_tsc = 1000000000ull;
	tx_budget = 1 << 30;
	size_t i = 0;
	while (i < len) {
		uint8_t op = data[i++] % 6;
		if (op < 4) {
			size_t n = 2 + (i + 1 < len ? data[i + 1] * 7u : 0);
			if (n > len - i)
				n = len - i;
			frame_in(op % 3, data + i, n);
			i += n;
			continue;
		}
		burst_in();
		if (op == 4) {
			fuzz_tsc += (i < len ? data[i++] : 1) * 10000000ull;
			run_timers();
		} else {
			tx_budget = i < len ? data[i++] % 4 : 0;
		}
	}
	burst_in();
	tx_budget = 1 << 30;
	/* Every ARP and ND try runs out: held frames go within 10 rounds of
	 * a second (ND's 3 tries take 3 s; rounds stop once nothing is held:
	 * they would only run timers). */
	for (int k = 0; k < 10 && held_any(); k++) {
		fuzz_tsc += 1000000000ull;
		run_timers();
	}
	assert(!held_any());
	for (int p = 0; p < PORTS; p++)
		assert(ports[p].pool->nfree == ports[p].pool->size);
	return 0;
}
