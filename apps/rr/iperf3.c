/*
 * An iperf3 3.12 server on TCP iperf3_port (5201), one test at a time, as
 * iperf3 -s (its iperf_server_api.c and iperf_api.c, read for the
 * protocol): the control connection sends a 37-byte cookie; the server
 * asks for the parameters (PARAM_EXCHANGE), which come as a 32-bit length
 * and JSON (parsed with Debian's cJSON 1.7.15); it asks for the streams
 * (CREATE_STREAMS), each a TCP connection to the same port that starts
 * with the cookie; TEST_START, TEST_RUNNING; the client's streams send
 * (the server's with -R, both with --bidir) until the client's TEST_END;
 * the server closes the streams, asks for the results (EXCHANGE_RESULTS),
 * takes the client's JSON, sends its own (bytes per stream, CPU% from the
 * cores' halted cycles), then DISPLAY_RESULTS; the client ends with
 * IPERF_DONE. UDP (-u): each stream announces itself with a datagram to
 * the same port, answered, then sends datagrams carrying their send time
 * and sequence number, from which the server counts the missing ones and
 * the jitter (iperf_udp_recv); with -R or --bidir the server's streams
 * send such datagrams (iperf_udp_send: the send time, a sequence number
 * from 1) at -b's rate per stream (iperf3's 1 Mbit/s default; 0, no
 * limit, is IP3_UDP_BURST datagrams a poll), paced from rr's idle poll
 * (iperf3_poll) with lwIP's udp_sendto (lwif_udp_sendto).
 * Bad input, counted: a connection while a test runs (iperf3_busy: iperf3's
 * ACCESS_DENIED), a stream whose cookie is not the test's
 * (iperf3_bad_cookie: closed), JSON past IP3_JSON_MAX or that does not parse,
 * or parameters out of range (iperf3_bad_json: the test ends), keys iperf3
 * 3.12 does not send (iperf3_unknown_key, ignored), the control connection
 * gone mid-test (iperf3_client_gone: the streams closed; also a client
 * not heard from for IP3_RCV_TIMEOUT past the test's -t, closed by
 * rr_idle), a datagram to the port that is no stream's (iperf3_udp_stray).
 */
#include <stdio.h>
#include <string.h>
#include "apps/rr/rr.h"
#include "cJSON.h"
#include "kernel/cpu.h"
#include "kernel/knobs.h"
#include "kernel/mem.h"	/* before lwIP's headers, which rename lwIP's mem_init */
#include "kernel/time.h"
#include "lwip/tcp.h"
#include "lwip/udp.h"
#include "net/bytes.h"
#include "net/lwip/lwif.h"
#include "run/lcore.h"

#define IP3_COOKIE	37	/* iperf3's COOKIE_SIZE: an ASCII UUID and its NUL */
#define IP3_STREAMS	16	/* -P at most (--bidir: twice as many streams) */
#define IP3_JSON_MAX	8192	/* parameters or results JSON, bytes */
#define IP3_OUT_MAX	(IP3_JSON_MAX + 64)	/* control bytes waiting for lwIP: states, a length and JSON */
#define IP3_LEN_MAX	65535	/* -l at most: what a sender stream sends from */
#define IP3_UDP_BURST	8	/* datagrams a UDP sender stream sends at most per poll */
#define IP3_RCV_TIMEOUT	120	/* s: iperf3's DEFAULT_NO_MSG_RCVD_TIMEOUT (--rcv-timeout) */
#define IP3_TIME_MAX	86400	/* s: iperf3's MAX_TIME, -t at most */

/* iperf3's states (iperf_api.h), sent as one signed byte. */
enum { TEST_START = 1, TEST_RUNNING = 2, TEST_END = 4, PARAM_EXCHANGE = 9, CREATE_STREAMS = 10,
       EXCHANGE_RESULTS = 13, DISPLAY_RESULTS = 14, IPERF_DONE = 16, ACCESS_DENIED = -1, SERVER_ERROR = -2 };
/* A UDP stream's first datagram and the server's answer: 32-bit values in
 * the host order of both ends, x86's here (iperf.h). */
#define UDP_CONNECT_MSG		0x36373839u
#define UDP_CONNECT_REPLY	0x39383736u

