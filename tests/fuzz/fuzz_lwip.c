/* Fuzz lwIP's input on the rr app's netif (net/lwip: filter.c's checks,
 * netif.c's zero-copy pbufs, lwIP 2.1.3 built with net/lwip; the rr
 * services, apps/rr) and the management port's HTTP server (apps/mgmt/http.c)
 * listening beside them, as lwIP's own test/fuzz harness feeds its stack
 * frames. One fake port, 10.1.0.1/24 and 2001:db8:1::1/64 with app=rr (its
 * IPv6 addresses past DAD in the saved state, whose clock each input
 * starts at); the input is a program:
 *   op 0-2  a frame: a flags byte, a length in 7-byte units, the bytes;
 *           flags: 1 our MAC as destination, 2 EtherType IPv4 and a
 *           correct IPv4 header checksum, 4 the NIC verified the checksums
 *           (lwIP does not check them again), 8 destination 10.1.0.1;
 *           16 EtherType IPv6, version 6, destination 2001:db8:1::1,
 *           32 the IPv6 payload length the frame's;
 *   op 3    the clock moves on by (next byte) * 10 ms and lwIP's timers,
 *           rr's and the HTTP server's run.
 * Checked after every frame: rx = the frames handed to lwIP + the drops,
 * exactly; every frame sent is a whole Ethernet frame from our MAC. The
 * port inserts checksums (tx_csum, tx_csum6: lwIP's netif leaves them to
 * it) as a NIC does, and every IPv4 header, TCP and UDP checksum sent
 * then verifies (a fragment's UDP checksum lwIP's, checked on none). At the
 * end every connection is aborted and the timers run out: every RX buffer
 * is back in its pool and no received pbuf is left inside lwIP. lwIP's
 * memory lives in an arena put back before each input with the kernel
 * state (fuzz_state.h), so a crash reproduces from its input alone. */
#include <assert.h>
#include <string.h>
#include "apps/app.h"
#include "apps/mgmt/mgmt.h"
#include "net/lwip/lwif.h"
#include "kernel/cmdline.h"
#include "kernel/cpu.h"
#include "kernel/knobs.h"
#include "kernel/mem.h"	/* before lwIP's headers, which rename lwIP's mem_init */
#include "lwip/tcp.h"
#include "lwip/priv/tcp_priv.h"
#include "net/ipv4.h"
#include "tests/fuzz/fuzz_state.h"
#include "tests/fuzz/arena.h"
#include "tests/fuzz/fakeport.h"

static struct nic port;
static uint64_t sent;

/* The management port's pages: HTTP is what is fuzzed, not the pages. */
int mgmt_page(const char *path, char *buf, size_t len, size_t *out, const char **ctype, int *truncated)
{
	*ctype = "text/plain";
	*truncated = 0;
	if (strcmp(path, "/") && strcmp(path, "/metrics"))
		return 404;
	*out = (size_t)snprintf(buf, len, "linerate fuzz %s\n", path);
	return 200;
}

/* What a NIC inserts for p's requests (net/pkt.h; 8254x SDM 3.3.6): the
 * 20-byte IPv4 header's checksum, and the TCP or UDP checksum summed from
 * the L4 header to the frame's end over the pseudo-header sum in its
 * field (UDP's 0 sent as ffff). */
static void nic_insert(struct pkt *p)
{
	uint8_t *f = p->data;
	uint32_t fl = p->flags, l4 = ETH_HLEN + (fl & PKT_TX_IP6 ? 40 : IPV4_HLEN);
	if (fl & PKT_TX_IP_CSUM) {
		assert(!(fl & PKT_TX_IP6) && get16(f + 12) == ETHERTYPE_IPV4 && f[ETH_HLEN] == 0x45);
		assert(get16(f + ETH_HLEN + 10) == 0);
		put16(f + ETH_HLEN + 10, inet_csum(f + ETH_HLEN, IPV4_HLEN));
	}
	if (fl & PKT_TX_L4_CSUM) {
		uint32_t off = l4 + (fl & PKT_TX_UDP ? 6 : 16);
		assert(p->len >= off + 2 && f[ETH_HLEN + (fl & PKT_TX_IP6 ? 6 : 9)] == (fl & PKT_TX_UDP ? 17 : 6));
		uint16_t c = inet_csum(f + l4, p->len - l4);
		put16(f + off, c || !(fl & PKT_TX_UDP) ? c : 0xffff);
	}
}

/* A receiver's checks of frame f (len bytes) from lwIP: an IPv4 header's
 * checksum, and TCP's or UDP's over its pseudo-header (RFC 9293 3.1, RFC
 * 768, RFC 8200 8.1) unless the packet is a fragment. */
static void csum_check(const uint8_t *f, uint32_t len)
{
	const uint8_t *ip = f + ETH_HLEN;
	uint16_t type = get16(f + 12);
	if (type == ETHERTYPE_IPV4 && len >= ETH_HLEN + IPV4_HLEN) {
		uint32_t hl = (ip[0] & 15) * 4u, tot = get16(ip + 2);
		assert(hl >= IPV4_HLEN && ETH_HLEN + tot <= len && tot >= hl);
		assert(inet_csum(ip, hl) == 0);
		if ((ip[9] == 6 || ip[9] == 17) && !(get16(ip + 6) & 0x3fff))
			assert(inet_csum_fold(inet_sum(ip + 12, 8) + ip[9] + tot - hl + inet_sum(ip + hl, tot - hl)) == 0);
	} else if (type == 0x86dd && len >= ETH_HLEN + 40 && (ip[6] == 6 || ip[6] == 17)) {
		uint32_t plen = get16(ip + 4);
		assert(ETH_HLEN + 40 + plen <= len);
		assert(inet_csum_fold(inet_sum(ip + 8, 32) + ip[6] + plen + inet_sum(ip + 40, plen)) == 0);
	}
}

