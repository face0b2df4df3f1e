/*
 * netserver: netperf 2.7.0's server on TCP netserver_port (12865), so an
 * unmodified `netperf -H BOX -t TEST` runs TCP_STREAM, TCP_MAERTS,
 * TCP_RR, TCP_CRR, UDP_STREAM and UDP_RR against the appliance (messages:
 * netperf.c). As netserver's recv_omni does it:
 *  - netperf's request arrives on the control connection; the test's data
 *    port (netperf -P's remote port, or one lwIP picks) is opened (TCP:
 *    listening; UDP: bound) and the response names it;
 *  - the test runs on the data connection: RR answers every request of
 *    REQ bytes with RSP bytes (TCP_CRR: one per connection, which we then
 *    close), STREAM takes the bytes, MAERTS sends send-size sends;
 *  - it ends when netperf closes the data connection (TCP; TCP_CRR: past
 *    its length), or sends a zero-length datagram (UDP), or at its length
 *    + 4 s (netserver's PAD_TIME: counted netserver_timed_out, or
 *    netserver_no_data when no data ever came); the results (the server's
 *    bytes, calls, transactions, elapsed time and, with netperf -C, the
 *    CPU% of all cores from their halted cycles) go back on the control
 *    connection, which stays for the next request (netperf -i).
 * Bad input: a control message not whole within NS_MSG_WAIT_S or at the
 * peer's FIN (netserver_short: closed), an unknown request or test
 * (netserver_unknown: netserver's error 998), absurd sizes
 * (netserver_bad_size: EINVAL), a data port taken (netserver_no_port:
 * EADDRINUSE), more than NS_TESTS control connections (netserver_busy:
 * refused), the control connection gone mid-test (netserver_client_gone:
 * the test ends, its data connection is closed and reset within 2 s).
 * -s/-S socket sizes are reported as asked; lwIP's buffers stay TCP_WND
 * and TCP_SND_BUF (reported when netperf leaves the choice).
 */
#include <stdio.h>
#include <string.h>
#include "apps/rr/netperf.h"
#include "apps/rr/rr.h"
#include "kernel/cpu.h"
#include "kernel/knobs.h"
#include "kernel/mem.h"	/* before lwIP's headers, which rename lwIP's mem_init */
#include "kernel/time.h"
#include "lwip/memp.h"
#include "lwip/priv/memp_priv.h"
#include "lwip/tcp.h"
#include "lwip/udp.h"
#include "net/bytes.h"
#include "net/lwip/lwif.h"
#include "run/lcore.h"

#define NS_TESTS	256	/* control connections at once (seed 4: 128 netperfs) */
#define NS_PAD_S	4	/* netserver's PAD_TIME: a test's timer runs its length + this */
#define NS_MSG_WAIT_S	10	/* a control message begun must be whole within this */
#define NS_COUNT_S	600	/* the timer of a test by transactions (netperf -l -N) */
#define NS_EINVAL	22	/* Linux errno values netperf prints */
#define NS_EADDRINUSE	98

int64_t netserver_port = 12865;
static const struct knob_range port_range[] = { { 0, 65535 } };
KNOB(netserver_port, .name = "netserver_port", .type = KNOB_INT, .ranges = port_range, .nranges = 1,
     .ival = &netserver_port, .help = "rr: TCP port of netserver (netperf 2.7.0's control connection; 0: off); default 12865");

enum ns_state { NS_FREE, NS_IDLE, NS_RUN };

/* A control connection and the test it runs. */
struct ns_test {
	struct rr_conn *ctl;	/* NULL: free */
	enum ns_state state;
	uint8_t msg[NP_MSG_LEN];	/* the request coming in, then the answer going out */
	uint32_t have;			/* ... bytes of it so far */
	uint64_t msg_tsc;		/* ... TSC of its first byte */
	struct rr_out out;		/* answers lwIP has not taken yet, in out_buf */
	uint8_t out_buf[2 * NP_MSG_LEN];
	struct np_request req;
	struct np_response rsp;
	struct tcp_pcb *listen;	/* TCP tests: the data port */
	struct udp_pcb *udp;	/* UDP tests: the data port */
	struct rr_conn *data;	/* TCP tests: the data connection now */
	uint64_t start_tsc, end_tsc, halted;	/* the test's start, timer, halted cycles at start */
	uint64_t rx, tx;	/* data bytes */
	uint32_t recvs, sends, trans, conns, part;
};
static struct ns_test *tests;
static int ns_busy;	/* tests not NS_FREE: netserver_tick returns at once without any */
static uint8_t *ns_data;	/* what tests send: NP_SIZE_MAX bytes, from free pages */

