/* Fuzz rr's iperf3 3.12 server (apps/rr/iperf3.c: the cookie, the
 * parameters' length and JSON, the state bytes, TCP and UDP streams, the
 * results exchange) behind rr's TCP (apps/rr/rr_tcp.c) and lwIP, with
 * clients that speak TCP correctly (tests/fuzz/tcpclient.c): up to NCLIENT
 * clients at 10.1.0.2, app=rr at 10.1.0.1 with iperf3 on port 5201. The
 * input is a program of client steps:
 *   byte b: op b % 13 on client (b / 13) % NCLIENT:
 *   0 connect (next byte: bit 0 acknowledge nothing by itself, bit 1 an
 *     MSS option), 1 send the next byte's count of bytes, 2 acknowledge,
 *   3 FIN, 4 RST, 5 the clock moves on by (next byte) * 10 ms and rr's
 *   idle hook runs, 6 a cookie (next byte: bit 0 another test's, bit 7
 *   only its first (byte >> 1) % 37 bytes), 7 parameters (next byte picks
 *   one of params[]: TCP, -P, -R, --bidir, UDP, wrong types, truncated,
 *   lengths past the bound), 8 a state byte (next byte picks TEST_END,
 *   IPERF_DONE, ... or is sent itself), 9 the client's results (next byte
 *   picks one of results[]), 10 (next byte + 1) * 16 bytes of stream data,
 *   11 a UDP datagram from the client's UDP port (next byte: a stream's
 *   connect message, a datagram with the next sequence number (32 or
 *   64-bit), an old one, a short one), 12 the clock moves on by (next
 *   byte) seconds and the idle hook runs.
 * Checked after every frame: rx = the frames handed to lwIP + the drops.
 * What the server sends a control connection is, byte for byte, a prefix
 * of iperf3's exchange: PARAM_EXCHANGE, CREATE_STREAMS, TEST_START,
 * TEST_RUNNING, EXCHANGE_RESULTS, a 32-bit length and JSON, DISPLAY_RESULTS;
 * its results JSON parses, and its streams' bytes sum to what rr counted
 * received and sent (iperf3_rx_bytes, iperf3_tx_bytes) since the test
 * began (its control connection's first byte); a refused client gets ACCESS_DENIED alone; a stream
 * gets only the server's data. At the end the clients fall silent until
 * lwIP holds no connection on the port (within 800 s, checked; rr_idle=5), every
 * connection accepted has ended (conns_open 0), then a fresh well-formed
 * test (-P 2) runs in full and its results give each stream exactly the
 * bytes its client sent; after every connection is reset no received
 * buffer is left in lwIP and every RX buffer is back in its pool. */
#include <assert.h>
#include <stdio.h>
#include <string.h>
#include "apps/app.h"
#include "apps/rr/rr.h"
#include "cJSON.h"
#include "kernel/cmdline.h"
#include "kernel/cpu.h"
#include "kernel/knobs.h"
#include "kernel/mem.h"	/* before lwIP's headers, which rename lwIP's mem_init */
#include "lwip/tcp.h"
#include "lwip/priv/tcp_priv.h"
#include "net/bytes.h"
#include "net/ipv4.h"
#include "net/lwip/lwif.h"
#include "tests/fuzz/fuzz_state.h"
#include "tests/fuzz/arena.h"
#include "tests/fuzz/tcpclient.h"

#define NCLIENT 19		/* a control connection, -P 16's streams, two more */
#define PORT 5201
#define END_CTL NCLIENT		/* the end's test: its control client, then its streams */
#define UDP_BASE 50000		/* client k's UDP port: UDP_BASE + k */
#define JSON_BUF 16384

/* iperf3's states (iperf_api.h). */
enum { TEST_START = 1, TEST_RUNNING = 2, TEST_END = 4, PARAM_EXCHANGE = 9, CREATE_STREAMS = 10,
       EXCHANGE_RESULTS = 13, DISPLAY_RESULTS = 14, IPERF_DONE = 16, ACCESS_DENIED = 0xff };

