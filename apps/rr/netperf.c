/*
 * netperf 2.7.0's control messages (netperf.h): the omni request parsed,
 * the response and the results written as netserver's recv_omni fills
 * them.
 */
#include <string.h>
#include "apps/rr/netperf.h"
#include "net/bytes.h"

const char *const np_test_names[NP_TEST_N] = { "TCP_STREAM", "TCP_MAERTS", "TCP_RR", "TCP_CRR", "UDP_STREAM", "UDP_RR" };

/* Word offsets: the two header words, then omni_request_struct's. */
enum {
	RQ_TYPE = 0, RQ_SEND_BUF = 2, RQ_SEND_SIZE = 3, RQ_SEND_WIDTH = 6, RQ_REQUEST_SIZE = 7, RQ_RECV_BUF = 8,
	RQ_RECV_SIZE = 9, RQ_RECV_WIDTH = 12, RQ_RESPONSE_SIZE = 13, RQ_FLAGS = 14, RQ_TEST_LENGTH = 16,
	RQ_RCVAVOID = 17, RQ_SNDAVOID = 18, RQ_DATA_PORT = 22, RQ_FAMILY = 23, RQ_SOCK_TYPE = 24, RQ_PROTOCOL = 25,
	RQ_DIRECTION = 26, RQ_PRIO = 38, RQ_TOS = 39,
};
/* ... omni_response_struct's. */
enum {
	RS_RECV_BUF = 2, RS_RECV_SIZE = 3, RS_RECV_WIDTH = 4, RS_SEND_BUF = 5, RS_SEND_SIZE = 6, RS_SEND_WIDTH = 7,
	RS_FLAGS = 8, RS_RCVAVOID = 11, RS_SNDAVOID = 12, RS_DATA_PORT = 13, RS_PRIO = 18, RS_TOS = 19,
};
/* ... omni_results_struct's. */
enum {
	RE_BYTES_RECV = 2, RE_RECV_CALLS = 4, RE_RECV_BUF = 5, RE_BYTES_SENT = 6, RE_SEND_CALLS = 8, RE_SEND_BUF = 9,
	RE_TRANS = 11, RE_ELAPSED = 12, RE_CPU_UTIL = 13, RE_CPU_METHOD = 20, RE_NUM_CPUS = 21,
};

#define NF_INET		4	/* netperf's address family codes (nettest_bsd.h, af_to_nf) */
#define NF_INET6	6
#define NST_STREAM	1
#define NST_DGRAM	2
#define PROTO_TCP	6
#define PROTO_UDP	17

static uint32_t word(const uint8_t *msg, int w)
{
	return get32(msg + 4 * w);
}

static void put_word(uint8_t *msg, int w, uint32_t v)
{
	put32(msg + 4 * w, v);
}

/* A float as its bits: netperf converts floats with htonl as words. */
static uint32_t float_bits(float f)
{
	uint32_t v;
	memcpy(&v, &f, 4);
	return v;
}

/* The test from the data connection's family (IPv4 or IPv6: lwIP's data
 * port takes both), type, protocol, direction and flags, or -1. */
static int classify(const uint8_t *msg)
{
	uint32_t dir = word(msg, RQ_DIRECTION), crr = word(msg, RQ_FLAGS) & NP_CONNECT_TEST;
	uint32_t type = word(msg, RQ_SOCK_TYPE), proto = word(msg, RQ_PROTOCOL);
	if (word(msg, RQ_FAMILY) != NF_INET && word(msg, RQ_FAMILY) != NF_INET6)
		return -1;
	if (type == NST_STREAM && proto == PROTO_TCP) {
		if (dir == (NP_XMIT | NP_RECV))
			return crr ? NP_TCP_CRR : NP_TCP_RR;
		if (!crr && dir == NP_RECV)
			return NP_TCP_STREAM;
		return !crr && dir == NP_XMIT ? NP_TCP_MAERTS : -1;
	}
	if (type != NST_DGRAM || proto != PROTO_UDP || crr)
		return -1;
	if (dir == (NP_XMIT | NP_RECV))
		return NP_UDP_RR;
	return dir == NP_RECV ? NP_UDP_STREAM : -1;
}