int64_t iperf3_port = 5201;
static const struct knob_range port_range[] = { { 0, 65535 } };
KNOB(iperf3_port, .name = "iperf3_port", .type = KNOB_INT, .ranges = port_range, .nranges = 1, .ival = &iperf3_port,
     .help = "rr: TCP and UDP port of the iperf3 3.12 server (TCP and UDP -u; -R, -P, --bidir, -b; 0: off); default 5201");

/* Where the control connection is. */
enum ip3_state { IP3_IDLE, IP3_COOKIE_IN, IP3_PARAMS, IP3_STREAMS_IN, IP3_RUNNING, IP3_RESULTS, IP3_DONE };

struct ip3_stream {
	struct rr_conn *c;	/* a TCP stream's connection */
	uint16_t udp_port;	/* a UDP stream's client port */
	uint32_t have;		/* cookie bytes so far */
	int sender;		/* the server sends on it (-R, --bidir) */
	uint64_t bytes;
	uint32_t part, sends;
	uint64_t packets, errors;	/* UDP: the highest sequence number (sent, for a sender), those missing */
	double transit, jitter;		/* UDP: the last transit time and RFC 3550 jitter, s */
};

static struct {
	enum ip3_state state;
	struct rr_conn *ctl;
	uint8_t cookie[IP3_COOKIE];
	uint32_t have;			/* bytes of the cookie, or of the length and JSON, so far */
	uint8_t len[4];
	char *json;			/* IP3_JSON_MAX + 1 bytes, from free pages */
	uint32_t json_len;
	struct rr_out out;		/* control bytes lwIP has not taken yet: IP3_OUT_MAX, from free pages */
	int reverse, bidir, parallel, udp, counters64;
	int duration;			/* -t + -O, s (at most IP3_TIME_MAX each) */
	uint64_t heard_tsc;		/* the client last heard from (a test's start: its end) */
	uint64_t rate;			/* UDP senders: -b, bits/s per stream; 0: no limit */
	int accepted, streams_in;	/* stream connections taken; ... whose cookie is in */
	uint32_t blksize;
	struct ip3_stream s[2 * IP3_STREAMS];
	uint64_t start_tsc, end_tsc, halted;
	int port;
	struct udp_pcb *udp_pcb;
} ip3;
static uint8_t *ip3_data;	/* what sender streams send: IP3_LEN_MAX bytes */
static int ctl_marker, busy_marker;	/* owners of the control connection and of refused ones */

/* n bytes of d to the control connection, after those waiting (rr_out).
 * They fit: a control connection is sent at most its five state bytes, a
 * length, IP3_JSON_MAX bytes of JSON (send_json) and DISPLAY_RESULTS, and
 * ip3.out starts empty with each (iperf3_accept). */
static void ctl_send(const void *d, uint32_t n)
{
	rr_out_send(ip3.ctl, &ip3.out, d, n);
}

static void send_state(signed char st)
{
	ctl_send(&st, 1);
}

/* A 32-bit length, then the JSON text of j (freed); 0, or -1 (no memory
 * for the text, or longer than IP3_JSON_MAX: nothing sent). */
static int send_json(cJSON *j)
{
	char *txt = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	uint32_t n = txt ? (uint32_t)strlen(txt) : 0;
	if (!txt || n > IP3_JSON_MAX) {
		cJSON_free(txt);
		return -1;
	}
	uint8_t len[4];
	put32(len, n);
	ctl_send(len, 4);
	ctl_send(txt, n);
	cJSON_free(txt);
	return 0;
}

/* Close every stream; with ctl, the control connection too (from its
 * receive callback only). */
static void test_reset(int ctl)
{
	for (int i = 0; i < 2 * IP3_STREAMS; i++)
		if (ip3.s[i].c) {
			struct rr_conn *c = ip3.s[i].c;
			ip3.s[i].c = NULL;
			c->owner = NULL;
			rr_tcp_close(c);
		}
	if (ctl && ip3.ctl) {	/* closed as its receive callback returns (peer_fin) */
		ip3.ctl->owner = NULL;
		ip3.ctl->peer_fin = 1;
		ip3.ctl = NULL;
		ip3.state = IP3_IDLE;
	}
}