static const char cookie[] = "fuzzfuzzfuzzfuzzfuzzfuzzfuzzfuzzfuzz", other[] = "otherotherotherotherotherotherotherot";

static const char *const params[] = {
	"{\"tcp\":true,\"omit\":0,\"time\":10,\"parallel\":1,\"len\":131072,\"client_version\":\"3.12\"}",
	"{\"tcp\":true,\"time\":10,\"parallel\":4,\"len\":1000}",
	"{\"tcp\":true,\"time\":10,\"parallel\":2,\"reverse\":true,\"len\":1400}",
	"{\"tcp\":true,\"time\":10,\"parallel\":1,\"bidirectional\":true,\"len\":128}",
	"{\"udp\":true,\"time\":10,\"parallel\":1,\"len\":1448,\"bandwidth\":1048576}",
	"{\"udp\":true,\"time\":10,\"parallel\":2,\"reverse\":true,\"len\":100,\"bandwidth\":800000}",
	"{\"udp\":true,\"parallel\":1,\"bidirectional\":true,\"len\":64,\"bandwidth\":0,\"udp_counters_64bit\":1}",
	"{\"udp\":true,\"parallel\":1,\"reverse\":true,\"len\":65535,\"bandwidth\":0}",
	"{\"tcp\":true,\"parallel\":16,\"len\":1}",
	"{\"tcp\":true,\"parallel\":17}",
	"{\"tcp\":true,\"parallel\":0}",
	"{\"tcp\":true,\"parallel\":-1,\"len\":-5}",
	"{\"parallel\":\"4\",\"reverse\":\"yes\",\"len\":[1],\"udp\":{},\"bandwidth\":\"x\"}",
	"{\"parallel\":1e300,\"len\":1e300,\"bandwidth\":-1e300}",
	"{\"nokey\":1,\"tcp\":true,\"sctp\":1,\"x\":null}",
	"[1,2,3]",
	"{\"tcp\":true,\"parallel\":",
	"",
	"null",
	"{\"udp\":1,\"parallel\":3,\"bidirectional\":1,\"len\":1}",
};
#define NPARAMS (sizeof(params) / sizeof(params[0]))
/* params[] past these: a length that is not the JSON's. */
enum { PARAMS_SHORT = NPARAMS, PARAMS_HUGE, PARAMS_OVER, PARAMS_N };

static const char *const results[] = {
	("{\"cpu_util_total\":1,\"cpu_util_user\":0.5,\"cpu_util_system\":0.5,\"sender_has_retransmits\":1,"
	 "\"streams\":[{\"id\":1,\"bytes\":1000,\"retransmits\":0,\"jitter\":0,\"errors\":0,\"packets\":0}]}"),
	"{}",
	"{\"streams\":\"x\"",
	"not json",
};
#define NRESULTS (sizeof(results) / sizeof(results[0]))

/* What the harness reads from each client's bytes received. */
static struct reader {
	int role;		/* 0 unknown, 1 control, 2 refused, 3 stream */
	size_t at;		/* bytes of the control's exchange so far */
	uint8_t len[4];
	uint32_t json_len, json_have;
	uint64_t counted;	/* rr's stream byte counters as the test began (base[]) */
	int results_read;
} rd[NCLIENT + 3];
static char json_buf[JSON_BUF];
/* rr's stream byte counters as each client's connection sent its first
 * byte: for the connection the server takes as a test's control, what they
 * were when the test began. From the accept to the server's CREATE_STREAMS
 * (which needs the cookie and the parameters, so comes later) no stream
 * counts; the client may read CREATE_STREAMS late (it waits in rr_out while
 * lwIP has no memory), after the streams have counted. */
static uint64_t base[NCLIENT + 3];
static uint32_t useq[NCLIENT];		/* the UDP sequence numbers sent */
static cJSON *end_results;		/* the end's test's results */

static uint64_t stream_counters(void)
{
	return rr_stats[0].ev[RR_iperf3_rx_bytes] + rr_stats[0].ev[RR_iperf3_tx_bytes];
}

/* The server's results JSON on a control connection: it parses, and its
 * streams' bytes are rr's counts since the test began. */
