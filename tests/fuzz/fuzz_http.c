/* Fuzz the management port's HTTP server (apps/mgmt/http.c: request
 * collection, the request line, the answer, the send budget, time-outs)
 * behind mgmt's receive path (apps/mgmt/mgmt.c: the half-open SYN limit,
 * rr's checks) and lwIP's TCP, with clients that speak TCP correctly: the
 * harness is up to NCLIENT TCP clients at 10.1.0.2 (ports 40000 + ...), the
 * server mgmt=port0 at 10.1.0.1. The input is a program of client steps:
 *   byte b: op b % 8 on client (b / 8) % NCLIENT:
 *   0 connect (next byte bit 0: do not acknowledge what the server sends,
 *     the handshake's SYN-ACK included: a reader that stalls, a half-open
 *     connection; bit 1: the SYN carries an MSS option of 1460 bytes,
 *     without it lwIP sends segments of the 536-byte default), 1 send
 *     the next byte's count of bytes as one segment,
 *   2 acknowledge what was received, 3 FIN, 4 RST, 5 the clock moves on by
 *   (next byte) * 10 ms and the idle hook runs, 6 the idle hook runs,
 *   7 send one of a few whole requests (next byte picks it), or a header
 *     longer than HTTP_REQ_MAX without its end (431; in segments of
 *     at most 1460 bytes).
 * Checked after every frame: rx = the frames handed to lwIP + the drops,
 * exactly. Every answer a client reads to its end (the server's FIN) is a
 * whole HTTP/1.0 answer (status line, Content-Length = the body's bytes;
 * to HEAD the header alone),
 * and its status is the one a reference reading of the bytes that client
 * sent gives (200, 400, 404, 405 or 431; GET /capture: a pcapng stream, or
 * 400 or 409); a connection closed without an
 * answer had sent no whole request. At the end the clients fall silent
 * until the server holds no connection (its time-outs end every one within
 * 220 s, checked), then a new client's
 * GET /metrics must be answered in full (no slot, answer or budget left
 * stuck), every connection accepted ended in an outcome counter, and after
 * every connection is reset no received buffer is left in lwIP. The pages
 * are the real ones (apps/mgmt/metrics.c: /metrics, the status page cut
 * short, /config), read from the harness's port, lwIP's and the apps'
 * counters as they stand. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
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
#include "run/lcore.h"
#include "tests/fuzz/fuzz_state.h"
#include "tests/fuzz/arena.h"
#include "tests/fuzz/fakeport.h"

#define NCLIENT 24		/* > HTTP_HALF_OPEN: a SYN flood reaches the limit */
#define SRV_IP 0x0a010001u
#define CLI_IP 0x0a010002u

static const uint8_t srv_mac[6] = { 2, 0, 0, 0, 0, 0x10 }, cli_mac[6] = { 2, 0, 0, 0, 0, 0x20 };

enum { CL_CLOSED, CL_SYN_SENT, CL_OPEN, CL_DEAD };
struct client {
	int st;
	uint16_t port, gen;
	uint32_t snd_nxt, rcv_nxt;
	int noack;		/* acknowledges only by op 2 */
	uint16_t mss;		/* the SYN's MSS option; 0: none */
	int fin_sent, srv_fin;
	uint8_t req[HTTP_REQ_MAX];	/* the first bytes sent */
	size_t sent;
	char resp[512];		/* the answer's first bytes */
	size_t resp_total;
};

static struct nic port;
static struct client cl[NCLIENT + 1];	/* the last: the end's check */
static int quiet;			/* clients send nothing (the end's silence) */
/* Frames the clients send in answer to what the server sent (ARP replies,
 * ACKs): sent after the server's burst, not from inside it. */
static struct { int c; uint8_t flags; } owed[4 * NCLIENT];
static int nowed, arp_owed;
static uint64_t answers_read;


/* The real pages (apps/mgmt/metrics.c: /metrics, "/", /config), through
 * the linker's --wrap: "/" is given at most STATUS_CUT bytes, so that its
 * page is cut and http.c's truncated answer is taken too. */
