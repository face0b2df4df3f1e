/*
 * rr's TCP connections on lwIP's raw API: accept up to rr_conns (the SYN
 * check, rr.c's syn_full, keeps half-open ones inside it too), hand data to
 * the service, close with a FIN when the peer closes (FIN; after the
 * responses still owed) and when a
 * connection received no segment for rr_idle seconds, count resets and
 * aborts (lwIP's err callback), and reset a closing connection whose peer
 * does not acknowledge our FIN within FIN_WAIT_POLLS seconds (it vanished).
 * Idle is checked from a 1 s tcp_poll: lwIP stamps pcb->tmr with its
 * 500 ms tcp_ticks on every segment it accepts, so the receive path does
 * no clock reading of ours.
 */
#include <stdio.h>
#include <string.h>
#include "apps/rr/rr.h"
#include "kernel/mem.h"	/* before lwIP's headers, which rename lwIP's mem_init */
#include "lwip/priv/tcp_priv.h"
#include "lwip/prot/tcp.h"
#include "lwip/tcp.h"
#include "net/lwip/lwif.h"

#define POLL_HALF_SECONDS 2	/* tcp_poll interval: lwIP's coarse timer is 500 ms */
#define FIN_WAIT_POLLS 2	/* polls a closing connection has for the ACK of our FIN */

static struct rr_conn *conns;	/* rr_conns of them, from free pages */
static struct rr_conn *free_list;
static int nopen;

int rr_conns_open(void)
{
	return nopen;
}

int rr_syn_room(int port)
{
	struct tcp_pcb *oldest = NULL;	/* lwIP puts new PCBs first: the last one found */
	int half_open = 0;
	for (struct tcp_pcb *pcb = tcp_active_pcbs; pcb; pcb = pcb->next)
		if (pcb->state == SYN_RCVD && rr_our_port(pcb->local_port)) {
			half_open++;
			oldest = pcb;
		}
	if (nopen + half_open < rr_cfg.conns)
		return 1;
	if (!oldest)
		return 0;
	tcp_abandon(oldest, 0);
	rr_count(port, RR_half_open_recycled, 1);
	return 1;
}

/* c's slot back to the free list; responses it still owed count as
 * tcp_rr_partial (transactions never completed). */
static void conn_put(struct rr_conn *c)
{
	if (rr_svc_ops[c->svc].closed)
		rr_svc_ops[c->svc].closed(c);
	rr_count(c->port, RR_tcp_rr_partial, c->owed);
	c->pcb = NULL;
	c->next_free = free_list;
	free_list = c;
	nopen--;
	rr_stats[c->port].conns_open--;
}

static void conn_free(struct rr_conn *c)
{
	tcp_arg(c->pcb, NULL);
	tcp_recv(c->pcb, NULL);
	tcp_sent(c->pcb, NULL);
	tcp_err(c->pcb, NULL);
	tcp_poll(c->pcb, NULL, 0);
	conn_put(c);
}

/* Data taken is given back to the receive window a segment's worth at a
 * time (on_recv): lwIP moves the announced window only by a segment
 * anyway (RFC 9293 3.8.6.2.2), and small requests skip the update. */

/* A connection we closed, its rr_conn already back (arg: port << 8 |
 * polls so far): reset when the peer has not acknowledged our FIN after
 * FIN_WAIT_POLLS polls, 1-2 s (lwIP would retransmit it for minutes, or
 * drop it silently after 2 MSL in LAST-ACK). Once the FIN is acknowledged
 * lwIP ends the connection itself (TIME-WAIT: 2 MSL; FIN-WAIT-2 without
 * the peer's FIN: TCP_FIN_WAIT_TIMEOUT, through on_closing_err). A close
 * lwIP had no segment for still shows ESTABLISHED or CLOSE-WAIT (its
 * TF_CLOSEPEND: the FIN goes from tcp_tmr later): counted as unacknowledged
 * too, or its FIN would be retransmitted unwatched (fuzz_iperf3 found a
 * FIN-WAIT-1 retransmitting with a 96 s RTO long after the close). */
static err_t on_closing_poll(void *arg, struct tcp_pcb *pcb)
{
	uintptr_t port = (uintptr_t)arg >> 8, polls = ((uintptr_t)arg & 0xff) + 1;
	if (pcb->state == FIN_WAIT_2 || pcb->state == TIME_WAIT) {
		tcp_poll(pcb, NULL, 0);
		return ERR_OK;
	}
	if (polls < FIN_WAIT_POLLS) {
		tcp_arg(pcb, (void *)(port << 8 | polls));
		return ERR_OK;
	}
	tcp_abort(pcb);
	return ERR_ABRT;
}

