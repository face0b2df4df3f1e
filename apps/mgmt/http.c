/*
 * The management port's HTTP/1.0 server on lwIP's raw TCP API (RFC 9112
 * request line; every answer closes the connection). Callbacks only collect
 * the request; the poll loop's round (http_poll) builds at most one answer
 * and writes at most HTTP_BUDGET bytes, so serving never stalls the fast
 * path. GET and HEAD (RFC 9110 9.1; HEAD: the headers GET would have), the
 * request target in origin or absolute form (RFC 9112 3.2.1, 3.2.2).
 * Refused or broken requests end in a named counter: bad_request (no
 * request line, binary bytes), bad_method (405, not GET or HEAD), not_found
 * (404, the body names the pages), too_large (431, over HTTP_REQ_MAX),
 * timeouts (silent HTTP_IDLE_MS, or the request not all in HTTP_REQ_MS
 * after the accept, e.g. half requests or a byte every few seconds, or an
 * answer unacknowledged 4 * HTTP_IDLE_MS),
 * conns_refused (over HTTP_CONNS). A connection is closed once its answer
 * is acknowledged, and holds its slot until then: readers that stop
 * reading pin at most HTTP_CONNS answers in lwIP's heap. Handshakes are bounded
 * too (a SYN flood): mgmt.c drops SYNs beyond HTTP_HALF_OPEN before lwIP,
 * and a handshake not completed in HTTP_SYN_MS is dropped here without a
 * RST (half_open_expired; a flood's forged sources would never answer).
 */
#include <stdio.h>
#include <string.h>
#include "apps/mgmt/mgmt.h"
#include "drivers/net/capture.h"
#include "kernel/mem.h"	/* before lwIP's headers, which rename lwIP's mem_init */
#include "lwip/priv/tcp_priv.h"
#include "lwip/sys.h"
#include "lwip/tcp.h"
#include "net/lwip/lwif.h"
#include "net/pcapng.h"

#define OUT_MAX (256 * 1024)	/* the largest page: /metrics of 8 ports of 8 queues */
#define HEAD_ROOM 256		/* in front of the page: the status line and headers */
#define STREAM_MAX (32 * 1024)	/* /capture's blocks between two writes */

uint64_t mgmt_http[HTTP_N];
#define HTTP_NAME(name) #name,
const char *const mgmt_http_names[HTTP_N] = { HTTP_COUNTERS(HTTP_NAME) };

/* A connection: collecting its request (reset if silent HTTP_IDLE_MS, or
 * not complete HTTP_REQ_MS after the accept: start_ms),
 * waiting for its turn (the server makes it wait: no time-out), its answer
 * being written (one at a time), then written and waiting for the peer's
 * ACK of all of it before the close. Reset if the peer acknowledges nothing
 * for 4 * HTTP_IDLE_MS while its answer is written or waits for the ACK.
 * A GET /capture is not an answer of the one-at-a-time kind: it streams
 * (C_STREAM, one at a time of its own) beside the other answers. */
enum { C_FREE, C_READING, C_READY, C_SENDING, C_DRAINING, C_STREAM };
struct hconn {
	int state;
	struct tcp_pcb *pcb;
	uint32_t last_ms;
	uint32_t start_ms;
	size_t have;
	size_t scanned;	/* bytes header_done() has looked at */
	int done;	/* header_done() of the request as received */
	char req[HTTP_REQ_MAX + 1];
};
static struct hconn conns[HTTP_CONNS];
static char *out;		/* the answer being sent (one at a time) */
static char *out_start;
static size_t out_len, out_off;
static size_t out_head;	/* ... of which the status line and header */
static struct hconn *sending;
/* The /capture stream: its connection, blocks not yet written, whether
 * the capture goes on, and when it last wrote or had nothing to write. */
static struct hconn *streaming;
static uint8_t stream_buf[STREAM_MAX];
static struct pcapng_buf sb = { stream_buf, STREAM_MAX, 0 };
static size_t sb_off;
static int stream_more;
static uint32_t stream_ms;

static void conn_free(struct hconn *c)
{
	if (c == sending)
		sending = 0;
	if (c == streaming) {
		streaming = 0;
		mgmt_capture_close();
	}
	c->state = C_FREE;
	c->pcb = 0;
}

static void conn_abort(struct hconn *c, enum http_counter why)
{
	mgmt_http[why]++;
	tcp_arg(c->pcb, 0);
	tcp_abort(c->pcb);
	conn_free(c);
}

/* The peer acknowledged data: the connection is not idle. */
static err_t on_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
	struct hconn *c = arg;
	(void)pcb, (void)len;
	if (c)
		c->last_ms = sys_now();
	return ERR_OK;
}

