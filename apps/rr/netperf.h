/*
 * netperf 2.7.0's control messages, as netserver reads and writes them
 * (netperf's netlib.h, nettest_bsd.h and nettest_omni.c's recv_omni, read
 * for the layout; checked byte for byte against real exchanges in
 * tests/unit/data/netperf-*.pcap). Portable: no lwIP, host unit tests.
 *
 * Every message is NP_MSG_LEN bytes: a 32-bit type, a 32-bit second word
 * (netperf's CPU affinity, netserver's errno), then 162 words of the
 * test's structure. netperf 2.7.0 runs all six classic tests (TCP_STREAM,
 * TCP_MAERTS, TCP_RR, TCP_CRR, UDP_STREAM, UDP_RR) as "omni" tests: one
 * request (DO_OMNI), one response (its data port and sizes) and, after
 * the test, one results message. The leading words of each structure are
 * in network byte order (floats too, as their bits), the strings after
 * them are not converted (send_request_n / send_response_n's cut-offs).
 */
#ifndef APPS_RR_NETPERF_H
#define APPS_RR_NETPERF_H
#include <stddef.h>
#include <stdint.h>

#define NP_MSG_LEN	656	/* 2 + MAXSPECDATA (162) 32-bit words */
#define NP_DO_OMNI	97	/* netperf's request */
#define NP_OMNI_RESPONSE 98	/* netserver's answer, and its results (recv_omni keeps the type) */
#define NP_ERR_UNKNOWN	998	/* netserver's serv_errno for a request type it does not know */

/* Omni request flags (nettest_bsd.h). */
#define NP_NO_DELAY	0x01
#define NP_CONNECT_TEST	0x04	/* TCP_CRR: a connection per transaction */
#define NP_MEASURE_CPU	0x08	/* netperf -C */

/* Direction, from the server's side (netsh.h). */
#define NP_XMIT		0x2
#define NP_RECV		0x4

/* The six tests, from the request's protocol, direction and flags. */
enum np_test { NP_TCP_STREAM, NP_TCP_MAERTS, NP_TCP_RR, NP_TCP_CRR, NP_UDP_STREAM, NP_UDP_RR, NP_TEST_N };
extern const char *const np_test_names[NP_TEST_N];

#define NP_SIZE_MAX	65535	/* largest request, response or send size taken (TCP) */
#define NP_UDP_MAX	65507	/* ... over UDP: 65535 - 20 - 8 */

/* The request's fields netserver uses (omni_request_struct); sizes are
 * bytes, -1 where netperf leaves the choice to netserver. */
struct np_request {
	enum np_test test;
	int32_t send_buf_size, recv_buf_size;	/* -S (SO_SNDBUF, SO_RCVBUF), or -1 */
	int32_t send_size, receive_size;	/* -m, -M, or -1 */
	uint32_t send_width, recv_width;
	int32_t request_size, response_size;	/* -r REQ,RSP; 0 for a stream test */
	uint32_t flags;				/* NP_* flags */
	int32_t test_length;			/* -l: seconds (> 0) or -transactions */
	uint32_t so_rcvavoid, so_sndavoid;
	uint32_t data_port;			/* -P's remote port, or 0 */
	uint32_t direction;			/* NP_XMIT | NP_RECV */
	int32_t socket_prio, socket_tos;
};

/* Why a request is refused. */
enum np_err {
	NP_OK,
	NP_SHORT = -1,		/* fewer than NP_MSG_LEN bytes */
	NP_UNKNOWN = -2,	/* not DO_OMNI, or an omni test other than the six (IPv6, SCTP, ...) */
	NP_BAD_SIZE = -3,	/* a request, response or send size of 0, negative or past NP_SIZE_MAX / NP_UDP_MAX */
};

/* Parse msg (len bytes) into r. NP_OK, or an np_err (r then undefined). */
enum np_err np_parse_request(const uint8_t *msg, size_t len, struct np_request *r);

/* The response's fields (omni_response_struct). */
struct np_response {
	int32_t recv_buf_size, send_buf_size;
	uint32_t receive_size, recv_width, send_size, send_width;
	uint32_t flags;
	uint32_t so_rcvavoid, so_sndavoid;
	uint32_t data_port;
	int32_t socket_prio, socket_tos;
};

/* The response to r as netserver fills it, with the server's buffer
 * sizes (used where r has -1) and its data port. */
void np_response_for(const struct np_request *r, int32_t recv_buf, int32_t send_buf, uint16_t data_port,
		     struct np_response *out);
/* Write response r into msg (NP_MSG_LEN bytes). */
void np_put_response(uint8_t *msg, const struct np_response *r);

/* The results' fields (omni_results_struct). */
struct np_results {
	uint64_t bytes_received, bytes_sent;
	uint32_t recv_calls, send_calls;
	int32_t recv_buf_size, send_buf_size;
	uint32_t trans_received;
	float elapsed_time;	/* s */
	float cpu_util;		/* % of all cores, when measured (NP_MEASURE_CPU) */
	uint32_t cpu_method;	/* netperf's method code (netlib.h) */
	uint32_t num_cpus;
};
#define NP_CPU_IDLE_COUNTER 1	/* netperf's HP_IDLE_COUNTER ('I'): halted cycles */

/* Write results r into msg (NP_MSG_LEN bytes). */
void np_put_results(uint8_t *msg, const struct np_results *r);
/* Write netserver's error answer: response type type, serv_errno err. */
void np_put_error(uint8_t *msg, uint32_t type, uint32_t err);
#endif
