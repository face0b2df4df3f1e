/* Fuzz the management port's HTTP server (apps/mgmt/http.c: request
 * collection, the request line, the answer, the send budget, time-outs)
 * behind mgmt's receive path (apps/mgmt/mgmt.c: the half-open SYN limit,
 * rr's checks) and lwIP's TCP, with clients that speak TCP correctly
 * (tests/fuzz/tcpclient.c): the harness is up to NCLIENT TCP clients at
 * 10.1.0.2 (ports 40000 + ...), the server mgmt=port0 at 10.1.0.1. The input is a program of client steps:
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
#include "tests/fuzz/tcpclient.h"

#define NCLIENT 24		/* > HTTP_HALF_OPEN: a SYN flood reaches the limit */

static struct tc_client *const cl = tc_cl;	/* NCLIENT, and the end's check */
static uint64_t answers_read;

/* The real pages (apps/mgmt/metrics.c: /metrics, "/", /config), through
 * the linker's --wrap: "/" is given at most STATUS_CUT bytes, so that its
 * page is cut and http.c's truncated answer is taken too. */
#define STATUS_CUT 512
int __real_mgmt_page(const char *path, char *buf, size_t len, size_t *out, const char **ctype, int *truncated);

/* /config (show config) as set-up made it, for a buffer of config_len
 * bytes: the page is the knobs' values, set at set-up and put back with
 * the kernel state before each input (no client step sets a knob), so
 * every input would get these bytes. Made again at each request it was
 * 72 % of the harness's time with show config's old sort (group_of's
 * strncmp twice in each comparison, under ASan's interceptor and
 * libFuzzer's compare hook); with the sort that finds each group once it
 * is still 17 % (a knob_value and a vsnprintf a knob), and run.py
 * --seconds 60 http went at 587 executions a second against the copy's
 * 1,138-1,317 (3 December 2026, load 3.7-4.6). */
static char *config_copy;
static size_t config_n, config_len;
static const char *config_ctype;