static int fake_tx(struct nic *nic, int q, struct pkt **pkts, int n)
{
	(void)q;
	for (int i = 0; i < n; i++) {
		struct pkt *p = pkts[i];
		assert((p->len >= 60 || (p->flags & PKT_TX_L4_CSUM)) && p->len <= p->pool->buf_size);	/* the NIC pads */
		assert(!memcmp(p->data + 6, nic->mac, 6));
		nic_insert(p);
		csum_check(p->data, p->len);
		sent++;
		pkt_free(p);
	}
	return n;
}

static const struct nic_ops ops = { .rx_burst = fake_rx, .tx_burst = fake_tx };

static void run_timers(void)
{
	lwif_timers();
	http_poll();
}

static uint64_t tsc0;

static void setup(void)
{
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 0x10 };
	fake_port(&port, &ops, mac, 0, 128);
	port.tx_csum = port.tx_csum6 = 1;
	int errs = cmdline_parse("app=rr ip0=10.1.0.1/24,2001:db8:1::1/64 rr_heap=64 rr_pbufs=64 rr_conns=8 rr_idle=5",
				 __knobs_start, KNOBS_COUNT, 0, 0);
	assert(errs == 0);
	fuzz_dma_alloc = arena_alloc;
	assert(apps_start() == 0);
	assert(http_init() == 0);
	fuzz_dma_alloc = NULL;
	for (int i = 0; i < 12; i++) {	/* 3 s: DAD's probe of the IPv6 addresses, MLD's report */
		fuzz_tsc += 250000000ull;
		run_timers();
	}
	tsc0 = fuzz_tsc;	/* each input starts at the clock of the saved state */
	lwif_flush();	/* the gratuitous ARP of netif_set_up: no frame in flight in the state saved */
	arena_save();
	kstate_save();
}


static void frame_in(const uint8_t *data, size_t n)
{
	struct pkt *p = pkt_alloc(port.pool);
	if (!p)
		return;		/* the ring would have had no buffer */
	uint8_t flags = n ? data[0] : 0;
	size_t len = n > 1 ? data[1] * 7u : 0;
	if (len > n - (n > 2 ? 2 : n))
		len = n > 2 ? n - 2 : 0;
	if (len > 1514)
		len = 1514;
	memcpy(p->data, n > 2 ? data + 2 : data, len);
	p->flags = 0;
	if (len >= ETH_HLEN) {
		if (flags & 1)
			memcpy(p->data, port.mac, 6);
		if (flags & 2)
			((struct eth_hdr *)p->data)->type = hton16(ETHERTYPE_IPV4);
	}
	if (len >= ETH_HLEN + IPV4_HLEN) {
		struct ipv4_hdr *ip = (void *)(p->data + ETH_HLEN);
		if (flags & 8)
			ip->daddr = hton32(0x0a010001);
		size_t hl = (size_t)(ip->ver_ihl & 15) * 4;
		if ((flags & 2) && hl >= IPV4_HLEN && ETH_HLEN + hl <= len) {
			ip->csum = 0;
			ip->csum = hton16(inet_csum(ip, hl));
		}
	}
	if ((flags & 16) && len >= ETH_HLEN + 40) {	/* RFC 8200 3: the 40-byte fixed header */
		static const uint8_t our6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 1 };
		uint8_t *ip6 = p->data + ETH_HLEN;
		((struct eth_hdr *)p->data)->type = hton16(0x86dd);
		ip6[0] = (uint8_t)(0x60 | (ip6[0] & 15));
		memcpy(ip6 + 24, our6, 16);	/* destination */
		if (flags & 32)
			put16(ip6 + 4, (uint16_t)(len - ETH_HLEN - 40));	/* payload length */
	}
	if (flags & 4)
		p->flags = PKT_RX_IP_CSUM_OK | PKT_RX_L4_CSUM_OK;
	p->len = (uint16_t)len;
	fake_port_rx(&port, p);
	lwif_accounts_check(0);
}

/* Every connection gone (as a reset would), then the timers run out:
 * reassembly (3 s), ARP queues, TIME-WAIT. */
static void wind_down(void)
{
	while (tcp_active_pcbs)
		tcp_abort(tcp_active_pcbs);
	while (tcp_tw_pcbs)
		tcp_abort(tcp_tw_pcbs);
	for (int i = 0; i < 40; i++) {
		fuzz_tsc += 250000000ull;
		run_timers();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	if (!arena_saved)
		setup();
	kstate_restore();
	arena_restore();
	fuzz_tsc = tsc0;
	size_t i = 0;
	while (i < len) {
		uint8_t op = data[i++] % 4;
		if (op < 3) {
			size_t n = 2 + (i + 1 < len ? data[i + 1] * 7u : 0);
			if (n > len - i)
				n = len - i;
			frame_in(data + i, n);
			i += n;
		} else {
			fuzz_tsc += (i < len ? data[i++] : 1) * 10000000ull;
			run_timers();
			lwif_accounts_check(0);
		}
	}
	wind_down();
	lwif_accounts_check(0);
	assert(lwif_rx_pbufs() == 0);
	assert(port.pool->nfree == port.pool->size);
	return 0;
}