static const char *const known_keys[] = {
	"tcp", "udp", "sctp", "omit", "time", "num", "blockcount", "MSS", "nodelay", "parallel", "reverse",
	"bidirectional", "window", "len", "bandwidth", "fqrate", "pacing_timer", "burst", "TOS", "flowlabel",
	"title", "extra_data", "congestion", "congestion_used", "get_server_output", "udp_counters_64bit",
	"repeating_payload", "zerocopy", "dont_fragment", "client_version", "authtoken",
};

static int key_known(const char *k)
{
	for (size_t i = 0; i < sizeof(known_keys) / sizeof(known_keys[0]); i++)
		if (!strcmp(k, known_keys[i]))
			return 1;
	return 0;
}

static int get_int(cJSON *j, const char *k, int dflt)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);
	return cJSON_IsNumber(v) ? v->valueint : cJSON_IsTrue(v) ? 1 : dflt;
}

/* The parameters in ip3.json: 0, or -1 (bad, counted). */
static int params(void)
{
	cJSON *j = cJSON_ParseWithLength(ip3.json, ip3.json_len);
	if (!cJSON_IsObject(j)) {
		cJSON_Delete(j);
		rr_count(ip3.port, RR_iperf3_bad_json, 1);
		return -1;
	}
	for (cJSON *k = j->child; k; k = k->next)
		if (!key_known(k->string))
			rr_count(ip3.port, RR_iperf3_unknown_key, 1);
	int udp = get_int(j, "udp", 0), len = get_int(j, "len", 128 * 1024);
	ip3.parallel = get_int(j, "parallel", 1);
	ip3.reverse = get_int(j, "reverse", 0);
	ip3.bidir = get_int(j, "bidirectional", 0);
	ip3.counters64 = get_int(j, "udp_counters_64bit", 0);
	int t = get_int(j, "time", 10), omit = get_int(j, "omit", 0);
	ip3.duration = (t < 0 ? 0 : t > IP3_TIME_MAX ? IP3_TIME_MAX : t) + (omit < 0 ? 0 : omit > IP3_TIME_MAX ? IP3_TIME_MAX : omit);
	cJSON *bw = cJSON_GetObjectItemCaseSensitive(j, "bandwidth");
	ip3.rate = cJSON_IsNumber(bw) && bw->valuedouble > 0 ? (uint64_t)bw->valuedouble : udp ? 1u << 20 : 0;
	cJSON_Delete(j);
	if (ip3.parallel < 1 || ip3.parallel > IP3_STREAMS || len < 1) {
		rr_count(ip3.port, RR_iperf3_bad_json, 1);
		return -1;
	}
	ip3.blksize = len > IP3_LEN_MAX ? IP3_LEN_MAX : (uint32_t)len;
	ip3.udp = udp;
	if (udp)
		rr_count(ip3.port, RR_iperf3_udp, 1);
	return 0;
}

/* The server's results JSON (send_json): 0, or -1 (nothing sent). */
static int send_results(void)
{
	uint64_t cycles = ip3.end_tsc - ip3.start_tsc;
	double secs = (double)cycles / (double)tsc.hz;
	double idle = cycles ? (double)(lcore_halted_cycles() - ip3.halted) / ((double)cycles * nlcores) : 1;
	double cpu = idle < 1 ? 100 * (1 - idle) : 0;
	int sender = ip3.reverse || ip3.bidir;
	cJSON *j = cJSON_CreateObject(), *streams = cJSON_CreateArray();
	cJSON_AddNumberToObject(j, "cpu_util_total", cpu);
	cJSON_AddNumberToObject(j, "cpu_util_user", 0);
	cJSON_AddNumberToObject(j, "cpu_util_system", cpu);
	cJSON_AddNumberToObject(j, "sender_has_retransmits", sender ? 0 : -1);
	for (int i = 0; i < ip3.streams_in; i++) {
		cJSON *s = cJSON_CreateObject();
		cJSON_AddNumberToObject(s, "id", i ? i + 2 : 1);	/* iperf3's ids: 1, 3, 4, ... */
		cJSON_AddNumberToObject(s, "bytes", (double)ip3.s[i].bytes);
		cJSON_AddNumberToObject(s, "retransmits", ip3.s[i].sender ? 0 : -1);
		cJSON_AddNumberToObject(s, "jitter", ip3.s[i].jitter);
		cJSON_AddNumberToObject(s, "errors", (double)ip3.s[i].errors);
		cJSON_AddNumberToObject(s, "packets", (double)ip3.s[i].packets);
		cJSON_AddNumberToObject(s, "start_time", 0);
		cJSON_AddNumberToObject(s, "end_time", secs);
		cJSON_AddItemToArray(streams, s);
	}
	cJSON_AddItemToObject(j, "streams", streams);
	return send_json(j);
}