#define STATUS_CUT 512
int __real_mgmt_page(const char *path, char *buf, size_t len, size_t *out, const char **ctype, int *truncated);
int __wrap_mgmt_page(const char *path, char *buf, size_t len, size_t *out, const char **ctype, int *truncated)
{
	if (!strcmp(path, "/") && len > STATUS_CUT)
		len = STATUS_CUT;
	return __real_mgmt_page(path, buf, len, out, ctype, truncated);
}

/* GET /capture: a pcapng stream (200, no Content-Length), or its query
 * refused (400) or a capture running (409). */
#define CAPTURE 1

/* A request's status as RFC 9112 and the server's rules read it, from the
 * bytes the client sent (s, n): 0 if no answer is due yet. The header ends
 * at the first blank line; a control byte in it is a bad request, as is a
 * request line that is not "METHOD TARGET HTTP/1.x", TARGET "/path" or
 * "http://authority[/path]"; no end within HTTP_REQ_MAX bytes: 431; not
 * GET or HEAD: 405; a page that does not exist: 404. */
static int ref_status(const uint8_t *s, size_t n)
{
	if (n > HTTP_REQ_MAX)
		n = HTTP_REQ_MAX;
	size_t end = 0;
	for (size_t i = 0; i < n && !end; i++) {
		if ((s[i] < 32 && s[i] != '\r' && s[i] != '\n' && s[i] != '\t') || s[i] == 127)
			return 400;
		if (s[i] == '\n' && ((i >= 1 && s[i - 1] == '\n') || (i >= 3 && !memcmp(s + i - 3, "\r\n\r\n", 4))))
			end = i + 1;
	}
	if (!end && n < HTTP_REQ_MAX)
		return 0;
	size_t m = 0, lim = end ? end : n;
	while (m < lim && s[m] >= 'A' && s[m] <= 'Z')
		m++;
	if (!m || m >= 16 || m >= lim || s[m] != ' ')
		return 400;
	size_t p = m + 1, q = p;
	while (q < lim && s[q] != ' ' && s[q] != '\r' && s[q] != '\n')
		q++;
	if (q == p || q + 10 > lim || memcmp(s + q, " HTTP/1.", 8) ||
	    s[q + 8] < '0' || s[q + 8] > '9' || (s[q + 9] != '\r' && s[q + 9] != '\n'))
		return 400;
	int root = 0;	/* absolute form without a path: "/" */
	if (q - p >= 7 && !strncasecmp((const char *)s + p, "http://", 7)) {
		size_t a = p + 7;
		while (a < q && s[a] != '/')
			a++;
		root = a == q && s[q - 1] != '/';
		if (a == q && !root)
			return 400;
		p = root ? q - 1 : a;
	}
	if (q - p >= 1024 || (s[p] != '/' && !root))
		return 400;
	if (!end)
		return 431;
	if (!(m == 3 && !memcmp(s, "GET", 3)) && !(m == 4 && !memcmp(s, "HEAD", 4)))
		return 405;
	if (root)
		return 200;
	size_t plen = q - p;
	const uint8_t *qm = memchr(s + p, '?', plen);
	if (qm)
		plen = (size_t)(qm - (s + p));
	if ((plen == 1) || (plen == 8 && !memcmp(s + p, "/metrics", 8)) || (plen == 7 && !memcmp(s + p, "/config", 7)))
		return 200;
	if (m == 3 && plen == 8 && !memcmp(s + p, "/capture", 8))
		return CAPTURE;
	return 404;
}

/* A client's answer, read to the server's FIN: whole, and the status the
 * reference gives its request. */
