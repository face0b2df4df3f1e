/* TCP clients for the lwIP harnesses (tcpclient.h). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "tests/fuzz/tcpclient.h"
#include "apps/app.h"
#include "kernel/cpu.h"
#include "kernel/mem.h"	/* before lwIP's headers, which rename lwIP's mem_init */
#include "lwip/prot/tcp.h"
#include "net/bytes.h"
#include "net/ipv4.h"
#include "net/lwip/lwif.h"
#include "tests/fuzz/fakeport.h"
#include "tests/fuzz/lwifcheck.h"

struct tc_world tc;
struct tc_client tc_cl[TC_MAX];
struct nic tc_port;
int tc_quiet;

static const uint8_t srv_mac[6] = { 2, 0, 0, 0, 0, 0x10 }, cli_mac[6] = { 2, 0, 0, 0, 0, 0x20 };
/* Frames the clients send in answer to what the server sent (ARP replies,
 * ACKs): sent after the server's burst, not from inside it; at most
 * 4 * tc.n ACKs. */
static struct { int c; uint8_t flags; } owed[4 * TC_MAX];
static int nowed, arp_owed;

static void frame_in(struct pkt *p)
{
	fake_port_rx(&tc_port, p);
	lwif_accounts_check(0);
}

static struct pkt *eth_frame(uint16_t type)
{
	struct pkt *p = pkt_alloc(tc_port.pool);
	if (!p)
		return NULL;
	struct eth_hdr *e = (void *)p->data;
	memcpy(e->dst, srv_mac, 6);
	memcpy(e->src, cli_mac, 6);
	e->type = hton16(type);
	p->flags = PKT_RX_IP_CSUM_OK | PKT_RX_L4_CSUM_OK;
	return p;
}

/* The IPv4 header of a frame from the clients, payload n bytes of proto. */
static uint8_t *ip_frame(struct pkt *p, uint8_t proto, size_t n)
{
	struct ipv4_hdr *ip = (void *)(p->data + ETH_HLEN);
	*ip = (struct ipv4_hdr){ .ver_ihl = 0x45, .tot_len = hton16((uint16_t)(IPV4_HLEN + n)), .ttl = 64,
				 .proto = proto, .saddr = hton32(TC_CLI_IP), .daddr = hton32(TC_SRV_IP) };
	ip->csum = hton16(inet_csum(ip, IPV4_HLEN));
	p->len = (uint16_t)(ETH_HLEN + IPV4_HLEN + n);
	return (uint8_t *)(ip + 1);
}

static void pad_in(struct pkt *p)
{
	if (p->len < 60) {
		memset(p->data + p->len, 0, 60 - p->len);
		p->len = 60;
	}
	frame_in(p);
}

void tc_arp_in(uint16_t op)
{
	struct pkt *p = eth_frame(ETHERTYPE_ARP);
	if (!p)
		return;
	struct arp_hdr *a = (void *)(p->data + ETH_HLEN);
	a->htype = hton16(ARP_HTYPE_ETH);
	a->ptype = hton16(ETHERTYPE_IPV4);
	a->hlen = 6;
	a->plen = 4;
	a->oper = hton16(op);
	memcpy(a->sha, cli_mac, 6);
	uint32_t s = hton32(TC_CLI_IP), t = hton32(TC_SRV_IP);
	memcpy(a->spa, &s, 4);
	memcpy(a->tha, srv_mac, 6);
	memcpy(a->tpa, &t, 4);
	p->len = 60;
	memset(p->data + ETH_HLEN + sizeof(*a), 0, 60 - ETH_HLEN - sizeof(*a));
	frame_in(p);
}

/* A segment from client c (checksums as the NIC verified them). */
void tc_segment(struct tc_client *c, uint8_t flags, const uint8_t *data, size_t n)
{
	struct pkt *p = eth_frame(ETHERTYPE_IPV4);
	if (!p)
		return;
	size_t hl = (flags & TCP_SYN) && c->mss ? 24 : 20;
	uint8_t *t = ip_frame(p, 6, hl + n);
	uint32_t seq = hton32(c->snd_nxt), ack = hton32(flags & TCP_ACK ? c->rcv_nxt : 0);
	memset(t, 0, hl);
	t[0] = (uint8_t)(c->port >> 8), t[1] = (uint8_t)c->port, t[2] = (uint8_t)(tc.srv_port >> 8),
	t[3] = (uint8_t)tc.srv_port;
	memcpy(t + 4, &seq, 4);
	memcpy(t + 8, &ack, 4);
	t[12] = (uint8_t)(hl / 4 << 4), t[13] = flags;
	put16(t + 14, tc.wnd ? tc.wnd : 0xffff);
	if (hl > 20)		/* MSS (RFC 9293 3.2) */
		t[20] = 2, t[21] = 4, t[22] = (uint8_t)(c->mss >> 8), t[23] = (uint8_t)c->mss;
	if (n)
		memcpy(t + hl, data, n);
	if (c->sent < sizeof(c->sent_data) && n) {
		size_t k = n < sizeof(c->sent_data) - c->sent ? n : sizeof(c->sent_data) - c->sent;
		memcpy(c->sent_data + c->sent, data, k);
	}
	c->sent += n;
	c->snd_nxt += (uint32_t)n + !!(flags & (TCP_SYN | TCP_FIN));
	pad_in(p);
}