static void check_results(struct tc_client *c, struct reader *r)
{
	cJSON *j = cJSON_ParseWithLength(json_buf, r->json_len);
	assert(cJSON_IsObject(j));
	cJSON *streams = cJSON_GetObjectItemCaseSensitive(j, "streams");
	assert(cJSON_IsArray(streams) && cJSON_GetArraySize(streams) <= 32);
	double sum = 0;
	for (cJSON *s = streams->child; s; s = s->next) {
		cJSON *b = cJSON_GetObjectItemCaseSensitive(s, "bytes");
		assert(cJSON_IsNumber(b) && b->valuedouble >= 0);
		sum += b->valuedouble;
	}
	assert(sum == (double)(stream_counters() - r->counted));
	if (c == &tc_cl[END_CTL]) {
		cJSON_Delete(end_results);
		end_results = j;
	} else {
		cJSON_Delete(j);
	}
}

/* n bytes the server sent c: the control's exchange, ACCESS_DENIED, or a
 * stream's data. */
static void client_data(struct tc_client *c, const uint8_t *d, size_t n)
{
	struct reader *r = &rd[c - tc_cl];
	if (c->recv_total == n)	/* the connection's first bytes */
		*r = (struct reader){ .role = d[0] == PARAM_EXCHANGE ? 1 : d[0] == ACCESS_DENIED ? 2 : 3,
				      .counted = base[c - tc_cl] };
	if (r->role == 2) {
		assert(c->recv_total == 1);	/* ACCESS_DENIED alone */
		return;
	}
	if (r->role == 3) {		/* ip3_data */
		static uint8_t is[1460];
		if (!is[0])
			memset(is, 'i', sizeof(is));
		for (size_t k = 0; k < n; k += sizeof(is))
			assert(!memcmp(d + k, is, n - k < sizeof(is) ? n - k : sizeof(is)));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint8_t b = d[i];
		static const uint8_t states[] = { PARAM_EXCHANGE, CREATE_STREAMS, TEST_START, TEST_RUNNING, EXCHANGE_RESULTS };
		if (r->at < sizeof(states)) {
			assert(b == states[r->at]);
			r->at++;
		} else if (r->at < sizeof(states) + 4) {
			r->len[r->at++ - sizeof(states)] = b;
			r->json_len = get32(r->len);
			assert(r->at < sizeof(states) + 4 || (r->json_len > 0 && r->json_len < JSON_BUF));
		} else if (r->json_have < r->json_len) {
			json_buf[r->json_have++] = (char)b;
			if (r->json_have == r->json_len)
				check_results(c, r);
		} else {
			assert(b == DISPLAY_RESULTS && !r->results_read);
			r->results_read = 1;
		}
	}
}

static void udp_out(uint16_t sport, uint16_t dport, const uint8_t *d, size_t n)
{
	(void)sport;
	assert(dport >= UDP_BASE && dport < UDP_BASE + NCLIENT + 3);
	/* the connect reply (iperf.h's UDP_CONNECT_REPLY in x86's order), or
	 * a sender's datagram: send time, sequence number, ip3_data */
	assert((n == 4 && !memcmp(d, "\x36\x37\x38\x39", 4)) || n >= 12);
}

/* A 32-bit length len, then n bytes of s. */
static void send_json(struct tc_client *c, uint32_t len, const char *s, size_t n)
{
	static uint8_t b[4 + 256];
	assert(n <= sizeof(b) - 4);
	put32(b, len);
	memcpy(b + 4, s, n);
	tc_send(c, b, 4 + n);
}

static void send_params(struct tc_client *c, uint8_t arg)
{
	unsigned k = arg % PARAMS_N;
	const char *p = params[0];
	if (k < NPARAMS)
		return send_json(c, (uint32_t)strlen(params[k]), params[k], strlen(params[k]));
	if (k == PARAMS_SHORT)		/* the length promises more than comes */
		return send_json(c, (uint32_t)strlen(p) + 40, p, strlen(p));
	if (k == PARAMS_HUGE)
		return send_json(c, 0xffffffffu, p, strlen(p));
	send_json(c, 8193, p, strlen(p));	/* one past IP3_JSON_MAX */
}