static void check_answer(struct client *c)
{
	int want = ref_status(c->req, c->sent);
	if (!c->resp_total) {
		assert(want == 0);	/* closed without an answer: no whole request */
		return;
	}
	int code = 0;
	unsigned long clen = 0;
	const char *cl_at = strstr(c->resp, "\r\nContent-Length: ");
	const char *end = strstr(c->resp, "\r\n\r\n");
	if (want == CAPTURE && sscanf(c->resp, "HTTP/1.0 %d ", &code) == 1 && code == 200) {
		assert(end && strstr(c->resp, "Content-Type: application/x-pcapng\r\n") && (!cl_at || cl_at > end));
		answers_read++;
		return;
	}
	if (want == CAPTURE)
		want = code == 409 ? 409 : 400;
	assert(sscanf(c->resp, "HTTP/1.0 %d ", &code) == 1 && cl_at && end && cl_at < end);
	assert(sscanf(cl_at, "\r\nContent-Length: %lu\r\n", &clen) == 1);
	int head = want != 400 && c->sent >= 5 && !memcmp(c->req, "HEAD ", 5);	/* a 400 has no method */
	assert(c->resp_total == (size_t)(end + 4 - c->resp) + (head ? 0 : clen));
	assert(code == want);
	answers_read++;
}

static void frame_in(struct pkt *p)
{
	fake_port_rx(&port, p);
	lwif_accounts_check(0);
}

static struct pkt *eth_frame(uint16_t type)
{
	struct pkt *p = pkt_alloc(port.pool);
	if (!p)
		return NULL;
	struct eth_hdr *e = (void *)p->data;
	memcpy(e->dst, srv_mac, 6);
	memcpy(e->src, cli_mac, 6);
	e->type = hton16(type);
	p->flags = PKT_RX_IP_CSUM_OK | PKT_RX_L4_CSUM_OK;
	return p;
}

static void arp_in(uint16_t op)
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
	uint32_t s = hton32(CLI_IP), t = hton32(SRV_IP);
	memcpy(a->spa, &s, 4);
	memcpy(a->tha, srv_mac, 6);
	memcpy(a->tpa, &t, 4);
	p->len = 60;
	memset(p->data + ETH_HLEN + sizeof(*a), 0, 60 - ETH_HLEN - sizeof(*a));
	frame_in(p);
}

/* A segment from client c (checksums as the NIC verified them). */
static void tcp_in(struct client *c, uint8_t flags, const uint8_t *data, size_t n)
{
	struct pkt *p = eth_frame(ETHERTYPE_IPV4);
	if (!p)
		return;
	struct ipv4_hdr *ip = (void *)(p->data + ETH_HLEN);
	uint8_t *t = (uint8_t *)(ip + 1);
	size_t hl = (flags & TCP_SYN) && c->mss ? 24 : 20;
	*ip = (struct ipv4_hdr){ .ver_ihl = 0x45, .tot_len = hton16((uint16_t)(IPV4_HLEN + hl + n)), .ttl = 64, .proto = 6,
				 .saddr = hton32(CLI_IP), .daddr = hton32(SRV_IP) };
	ip->csum = hton16(inet_csum(ip, IPV4_HLEN));
	uint32_t seq = hton32(c->snd_nxt), ack = hton32(flags & TCP_ACK ? c->rcv_nxt : 0);
	memset(t, 0, hl);
	t[0] = (uint8_t)(c->port >> 8), t[1] = (uint8_t)c->port, t[2] = 0, t[3] = HTTP_PORT;
	memcpy(t + 4, &seq, 4);
	memcpy(t + 8, &ack, 4);
	t[12] = (uint8_t)(hl / 4 << 4), t[13] = flags, t[14] = 0xff, t[15] = 0xff;
	if (hl > 20)		/* MSS (RFC 9293 3.2) */
		t[20] = 2, t[21] = 4, t[22] = (uint8_t)(c->mss >> 8), t[23] = (uint8_t)c->mss;
	if (n)
		memcpy(t + hl, data, n);
	p->len = (uint16_t)(ETH_HLEN + IPV4_HLEN + hl + n);
	if (p->len < 60) {
		memset(p->data + p->len, 0, 60 - p->len);
		p->len = 60;
	}
	if (c->sent < sizeof(c->req) && n) {
		size_t k = n < sizeof(c->req) - c->sent ? n : sizeof(c->req) - c->sent;
		memcpy(c->req + c->sent, data, k);
	}
	c->sent += n;
	c->snd_nxt += (uint32_t)n + !!(flags & (TCP_SYN | TCP_FIN));
	frame_in(p);
}