/* The answer acknowledged: close (FIN), the PCB no longer ours. */
static void conn_close(struct hconn *c)
{
	tcp_arg(c->pcb, 0);
	tcp_recv(c->pcb, 0);
	tcp_err(c->pcb, 0);
	tcp_sent(c->pcb, 0);
	if (tcp_close(c->pcb) != ERR_OK)
		tcp_abort(c->pcb);
	conn_free(c);
}

static void on_err(void *arg, err_t err)
{
	struct hconn *c = arg;
	(void)err;
	if (c) {
		mgmt_http[HTTP_conns_reset]++;
		conn_free(c);	/* lwIP freed the pcb */
	}
}

/* 1 once the request's header ends (its first blank line, RFC 9112 2.1);
 * -1 if a byte before that is one no HTTP header has (binary): control
 * characters other than CR, LF and TAB. What follows the header (a body, a
 * pipelined request) is not looked at, so the outcome does not depend on
 * how TCP cut the bytes. Scans from where the last call stopped. */
static int header_done(struct hconn *c)
{
	for (; c->scanned < c->have; c->scanned++) {
		size_t i = c->scanned;
		unsigned char b = (unsigned char)c->req[i];
		if ((b < 32 && b != '\r' && b != '\n' && b != '\t') || b == 127)
			return -1;
		if (b == '\n' && ((i >= 1 && c->req[i - 1] == '\n') || (i >= 3 && !memcmp(c->req + i - 3, "\r\n\r\n", 4))))
			return 1;
	}
	return 0;
}

static err_t on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	struct hconn *c = arg;
	(void)err;
	if (!c) {
		if (p)
			pbuf_free(p);
		return ERR_OK;
	}
	if (!p) {	/* the peer closed before its request ended */
		if (c->state != C_READING)
			return ERR_OK;
		mgmt_http[HTTP_bad_request]++;
		conn_free(c);
		tcp_arg(pcb, 0);
		if (tcp_close(pcb) == ERR_OK)
			return ERR_OK;
		tcp_abort(pcb);
		return ERR_ABRT;
	}
	tcp_recved(pcb, p->tot_len);
	if (c->state == C_READING) {	/* later bytes do not keep an answer alive */
		c->last_ms = sys_now();
		size_t room = HTTP_REQ_MAX - c->have, n = p->tot_len < room ? p->tot_len : room;
		pbuf_copy_partial(p, c->req + c->have, (u16_t)n, 0);
		c->have += n;
		c->req[c->have] = 0;
		c->done = header_done(c);
		if (c->done || c->have == HTTP_REQ_MAX)
			c->state = C_READY;	/* http_poll answers, or refuses */
	}
	pbuf_free(p);
	return ERR_OK;
}

static err_t on_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	(void)arg;
	if (err != ERR_OK || !pcb)
		return ERR_VAL;
	for (int i = 0; i < HTTP_CONNS; i++) {
		struct hconn *c = &conns[i];
		if (c->state != C_FREE)
			continue;
		*c = (struct hconn){ .state = C_READING, .pcb = pcb, .last_ms = sys_now(), .start_ms = sys_now() };
		tcp_arg(pcb, c);
		tcp_recv(pcb, on_recv);
		tcp_err(pcb, on_err);
		tcp_sent(pcb, on_sent);
		mgmt_http[HTTP_conns_accepted]++;
		return ERR_OK;
	}
	mgmt_http[HTTP_conns_refused]++;
	tcp_abort(pcb);
	return ERR_ABRT;
}

int http_init(void)
{
	out = dma_alloc(OUT_MAX, 64);
	struct tcp_pcb *pcb = tcp_new();
	if (!out || !pcb || tcp_bind(pcb, IP_ANY_TYPE, HTTP_PORT) != ERR_OK) {
		printf("mgmt: cannot listen on TCP %d\n", HTTP_PORT);
		return -1;
	}
	pcb = tcp_listen(pcb);
	if (!pcb)
		return -1;
	tcp_accept(pcb, on_accept);
	return 0;
}

/* The status line and headers in front of the body at out + HEAD_ROOM, no
 * copy of the body: the answer is out_start .. out_start + out_len. */
static void answer(int code, const char *reason, const char *ctype, size_t body, const char *extra)
{
	char head[HEAD_ROOM];
	int h = snprintf(head, sizeof(head),
			 "HTTP/1.0 %d %s\r\nContent-Type: %s\r\nContent-Length: %lu\r\n%sConnection: close\r\n\r\n",
			 code, reason, ctype, (unsigned long)body, extra);
	out_start = out + HEAD_ROOM - h;
	memcpy(out_start, head, (size_t)h);
	out_len = (size_t)h + body;
	out_head = (size_t)h;
	out_off = 0;
}

