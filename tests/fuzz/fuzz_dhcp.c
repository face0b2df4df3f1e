/* Fuzz the management port's DHCP client (ipN=dhcp: lwIP 2.1.3's
 * core/ipv4/dhcp.c behind mgmt's receive path and rr's checks, and
 * apps/mgmt/dhcp.c, which makes a lease the port's address): the harness is
 * the DHCP server (10.1.0.254) and anyone else on the wire. mgmt=port0
 * ip0=dhcp; the input is a program:
 *   op 0  a reply: a flags byte, a length byte, then 236 + 4 * length bytes
 *         of BOOTP message (RFC 2131 2), as UDP 67 -> 68; unless the flags
 *         say otherwise the harness sets op, htype, hlen, xid (the
 *         client's), chaddr and the magic cookie; flags 16: to the
 *         broadcast MAC;
 *   op 1  a whole reply built here: message type (next byte % 8), yiaddr,
 *         subnet mask, router, lease time, T1, T2 (4 bytes each, the next
 *         25 bytes), server identifier 10.1.0.254;
 *   op 2  an ARP reply from another host for the address on offer (lwIP's
 *         check before it binds, RFC 2131 3.1.5);
 *   op 3  the clock moves on by 10 ms * 2^(next byte % 20) (at most 60 s
 *         a step, the idle hook after each).
 * Checked after every step: rx = the frames handed to lwIP + the drops,
 * exactly; after the idle hook the port's address (ifaddrs) and lwIP's are
 * the lease's, or none, and an address taken is a unicast host address
 * of a subnet given by a contiguous mask (RFC 1812 5.3.7, RFC 950) that
 * does not overlap port1's (ip1=10.2.0.1/16, a subnet on one port). At the
 * end no received buffer is left in lwIP and the pools are full. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "apps/app.h"
#include "apps/mgmt/mgmt.h"
#include "net/lwip/lwif.h"
#include "kernel/cmdline.h"
#include "kernel/cpu.h"
#include "kernel/knobs.h"
#include "kernel/mem.h"	/* before lwIP's headers, which rename lwIP's mem_init */
#include "lwip/dhcp.h"
#include "lwip/netif.h"
#include "net/ifaddr.h"
#include "net/bytes.h"
#include "net/ipv4.h"
#include "tests/fuzz/fuzz_state.h"
#include "tests/fuzz/arena.h"
#include "tests/fuzz/fakeport.h"

#define SRV_IP 0x0a0100feu
#define BOOTP_LEN 236
#define DHCP_COOKIE 0x63825363u

static const uint8_t srv_mac[6] = { 2, 0, 0, 0, 0, 0xfe }, our_mac[6] = { 2, 0, 0, 0, 0, 0x10 };
static struct nic port, port1;
#define PORT1_IP 0x0a020001u	/* ip1=10.2.0.1/16 */


int mgmt_page(const char *path, char *buf, size_t len, size_t *out, const char **ctype, int *truncated)
{
	(void)path, (void)buf, (void)len, (void)out, (void)ctype, (void)truncated;
	return 404;
}

static int fake_tx(struct nic *nic, int q, struct pkt **pkts, int n)
{
	(void)q;
	for (int i = 0; i < n; i++) {
		assert(pkts[i]->len >= 60 && pkts[i]->len <= pkts[i]->pool->buf_size);
		assert(!memcmp(pkts[i]->data + 6, nic->mac, 6));
		pkt_free(pkts[i]);
	}
	return n;
}

static const struct nic_ops ops = { .rx_burst = fake_rx, .tx_burst = fake_tx };

static struct dhcp *client(void)
{
	return netif_dhcp_data(lwif_netif(0));
}

static void frame_in(struct pkt *p)
{
	fake_port_rx(&port, p);
	lwif_accounts_check(0);
}