/* A segment from the server to client c. */
static void tcp_out(struct client *c, const uint8_t *t, size_t n)
{
	uint32_t seq = (uint32_t)(t[4] << 24 | t[5] << 16 | t[6] << 8 | t[7]);
	uint8_t flags = t[13];
	size_t hl = (size_t)(t[12] >> 4) * 4, len = n - hl;
	assert(hl >= 20 && hl <= n);
	if (flags & TCP_RST) {
		c->st = CL_DEAD;
		return;
	}
	if (flags & TCP_SYN) {
		assert(flags & TCP_ACK);
		if (c->st == CL_SYN_SENT) {
			c->st = CL_OPEN;
			c->rcv_nxt = seq + 1;
		}
		if (!c->noack && nowed < (int)(sizeof(owed) / sizeof(owed[0])))
			owed[nowed++] = (typeof(owed[0])){ (int)(c - cl), TCP_ACK };
		return;
	}
	if (c->st != CL_OPEN || seq != c->rcv_nxt)
		return;		/* a retransmission */
	if (len) {
		if (c->resp_total < sizeof(c->resp) - 1) {
			size_t k = len < sizeof(c->resp) - 1 - c->resp_total ? len : sizeof(c->resp) - 1 - c->resp_total;
			memcpy(c->resp + c->resp_total, t + hl, k);
		}
		c->resp_total += len;
		c->rcv_nxt += (uint32_t)len;
	}
	if ((flags & TCP_FIN) && !c->srv_fin) {
		c->srv_fin = 1;
		c->rcv_nxt++;
		check_answer(c);
	}
	if ((len || (flags & TCP_FIN)) && !c->noack && nowed < (int)(sizeof(owed) / sizeof(owed[0])))
		owed[nowed++] = (typeof(owed[0])){ (int)(c - cl), TCP_ACK };
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
			uint16_t dport = (uint16_t)(t[2] << 8 | t[3]);
			struct client *c = &cl[(uint16_t)(dport - 40000) % 32 % (NCLIENT + 1)];	/* cl_connect's ports */
			assert(ip->ver_ihl == 0x45 && tot >= 40 && ETH_HLEN + tot <= p->len);
			if (ip->proto == 6 && ip->daddr == hton32(CLI_IP) && (t[0] << 8 | t[1]) == HTTP_PORT &&
			    c->port == dport && c->st != CL_CLOSED)
				tcp_out(c, t, tot - IPV4_HLEN);
		}
		pkt_free(p);
	}
	return n;
}

static const struct nic_ops ops = { .rx_burst = fake_rx, .tx_burst = fake_tx };

/* What the clients owe the server after its last frames. */
static void settle(void)
{
	for (int round = 0; round < 8 && (nowed || arp_owed); round++) {
		int n = nowed, arp = arp_owed;
		typeof(owed[0]) now[sizeof(owed) / sizeof(owed[0])];
		memcpy(now, owed, sizeof(now[0]) * (size_t)n);
		nowed = 0;
		arp_owed = 0;
		if (quiet)
			return;
		if (arp)
			arp_in(ARP_REPLY);
		for (int i = 0; i < n; i++) {
			struct client *c = &cl[now[i].c];
			if (c->st == CL_OPEN)
				tcp_in(c, now[i].flags, NULL, 0);
		}
	}
	nowed = 0;
	arp_owed = 0;
}

static void idle(void)
{
	app_of_port(0)->idle();
	settle();
}