/* 1 if size is one a test of max bytes at most takes (1..max), or, with
 * any_ok, netperf's -1 ("netserver's choice"). */
static int size_ok(int32_t size, int32_t max, int any_ok)
{
	return (size >= 1 && size <= max) || (any_ok && size == -1);
}

static int sizes_ok(const struct np_request *r)
{
	int udp = r->test == NP_UDP_STREAM || r->test == NP_UDP_RR;
	int32_t max = udp ? NP_UDP_MAX : NP_SIZE_MAX;
	if (r->test == NP_TCP_RR || r->test == NP_TCP_CRR || r->test == NP_UDP_RR)
		return size_ok(r->request_size, max, 0) && size_ok(r->response_size, max, 0);
	if (r->test == NP_TCP_MAERTS)	/* a response size, if any, is its send size (recv_omni) */
		return size_ok(r->send_size, max, 1) && r->response_size <= max;
	return size_ok(r->receive_size, max, 1);
}

enum np_err np_parse_request(const uint8_t *msg, size_t len, struct np_request *r)
{
	if (len < NP_MSG_LEN)
		return NP_SHORT;
	int test = classify(msg);
	if (word(msg, RQ_TYPE) != NP_DO_OMNI || test < 0)
		return NP_UNKNOWN;
	*r = (struct np_request){
		.test = (enum np_test)test,
		.send_buf_size = (int32_t)word(msg, RQ_SEND_BUF),
		.recv_buf_size = (int32_t)word(msg, RQ_RECV_BUF),
		.send_size = (int32_t)word(msg, RQ_SEND_SIZE),
		.receive_size = (int32_t)word(msg, RQ_RECV_SIZE),
		.send_width = word(msg, RQ_SEND_WIDTH),
		.recv_width = word(msg, RQ_RECV_WIDTH),
		.request_size = (int32_t)word(msg, RQ_REQUEST_SIZE),
		.response_size = (int32_t)word(msg, RQ_RESPONSE_SIZE),
		.flags = word(msg, RQ_FLAGS),
		.test_length = (int32_t)word(msg, RQ_TEST_LENGTH),
		.so_rcvavoid = word(msg, RQ_RCVAVOID),
		.so_sndavoid = word(msg, RQ_SNDAVOID),
		.data_port = word(msg, RQ_DATA_PORT),
		.direction = word(msg, RQ_DIRECTION),
		.socket_prio = (int32_t)word(msg, RQ_PRIO),
		.socket_tos = (int32_t)word(msg, RQ_TOS),
	};
	return sizes_ok(r) ? NP_OK : NP_BAD_SIZE;
}

/* recv_omni's ring width: one buffer for a transaction, else as many as
 * fill the socket buffer, plus one (at least two). */
static uint32_t width(uint32_t asked, int rr, int32_t buf, uint32_t size)
{
	if (asked)
		return asked;
	if (rr)
		return 1;
	uint32_t w = (uint32_t)(buf > 0 ? buf : 0) / size + 1;
	return w == 1 ? 2 : w;
}

