/*
 * The request-response service (netperf UDP_RR/TCP_RR style) on rr_port and
 * echo (RFC 862) on port 7, UDP and TCP.
 *  - UDP RR: a datagram of exactly req bytes is one transaction, answered by
 *    rsp bytes; other sizes are counted (udp_rr_short, udp_rr_long) and not
 *    answered; nor are datagrams from a service's port (rr_udp_from_service,
 *    UDP echo too); with rsp above RR_UDP_MAX (a TCP size) requests are counted
 *    udp_rr_unanswered, as those lwIP refuses to send.
 *  - TCP RR: every req bytes of the stream are one transaction, answered by
 *    rsp bytes, written in pieces as the send buffer allows; it counts
 *    (tcp_rr) once its response is all queued. After the peer's FIN the
 *    responses owed are still sent, then the connection closes (rr_tcp.c);
 *    an unfinished request at the peer's FIN, and responses never queued
 *    when a connection ends, count as tcp_rr_partial.
 *  - Responses over RR_COPY_MAX bytes are sent without a copy from a
 *    constant buffer (PBUF_ROM, tcp_write without TCP_WRITE_FLAG_COPY); echo sends UDP datagrams back
 *    in the received pbuf and copies TCP data into lwIP's send buffer.
 */
#include <stdio.h>
#include <string.h>
#include "apps/rr/rr.h"
#include "kernel/mem.h"	/* before lwIP's headers, which rename lwIP's mem_init */
#include "lwip/tcp.h"
#include "lwip/udp.h"
#include "net/lwip/lwif.h"

/* The response's rsp bytes, from free pages at init (not in the image:
 * boxes that do not run rr keep the memory). */
static uint8_t *rsp_data;
/* Responses up to this many bytes are copied into the header's buffer (one
 * allocation); longer ones are sent by reference (PBUF_ROM, no copy). */
#define RR_COPY_MAX 128

static void udp_rr_recv(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr, u16_t port)
{
	(void)arg;
	int pt = lwif_rx_port();
	u16_t len = p->tot_len;
	pbuf_free(p);
	if (rr_udp_from_service(pt, port))
		return;
	if (len != rr_cfg.req) {
		rr_count(pt, len < rr_cfg.req ? RR_udp_rr_short : RR_udp_rr_long, 1);
		return;
	}
	if (rr_cfg.rsp > RR_UDP_MAX) {
		rr_count(pt, RR_udp_rr_unanswered, 1);
		return;
	}
	int err = rr_udp_respond(pt, pcb, addr, port, (uint32_t)rr_cfg.rsp, rsp_data);
	rr_count(pt, err ? RR_udp_rr_unanswered : RR_udp_rr, 1);
}

int rr_udp_respond(int port, struct udp_pcb *pcb, const void *addr, uint16_t rport, uint32_t rsp, const uint8_t *data)
{
	int small = rsp <= RR_COPY_MAX;
	struct pbuf *r = pbuf_alloc(PBUF_TRANSPORT, (u16_t)rsp, small ? PBUF_RAM : PBUF_ROM);
	if (!r) {
		lwif_count(port, LWIF_tx_no_buffer, 1);
		return -1;
	}
	if (small)
		memcpy(r->payload, data, rsp);
	else
		r->payload = (void *)data;
	err_t err = lwif_udp_sendto(pcb, r, addr, rport);
	pbuf_free(r);
	return err == ERR_OK ? 0 : -1;
}

static void udp_echo_recv(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr, u16_t port)
{
	(void)arg;
	int pt = lwif_rx_port();
	if (!rr_udp_from_service(pt, port)) {
		lwif_udp_sendto(pcb, p, addr, port);
		rr_count(pt, RR_echo_udp, 1);
	}
	pbuf_free(p);
}

/* The bytes tcp_write may queue on pcb now: the send buffer, and the
 * segment queue's room. Sent by reference, a segment takes two queue
 * entries (header and data pbufs), and lwIP cuts at most min(MSS, the
 * peer's largest window / 2) into one (tcp_write); 4 entries stay spare
 * for lwIP's own. */
static inline uint32_t tcp_room(struct tcp_pcb *pcb)
{
	int segs = (TCP_SND_QUEUELEN - 4 - tcp_sndqueuelen(pcb)) / 2;
	uint32_t mss = LWIP_MIN(pcb->mss, pcb->snd_wnd_max / 2);
	if (segs <= 0)
		return 0;
	return LWIP_MIN(tcp_sndbuf(pcb), (uint32_t)segs * (mss ? mss : pcb->mss));
}

/* Queue as much of the rsp-byte responses owed (from data) as tcp_room
 * takes, a response that does not fit in pieces (sent as the window
 * allows, RFC 9293 3.8.6); a transaction completes once the last byte of
 * its response is queued. Returns the transactions completed. */
static inline uint32_t flush_owed(struct rr_conn *c, uint32_t rsp, const uint8_t *data)
{
	struct tcp_pcb *pcb = c->pcb;
	u8_t flags = rsp <= RR_COPY_MAX ? TCP_WRITE_FLAG_COPY : 0;
	uint32_t done = 0;
	while (c->owed) {
		uint32_t left = c->rsp_left ? c->rsp_left : rsp, n = LWIP_MIN(left, tcp_room(pcb));
		if (!n || tcp_write(pcb, data + rsp - left, (u16_t)n, flags) != ERR_OK)
			break;
		c->rsp_left = left - n;
		if (!c->rsp_left) {
			c->owed--;
			done++;
		}
	}
	return done;
}