static void cl_connect(struct client *c, uint8_t arg)
{
	int k = (int)(c - cl);
	c->gen++;
	*c = (struct client){ .st = CL_SYN_SENT, .gen = c->gen, .port = (uint16_t)(40000 + k + 32 * (c->gen % 512)),
			      .snd_nxt = 1000u * (uint32_t)c->gen, .noack = arg & 1, .mss = arg & 2 ? 1460 : 0 };
	tcp_in(c, TCP_SYN, NULL, 0);
	settle();
}

static const char *const canned[] = {
	"GET /metrics HTTP/1.0\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "GET /config?x=1 HTTP/1.0\n\n",
	"HEAD / HTTP/1.0\r\n\r\n", "GET /nope HTTP/1.0\r\n\r\n", "GET /metrics HTTP/1.0\r\n",
	"GET http://x/config HTTP/1.1\r\n\r\n", "HEAD http://x HTTP/1.0\r\n\r\n",
	"GET /capture?port=0&count=2&seconds=1 HTTP/1.0\r\n\r\n", "GET /capture?port=0&snaplen=0 HTTP/1.0\r\n\r\n",
	"GET /capture?port=0&dir=rx&filter=4,40,0,0,12,21,0,1,2054,6,0,0,262144,6,0,0,0 HTTP/1.0\r\n\r\n",
};

static void send_data(struct client *c, const uint8_t *d, size_t n)
{
	if (c->st != CL_OPEN || c->fin_sent)
		return;
	do {
		size_t k = n < 1460 ? n : 1460;
		tcp_in(c, TCP_ACK | TCP_PSH, d, k);
		d += k, n -= k;
	} while (n);
	settle();
}

/* "GET / HTTP/1.0", then a header line past HTTP_REQ_MAX bytes (set-up). */
static uint8_t too_large[HTTP_REQ_MAX + 64];

static void send_canned(struct client *c, uint8_t arg)
{
	size_t n = sizeof(canned) / sizeof(canned[0]);
	if (arg % (n + 1) < n)
		return send_data(c, (const uint8_t *)canned[arg % (n + 1)], strlen(canned[arg % (n + 1)]));
	send_data(c, too_large, sizeof(too_large));
}

/* 1 while the server holds a connection (http.c's tcp_arg on its PCB) or
 * a handshake is under way: what the end's silence waits out. */
static int server_busy(void)
{
	for (struct tcp_pcb *pcb = tcp_active_pcbs; pcb; pcb = pcb->next)
		if (pcb->local_port == HTTP_PORT && (pcb->callback_arg || pcb->state == SYN_RCVD))
			return 1;
	return 0;
}

/* The end: the clients silent for up to 220 s (each of HTTP_CONNS answers
 * may hold the server 4 * HTTP_IDLE_MS, and two 2 s steps, before it is
 * reset), until the server holds no connection, then one more client must
 * get /metrics (with an MSS of 1460: in 11 segments, not 29). */
static void wind_down(void)
{
	quiet = 1;
	for (int i = 0; i < 110 && server_busy(); i++) {
		fuzz_tsc += 2000000000ull;
		idle();
	}
	assert(!server_busy());
	quiet = 0;
	uint64_t outcomes = 0;
	for (int i = 0; i < HTTP_N; i++)
		if (i != HTTP_conns_accepted && i != HTTP_conns_refused && i != HTTP_no_memory &&
		    i != HTTP_half_open_expired)
			outcomes += mgmt_http[i];
	assert(outcomes >= mgmt_http[HTTP_conns_accepted]);
	struct client *c = &cl[NCLIENT];
	cl_connect(c, 2);
	const char *r = canned[0];
	send_data(c, (const uint8_t *)r, strlen(r));
	for (int i = 0; i < 100 && !c->srv_fin; i++) {	/* lwIP may have to ARP for the client again */
		fuzz_tsc += 100000000ull;
		idle();
		if (c->st == CL_SYN_SENT && i % 10 == 9) {	/* the SYN again, as a client's retransmission */
			c->snd_nxt--;
			tcp_in(c, TCP_SYN, NULL, 0);
			settle();
		}
		if (c->st == CL_OPEN && !c->sent)
			send_data(c, (const uint8_t *)r, strlen(r));
	}
	if (getenv("FUZZ_DEBUG")) { for (int k = 0; k < HTTP_N; k++) fprintf(stderr, "%s %lu ", mgmt_http_names[k], mgmt_http[k]); fprintf(stderr, "st %d fin %d total %zu resp %.20s\n", c->st, c->srv_fin, c->resp_total, c->resp); }
	assert(c->srv_fin && !strncmp(c->resp, "HTTP/1.0 200 ", 13) && c->resp_total > 4096 &&
	       strstr(c->resp, "\r\n\r\n# HELP linerate_build_info "));
	while (tcp_active_pcbs)
		tcp_abort(tcp_active_pcbs);
	while (tcp_tw_pcbs)
		tcp_abort(tcp_tw_pcbs);
	lwif_flush();	/* the resets */
}

