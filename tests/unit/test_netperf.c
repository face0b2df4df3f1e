/* Unit tests for apps/rr/netperf.c: netperf 2.7.0's omni request parsed
 * from real exchanges with netserver (tests/unit/data/netperf-*.pcap,
 * Debian's netperf 2.7.0 over loopback, control port 22865, data ports
 * -P 30001,30002), netserver's response rebuilt byte for byte from it,
 * bad requests refused by name, the results' layout. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>
#include "apps/rr/netperf.h"
#include "net/bytes.h"

#define CTL_PORT 22865
#define DATA_PORT 30002

/* The first two control messages of a capture (classic little-endian
 * pcap, Ethernet, IPv4, TCP): netperf's request and netserver's response,
 * as captured (len: bytes captured, cut by the snap length). */
struct exchange {
	uint8_t msg[2][NP_MSG_LEN];
	size_t len[2];
};

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void load(const char *path, struct exchange *x)
{
	static uint8_t frame[1 << 18];
	FILE *f = fopen(path, "rb");
	uint8_t gh[24], rh[16];
	int n = 0;
	assert_non_null(f);
	assert_int_equal(fread(gh, 1, 24, f), 24);
	assert_int_equal(le32(gh), 0xa1b2c3d4);
	while (n < 2 && fread(rh, 1, 16, f) == 16) {
		uint32_t incl = le32(rh + 8);
		assert_true(incl <= sizeof(frame));
		assert_int_equal(fread(frame, 1, incl, f), incl);
		const uint8_t *ip = frame + 14, *tcp = ip + (ip[0] & 15) * 4;
		const uint8_t *data = tcp + (tcp[12] >> 4) * 4;
		size_t total = get16(ip + 2) - (size_t)(data - ip), got = incl - (size_t)(data - frame);
		if (ip[9] != 6 || !total || (get16(tcp) != CTL_PORT && get16(tcp + 2) != CTL_PORT))
			continue;
		assert_int_equal(total, NP_MSG_LEN);
		assert_int_equal(get16(tcp + 2) == CTL_PORT, n == 0);	/* the request, then the response */
		memcpy(x->msg[n], data, got);
		x->len[n++] = got;
	}
	fclose(f);
	assert_int_equal(n, 2);
}

/* The captured request parses as test t with req/rsp sizes; the response
 * built for it, with the captured server's buffer sizes, is the
 * captured one. */
static void check_rr(const char *path, enum np_test t, int32_t req, int32_t rsp)
{
	static struct exchange x;
	struct np_request r;
	struct np_response out;
	uint8_t msg[NP_MSG_LEN];
	load(path, &x);
	assert_int_equal(x.len[0], NP_MSG_LEN);
	assert_int_equal(np_parse_request(x.msg[0], x.len[0], &r), NP_OK);
	assert_int_equal(r.test, t);
	assert_int_equal(r.request_size, req);
	assert_int_equal(r.response_size, rsp);
	assert_int_equal(r.test_length, 10);
	assert_int_equal(r.data_port, DATA_PORT);
	assert_int_equal(r.send_buf_size, -1);
	assert_int_equal(r.flags & NP_MEASURE_CPU, 0);
	np_response_for(&r, (int32_t)get32(x.msg[1] + 8), (int32_t)get32(x.msg[1] + 20), DATA_PORT, &out);
	np_put_response(msg, &out);
	assert_memory_equal(msg, x.msg[1], NP_MSG_LEN);
}

static void test_tcp_rr(void **state)
{
	(void)state;
	check_rr("tests/unit/data/netperf-tcp_rr.pcap", NP_TCP_RR, 1024, 1024);
}

static void test_udp_rr(void **state)
{
	(void)state;
	check_rr("tests/unit/data/netperf-udp_rr.pcap", NP_UDP_RR, 1, 1);
}

static void test_tcp_crr(void **state)
{
	(void)state;
	check_rr("tests/unit/data/netperf-tcp_crr.pcap", NP_TCP_CRR, 1, 1);
}