void tc_udp_in(uint16_t sport, uint16_t dport, const uint8_t *data, size_t n)
{
	struct pkt *p = eth_frame(ETHERTYPE_IPV4);
	if (!p)
		return;
	if (n > p->pool->buf_size - ETH_HLEN - IPV4_HLEN - 8)
		n = p->pool->buf_size - ETH_HLEN - IPV4_HLEN - 8;
	uint8_t *u = ip_frame(p, 17, 8 + n);
	put16(u, sport);
	put16(u + 2, dport);
	put16(u + 4, (uint16_t)(8 + n));
	put16(u + 6, 0);	/* no checksum (RFC 768) */
	memcpy(u + 8, data, n);
	pad_in(p);
}

/* c owes the server an ACK: one per client per round, cumulative, for
 * all the server sent it in its burst. One per segment sent every ACK
 * after the first as a duplicate (all carry the same rcv_nxt); with them
 * fuzz_iperf3's corpus drew 343,514 data segments from the server, with
 * one 16,521. */
static void owe(struct tc_client *c)
{
	int k = (int)(c - tc_cl);
	for (int i = 0; i < nowed; i++)
		if (owed[i].c == k)
			return;
	if (!c->noack && nowed < 4 * tc.n)
		owed[nowed++] = (typeof(owed[0])){ k, TCP_ACK };
}

/* A segment from the server to client c. */
static void tcp_out(struct tc_client *c, const uint8_t *t, size_t n)
{
	uint32_t seq = get32(t + 4), ack = get32(t + 8);
	uint8_t flags = t[13];
	size_t hl = (size_t)(t[12] >> 4) * 4, len = n - hl;
	assert(hl >= 20 && hl <= n);
	if (flags & TCP_RST) {
		c->st = TC_DEAD;
		return;
	}
	if (flags & TCP_SYN) {
		assert(flags & TCP_ACK);
		if (c->st == TC_SYN_SENT) {
			c->st = TC_OPEN;
			c->rcv_nxt = seq + 1;
		}
		owe(c);
		return;
	}
	if (c->st != TC_OPEN)
		return;
	if (flags & TCP_ACK) {
		uint32_t a = ack - c->iss - 1;
		a = a < c->sent ? a : (uint32_t)c->sent;
		c->acked = a > c->acked ? a : c->acked;
	}
	if (seq != c->rcv_nxt)
		return;		/* a retransmission */
	if (len) {
		if (c->recv_total < sizeof(c->recv_data) - 1) {
			size_t k = len < sizeof(c->recv_data) - 1 - c->recv_total ? len
										   : sizeof(c->recv_data) - 1 - c->recv_total;
			memcpy(c->recv_data + c->recv_total, t + hl, k);
		}
		c->recv_total += len;
		c->rcv_nxt += (uint32_t)len;
		if (tc.data)
			tc.data(c, t + hl, len);
	}
	if ((flags & TCP_FIN) && !c->srv_fin) {
		c->srv_fin = 1;
		c->rcv_nxt++;
		if (tc.fin)
			tc.fin(c);
	}
	if (len || (flags & TCP_FIN))
		owe(c);
}

static int fake_tx(struct nic *nic, int q, struct pkt **pkts, int n)
{
	(void)q;
	for (int i = 0; i < n; i++) {
		struct pkt *p = pkts[i];
		const struct eth_hdr *e = (const void *)p->data;
		assert(p->len >= 60 && p->len <= p->pool->buf_size && !memcmp(e->src, nic->mac, 6));
		if (e->type == hton16(ETHERTYPE_ARP)) {
			const struct arp_hdr *a = (const void *)(p->data + ETH_HLEN);
			arp_owed |= a->oper == hton16(ARP_REQUEST);
		} else if (e->type == hton16(ETHERTYPE_IPV4)) {
			const struct ipv4_hdr *ip = (const void *)(p->data + ETH_HLEN);
			const uint8_t *t = p->data + ETH_HLEN + IPV4_HLEN;
			size_t tot = ntoh16(ip->tot_len);
			uint16_t sport = get16(t), dport = get16(t + 2);
			struct tc_client *c = &tc_cl[(uint16_t)(dport - 40000) % 32 % tc.n];	/* tc_connect's ports */
			assert(ip->ver_ihl == 0x45 && tot >= 28 && ETH_HLEN + tot <= p->len);
			if (ip->proto == 6 && ip->daddr == hton32(TC_CLI_IP) && sport == tc.srv_port &&
			    c->port == dport && c->st != TC_CLOSED) {
				assert(tot >= 40);
				tcp_out(c, t, tot - IPV4_HLEN);
			} else if (ip->proto == 17 && ip->daddr == hton32(TC_CLI_IP) && sport == tc.srv_port && tc.udp &&
				   !(ip->frag_off & hton16(0x3fff))) {
				assert(get16(t + 4) == tot - IPV4_HLEN);
				tc.udp(sport, dport, t + 8, tot - IPV4_HLEN - 8);
			}
		}
		pkt_free(p);
	}
	return n;
}