/* Take n bytes of a 32-bit length and JSON from p at *off; 1 when the
 * JSON is whole in ip3.json, 0 for more, -1 past IP3_JSON_MAX. */
static int take_json(struct pbuf *p, u16_t *off)
{
	while (*off < p->tot_len) {
		if (ip3.have < 4) {
			ip3.len[ip3.have++] = pbuf_get_at(p, (*off)++);
			if (ip3.have == 4 && get32(ip3.len) > IP3_JSON_MAX)
				return -1;
			continue;
		}
		uint32_t want = get32(ip3.len), n = want - ip3.json_len;
		n = n < (uint32_t)(p->tot_len - *off) ? n : (uint32_t)(p->tot_len - *off);
		pbuf_copy_partial(p, ip3.json + ip3.json_len, (u16_t)n, *off);
		*off = (u16_t)(*off + n);
		ip3.json_len += n;
		if (ip3.json_len == want)
			break;
	}
	return ip3.have == 4 && ip3.json_len == get32(ip3.len);
}

static void start_json(void)
{
	ip3.have = 0;
	ip3.json_len = 0;
}

static void sender_fill(struct ip3_stream *s)
{
	uint32_t n = rr_tcp_stream(s->c, ip3_data, ip3.blksize, &s->part, &s->sends);
	s->bytes += n;
	rr_count(s->c->port, RR_iperf3_tx_bytes, n);
	tcp_output(s->c->pcb);
}

/* Every stream is in: the test starts. */
static void test_start(void)
{
	ip3.state = IP3_RUNNING;
	ip3.start_tsc = rdtsc();
	ip3.halted = lcore_halted_cycles();
	ip3.heard_tsc = ip3.start_tsc + (uint64_t)ip3.duration * tsc.hz;	/* a UDP -R client is silent until its end */
	rr_count(ip3.port, RR_iperf3_tests, 1);
	send_state(TEST_START);
	send_state(TEST_RUNNING);
	for (int i = 0; i < ip3.streams_in && !ip3.udp; i++)	/* UDP senders: iperf3_poll */
		if (ip3.s[i].sender && ip3.s[i].c) {	/* not one the client closed already */
			sender_fill(&ip3.s[i]);
			rr_tcp_wait_sent(ip3.s[i].c);
		}
}

/* The client was heard from: on its control connection or a stream, or it
 * acknowledged a sender stream's data. */
static void heard(void)
{
	uint64_t now = rdtsc();
	if ((int64_t)(now - ip3.heard_tsc) > 0)
		ip3.heard_tsc = now;
}

static int ctl_recv(struct rr_conn *c, struct pbuf *p)
{
	heard();
	for (u16_t off = 0; off < p->tot_len && ip3.ctl == c;) {
		int r;
		switch (ip3.state) {
		case IP3_COOKIE_IN: {
			u16_t n = pbuf_copy_partial(p, ip3.cookie + ip3.have, (u16_t)(IP3_COOKIE - ip3.have), off);
			off = (u16_t)(off + n);
			if ((ip3.have += n) < IP3_COOKIE)
				break;
			ip3.state = IP3_PARAMS;
			start_json();
			send_state(PARAM_EXCHANGE);
			break;
		}
		case IP3_PARAMS:
		case IP3_RESULTS:
			r = take_json(p, &off);
			if (r < 0 || (r && ip3.state == IP3_PARAMS && params())) {
				if (r < 0)
					rr_count(c->port, RR_iperf3_bad_json, 1);
				test_reset(1);
				return 0;
			}
			if (!r)
				break;
			if (ip3.state == IP3_PARAMS) {
				ip3.state = IP3_STREAMS_IN;
				ip3.accepted = ip3.streams_in = 0;
				send_state(CREATE_STREAMS);
			} else {
				ip3.state = IP3_DONE;
				if (send_results()) {	/* no memory for the JSON: the test ends */
					lwif_count(c->port, LWIF_tx_no_buffer, 1);
					test_reset(1);
					return 0;
				}
				send_state(DISPLAY_RESULTS);
			}
			break;
		case IP3_RUNNING:
			if (pbuf_get_at(p, off++) != TEST_END)
				break;
			ip3.end_tsc = rdtsc();
			test_reset(0);
			ip3.state = IP3_RESULTS;
			start_json();
			send_state(EXCHANGE_RESULTS);
			break;
		default:	/* IPERF_DONE, and what may follow it */
			if (pbuf_get_at(p, off++) == IPERF_DONE)
				test_reset(1);
			break;
		}
	}
	return 0;
}