uint32_t rr_tcp_flush(struct rr_conn *c, uint32_t rsp, const uint8_t *data)
{
	uint32_t done = flush_owed(c, rsp, data);
	tcp_output(c->pcb);
	return done;
}

uint32_t rr_tcp_transact(struct rr_conn *c, uint32_t len, uint32_t req, uint32_t rsp, const uint8_t *data)
{
	uint32_t n = c->have + len;
	c->owed += n / req;
	c->have = n % req;
	return flush_owed(c, rsp, data);
}

/* With tcp_write inlined (flatten): a transaction's response is queued
 * without a call; a transaction counts (tcp_rr) once its response is. */
__attribute__((flatten)) int rr_tcp_rr_recv(struct rr_conn *c, struct pbuf *p)
{
	rr_count(c->port, RR_tcp_rr, rr_tcp_transact(c, p->tot_len, (uint32_t)rr_cfg.req, (uint32_t)rr_cfg.rsp, rsp_data));
	return c->owed != 0;
}

static int tcp_rr_sent(struct rr_conn *c)
{
	if (c->owed)
		rr_count(c->port, RR_tcp_rr, rr_tcp_flush(c, (uint32_t)rr_cfg.rsp, rsp_data));
	return 0;
}

uint32_t rr_tcp_stream(struct rr_conn *c, const uint8_t *data, uint32_t size, uint32_t *part, uint32_t *sends)
{
	uint32_t queued = 0;
	for (;;) {
		uint32_t n = LWIP_MIN(size - *part, tcp_room(c->pcb));
		if (!n || tcp_write(c->pcb, data + *part, (u16_t)n, 0) != ERR_OK)
			return queued;
		queued += n;
		*part += n;
		if (*part == size) {
			*part = 0;
			(*sends)++;
		}
	}
}

static int tcp_echo_recv(struct rr_conn *c, struct pbuf *p)
{
	if (tcp_sndbuf(c->pcb) < p->tot_len || tcp_sndqueuelen(c->pcb) > TCP_SND_QUEUELEN / 2)
		return -1;
	for (struct pbuf *q = p; q; q = q->next)
		if (tcp_write(c->pcb, q->payload, q->len, TCP_WRITE_FLAG_COPY) != ERR_OK)
			return -1;
	rr_count(c->port, RR_echo_tcp_bytes, p->tot_len);
	return 0;
}

static int udp_bind_port(uint16_t port, udp_recv_fn fn)
{
	struct udp_pcb *pcb = udp_new();
	if (!pcb || udp_bind(pcb, IP_ANY_TYPE, port) != ERR_OK) {
		printf("rr: cannot bind UDP port %u\n", port);
		return -1;
	}
	udp_recv(pcb, fn, NULL);
	return 0;
}

int rr_services_init(void)
{
	rsp_data = dma_alloc((size_t)rr_cfg.rsp, 64);
	if (!rsp_data) {
		printf("rr: no memory for the %ld-byte response (rsp=)\n", rr_cfg.rsp);
		return -1;
	}
	memset(rsp_data, 'r', (size_t)rr_cfg.rsp);
	if ((uint16_t)rr_cfg.port == RR_ECHO_PORT || (uint16_t)rr_cfg.port == RR_SOCKPERF_PORT) {
		printf("rr: rr_port=%ld is taken by echo (%d) or sockperf (%d)\n", rr_cfg.port, RR_ECHO_PORT,
		       RR_SOCKPERF_PORT);
		return -1;
	}
	if (rr_cfg.req > RR_UDP_MAX || rr_cfg.rsp > RR_UDP_MAX)
		printf("rr: UDP request-response takes req and rsp of 1-%d bytes (UDP over IPv4): with req=%ld rsp=%ld "
		       "UDP requests go unanswered (udp_rr_short, udp_rr_unanswered); TCP takes them up to 65535\n",
		       RR_UDP_MAX, rr_cfg.req, rr_cfg.rsp);
	if (udp_bind_port((uint16_t)rr_cfg.port, udp_rr_recv) || udp_bind_port(RR_ECHO_PORT, udp_echo_recv))
		return -1;
	return rr_tcp_listen((uint16_t)rr_cfg.port, RR_SVC_RR) || rr_tcp_listen(RR_ECHO_PORT, RR_SVC_ECHO);
}

const struct rr_svc_ops rr_svc_ops[RR_SVC_N] = {
	[RR_SVC_RR] = { .recv = rr_tcp_rr_recv, .sent = tcp_rr_sent },
	[RR_SVC_ECHO] = { .recv = tcp_echo_recv },
	[RR_SVC_SOCKPERF] = { .recv = rr_sockperf_recv },
	[RR_SVC_NETSERVER] = { .recv = netserver_ctl_recv, .sent = netserver_ctl_sent, .accept = netserver_ctl_accept, .closed = netserver_ctl_closed },
	[RR_SVC_NETSERVER_DATA] = { .recv = netserver_data_recv, .sent = netserver_data_sent,
				    .accept = netserver_data_accept, .closed = netserver_data_closed },
	[RR_SVC_IPERF3] = { .recv = iperf3_recv, .sent = iperf3_sent, .accept = iperf3_accept, .closed = iperf3_closed },
};