void np_response_for(const struct np_request *r, int32_t recv_buf, int32_t send_buf, uint16_t data_port,
		     struct np_response *out)
{
	int32_t lsr = r->recv_buf_size > 0 ? r->recv_buf_size : recv_buf;
	int32_t lss = r->send_buf_size > 0 ? r->send_buf_size : send_buf;
	*out = (struct np_response){
		.recv_buf_size = lsr, .send_buf_size = lss,
		.receive_size = (uint32_t)r->receive_size, .recv_width = r->recv_width,
		.send_size = (uint32_t)r->send_size, .send_width = r->send_width,
		.flags = r->flags & (NP_MEASURE_CPU | NP_NO_DELAY),
		.so_rcvavoid = r->so_rcvavoid, .so_sndavoid = r->so_sndavoid, .data_port = data_port,
		.socket_prio = r->socket_prio, .socket_tos = r->socket_tos,
	};
	if (r->direction & NP_XMIT) {
		/* recv_omni's test for a transaction; else TCP_MAERTS, whose send
		 * size is netserver's choice (the socket buffer) at most
		 * NP_SIZE_MAX, what the appliance sends from. */
		int rr = r->response_size > 0;
		uint32_t n = rr ? (uint32_t)r->response_size
			   : r->send_size != -1 ? (uint32_t)r->send_size
			   : lss <= 0 ? 4096 : lss > NP_SIZE_MAX ? NP_SIZE_MAX : (uint32_t)lss;
		out->send_size = n;
		out->send_width = width(r->send_width, rr, lss, n);
	}
	if (r->direction & NP_RECV) {
		int rr = r->request_size > 0;
		uint32_t n = rr ? (uint32_t)r->request_size
			   : r->receive_size != -1 ? (uint32_t)r->receive_size
			   : lsr > 0 ? (uint32_t)lsr : 4096;
		out->receive_size = n;
		out->recv_width = width(r->recv_width, rr, lsr, n);
	}
}

/* A message: its type, second word err, then words 2..n-1 of w (the
 * structure's converted words), the rest zero. */
static void put_message(uint8_t *msg, uint32_t type, uint32_t err, const uint32_t *w, int n)
{
	memset(msg, 0, NP_MSG_LEN);
	put_word(msg, RQ_TYPE, type);
	put_word(msg, 1, err);
	for (int i = 2; i < n; i++)
		put_word(msg, i, w[i]);
}

void np_put_response(uint8_t *msg, const struct np_response *r)
{
	const uint32_t w[] = {
		[RS_RECV_BUF] = (uint32_t)r->recv_buf_size, [RS_RECV_SIZE] = r->receive_size,
		[RS_RECV_WIDTH] = r->recv_width, [RS_SEND_BUF] = (uint32_t)r->send_buf_size,
		[RS_SEND_SIZE] = r->send_size, [RS_SEND_WIDTH] = r->send_width, [RS_FLAGS] = r->flags,
		[RS_RCVAVOID] = r->so_rcvavoid, [RS_SNDAVOID] = r->so_sndavoid, [RS_DATA_PORT] = r->data_port,
		[RS_PRIO] = (uint32_t)r->socket_prio, [RS_TOS] = (uint32_t)r->socket_tos,
	};
	put_message(msg, NP_OMNI_RESPONSE, 0, w, RS_TOS + 1);
}

void np_put_results(uint8_t *msg, const struct np_results *r)
{
	const uint32_t w[] = {
		[RE_BYTES_RECV] = (uint32_t)(r->bytes_received >> 32), [RE_BYTES_RECV + 1] = (uint32_t)r->bytes_received,
		[RE_RECV_CALLS] = r->recv_calls, [RE_RECV_BUF] = (uint32_t)r->recv_buf_size,
		[RE_BYTES_SENT] = (uint32_t)(r->bytes_sent >> 32), [RE_BYTES_SENT + 1] = (uint32_t)r->bytes_sent,
		[RE_SEND_CALLS] = r->send_calls, [RE_SEND_BUF] = (uint32_t)r->send_buf_size,
		[RE_TRANS] = r->trans_received, [RE_ELAPSED] = float_bits(r->elapsed_time),
		[RE_CPU_UTIL] = float_bits(r->cpu_util), [RE_CPU_METHOD] = r->cpu_method, [RE_NUM_CPUS] = r->num_cpus,
	};
	put_message(msg, NP_OMNI_RESPONSE, 0, w, RE_NUM_CPUS + 1);
}

void np_put_error(uint8_t *msg, uint32_t type, uint32_t err)
{
	put_message(msg, type, err, NULL, 0);
}