/* Send the NP_MSG_LEN bytes of t->msg on the control connection after
 * the answers waiting (rr_out): netperf reads each answer before it sends
 * again, so a test's response and its results wait at most. A client that
 * sends requests without reading their answers while lwIP cannot send them
 * has its control connection closed (tx_no_buffer). */
static void ctl_send(struct ns_test *t)
{
	if (rr_out_send(t->ctl, &t->out, t->msg, NP_MSG_LEN)) {
		lwif_count(t->ctl->port, LWIF_tx_no_buffer, 1);
		t->ctl->peer_fin = 1;
	}
}

static void send_error(struct ns_test *t, enum rr_event e, uint32_t type, uint32_t err)
{
	rr_count(t->ctl->port, e, 1);
	np_put_error(t->msg, type, err);
	ctl_send(t);
}

/* The results of t, ended now (timed_out: by its timer, padded). */
static void send_results(struct ns_test *t, int timed_out)
{
	uint64_t now = rdtsc(), cycles = now - t->start_tsc;
	float elapsed = (float)cycles / (float)tsc.hz - (timed_out ? NS_PAD_S : 0);
	struct np_results r = {
		.bytes_received = t->rx, .bytes_sent = t->tx, .recv_calls = t->recvs, .send_calls = t->sends,
		.recv_buf_size = t->rsp.recv_buf_size, .send_buf_size = t->rsp.send_buf_size,
		.trans_received = t->trans, .elapsed_time = elapsed > 0 ? elapsed : 0,
		.cpu_method = NP_CPU_IDLE_COUNTER, .num_cpus = (uint32_t)nlcores,
	};
	if (t->req.flags & NP_MEASURE_CPU) {
		float idle = (float)(lcore_halted_cycles() - t->halted) / ((float)cycles * (float)nlcores);
		r.cpu_util = idle < 1 ? 100 * (1 - idle) : 0;
	}
	np_put_results(t->msg, &r);
	ctl_send(t);
}

/* End t's test: its data port closed, its data connection closed with a
 * FIN, the results sent while the control connection is there. */
static void test_end(struct ns_test *t, int timed_out)
{
	rr_ports_mark((uint16_t)t->rsp.data_port, 0);
	if (t->listen)
		tcp_close(t->listen);
	if (t->udp)
		udp_remove(t->udp);
	t->listen = NULL;
	t->udp = NULL;
	if (t->data) {
		struct rr_conn *d = t->data;
		t->data = NULL;
		d->owner = NULL;
		rr_tcp_close(d);
	}
	if (t->ctl)
		send_results(t, timed_out);
	t->state = NS_IDLE;
}

static void udp_data_recv(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr, u16_t port)
{
	struct ns_test *t = arg;
	int pt = lwif_rx_port();
	u16_t len = p->tot_len;
	pbuf_free(p);
	if (!len) {	/* netperf's end of a UDP test */
		test_end(t, 0);
		return;
	}
	if (rr_udp_from_service(pt, port))
		return;
	t->rx += len;
	t->recvs++;
	rr_count(pt, RR_netserver_rx_bytes, len);
	if (t->req.test != NP_UDP_RR)
		return;
	uint32_t rsp = (uint32_t)t->req.response_size;
	if (rr_udp_respond(pt, pcb, addr, port, rsp, ns_data))
		return;
	t->trans++;
	t->sends++;
	t->tx += rsp;
	rr_count(pt, RR_netserver_transactions, 1);
	rr_count(pt, RR_netserver_tx_bytes, rsp);
}

/* Open t's data port: netperf's (-P), or one lwIP picks. 0, or -1. */
static int open_data_port(struct ns_test *t)
{
	uint16_t port = (uint16_t)t->req.data_port;
	if (t->req.test == NP_UDP_STREAM || t->req.test == NP_UDP_RR) {
		t->udp = udp_new();
		if (!t->udp || udp_bind(t->udp, IP_ANY_TYPE, port) != ERR_OK) {
			if (t->udp)
				udp_remove(t->udp);
			t->udp = NULL;
			return -1;
		}
		udp_recv(t->udp, udp_data_recv, t);
		port = t->udp->local_port;
	} else {
		t->listen = rr_tcp_listen_pcb(port, RR_SVC_NETSERVER_DATA);
		if (!t->listen)
			return -1;
		port = t->listen->local_port;
	}
	rr_ports_mark(port, 1);
	t->rsp.data_port = port;
	return 0;
}