static const struct nic_ops ops = { .rx_burst = fake_rx, .tx_burst = fake_tx };

void tc_port_create(uint32_t bufs)
{
	fake_port(&tc_port, &ops, srv_mac, 0, bufs);
}

/* Only the clients the last input connected (tc_connect sets st, which
 * never goes back to TC_CLOSED, and counts gen; a client never connected
 * is still all zero): all of them were 250 KB zeroed per input in
 * fuzz_http. */
void tc_reset(void)
{
	for (int k = 0; k < tc.n; k++)
		if (tc_cl[k].st != TC_CLOSED || tc_cl[k].gen)
			memset(&tc_cl[k], 0, sizeof(tc_cl[k]));
	nowed = arp_owed = tc_quiet = 0;
}

void tc_settle(void)
{
	for (int round = 0; round < 8 && (nowed || arp_owed); round++) {
		int n = nowed, arp = arp_owed;
		typeof(owed[0]) now[sizeof(owed) / sizeof(owed[0])];
		memcpy(now, owed, sizeof(now[0]) * (size_t)n);
		nowed = 0;
		arp_owed = 0;
		if (tc_quiet)
			return;
		if (arp)
			tc_arp_in(ARP_REPLY);
		for (int i = 0; i < n; i++) {
			struct tc_client *c = &tc_cl[now[i].c];
			if (c->st == TC_OPEN)
				tc_segment(c, now[i].flags, NULL, 0);
		}
	}
	nowed = 0;
	arp_owed = 0;
}

void tc_idle(void)
{
	app_of_port(0)->idle();
	tc_settle();
}

void tc_connect(struct tc_client *c, int noack, int mss)
{
	int k = (int)(c - tc_cl);
	c->gen++;
	*c = (struct tc_client){ .st = TC_SYN_SENT, .gen = c->gen, .port = (uint16_t)(40000 + k + 32 * (c->gen % 512)),
				 .snd_nxt = 1000u * (uint32_t)c->gen, .iss = 1000u * (uint32_t)c->gen, .noack = noack,
				 .mss = mss ? 1460 : 0 };
	tc_segment(c, TCP_SYN, NULL, 0);
	tc_settle();
}

void tc_send(struct tc_client *c, const uint8_t *d, size_t n)
{
	if (c->st != TC_OPEN || c->fin_sent)
		return;
	do {
		size_t k = n < 1460 ? n : 1460;
		tc_segment(c, TCP_ACK | TCP_PSH, d, k);
		d += k, n -= k;
	} while (n);
	tc_settle();
}

void tc_ack(struct tc_client *c)
{
	if (c->st == TC_OPEN)
		tc_segment(c, TCP_ACK, NULL, 0);
	tc_settle();
}

void tc_fin(struct tc_client *c)
{
	if (c->st == TC_OPEN && !c->fin_sent) {
		tc_segment(c, TCP_FIN | TCP_ACK, NULL, 0);
		c->fin_sent = 1;
		tc_settle();
	}
}

void tc_rst(struct tc_client *c)
{
	if (c->st == TC_OPEN || c->st == TC_SYN_SENT) {
		tc_segment(c, TCP_RST | TCP_ACK, NULL, 0);
		c->st = TC_DEAD;
		tc_settle();
	}
}

int tc_step(struct tc_client *c, int op, uint8_t arg, const uint8_t *data, size_t len, size_t *i)
{
	switch (op) {
	case 0:
		if (c->st != TC_OPEN || c->srv_fin || c->fin_sent)
			tc_connect(c, arg & 1, arg & 2);
		return 1;
	case 1: {
		size_t n = arg < len - *i ? arg : len - *i;
		tc_send(c, data + *i, n);
		*i += n;
		return 1;
	}
	case 2:
		tc_ack(c);
		return 1;
	case 3:
		tc_fin(c);
		return 1;
	case 4:
		tc_rst(c);
		return 1;
	case 5:
		fuzz_tsc += arg * 10000000ull;
		tc_idle();
		return 1;
	}
	return 0;
}

extern uint8_t __start___sancov_cntrs[] __attribute__((weak)), __stop___sancov_cntrs[] __attribute__((weak));
static uint8_t *cov_saved;

void tc_cov_save(void)
{
	size_t n = (size_t)(__stop___sancov_cntrs - __start___sancov_cntrs);
	if (!cov_saved)
		cov_saved = malloc(n ? n : 1);
	memcpy(cov_saved, __start___sancov_cntrs, n);
}

void tc_cov_restore(void)
{
	memcpy(__start___sancov_cntrs, cov_saved, (size_t)(__stop___sancov_cntrs - __start___sancov_cntrs));
}