/* The stream capture's snap length (160) cut its control messages: the
 * request as captured is shorter than its structure. */
static void test_tcp_stream_cut(void **state)
{
	(void)state;
	static struct exchange x;
	struct np_request r;
	load("tests/unit/data/netperf-tcp_stream.pcap", &x);
	assert_int_equal(x.len[0], 160 - 66);
	assert_int_equal(np_parse_request(x.msg[0], x.len[0], &r), NP_SHORT);
	assert_int_equal(get32(x.msg[0]), NP_DO_OMNI);
	assert_int_equal(get32(x.msg[0] + 4 * 7), (uint32_t)-1);	/* no request size: a stream test */
	assert_int_equal(get32(x.msg[0] + 4 * 22), DATA_PORT);	/* -P ...,30002 */
}

/* Bad requests, each from the TCP_RR one with one word changed. */
static void check_bad(int word, uint32_t v, enum np_err want)
{
	static struct exchange x;
	struct np_request r;
	uint8_t msg[NP_MSG_LEN];
	load("tests/unit/data/netperf-tcp_rr.pcap", &x);
	memcpy(msg, x.msg[0], NP_MSG_LEN);
	put32(msg + 4 * word, v);
	assert_int_equal(np_parse_request(msg, NP_MSG_LEN, &r), want);
}

static void test_bad(void **state)
{
	(void)state;
	static struct exchange x;
	struct np_request r;
	load("tests/unit/data/netperf-tcp_rr.pcap", &x);
	assert_int_equal(np_parse_request(x.msg[0], NP_MSG_LEN - 1, &r), NP_SHORT);
	assert_int_equal(np_parse_request(x.msg[0], 0, &r), NP_SHORT);
	check_bad(0, 12, NP_UNKNOWN);			/* DO_TCP_RR, netperf's pre-omni request */
	check_bad(23, 6, NP_OK);			/* IPv6 data connection (netperf -6) */
	check_bad(23, 0, NP_UNKNOWN);			/* NF_UNSPEC */
	check_bad(23, 5, NP_UNKNOWN);			/* no family of netperf's */
	check_bad(25, 132, NP_UNKNOWN);			/* SCTP */
	check_bad(26, 0, NP_UNKNOWN);			/* no direction */
	check_bad(7, 0, NP_BAD_SIZE);			/* request of 0 bytes */
	check_bad(7, 0x80000000u, NP_BAD_SIZE);		/* -2^31 */
	check_bad(7, 0x7fffffffu, NP_BAD_SIZE);		/* 2^31 - 1 */
	check_bad(13, (uint32_t)-5, NP_BAD_SIZE);	/* negative response */
	check_bad(13, NP_SIZE_MAX + 1, NP_BAD_SIZE);
	check_bad(13, NP_SIZE_MAX, NP_OK);
	/* TCP_MAERTS sends response-size sends when netperf names one (found
	 * by fuzz_netperf: 66,560 was taken). */
	put32(x.msg[0] + 4 * 26, NP_XMIT);
	put32(x.msg[0] + 4 * 13, NP_SIZE_MAX + 1);
	assert_int_equal(np_parse_request(x.msg[0], NP_MSG_LEN, &r), NP_BAD_SIZE);
	put32(x.msg[0] + 4 * 13, 0);
	assert_int_equal(np_parse_request(x.msg[0], NP_MSG_LEN, &r), NP_OK);
	assert_int_equal(r.test, NP_TCP_MAERTS);
}