/* A stream's bytes: its cookie first. */
static int stream_recv(struct rr_conn *c, struct ip3_stream *s, struct pbuf *p)
{
	u16_t off = 0;
	heard();
	if (s->have < IP3_COOKIE) {
		uint8_t buf[IP3_COOKIE];
		u16_t n = pbuf_copy_partial(p, buf, (u16_t)(IP3_COOKIE - s->have), 0);
		if (memcmp(buf, ip3.cookie + s->have, n)) {
			rr_count(c->port, RR_iperf3_bad_cookie, 1);
			s->c = NULL;
			c->owner = NULL;
			c->peer_fin = 1;
			return 0;
		}
		s->have += n;
		off = n;
		if (s->have == IP3_COOKIE && ++ip3.streams_in == ip3.parallel * (ip3.bidir ? 2 : 1))
			test_start();
	}
	s->bytes += (uint64_t)(p->tot_len - off);
	rr_count(c->port, RR_iperf3_rx_bytes, (uint64_t)(p->tot_len - off));
	return 0;
}

/* A UDP stream's datagram: its sequence number (after the 8-byte send
 * time; 64-bit with udp_counters_64bit) counts it, missing ones and the
 * jitter of its transit time, as iperf_udp_recv does. */
static void udp_datagram(struct ip3_stream *s, struct pbuf *p, int port)
{
	uint8_t h[16];
	if (pbuf_copy_partial(p, h, 16, 0) < (ip3.counters64 ? 16 : 12)) {
		rr_count(port, RR_iperf3_udp_stray, 1);
		return;
	}
	uint64_t seq = ip3.counters64 ? (uint64_t)get32(h + 8) << 32 | get32(h + 12) : get32(h + 8);
	double sent = get32(h) + get32(h + 4) / 1e6, transit = (double)now_ns() / 1e9 - sent;
	s->bytes += p->tot_len;
	rr_count(port, RR_iperf3_rx_bytes, p->tot_len);
	heard();
	if (seq > s->packets) {
		s->errors += seq - 1 - s->packets;
		s->packets = seq;
	} else if (s->errors) {	/* out of order: it was counted missing */
		s->errors--;
	}
	double d = s->transit ? transit - s->transit : 0;
	s->transit = transit;
	s->jitter += ((d < 0 ? -d : d) - s->jitter) / 16;	/* RFC 3550 6.4.1 */
}

/* One datagram of blksize bytes on UDP sender stream s: the send time
 * (seconds, microseconds), the sequence number (32 or, with
 * udp_counters_64bit, 64 bits; from 1), then ip3_data, as iperf_udp_send
 * writes it. 0, or -1 (no buffer: tried again at the next poll). */