/* lwIP freed a closing connection: a RST from the peer, or a timeout
 * (ours above, or lwIP's). */
static void on_closing_err(void *arg, err_t err)
{
	rr_count((int)((uintptr_t)arg >> 8), err == ERR_RST ? RR_conns_reset : RR_conns_fin_timeout, 1);
}

/* Close c with a FIN (RFC 9293 3.10.4) after what is queued, its slot
 * back at once. ERR_OK, or ERR_ABRT when lwIP had no memory for the FIN
 * and the connection was reset instead. */
static err_t conn_fin(struct rr_conn *c)
{
	struct tcp_pcb *pcb = c->pcb;
	uintptr_t port = c->port;
	if (c->unread)	/* lwIP resets instead of a FIN while data is unread */
		tcp_recved(pcb, (u16_t)c->unread);
	conn_free(c);
	if (tcp_close(pcb) != ERR_OK) {
		tcp_abort(pcb);
		return ERR_ABRT;
	}
	tcp_arg(pcb, (void *)(port << 8));
	tcp_err(pcb, on_closing_err);
	tcp_poll(pcb, on_closing_poll, POLL_HALF_SECONDS);
	return ERR_OK;
}

/* The peer closed its side (FIN): close ours, once the responses owed
 * are queued (a TCP may still send after the peer's FIN, RFC 9293 3.6;
 * on_sent closes then). Out of line: on_recv's flatten leaves it (and
 * what it calls) alone. */
static __attribute__((noinline)) err_t conn_close(struct rr_conn *c)
{
	if (c->svc == RR_SVC_RR && c->have)
		rr_count(c->port, RR_tcp_rr_partial, 1);
	c->have = 0;
	rr_count(c->port, RR_conns_closed, 1);
	if (c->owed) {
		c->peer_fin = 1;
		return ERR_OK;
	}
	return conn_fin(c);
}

/* The peer acknowledged data while output or refused data waited for send
 * buffer (on_recv registers this only then: lwIP calls nothing for the
 * ACKs of a connection that keeps up): the service may send more, and data
 * refused is offered again now (lwIP would wait for its 250 ms timer, and
 * drop new segments meanwhile). */
static err_t on_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
	(void)len;
	struct rr_conn *c = arg;
	int waits = rr_svc_ops[c->svc].sent ? rr_svc_ops[c->svc].sent(c) : 0;
	/* Not while the ACK's segment carries data not yet handed to on_recv
	 * (the window short of what was taken): tcp_close would reset, and
	 * lwIP 2.1.3's tcp_input then drops that data's pbuf without freeing
	 * it (its "aborted" path). on_recv closes once it has the data. */
	if (c->peer_fin && !c->owed && pcb->rcv_wnd + c->unread >= TCP_WND_MAX(pcb))
		return conn_fin(c);
	if (pcb->refused_data && tcp_process_refused_data(pcb) == ERR_ABRT)
		return ERR_ABRT;
	if (c->pcb == pcb && !waits && !c->owed && !pcb->refused_data)	/* still ours, nothing waits */
		tcp_sent(pcb, NULL);
	return ERR_OK;
}

/* A segment's worth of data taken back into the window (tcp_recved, which
 * may send a window update), out of line for on_recv's flatten. */
static __attribute__((noinline)) void conn_recved(struct tcp_pcb *pcb, struct rr_conn *c)
{
	tcp_recved(pcb, (u16_t)c->unread);
	c->unread = 0;
}

/* Data p for connection arg, flattened: the service's reply (tcp_write)
 * and the pbuf's release make no call on a request-response transaction;
 * the close and the window update stay out of line. */
static __attribute__((flatten)) err_t on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	struct rr_conn *c = arg;
	if (!p)
		return conn_close(c);
	if (err != ERR_OK) {
		pbuf_free(p);
		return err;
	}
	/* The request-response service without the table's indirect call. */
	int r = c->svc == RR_SVC_RR ? rr_tcp_rr_recv(c, p) : rr_svc_ops[c->svc].recv(c, p);
	if (r) {	/* output waits for send buffer: on_sent goes on with it */
		tcp_sent(pcb, on_sent);
		if (r < 0)
			return ERR_MEM;
	}
	c->unread += p->tot_len;
	pbuf_free(p);
	if (c->peer_fin && !c->owed)	/* the service is done with it */
		return conn_fin(c);
	if (c->unread >= TCP_MSS)
		conn_recved(pcb, c);
	return ERR_OK;
}

/* lwIP freed the pcb: a RST from the peer or an abort of its own
 * (retransmissions exhausted, out of memory). */