/* A whole request in t->msg: start its test, or answer why not. */
static void request(struct ns_test *t)
{
	int pt = t->ctl->port;
	uint32_t type = get32(t->msg);
	switch (np_parse_request(t->msg, NP_MSG_LEN, &t->req)) {
	case NP_OK:
		break;
	case NP_BAD_SIZE:
		send_error(t, RR_netserver_bad_size, NP_OMNI_RESPONSE, NS_EINVAL);
		return;
	default:
		send_error(t, RR_netserver_unknown, type, NP_ERR_UNKNOWN);
		return;
	}
	np_response_for(&t->req, TCP_WND, TCP_SND_BUF, 0, &t->rsp);
	if (open_data_port(t)) {
		send_error(t, RR_netserver_no_port, NP_OMNI_RESPONSE, NS_EADDRINUSE);
		return;
	}
	t->rx = t->tx = 0;
	t->recvs = t->sends = t->trans = t->conns = t->part = 0;
	t->state = NS_RUN;
	t->start_tsc = rdtsc();
	t->halted = lcore_halted_cycles();
	t->end_tsc = t->start_tsc + (uint64_t)(t->req.test_length > 0 ? t->req.test_length : NS_COUNT_S) * tsc.hz +
		     NS_PAD_S * tsc.hz;
	rr_count(pt, RR_netserver_tests, 1);
	np_put_response(t->msg, &t->rsp);
	ctl_send(t);
}

int netserver_ctl_accept(struct rr_conn *c)
{
	for (int i = 0; i < NS_TESTS; i++)
		if (tests[i].state == NS_FREE) {
			tests[i] = (struct ns_test){ .ctl = c, .state = NS_IDLE };
			tests[i].out = (struct rr_out){ .buf = tests[i].out_buf, .size = sizeof(tests[i].out_buf) };
			c->owner = &tests[i];
			ns_busy++;
			return 0;
		}
	rr_count(c->port, RR_netserver_busy, 1);
	return -1;
}

/* Control bytes: netperf sends one request and waits for its answer;
 * bytes past a request during its test are not netperf's (counted
 * netserver_unknown, dropped). */
int netserver_ctl_recv(struct rr_conn *c, struct pbuf *p)
{
	struct ns_test *t = c->owner;
	for (u16_t off = 0; off < p->tot_len;) {
		if (t->state != NS_IDLE) {
			rr_count(c->port, RR_netserver_unknown, 1);
			return 0;
		}
		if (!t->have)
			t->msg_tsc = rdtsc();
		u16_t n = pbuf_copy_partial(p, t->msg + t->have, (u16_t)(NP_MSG_LEN - t->have), off);
		off = (u16_t)(off + n);
		t->have += n;
		if (t->have == NP_MSG_LEN) {
			t->have = 0;
			request(t);
		}
	}
	return 0;
}

int netserver_ctl_sent(struct rr_conn *c)
{
	struct ns_test *t = c->owner;
	if (t && t->out.len)
		rr_out_flush(c, &t->out);
	return t && t->out.len;
}

void netserver_ctl_closed(struct rr_conn *c)
{
	struct ns_test *t = c->owner;
	if (!t)
		return;
	t->ctl = NULL;
	if (t->have)
		rr_count(c->port, RR_netserver_short, 1);
	if (t->state == NS_RUN) {
		rr_count(c->port, RR_netserver_client_gone, 1);
		test_end(t, 0);
	}
	t->state = NS_FREE;
	ns_busy--;
}

/* A data connection to a test's port from its control connection's peer
 * (TCP_CRR: one after another; others: one). */
int netserver_data_accept(struct rr_conn *c)
{
	for (int i = 0; i < NS_TESTS; i++) {
		struct ns_test *t = &tests[i];
		if (t->state != NS_RUN || !t->listen || t->listen->local_port != c->pcb->local_port || t->data ||
		    (t->conns && t->req.test != NP_TCP_CRR) || !ip_addr_cmp(&c->pcb->remote_ip, &t->ctl->pcb->remote_ip))
			continue;
		t->data = c;
		t->conns++;
		c->owner = t;
		if (t->req.test == NP_TCP_MAERTS) {
			netserver_data_sent(c);
			rr_tcp_wait_sent(c);
		}
		return 0;
	}
	return -1;
}