static int stream_send(struct ip3_stream *s)
{
	uint16_t hlen = ip3.counters64 ? 16 : 12, len = ip3.blksize > hlen ? (uint16_t)ip3.blksize : hlen;
	struct pbuf *h = pbuf_alloc(PBUF_TRANSPORT, hlen, PBUF_RAM), *b = NULL;
	if (h && len > hlen && (b = pbuf_alloc(PBUF_RAW, (u16_t)(len - hlen), PBUF_REF)))
		b->payload = ip3_data;
	if (!h || (len > hlen && !b)) {
		if (h)
			pbuf_free(h);
		rr_count(ip3.port, RR_iperf3_udp_no_buffer, 1);
		return -1;
	}
	uint64_t ns = now_ns(), seq = s->packets + 1;
	uint8_t *d = h->payload;
	put32(d, (uint32_t)(ns / 1000000000));
	put32(d + 4, (uint32_t)(ns % 1000000000 / 1000));
	if (ip3.counters64) {
		put32(d + 8, (uint32_t)(seq >> 32));
		put32(d + 12, (uint32_t)seq);
	} else {
		put32(d + 8, (uint32_t)seq);
	}
	if (b)
		pbuf_cat(h, b);
	err_t err = lwif_udp_sendto(ip3.udp_pcb, h, &ip3.ctl->pcb->remote_ip, s->udp_port);
	pbuf_free(h);
	if (err != ERR_OK) {
		rr_count(ip3.port, RR_iperf3_udp_no_buffer, 1);
		return -1;
	}
	s->packets = seq;
	s->bytes += len;
	rr_count(ip3.port, RR_iperf3_tx_bytes, len);
	return 0;
}

int iperf3_poll(void)
{
	int sent = ip3.ctl && ip3.out.len ? rr_out_flush(ip3.ctl, &ip3.out) : 0;
	if (!ip3.udp || ip3.state != IP3_RUNNING || !ip3.ctl)
		return sent;
	uint64_t ns = (uint64_t)((double)(rdtsc() - ip3.start_tsc) * 1e9 / (double)tsc.hz);
	for (int i = 0; i < ip3.streams_in; i++) {
		struct ip3_stream *s = &ip3.s[i];
		for (int n = 0; s->sender && n < IP3_UDP_BURST; n++) {
			/* -b's budget so far: bytes * 8 <= rate * elapsed */
			if (ip3.rate && (double)(s->bytes + ip3.blksize) * 8 > (double)ip3.rate * (double)ns / 1e9)
				break;
			if (stream_send(s))
				return sent;
			sent++;
		}
	}
	return sent;
}

/* A datagram to iperf3_port: a UDP stream's connect message while the
 * streams come (answered), or its data while the test runs. */
static void udp_in(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr, u16_t port)
{
	(void)arg;
	int pt = lwif_rx_port(), total = ip3.parallel * (ip3.bidir ? 2 : 1);
	if (ip3.udp && ip3.state == IP3_RUNNING) {
		for (int i = 0; i < ip3.streams_in; i++)
			if (ip3.s[i].udp_port == port && !ip3.s[i].sender && ip3.ctl &&
			    ip_addr_cmp(addr, &ip3.ctl->pcb->remote_ip)) {
				udp_datagram(&ip3.s[i], p, pt);
				pbuf_free(p);
				return;
			}
	} else if (ip3.udp && ip3.state == IP3_STREAMS_IN && ip3.accepted < total && p->tot_len == 4 &&
		   ip3.ctl && ip_addr_cmp(addr, &ip3.ctl->pcb->remote_ip)) {
		uint32_t reply = UDP_CONNECT_REPLY;
		int i = ip3.accepted++, recvs = ip3.reverse && !ip3.bidir ? 0 : ip3.parallel;
		ip3.s[i] = (struct ip3_stream){ .udp_port = port, .sender = i >= recvs };
		pbuf_free(p);
		p = pbuf_alloc(PBUF_TRANSPORT, 4, PBUF_RAM);
		if (p) {
			memcpy(p->payload, &reply, 4);
			lwif_udp_sendto(pcb, p, addr, port);
			pbuf_free(p);
		}
		if (++ip3.streams_in == total)
			test_start();
		return;
	}
	rr_count(pt, RR_iperf3_udp_stray, 1);
	pbuf_free(p);
}

int iperf3_recv(struct rr_conn *c, struct pbuf *p)
{
	if (c->owner == &ctl_marker)
		return ctl_recv(c, p);
	if (c->owner && c->owner != &busy_marker)
		return stream_recv(c, c->owner, p);
	return 0;
}