static void on_err(void *arg, err_t err)
{
	struct rr_conn *c = arg;
	rr_count(c->port, err == ERR_RST ? RR_conns_reset : RR_conns_aborted, 1);
	conn_put(c);
}

static err_t on_poll(void *arg, struct tcp_pcb *pcb)
{
	struct rr_conn *c = arg;
	if (rr_cfg.idle_s && tcp_ticks - pcb->tmr >= (uint32_t)rr_cfg.idle_s * 1000 / TCP_SLOW_INTERVAL) {
		rr_count(c->port, RR_conns_idle_closed, 1);
		return conn_fin(c);
	}
	return ERR_OK;
}

static err_t on_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	if (err != ERR_OK || !pcb)	/* lwIP had no PCB for a SYN (ERR_MEM, pcb NULL) */
		return ERR_VAL;
	int port = lwif_port_of_ip(&pcb->local_ip);
	if (port < 0)
		return ERR_VAL;
	if (nopen >= rr_cfg.conns || !free_list) {
		rr_count(port, RR_conns_refused, 1);
		tcp_abort(pcb);
		return ERR_ABRT;
	}
	struct rr_conn *c = free_list;
	free_list = c->next_free;
	*c = (struct rr_conn){ .pcb = pcb, .port = (uint8_t)port, .svc = (uint8_t)(uintptr_t)arg };
	nopen++;
	rr_stats[port].conns_open++;
	tcp_arg(pcb, c);
	tcp_recv(pcb, on_recv);
	tcp_err(pcb, on_err);
	tcp_poll(pcb, on_poll, POLL_HALF_SECONDS);
	tcp_nagle_disable(pcb);
	if (rr_svc_ops[c->svc].accept && rr_svc_ops[c->svc].accept(c)) {
		rr_count(port, RR_conns_refused, 1);
		conn_free(c);
		tcp_abort(pcb);
		return ERR_ABRT;
	}
	rr_count(port, RR_conns_accepted, 1);
	return ERR_OK;
}

int rr_tcp_listen(uint16_t port, enum rr_svc svc)
{
	if (!conns) {
		conns = dma_alloc((size_t)rr_cfg.conns * sizeof(*conns), 64);
		if (!conns) {
			printf("rr: no memory for %ld connections (rr_conns=)\n", rr_cfg.conns);
			return -1;
		}
		for (int i = (int)rr_cfg.conns - 1; i >= 0; i--) {
			conns[i].next_free = free_list;
			free_list = &conns[i];
		}
	}
	if (!rr_tcp_listen_pcb(port, svc)) {
		printf("rr: cannot listen on TCP port %u\n", port);
		return -1;
	}
	return 0;
}

struct tcp_pcb *rr_tcp_listen_pcb(uint16_t port, enum rr_svc svc)
{
	struct tcp_pcb *pcb = tcp_new(), *lpcb;
	if (!pcb)
		return NULL;
	if (tcp_bind(pcb, IP_ANY_TYPE, port) != ERR_OK || !(lpcb = tcp_listen(pcb))) {
		tcp_close(pcb);
		return NULL;
	}
	tcp_arg(lpcb, (void *)(uintptr_t)svc);
	tcp_accept(lpcb, on_accept);
	return lpcb;
}

int rr_tcp_close(struct rr_conn *c)
{
	return conn_fin(c) == ERR_OK ? 0 : -1;
}

void rr_tcp_wait_sent(struct rr_conn *c)
{
	tcp_sent(c->pcb, on_sent);
}

int rr_out_send(struct rr_conn *c, struct rr_out *o, const void *d, uint32_t n)
{
	if (n > o->size - o->len)
		return -1;
	memcpy(o->buf + o->len, d, n);
	o->len += n;
	rr_out_flush(c, o);
	return 0;
}

int rr_out_flush(struct rr_conn *c, struct rr_out *o)
{
	uint32_t done = 0;
	while (done < o->len) {
		uint32_t n = o->len - done, room = tcp_sndbuf(c->pcb);
		n = n < room ? n : room;
		n = n < tcp_mss(c->pcb) ? n : tcp_mss(c->pcb);
		if (!n || tcp_write(c->pcb, o->buf + done, (u16_t)n, TCP_WRITE_FLAG_COPY) != ERR_OK)
			break;
		done += n;
	}
	if (done) {
		memmove(o->buf, o->buf + done, o->len - done);
		o->len -= done;
		tcp_output(c->pcb);
	}
	if (o->len)
		rr_tcp_wait_sent(c);
	return done != 0;
}

void rr_tcp_touch(struct rr_conn *c)
{
	c->pcb->tmr = tcp_ticks;
}