static void error_page(int code, const char *reason, enum http_counter why, const char *extra, const char *hint)
{
	mgmt_http[why]++;
	int n = snprintf(out + HEAD_ROOM, OUT_MAX - HEAD_ROOM, "%d %s\n%s", code, reason, hint);
	answer(code, reason, "text/plain; charset=utf-8", (size_t)n, extra);
}

/* The request line "METHOD SP TARGET SP HTTP/1.x" (RFC 9112 3): method
 * and the target's path into their buffers (NUL-terminated); the target in
 * origin form ("/metrics") or absolute form ("http://host/metrics", the
 * path "/" when it has none; RFC 9112 3.2.2). 0, or -1 if it is not one. */
static int request_line(const char *r, char *method, size_t mlen, char *path, size_t plen)
{
	size_t m = strspn(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
	if (!m || m >= mlen || r[m] != ' ')
		return -1;
	const char *p = r + m + 1;
	size_t n = strcspn(p, " \r\n");
	if (!n || strncmp(p + n, " HTTP/1.", 8) || p[n + 8] < '0' || p[n + 8] > '9' ||
	    (p[n + 9] != '\r' && p[n + 9] != '\n'))
		return -1;
	const char *end = p + n;
	if (!strncasecmp(p, "http://", 7)) {	/* absolute form: skip the scheme and authority */
		p += 7;
		p += strcspn(p, "/ ");
		n = (size_t)(end - p);
	}
	if (n >= plen || (n && p[0] != '/') || (!n && end[-1] == '/'))
		return -1;
	memcpy(method, r, m);
	method[m] = 0;
	memcpy(path, n ? p : "/", n ? n : 1);
	path[n ? n : 1] = 0;
	return 0;
}

/* Build the answer to a request whose line was method and path, its
 * header complete (done 1) or not (0). */
static void page(int done, const char *method, char *path)
{
	if (!done)
		return error_page(431, "Request Header Fields Too Large", HTTP_too_large, "", "");
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return error_page(405, "Method Not Allowed", HTTP_bad_method, "Allow: GET, HEAD\r\n", "");
	char *q = strchr(path, '?');
	if (q)
		*q = 0;
	const char *ctype;
	size_t len;
	int truncated = 0;
	if (mgmt_page(path, out + HEAD_ROOM, OUT_MAX - HEAD_ROOM, &len, &ctype, &truncated) != 200)
		return error_page(404, "Not Found", HTTP_not_found, "", "pages: " MGMT_PATHS "\n");
	mgmt_http[truncated ? HTTP_truncated : HTTP_ok]++;
	answer(200, "OK", ctype, len, "");
}

/* GET /capture?query: c becomes the stream, its header in sb; or the
 * refusal (409 while a capture runs, else 400) with the reason in out. */
static void stream_open(struct hconn *c, const char *query)
{
	const char *why = "a capture's stream is being sent already; one at a time";
	int busy = streaming || capture_running();
	if (streaming || mgmt_capture_open(query, &why)) {
		mgmt_http[busy ? HTTP_capture_busy : HTTP_bad_request]++;
		int n = snprintf(out + HEAD_ROOM, OUT_MAX - HEAD_ROOM, "%s\n", why);
		answer(busy ? 409 : 400, busy ? "Conflict" : "Bad Request", "text/plain; charset=utf-8", (size_t)n, "");
		return;
	}
	mgmt_http[HTTP_captures]++;
	c->state = C_STREAM;
	streaming = c;
	sb.len = (size_t)snprintf((char *)sb.b, sb.cap, "HTTP/1.0 200 OK\r\nContent-Type: application/x-pcapng\r\n"
				  "Connection: close\r\n\r\n");
	sb_off = 0;
	stream_more = 1;
	stream_ms = sys_now();
}

/* Build the answer to c's request (out_start, out_len); to HEAD the
 * header GET would get, without the content (RFC 9110 9.3.2). */
static void respond(struct hconn *c)
{
	char method[16], path[1024];
	if (c->done < 0 || request_line(c->req, method, sizeof(method), path, sizeof(path)))
		return error_page(400, "Bad Request", HTTP_bad_request, "", "");
	if (c->done == 1 && !strcmp(method, "GET") && !strncmp(path, "/capture", 8) && (!path[8] || path[8] == '?'))
		return stream_open(c, path[8] ? path + 9 : NULL);
	page(c->done, method, path);
	if (!strcmp(method, "HEAD"))
		out_len = out_head;
}

/* Write what fits of the left bytes at p, at most budget bytes; returns
 * the bytes queued. A write lwIP refuses for want of heap (no_memory) is
 * tried again at half the size down to one segment: a small heap
 * (rr_heap=64) holds fewer segments of a peer's 536-byte default MSS than
 * a budget takes. */
static size_t send_some(struct hconn *c, const char *p, size_t left, size_t budget)
{
	size_t room = tcp_sndbuf(c->pcb), n = left;
	if (n > room)
		n = room;
	if (n > budget)
		n = budget;
	if (n > 0xffff)
		n = 0xffff;
	if (!n || tcp_sndqueuelen(c->pcb) >= TCP_SND_QUEUELEN - 4)
		return 0;
	while (tcp_write(c->pcb, p, (u16_t)n, TCP_WRITE_FLAG_COPY) != ERR_OK) {
		mgmt_http[HTTP_no_memory]++;
		if (n <= tcp_mss(c->pcb))
			return 0;
		n /= 2;
	}
	tcp_output(c->pcb);
	return n;
}

/* The /capture stream's round: blocks from the capture when the last are
 * written, then what fits. Ends it (C_DRAINING) after the ISB; a client
 * that takes nothing for HTTP_STALL_MS ends it too (capture_stalled).
 * Returns work done. */
static int stream_poll(uint32_t now)
{
	struct hconn *c = streaming;
	if (!c)
		return 0;
	if (sb_off == sb.len) {
		sb.len = sb_off = 0;
		stream_ms = now;	/* nothing waits: not stalled */
		if (stream_more)
			stream_more = mgmt_capture_read(&sb);
		if (!sb.len && !stream_more) {
			c->state = C_DRAINING;	/* closed once the peer has all of it */
			c->last_ms = now;
			streaming = 0;
			return 1;
		}
	}
	size_t n = send_some(c, (const char *)sb.b + sb_off, sb.len - sb_off, HTTP_BUDGET);
	sb_off += n;
	if (n)
		stream_ms = now;
	else if (now - stream_ms > HTTP_STALL_MS)
		conn_abort(c, HTTP_capture_stalled);
	return n > 0;
}

int http_half_open(void)
{
	int n = 0;
	for (struct tcp_pcb *pcb = tcp_active_pcbs; pcb; pcb = pcb->next)
		n += pcb->state == SYN_RCVD && pcb->local_port == HTTP_PORT;
	return n;
}

static int http_port(uint16_t port)
{
	return port == HTTP_PORT;
}

int http_poll(void)
{
	int work = 0;
	uint32_t now = sys_now();
	static uint32_t next_expire;
	if (now - next_expire < 1u << 31) {
		next_expire = now + 100;
		mgmt_http[HTTP_half_open_expired] += (uint64_t)lwif_expire_half_open(http_port, HTTP_SYN_MS, NULL);
	}
	for (int i = 0; i < HTTP_CONNS; i++) {
		struct hconn *c = &conns[i];
		if (c->state == C_DRAINING && !tcp_sndqueuelen(c->pcb)) {
			conn_close(c);
			work++;
		} else if (c->state == C_READING &&
			   (now - c->last_ms > HTTP_IDLE_MS || now - c->start_ms > HTTP_REQ_MS)) {
			conn_abort(c, HTTP_timeouts);
		} else if (c->state == C_DRAINING && now - c->last_ms > 4 * HTTP_IDLE_MS) {
			conn_abort(c, HTTP_timeouts);	/* a reader that stopped reading */
		}
	}
	if (!sending) {
		for (int i = 0; i < HTTP_CONNS && !sending; i++)
			if (conns[i].state == C_READY) {
				sending = &conns[i];
				sending->state = C_SENDING;
				sending->last_ms = now;	/* from here, the peer's ACKs (on_sent) */
				respond(sending);
				if (sending->state == C_STREAM)
					sending = 0;
				work++;
			}
	}
	if (sending) {
		struct hconn *c = sending;
		size_t n = send_some(c, out_start + out_off, out_len - out_off, HTTP_BUDGET);
		out_off += n;
		if (n)
			work++;
		if (out_off == out_len) {
			c->state = C_DRAINING;	/* closed once the peer has all of it */
			sending = 0;
		} else if (now - c->last_ms > 4 * HTTP_IDLE_MS) {
			conn_abort(c, HTTP_timeouts);	/* a reader that stopped reading */
		}
	}
	return work + stream_poll(now);
}