static void setup(void)
{
	fake_port(&port, &ops, srv_mac, 0, 256);
	int errs = cmdline_parse("app=sink mgmt=port0 ip0=10.1.0.1/24 rr_heap=64 rr_pbufs=128 rr_conns=32",
				 __knobs_start, KNOBS_COUNT, 0, 0);
	assert(errs == 0);
	fuzz_dma_alloc = arena_alloc;
	assert(apps_start() == 0);
	/* /metrics once, so that its recording (metrics.c takes its memory
	 * at the first page) is in the arena, put back with it per input;
	 * the length http.c gives (OUT_MAX - HEAD_ROOM). */
	static char page[256 * 1024 - 256];
	size_t n;
	const char *ctype;
	int cut = 0;
	assert(__real_mgmt_page("/metrics", page, sizeof(page), &n, &ctype, &cut) == 200 && !cut && n > 4096);
	fuzz_dma_alloc = NULL;
	memset(too_large, 'a', sizeof(too_large));
	memcpy(too_large, "GET / HTTP/1.0\r\nX: ", 19);
	arp_in(ARP_REQUEST);	/* lwIP learns the clients' address */
	lwif_flush();
	arena_save();
	kstate_save();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	if (!arena_saved)
		setup();
	kstate_restore();
	arena_restore();
	memset(cl, 0, sizeof(cl));
	nowed = arp_owed = quiet = 0;
	fuzz_tsc = 1000000000ull;
	size_t i = 0;
	while (i < len) {
		uint8_t b = data[i++], op = b % 8, arg = 0;
		struct client *c = &cl[(b / 8) % NCLIENT];
		if ((op == 0 || op == 1 || op == 5 || op == 7) && i < len)
			arg = data[i++];
		switch (op) {
		case 0:
			if (c->st != CL_OPEN || c->srv_fin || c->fin_sent)
				cl_connect(c, arg);
			break;
		case 1: {
			size_t n = arg < len - i ? arg : len - i;
			send_data(c, data + i, n);
			i += n;
			break;
		}
		case 2:
			if (c->st == CL_OPEN)
				tcp_in(c, TCP_ACK, NULL, 0);
			settle();
			break;
		case 3:
			if (c->st == CL_OPEN && !c->fin_sent) {
				tcp_in(c, TCP_FIN | TCP_ACK, NULL, 0);
				c->fin_sent = 1;
				settle();
			}
			break;
		case 4:
			if (c->st == CL_OPEN || c->st == CL_SYN_SENT) {
				tcp_in(c, TCP_RST | TCP_ACK, NULL, 0);
				c->st = CL_DEAD;
				settle();
			}
			break;
		case 5:
			fuzz_tsc += arg * 10000000ull;
			idle();
			break;
		case 6:
			idle();
			break;
		default:
			send_canned(c, arg);
			break;
		}
	}
	wind_down();
	assert(lwif_rx_pbufs() == 0);
	assert(port.pool->nfree == port.pool->size);
	return 0;
}