static void test_udp_sizes(void **state)
{
	(void)state;
	static struct exchange x;
	struct np_request r;
	uint8_t msg[NP_MSG_LEN];
	load("tests/unit/data/netperf-udp_rr.pcap", &x);
	memcpy(msg, x.msg[0], NP_MSG_LEN);
	put32(msg + 4 * 7, NP_UDP_MAX + 1);
	assert_int_equal(np_parse_request(msg, NP_MSG_LEN, &r), NP_BAD_SIZE);
	put32(msg + 4 * 7, NP_UDP_MAX);
	assert_int_equal(np_parse_request(msg, NP_MSG_LEN, &r), NP_OK);
	put32(msg + 4 * 26, NP_RECV);	/* UDP_STREAM, netserver's choice of receive size */
	put32(msg + 4 * 9, (uint32_t)-1);
	assert_int_equal(np_parse_request(msg, NP_MSG_LEN, &r), NP_OK);
	assert_int_equal(r.test, NP_UDP_STREAM);
	put32(msg + 4 * 9, 0);
	assert_int_equal(np_parse_request(msg, NP_MSG_LEN, &r), NP_BAD_SIZE);
}

/* The results where netperf's recv_response_n reads them: 64-bit counts
 * as hi, lo; floats as their bits; strings after word 29 zero. */
static void test_results(void **state)
{
	(void)state;
	uint8_t msg[NP_MSG_LEN];
	const struct np_results r = { .bytes_received = 0x123456789ull, .bytes_sent = 1024, .recv_calls = 7,
				      .send_calls = 8, .recv_buf_size = 11680, .send_buf_size = 23360,
				      .trans_received = 1000, .elapsed_time = 2.5f, .cpu_util = 12.5f,
				      .cpu_method = NP_CPU_IDLE_COUNTER, .num_cpus = 2 };
	np_put_results(msg, &r);
	const uint32_t want[] = { NP_OMNI_RESPONSE, 0, 1, 0x23456789, 7, 11680, 0, 1024, 8, 23360, 0, 1000,
				  0x40200000 /* 2.5f */, 0x41480000 /* 12.5f */, 0, 0, 0, 0, 0, 0, 1, 2 };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(get32(msg + 4 * i), want[i]);
	for (size_t i = 4 * 22; i < NP_MSG_LEN; i++)
		assert_int_equal(msg[i], 0);
	np_put_error(msg, NP_OMNI_RESPONSE, 22);
	assert_int_equal(get32(msg), NP_OMNI_RESPONSE);
	assert_int_equal(get32(msg + 4), 22);
}

/* A stream test's widths and sizes as recv_omni picks them. */
static void test_stream_response(void **state)
{
	(void)state;
	const struct np_request r = { .test = NP_TCP_MAERTS, .send_buf_size = -1, .recv_buf_size = 65536,
				      .send_size = -1, .receive_size = -1, .direction = NP_XMIT,
				      .socket_prio = -1, .socket_tos = -1, .flags = NP_MEASURE_CPU | 0x20 };
	struct np_response out;
	np_response_for(&r, 11680, 23360, 49152, &out);
	assert_int_equal(out.send_size, 23360);
	assert_int_equal(out.send_width, 2);	/* 23360 / 23360 + 1, at least 2 */
	assert_int_equal(out.recv_buf_size, 65536);
	assert_int_equal(out.receive_size, (uint32_t)-1);	/* not receiving: echoed */
	assert_int_equal(out.flags, NP_MEASURE_CPU);
	assert_int_equal(out.data_port, 49152);
	/* -S 1048576: netserver would send 1 MiB sends; the appliance's are
	 * at most NP_SIZE_MAX (its send buffer's size; found by fuzz_netperf). */
	struct np_request big = r;
	big.send_buf_size = 1 << 20;
	np_response_for(&big, 11680, 23360, 49152, &out);
	assert_int_equal(out.send_buf_size, 1 << 20);
	assert_int_equal(out.send_size, NP_SIZE_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcp_rr), cmocka_unit_test(test_udp_rr), cmocka_unit_test(test_tcp_crr),
		cmocka_unit_test(test_tcp_stream_cut), cmocka_unit_test(test_bad), cmocka_unit_test(test_udp_sizes),
		cmocka_unit_test(test_results), cmocka_unit_test(test_stream_response),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