/* A DHCP reply of n bytes (m) from the server, to yiaddr's owner. */
static void reply_in(const uint8_t *m, size_t n, int flags)
{
	struct pkt *p = pkt_alloc(port.pool);
	if (!p)
		return;
	if (n > 1514 - ETH_HLEN - IPV4_HLEN - 8)
		n = 1514 - ETH_HLEN - IPV4_HLEN - 8;
	struct eth_hdr *e = (void *)p->data;
	memset(e->dst, 0xff, 6);
	if (!(flags & 16))
		memcpy(e->dst, our_mac, 6);
	memcpy(e->src, srv_mac, 6);
	e->type = hton16(ETHERTYPE_IPV4);
	struct ipv4_hdr *ip = (void *)(p->data + ETH_HLEN);
	uint8_t *u = (uint8_t *)(ip + 1), *b = u + 8;
	*ip = (struct ipv4_hdr){ .ver_ihl = 0x45, .tot_len = hton16((uint16_t)(IPV4_HLEN + 8 + n)), .ttl = 64,
				 .proto = 17, .saddr = hton32(SRV_IP), .daddr = 0xffffffffu };
	ip->csum = hton16(inet_csum(ip, IPV4_HLEN));
	u[0] = 0, u[1] = 67, u[2] = 0, u[3] = 68, u[4] = (uint8_t)((8 + n) >> 8), u[5] = (uint8_t)(8 + n), u[6] = 0,
	u[7] = 0;
	memcpy(b, m, n);
	if (n >= BOOTP_LEN + 4) {
		if (!(flags & 1))
			b[0] = 2, b[1] = 1, b[2] = 6;
		if (!(flags & 2))
			put32(b + 4, client()->xid);
		if (!(flags & 4)) {
			memset(b + 28, 0, 16);
			memcpy(b + 28, our_mac, 6);
		}
		if (!(flags & 8))
			put32(b + BOOTP_LEN, DHCP_COOKIE);
	}
	p->len = (uint16_t)(ETH_HLEN + IPV4_HLEN + 8 + n);
	if (p->len < 60) {
		memset(p->data + p->len, 0, 60 - p->len);
		p->len = 60;
	}
	p->flags = PKT_RX_IP_CSUM_OK | PKT_RX_L4_CSUM_OK;
	frame_in(p);
}

/* A well-formed reply: type, then yiaddr, mask, router, lease, T1, T2. */
static void whole_reply(const uint8_t *v)
{
	uint8_t m[BOOTP_LEN + 4 + 64] = { 0 };
	memcpy(m + 16, v + 1, 4);	/* yiaddr */
	uint8_t *o = m + BOOTP_LEN + 4;
	*o++ = 53, *o++ = 1, *o++ = (uint8_t)(v[0] % 8);
	*o++ = 54, *o++ = 4;
	put32(o, SRV_IP), o += 4;
	static const uint8_t codes[] = { 1, 3, 51, 58, 59 };
	for (int i = 0; i < 5; i++) {
		*o++ = codes[i], *o++ = 4;
		memcpy(o, v + 5 + 4 * i, 4), o += 4;
	}
	*o++ = 255;
	reply_in(m, (size_t)(o - m), 0);
}

/* Someone else answers lwIP's ARP probe for the address on offer. */
static void arp_claim(void)
{
	struct pkt *p = pkt_alloc(port.pool);
	if (!p)
		return;
	struct eth_hdr *e = (void *)p->data;
	memcpy(e->dst, our_mac, 6);
	memcpy(e->src, srv_mac, 6);
	e->src[5] = 0x77;
	e->type = hton16(ETHERTYPE_ARP);
	struct arp_hdr *a = (void *)(p->data + ETH_HLEN);
	a->htype = hton16(ARP_HTYPE_ETH);
	a->ptype = hton16(ETHERTYPE_IPV4);
	a->hlen = 6;
	a->plen = 4;
	a->oper = hton16(ARP_REPLY);
	memcpy(a->sha, e->src, 6);
	memcpy(a->spa, &client()->offered_ip_addr.addr, 4);
	memcpy(a->tha, our_mac, 6);
	memset(a->tpa, 0, 4);
	p->len = 60;
	memset(p->data + ETH_HLEN + sizeof(*a), 0, 60 - ETH_HLEN - sizeof(*a));
	p->flags = 0;
	frame_in(p);
}