int iperf3_sent(struct rr_conn *c)
{
	struct ip3_stream *s = c->owner;
	if (c->owner == &ctl_marker) {	/* control bytes wait (rr_out) */
		if (c == ip3.ctl && ip3.out.len)
			rr_out_flush(c, &ip3.out);
		return c == ip3.ctl && ip3.out.len;
	}
	if (!s || c->owner == &busy_marker || !s->sender || ip3.state != IP3_RUNNING)
		return 0;
	heard();
	sender_fill(s);
	return 1;
}

int iperf3_accept(struct rr_conn *c)
{
	signed char denied = ACCESS_DENIED;
	if (ip3.state == IP3_IDLE) {
		ip3.state = IP3_COOKIE_IN;
		ip3.ctl = c;
		ip3.have = 0;
		ip3.out.len = 0;
		ip3.port = c->port;
		ip3.heard_tsc = rdtsc();
		c->owner = &ctl_marker;
		return 0;
	}
	int total = ip3.parallel * (ip3.bidir ? 2 : 1), i = ip3.accepted;
	if (ip3.state == IP3_STREAMS_IN && i < total && !ip3.udp) {	/* a UDP test's streams are UDP's */
		ip3.accepted++;
		/* iperf3's server: its receiving streams first, then its sending ones */
		int recvs = ip3.reverse && !ip3.bidir ? 0 : ip3.parallel;
		ip3.s[i] = (struct ip3_stream){ .c = c, .sender = i >= recvs };
		c->owner = &ip3.s[i];
		return 0;
	}
	rr_count(c->port, RR_iperf3_busy, 1);
	c->owner = &busy_marker;
	tcp_write(c->pcb, &denied, 1, TCP_WRITE_FLAG_COPY);
	c->peer_fin = 1;	/* closed once the byte is acknowledged */
	rr_tcp_wait_sent(c);
	return 0;
}

void iperf3_closed(struct rr_conn *c)
{
	if (c->owner == &ctl_marker && ip3.ctl == c) {
		if (ip3.state != IP3_DONE)
			rr_count(c->port, RR_iperf3_client_gone, 1);
		ip3.ctl = NULL;
		test_reset(0);
		ip3.state = IP3_IDLE;
	} else if (c->owner && c->owner != &busy_marker) {
		((struct ip3_stream *)c->owner)->c = NULL;
	}
	c->owner = NULL;
}

/* The control connection is quiet while the test runs: kept from rr_idle
 * while the client was heard from within IP3_RCV_TIMEOUT (or the test's
 * -t has not run out), as iperf3 -s ends a test that received nothing
 * for --rcv-timeout; a client that vanished without a FIN or RST is then
 * closed by rr_idle (iperf3_client_gone) and the server is free again. */
void iperf3_tick(void)
{
	if (ip3.ctl && ip3.state >= IP3_STREAMS_IN && ip3.state <= IP3_RESULTS &&
	    (int64_t)(rdtsc() - ip3.heard_tsc) < (int64_t)(IP3_RCV_TIMEOUT * tsc.hz))
		rr_tcp_touch(ip3.ctl);
}

int iperf3_init(void)
{
	if (!iperf3_port)
		return 0;
	if (rr_port_taken("iperf3_port", iperf3_port))
		return -1;
	ip3.json = dma_alloc(IP3_JSON_MAX + 1, 64);
	ip3.out = (struct rr_out){ .buf = dma_alloc(IP3_OUT_MAX, 64), .size = IP3_OUT_MAX };
	ip3_data = dma_alloc(IP3_LEN_MAX, 64);
	if (!ip3.json || !ip3.out.buf || !ip3_data) {
		printf("rr: no memory for the iperf3 server\n");
		return -1;
	}
	memset(ip3_data, 'i', IP3_LEN_MAX);
	struct udp_pcb *pcb = udp_new();
	if (!pcb || udp_bind(pcb, IP_ANY_TYPE, (uint16_t)iperf3_port) != ERR_OK) {
		printf("rr: cannot bind UDP port %ld (iperf3)\n", iperf3_port);
		return -1;
	}
	udp_recv(pcb, udp_in, NULL);
	ip3.udp_pcb = pcb;
	rr_ports_mark((uint16_t)iperf3_port, 1);
	return rr_tcp_listen((uint16_t)iperf3_port, RR_SVC_IPERF3);
}