static void count_trans(struct rr_conn *c, struct ns_test *t, uint32_t n)
{
	uint32_t rsp = (uint32_t)t->req.response_size;
	t->trans += n;
	t->sends += n;
	t->tx += (uint64_t)n * rsp;
	rr_count(c->port, RR_netserver_transactions, n);
	rr_count(c->port, RR_netserver_tx_bytes, (uint64_t)n * rsp);
}

int netserver_data_recv(struct rr_conn *c, struct pbuf *p)
{
	struct ns_test *t = c->owner;
	if (!t)
		return 0;
	t->rx += p->tot_len;
	t->recvs++;
	rr_count(c->port, RR_netserver_rx_bytes, p->tot_len);
	if (t->req.test != NP_TCP_RR && t->req.test != NP_TCP_CRR)
		return 0;
	uint32_t req = (uint32_t)t->req.request_size, rsp = (uint32_t)t->req.response_size;
	uint32_t n = rr_tcp_transact(c, p->tot_len, req, rsp, ns_data);
	count_trans(c, t, n);
	if (t->req.test == NP_TCP_CRR && (n || c->owed))
		c->peer_fin = 1;	/* one transaction a connection: closed once answered */
	return c->owed != 0;
}

int netserver_data_sent(struct rr_conn *c)
{
	struct ns_test *t = c->owner;
	if (!t)
		return 0;
	if (t->req.test == NP_TCP_MAERTS) {
		uint32_t n = rr_tcp_stream(c, ns_data, t->rsp.send_size, &t->part, &t->sends);
		t->tx += n;
		rr_count(c->port, RR_netserver_tx_bytes, n);
		tcp_output(c->pcb);
		return 1;
	}
	if (c->owed)
		count_trans(c, t, rr_tcp_flush(c, (uint32_t)t->req.response_size, ns_data));
	return 0;
}

void netserver_data_closed(struct rr_conn *c)
{
	struct ns_test *t = c->owner;
	if (!t || t->data != c)
		return;
	t->data = NULL;
	c->owner = NULL;
	if (t->req.test != NP_TCP_CRR || (t->req.test_length < 0 && t->trans >= (uint32_t)-t->req.test_length))
		test_end(t, 0);
}

void netserver_tick(void)
{
	if (!ns_busy)
		return;
	uint64_t now = rdtsc();
	for (int i = 0; i < NS_TESTS; i++) {
		struct ns_test *t = &tests[i];
		if (t->state == NS_FREE)
			continue;
		if (t->out.len)	/* answers refused for memory: tried again */
			rr_out_flush(t->ctl, &t->out);
		if (t->have && now - t->msg_tsc > NS_MSG_WAIT_S * tsc.hz) {
			rr_tcp_close(t->ctl);	/* counted netserver_short as it closes */
			continue;
		}
		if (t->state != NS_RUN)
			continue;
		rr_tcp_touch(t->ctl);
		if (now < t->end_tsc)
			continue;
		rr_count(t->ctl->port, t->conns || t->recvs ? RR_netserver_timed_out : RR_netserver_no_data, 1);
		test_end(t, 1);
	}
}

int netserver_init(void)
{
	if (!netserver_port)
		return 0;
	if (rr_port_taken("netserver_port", netserver_port))
		return -1;
	tests = dma_alloc(NS_TESTS * sizeof(*tests), 64);
	ns_data = dma_alloc(NP_SIZE_MAX, 64);
	/* A listening TCP or a UDP pcb for every test's data port, beside lwIP's own. */
	if (!tests || !ns_data || lwif_pool_fill(memp_pools[MEMP_TCP_PCB_LISTEN], NS_TESTS, 0) ||
	    lwif_pool_fill(memp_pools[MEMP_UDP_PCB], NS_TESTS, 0)) {
		printf("rr: no memory for netserver's %d tests\n", NS_TESTS);
		return -1;
	}
	memset(tests, 0, NS_TESTS * sizeof(*tests));
	memset(ns_data, 'n', NP_SIZE_MAX);
	rr_ports_mark((uint16_t)netserver_port, 1);
	return rr_tcp_listen((uint16_t)netserver_port, RR_SVC_NETSERVER);
}