/* A unicast address that can be a host's on a subnet of mask m. */
static int host_addr(uint32_t a, uint32_t m)
{
	uint8_t top = (uint8_t)(a >> 24);
	if (!m || (~m & (~m + 1)) || top == 0 || top == 127 || top >= 224)
		return 0;
	return m >= 0xfffffffeu || ((a & ~m) != 0 && (a & ~m) != ~m);
}

/* After the idle hook: our address, lwIP's and the lease's agree. */
static void check_lease(void)
{
	struct mgmt_lease l;
	assert(mgmt_dhcp_lease(0, &l) == 0);
	struct netif *n = lwif_netif(0);
	uint32_t lwip_addr = lwip_ntohl(ip4_addr_get_u32(netif_ip4_addr(n)));
	assert(ifaddrs[0].dhcp);
	if (!l.bound) {
		assert(ifaddrs[0].v4.addr == 0 && lwip_addr == 0);
		return;
	}
	assert(ifaddrs[0].v4.addr == l.addr && lwip_addr == l.addr);
	assert(host_addr(l.addr, l.mask));
	int len = 32 - __builtin_ctz(l.mask), k = len < 16 ? len : 16;
	assert(ifaddrs[0].v4.len == len && ((l.addr ^ PORT1_IP) & (~0u << (32 - k))));
}

/* The clock moves on by ms, in steps of at most 60 s, the idle hook after
 * each. lwIP runs a cyclic timer at most once a step (timeouts.c starts
 * one that fell behind again from now), so a step of DHCP_COARSE_TIMER_SECS
 * keeps the lease's coarse clock (T1, T2, expiry) on time; the 500 ms fine
 * timer ticks once a step. */
static void idle(uint64_t ms)
{
	while (ms) {
		uint64_t step = ms < DHCP_COARSE_TIMER_MSECS ? ms : DHCP_COARSE_TIMER_MSECS;
		fuzz_tsc += step * 1000000ull;
		ms -= step;
		app_of_port(0)->idle();
		check_lease();
	}
}

static void setup(void)
{
	fake_port(&port, &ops, our_mac, 0, 128);
	port1 = port;
	port1.mac[5] = 0x11;
	assert(nic_register(&port1) == 1);
	int errs = cmdline_parse("app=sink mgmt=port0 ip0=dhcp ip1=10.2.0.1/16 rr_heap=64 rr_pbufs=64 rr_conns=8",
				 __knobs_start, KNOBS_COUNT, 0, 0);
	assert(errs == 0);
	fuzz_dma_alloc = arena_alloc;
	assert(apps_start() == 0);
	fuzz_dma_alloc = NULL;
	lwif_flush();	/* the first DISCOVER */
	arena_save();
	kstate_save();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	if (!arena_saved)
		setup();
	kstate_restore();
	arena_restore();
	fuzz_tsc = 1000000000ull;
	size_t i = 0;
	while (i < len) {
		uint8_t op = data[i++] % 4;
		if (op == 0) {
			int flags = i < len ? data[i++] : 0;
			size_t n = BOOTP_LEN + 4 * (size_t)(i < len ? data[i++] : 0);
			uint8_t m[BOOTP_LEN + 4 * 255];
			memset(m, 255, n);	/* END options past the input */
			memcpy(m, data + i, n < len - i ? n : len - i);
			i += n < len - i ? n : len - i;
			reply_in(m, n, flags);
		} else if (op == 1) {
			uint8_t v[25] = { 0 };
			memcpy(v, data + i, len - i < 25 ? len - i : 25);
			i += len - i < 25 ? len - i : 25;
			whole_reply(v);
		} else if (op == 2) {
			arp_claim();
		} else {
			idle(10ull << ((i < len ? data[i++] : 0) % 20));
		}
	}
	idle(10);
	assert(lwif_rx_pbufs() == 0);
	assert(port.pool->nfree == port.pool->size);
	return 0;
}