static void send_udp(struct tc_client *c, uint8_t arg)
{
	int k = (int)(c - tc_cl);
	uint8_t d[16 + 8 * 63] = { 0 };
	size_t n = 16 + (size_t)(arg >> 3) * 8;
	uint32_t seq;
	switch (arg % 5) {
	case 0:
		memcpy(d, "\x39\x38\x37\x36", 4);	/* UDP_CONNECT_MSG in x86's order */
		return tc_udp_in((uint16_t)(UDP_BASE + k), PORT, d, 4);
	case 1:
	case 2:
		seq = ++useq[k];
		break;
	case 3:
		seq = useq[k] - (arg >> 3);	/* late, or a repeat */
		break;
	default:
		return tc_udp_in((uint16_t)(UDP_BASE + k), PORT, (const uint8_t *)"0123456789ab", (arg >> 3) % 12);
	}
	put32(d, (uint32_t)(fuzz_tsc / 1000000000ull));	/* the send time, roughly now */
	put32(d + 4, 0);
	if (arg % 5 == 2)
		put32(d + 12, seq);	/* udp_counters_64bit */
	else
		put32(d + 8, seq);
	tc_udp_in((uint16_t)(UDP_BASE + k), PORT, d, n);
}

/* The management port's pages, which mgmt's HTTP server (linked with
 * lwIP's harness objects, not started here) would serve. */
int mgmt_page(const char *path, char *buf, size_t len, size_t *out, const char **ctype, int *truncated)
{
	return 404;
}

/* 1 while lwIP holds a connection on the server's port: rr's, a handshake,
 * or one rr closed (FIN_WAIT_2 until lwIP's 20 s TCP_FIN_WAIT_TIMEOUT when
 * the client never sends its FIN; its PCB is one a new client needs: 46
 * refused clients that never closed fill the pool of rr_conns + 16). */
static int server_busy(void)
{
	for (struct tcp_pcb *pcb = tcp_active_pcbs; pcb; pcb = pcb->next)
		if (pcb->local_port == PORT)
			return 1;
	return 0;
}

/* The end's test: -P 2, each stream sending a known count; each stream's
 * bytes in the results are exactly its client's. */
static void fresh_test(void)
{
	static const char p2[] = "{\"tcp\":true,\"omit\":0,\"time\":1,\"parallel\":2,\"len\":131072,\"client_version\":\"3.12\"}";
	static const size_t amount[2] = { 3000, 70 };
	struct tc_client *ctl = &tc_cl[END_CTL];
	uint8_t data[3000];
	memset(data, 'd', sizeof(data));
	tc_connect(ctl, 0, 1);
	base[END_CTL] = stream_counters();
	tc_send(ctl, (const uint8_t *)cookie, 37);
	send_json(ctl, sizeof(p2) - 1, p2, sizeof(p2) - 1);
	for (int s = 0; s < 2; s++) {
		struct tc_client *c = &tc_cl[END_CTL + 1 + s];
		tc_connect(c, 0, 1);
		tc_send(c, (const uint8_t *)cookie, 37);
	}
	for (int s = 0; s < 2; s++)
		tc_send(&tc_cl[END_CTL + 1 + s], data, amount[s]);
	tc_send(ctl, (const uint8_t *)"\x04", 1);	/* TEST_END */
	send_json(ctl, (uint32_t)strlen(results[0]), results[0], strlen(results[0]));
	for (int i = 0; i < 20 && !rd[END_CTL].results_read; i++) {
		fuzz_tsc += 100000000ull;
		tc_idle();
	}
	assert(rd[END_CTL].role == 1 && rd[END_CTL].results_read && end_results);
	cJSON *streams = cJSON_GetObjectItemCaseSensitive(end_results, "streams");
	assert(cJSON_GetArraySize(streams) == 2);
	for (int s = 0; s < 2; s++)
		assert(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(streams, s), "bytes")->valuedouble ==
		       (double)amount[s]);
	cJSON_Delete(end_results);
	end_results = NULL;
	tc_send(ctl, (const uint8_t *)"\x10", 1);	/* IPERF_DONE */
}