int __wrap_mgmt_page(const char *path, char *buf, size_t len, size_t *out, const char **ctype, int *truncated)
{
	if (!strcmp(path, "/") && len > STATUS_CUT)
		len = STATUS_CUT;
	if (config_copy && len == config_len && !strcmp(path, "/config")) {
		memcpy(buf, config_copy, config_n + 1);
		*out = config_n;
		*ctype = config_ctype;
		*truncated = 0;
		return 200;
	}
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
static void check_answer(struct tc_client *c)
{
	int want = ref_status(c->sent_data, c->sent);
	if (!c->recv_total) {
		assert(want == 0);	/* closed without an answer: no whole request */
		return;
	}
	int code = 0;
	unsigned long clen = 0;
	const char *cl_at = strstr(c->recv_data, "\r\nContent-Length: ");
	const char *end = strstr(c->recv_data, "\r\n\r\n");
	if (want == CAPTURE && sscanf(c->recv_data, "HTTP/1.0 %d ", &code) == 1 && code == 200) {
		assert(end && strstr(c->recv_data, "Content-Type: application/x-pcapng\r\n") && (!cl_at || cl_at > end));
		answers_read++;
		return;
	}
	if (want == CAPTURE)
		want = code == 409 ? 409 : 400;
	assert(sscanf(c->recv_data, "HTTP/1.0 %d ", &code) == 1 && cl_at && end && cl_at < end);
	assert(sscanf(cl_at, "\r\nContent-Length: %lu\r\n", &clen) == 1);
	int head = want != 400 && c->sent >= 5 && !memcmp(c->sent_data, "HEAD ", 5);	/* a 400 has no method */
	assert(c->recv_total == (size_t)(end + 4 - c->recv_data) + (head ? 0 : clen));
	assert(code == want);
	answers_read++;
}

static const char *const canned[] = {
	"GET /metrics HTTP/1.0\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "GET /config?x=1 HTTP/1.0\n\n",
	"HEAD / HTTP/1.0\r\n\r\n", "GET /nope HTTP/1.0\r\n\r\n", "GET /metrics HTTP/1.0\r\n",
	"GET http://x/config HTTP/1.1\r\n\r\n", "HEAD http://x HTTP/1.0\r\n\r\n",
	"GET /capture?port=0&count=2&seconds=1 HTTP/1.0\r\n\r\n", "GET /capture?port=0&snaplen=0 HTTP/1.0\r\n\r\n",
	"GET /capture?port=0&dir=rx&filter=4,40,0,0,12,21,0,1,2054,6,0,0,262144,6,0,0,0 HTTP/1.0\r\n\r\n",
};

/* "GET / HTTP/1.0", then a header line past HTTP_REQ_MAX bytes (set-up). */
static uint8_t too_large[HTTP_REQ_MAX + 64];

static void send_canned(struct tc_client *c, uint8_t arg)
{
	size_t n = sizeof(canned) / sizeof(canned[0]);
	if (arg % (n + 1) < n)
		return tc_send(c, (const uint8_t *)canned[arg % (n + 1)], strlen(canned[arg % (n + 1)]));
	tc_send(c, too_large, sizeof(too_large));
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
 * get /metrics (with an MSS of 1460: in 11 segments, not 29), its
 * coverage not the input's (tc_cov_save). */
static void wind_down(void)
{
	tc_quiet = 1;
	for (int i = 0; i < 110 && server_busy(); i++) {
		fuzz_tsc += 2000000000ull;
		tc_idle();
	}
	assert(!server_busy());
	tc_quiet = 0;
	uint64_t outcomes = 0;
	for (int i = 0; i < HTTP_N; i++)
		if (i != HTTP_conns_accepted && i != HTTP_conns_refused && i != HTTP_no_memory &&
		    i != HTTP_half_open_expired)
			outcomes += mgmt_http[i];
	assert(outcomes >= mgmt_http[HTTP_conns_accepted]);
	tc_cov_save();
	struct tc_client *c = &cl[NCLIENT];
	tc_connect(c, 0, 1);
	const char *r = canned[0];
	tc_send(c, (const uint8_t *)r, strlen(r));
	for (int i = 0; i < 100 && !c->srv_fin; i++) {	/* lwIP may have to ARP for the client again */
		fuzz_tsc += 100000000ull;
		tc_idle();
		if (c->st == TC_SYN_SENT && i % 10 == 9) {	/* the SYN again, as a client's retransmission */
			c->snd_nxt--;
			tc_segment(c, TCP_SYN, NULL, 0);
			tc_settle();
		}
		if (c->st == TC_OPEN && !c->sent)
			tc_send(c, (const uint8_t *)r, strlen(r));
	}
	assert(c->srv_fin && !strncmp(c->recv_data, "HTTP/1.0 200 ", 13) && c->recv_total > 4096 &&
	       strstr(c->recv_data, "\r\n\r\n# HELP linerate_build_info "));
	tc_cov_restore();
	while (tcp_active_pcbs)
		tcp_abort(tcp_active_pcbs);
	while (tcp_tw_pcbs)
		tcp_abort(tcp_tw_pcbs);
	lwif_flush();	/* the resets */
}

static void setup(void)
{
	tc = (struct tc_world){ .srv_port = HTTP_PORT, .n = NCLIENT + 1, .fin = check_answer };
	tc_port_create(256);
	/* capture_buffers=16, the least: each GET /capture takes its ring
	 * (slots of snaplen 2048) and frees it at the end; at the default 256
	 * slots (540 KB, mapped and zeroed anew each time) 12 % of the time. */
	int errs = cmdline_parse("app=sink mgmt=port0 ip0=10.1.0.1/24 rr_heap=64 rr_pbufs=128 rr_conns=32 "
				 "capture_buffers=16", __knobs_start, KNOBS_COUNT, 0, 0);
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
	assert(__real_mgmt_page("/config", page, sizeof(page), &config_n, &config_ctype, &cut) == 200 && !cut);
	config_copy = malloc(config_n + 1);
	memcpy(config_copy, page, config_n + 1);
	config_len = sizeof(page);
	memset(too_large, 'a', sizeof(too_large));
	memcpy(too_large, "GET / HTTP/1.0\r\nX: ", 19);
	tc_arp_in(ARP_REQUEST);	/* lwIP learns the clients' address */
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
	tc_reset();
	fuzz_tsc = 1000000000ull;
	size_t i = 0;
	while (i < len) {
		uint8_t b = data[i++], op = b % 8, arg = 0;
		struct tc_client *c = &cl[(b / 8) % NCLIENT];
		if ((op == 0 || op == 1 || op == 5 || op == 7) && i < len)
			arg = data[i++];
		if (tc_step(c, op, arg, data, len, &i))
			continue;
		if (op == 6)
			tc_idle();
		else
			send_canned(c, arg);
	}
	wind_down();
	assert(lwif_rx_pbufs() == 0);
	assert(tc_port.pool->nfree == tc_port.pool->size);
	return 0;
}