/* The end: the clients silent until the server holds no connection (a
 * test's -t of at most 10 s in params[], iperf3's 120 s without a word
 * from the client, rr_idle's 5 s, and a closing connection's 2 s: within
 * 800 s; a -t the fuzzer wrote itself, up to a day, after a jump of two),
 * every connection accepted ended; then the fresh test, its coverage not
 * the input's (tc_cov_save). */
static void wind_down(void)
{
	tc_quiet = 1;
	for (int i = 0; i < 420 && server_busy(); i++) {
		fuzz_tsc += i == 400 ? 2 * 86400000000000ull : 2000000000ull;	/* past a -t of iperf3's MAX_TIME */
		tc_idle();
	}
	assert(!server_busy());
	assert(rr_stats[0].conns_open == 0);
	tc_quiet = 0;
	tc_cov_save();
	tc_arp_in(ARP_REQUEST);	/* lwIP's entry for the clients may have aged out in the silence */
	fresh_test();
	tc_cov_restore();
	while (tcp_active_pcbs)
		tcp_abort(tcp_active_pcbs);
	while (tcp_tw_pcbs)
		tcp_abort(tcp_tw_pcbs);
	lwif_flush();	/* the resets */
}

static void setup(void)
{
	/* A 4 KB receive window: what -R's streams send per acknowledgement
	 * (the bulk of the harness's time with 64 KB). */
	tc = (struct tc_world){ .srv_port = PORT, .n = NCLIENT + 3, .wnd = 4096, .data = client_data, .udp = udp_out };
	tc_port_create(256);
	/* netserver_port=0: netserver, which no step here drives, off; its
	 * 256 test slots were scanned at every rr second, 15 % of the time. */
	int errs = cmdline_parse("app=rr ip0=10.1.0.1/24 rr_heap=64 rr_pbufs=128 rr_conns=32 rr_idle=5 netserver_port=0",
				 __knobs_start, KNOBS_COUNT, 0, 0);
	assert(errs == 0);
	fuzz_dma_alloc = arena_alloc;
	assert(apps_start() == 0);
	fuzz_dma_alloc = NULL;
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
	memset(rd, 0, sizeof(rd));
	memset(useq, 0, sizeof(useq));
	fuzz_tsc = 1000000000ull;
	size_t i = 0;
	while (i < len) {
		uint8_t b = data[i++], op = b % 13, arg = 0;
		struct tc_client *c = &tc_cl[(b / 13) % NCLIENT];
		if (!c->sent)
			base[c - tc_cl] = stream_counters();
		if (op != 2 && op != 3 && op != 4 && i < len)
			arg = data[i++];
		if (tc_step(c, op, arg, data, len, &i))
			continue;
		switch (op) {
		case 6:
			tc_send(c, (const uint8_t *)(arg & 1 ? other : cookie), arg & 0x80 ? (arg >> 1) % 37 : 37);
			break;
		case 7:
			send_params(c, arg);
			break;
		case 8: {
			static const uint8_t st[] = { TEST_END, IPERF_DONE, TEST_START, PARAM_EXCHANGE, ACCESS_DENIED, 0 };
			uint8_t s = arg % 8 < sizeof(st) ? st[arg % 8] : arg;
			tc_send(c, &s, 1);
			break;
		}
		case 9: {
			const char *r = results[arg % NRESULTS];
			send_json(c, (uint32_t)strlen(r), r, strlen(r));
			break;
		}
		case 10: {
			static uint8_t d[256 * 16];
			if (!d[0])
				memset(d, 'd', sizeof(d));
			tc_send(c, d, ((size_t)arg + 1) * 16);
			break;
		}
		case 11:
			send_udp(c, arg);
			break;
		default:
			fuzz_tsc += arg * 1000000000ull;
			tc_idle();
			break;
		}
	}
	wind_down();
	assert(lwif_rx_pbufs() == 0);
	assert(tc_port.pool->nfree == tc_port.pool->size);
	return 0;
}
