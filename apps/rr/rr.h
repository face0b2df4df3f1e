/*
 * rr: the request-response server on lwIP (net/lwip, NO_SYS, raw API) on
 * every port with an address (ipN=). Services: netperf-style UDP/TCP
 * request-response on rr_port (rrsrv.c), echo on port 7 (RFC 862,
 * rrsrv.c), a sockperf 3.7 server on port 11111 (sockperf.c), netperf
 * 2.7.0's netserver on netserver_port (netserver.c), an iperf3 3.12
 * server on iperf3_port (iperf3.c); lwIP answers
 * ping and ARP. The frames rr receives are counted by net/lwip (lwif.h);
 * rr counts its services' events (rr_stats).
 */
#ifndef APPS_RR_H
#define APPS_RR_H
#include <stdint.h>
#include "drivers/net/nic.h"

#define RR_PCB_SPARE	16	/* PCBs beyond rr_conns: closing ones */
#define RR_CONNS_MAX	(65535 - RR_PCB_SPARE)	/* ceiling of rr_conns: lwIP counts a pool's blocks in 16 bits */
#define RR_ECHO_PORT	7	/* RFC 862 */
#define RR_SOCKPERF_PORT 11111	/* sockperf's default */
#define RR_UDP_MAX	65507	/* UDP's largest payload over IPv4: 65535 - 20 - 8 (RFC 791, 768) */

/* rr's events, per port (its netif's frames and events are net/lwip's,
 * lwif_stats). */
#define RR_EVENTS(X) \
	X(udp_rr) X(udp_rr_short) X(udp_rr_long) X(udp_rr_unanswered) X(udp_from_service) X(tcp_rr) X(tcp_rr_partial) \
	X(echo_udp) X(echo_tcp_bytes) X(sockperf_udp) X(sockperf_tcp) X(sockperf_replies) \
	X(sockperf_bad) \
	X(netserver_tests) X(netserver_transactions) X(netserver_rx_bytes) X(netserver_tx_bytes) \
	X(netserver_short) X(netserver_unknown) X(netserver_bad_size) X(netserver_busy) X(netserver_no_port) \
	X(netserver_no_data) X(netserver_client_gone) X(netserver_timed_out) \
	X(iperf3_tests) X(iperf3_rx_bytes) X(iperf3_tx_bytes) X(iperf3_busy) X(iperf3_bad_cookie) \
	X(iperf3_bad_json) X(iperf3_unknown_key) X(iperf3_udp) X(iperf3_client_gone) X(iperf3_udp_stray) X(iperf3_udp_no_buffer) \
	X(conns_accepted) X(conns_refused) X(conns_closed) X(conns_reset) X(conns_aborted) \
	X(conns_idle_closed) X(conns_fin_timeout) X(half_open_recycled) X(half_open_expired)

#define RR_ENUM(name) RR_##name,
enum rr_event { RR_EVENTS(RR_ENUM) RR_EVENT_N };

/* Per-port counters. */
struct rr_stats {
	uint64_t ev[RR_EVENT_N];
	uint32_t conns_open;		/* TCP connections now (gauge) */
};
extern struct rr_stats rr_stats[NIC_MAX_PORTS];

/* Knobs. */
struct rr_config {
	int64_t req, rsp;		/* request and response bytes */
	int64_t port;			/* rr_port */
	int64_t conns;			/* rr_conns: TCP connections at most */
	int64_t idle_s;			/* rr_idle: idle TCP connections reclaimed after s */
};
extern struct rr_config rr_cfg;

/* rr.c: the ports of netserver (control and its tests' data ports) and
 * iperf3, a bit per port; rr_ports_mark sets (on) or clears one. */
extern uint64_t rr_ports[65536 / 64];
void rr_ports_mark(uint16_t port, int on);
/* rr.c: 1 (printed, with the knob's name) if port is already one of rr's
 * services', else 0. */
int rr_port_taken(const char *knob, int64_t port);

/* 1 if port is one of rr's UDP/TCP services' (rr_port, echo, sockperf,
 * netserver's control and data ports, iperf3). */
static inline int rr_our_port(uint16_t port)
{
	return port == rr_cfg.port || port == RR_ECHO_PORT || port == RR_SOCKPERF_PORT ||
	       (rr_ports[port >> 6] >> (port & 63) & 1);
}

/* rr_tcp.c: room for a new connection (a SYN to one of rr's services on
 * port): 1 if fewer than rr_conns are open or half-open; else, if one is
 * half-open, the oldest half-open one is dropped for it (RFC 4987 3.4,
 * counted half_open_recycled) and 1; 0 when all rr_conns are established. */
int rr_syn_room(int port);
#define RR_SYN_MS 3000	/* rr's handshakes not done in this long are dropped (half_open_expired) */

/* rr.c: 1 if rr runs on port p, or ran on it before a run-time switch
 * (its netif stays): its counters are shown. */
int rr_port_shown(int p);
/* rr_show.c: rr's periodic report (struct app .report): the rr counters
 * and lwIP's, as text without the zeros, or JSON lines. */
void rr_report(int json);
/* rr_show.c: rr's /metrics families (struct app .metrics). */
struct prom;
void rr_metrics(struct prom *o);

/* A TCP connection of one of rr's services (rr_tcp.c). */
enum rr_svc { RR_SVC_RR, RR_SVC_ECHO, RR_SVC_SOCKPERF, RR_SVC_NETSERVER, RR_SVC_NETSERVER_DATA, RR_SVC_IPERF3, RR_SVC_N };
struct tcp_pcb;
struct pbuf;
struct rr_conn {
	struct tcp_pcb *pcb;
	uint8_t port;		/* the rr port it arrived on */
	uint8_t svc;		/* enum rr_svc */
	uint32_t have;		/* RR: bytes of the current request so far */
	uint32_t owed;		/* RR: responses not yet all queued (no send buffer) */
	uint32_t rsp_left;	/* RR: bytes of the first of them still to queue (0: not begun) */
	uint8_t peer_fin;	/* the peer closed its side, or the service is done: close once nothing is owed */
	uint32_t unread;	/* bytes taken but not yet given back to the window */
	uint8_t hdr[14];	/* sockperf: the current message's header */
	uint8_t hlen;		/* ... bytes of it so far */
	uint8_t reply;		/* ... the client asked for a reply */
	uint32_t left;		/* ... message bytes after the header still to come */
	void *owner;		/* the service's state of it (netserver: its test; iperf3: its stream) */
	struct rr_conn *next_free;
};
/* What a service does with received data p (non-NULL, at least 1 byte):
 * 0 when it took all of it (the caller frees p and opens the window), 1
 * when it took it but has output waiting for send buffer, or -1 to refuse
 * it for now (no send buffer; lwIP offers it again later). A service that
 * sets peer_fin has the connection closed once nothing is owed.
 * sent: called when the peer acknowledged data while output or refused
 * data waits (may be NULL); returns 1 while output of its own still waits
 * for send buffer (beyond the responses owed), else 0.
 * accept: a new connection (may be NULL): 0 keeps it, -1 refuses it
 * (reset, counted conns_refused).
 * closed: the connection ends, any way (may be NULL). */
struct rr_svc_ops {
	int (*recv)(struct rr_conn *c, struct pbuf *p);
	int (*sent)(struct rr_conn *c);
	int (*accept)(struct rr_conn *c);
	void (*closed)(struct rr_conn *c);
};
extern const struct rr_svc_ops rr_svc_ops[RR_SVC_N];
/* Listen on TCP port for service svc on every rr address; 0 or -1
 * (printed). */
int rr_tcp_listen(uint16_t port, enum rr_svc svc);
/* The same, port 0 for one lwIP picks, silent: the listening pcb, or NULL
 * (port taken, no PCB). Closed with tcp_close. */
struct tcp_pcb *rr_tcp_listen_pcb(uint16_t port, enum rr_svc svc);
/* Close c with a FIN after what is queued, its slot back at once (the
 * service's closed runs); a peer that does not acknowledge the FIN is
 * reset within 2 s. 0, or -1 when it was reset at once (no memory). */
int rr_tcp_close(struct rr_conn *c);
/* Have the service's sent called as the peer acknowledges data. */
void rr_tcp_wait_sent(struct rr_conn *c);
/* Bytes a service's control connection owes its peer that lwIP has not
 * taken yet (send buffer full, memory short): sent in order and never
 * skipped, as a blocking write in netserver or iperf3 -s would wait. */
struct rr_out {
	uint8_t *buf;
	uint32_t len, size;	/* bytes waiting; buf's size */
};
/* Append n bytes of d to o, then rr_out_flush; 0, or -1 when they do not
 * fit (nothing appended). */
int rr_out_send(struct rr_conn *c, struct rr_out *o, const void *d, uint32_t n);
/* Queue what waits in o on c, a segment at a time as lwIP's send buffer
 * and memory allow, and have the service's sent called (rr_tcp_wait_sent)
 * while bytes still wait; the service calls it again from its sent and
 * from a timer (memory comes back with none of c's data in flight).
 * Returns 1 if lwIP took bytes. */
int rr_out_flush(struct rr_conn *c, struct rr_out *o);
/* c is in use though quiet (a test runs): its rr_idle time starts again. */
void rr_tcp_touch(struct rr_conn *c);
/* TCP connections open now; pbuf in use counts for the rr command. */
int rr_conns_open(void);

/* rrsrv.c / sockperf.c / netserver.c: open the listening and bound pcbs;
 * 0 or -1. */
int rr_services_init(void);
int sockperf_init(void);
int netserver_init(void);
int iperf3_init(void);
/* iperf3.c: once a second: the control connection of a test is in use. */
void iperf3_tick(void);
/* iperf3.c: from rr's idle poll: a UDP test's sender streams send what -b
 * allows by now. Returns the datagrams sent (work done). */
int iperf3_poll(void);
/* iperf3.c: its service's rr_svc_ops (control and streams on one port). */
int iperf3_recv(struct rr_conn *c, struct pbuf *p);
int iperf3_sent(struct rr_conn *c);
int iperf3_accept(struct rr_conn *c);
void iperf3_closed(struct rr_conn *c);
extern int64_t iperf3_port;	/* iperf3_port=: 0 off */
/* netserver.c: once a second: answers waiting for memory (rr_out), control
 * messages that never complete, data
 * connections that never come, tests past their end. */
void netserver_tick(void);
extern int64_t netserver_port;	/* netserver_port=: 0 off */
/* netserver.c: its services' rr_svc_ops: the control connection and the
 * tests' data connections. */
int netserver_ctl_recv(struct rr_conn *c, struct pbuf *p);
int netserver_ctl_sent(struct rr_conn *c);
int netserver_ctl_accept(struct rr_conn *c);
void netserver_ctl_closed(struct rr_conn *c);
int netserver_data_recv(struct rr_conn *c, struct pbuf *p);
int netserver_data_sent(struct rr_conn *c);
int netserver_data_accept(struct rr_conn *c);
void netserver_data_closed(struct rr_conn *c);
int rr_sockperf_recv(struct rr_conn *c, struct pbuf *p);
/* rrsrv.c: the request-response service's recv (rr_svc_ops[RR_SVC_RR]),
 * which on_recv calls directly. */
int rr_tcp_rr_recv(struct rr_conn *c, struct pbuf *p);
/* rrsrv.c: len more bytes of c's requests of req bytes each: the
 * rsp-byte responses (from data) owed are queued as send buffer allows;
 * returns the transactions completed (responses all queued). */
uint32_t rr_tcp_transact(struct rr_conn *c, uint32_t len, uint32_t req, uint32_t rsp, const uint8_t *data);
/* ... the responses still owed, after the peer acknowledged data. */
uint32_t rr_tcp_flush(struct rr_conn *c, uint32_t rsp, const uint8_t *data);
/* rrsrv.c: queue sends of size bytes from data (not copied) on c as send
 * buffer allows, *part bytes of the current one already queued; returns
 * the bytes queued, *sends the sends completed. */
uint32_t rr_tcp_stream(struct rr_conn *c, const uint8_t *data, uint32_t size, uint32_t *part, uint32_t *sends);
/* rrsrv.c: send a UDP response of rsp bytes (from data, not copied above
 * a copy limit) to addr:port on pcb; 0, or -1 (no pbuf: tx_no_buffer, or
 * lwIP refused it). */
struct udp_pcb;
int rr_udp_respond(int port, struct udp_pcb *pcb, const void *addr, uint16_t rport, uint32_t rsp, const uint8_t *data);
/* Count n events e on port. */
static inline void rr_count(int port, enum rr_event e, uint64_t n)
{
	rr_stats[port].ev[e] += n;
}

#define RR_SERVICE_PORT_MAX 1023	/* UDP source ports up to this are services' (RFC 6335 system ports) */
/* 1 if a UDP datagram to one of rr's services from source port sport is
 * not to be answered, counted udp_from_service: it comes from a service's
 * port (a system port such as echo 7 or chargen 19, or one of rr's own),
 * and two services answering each other would do so for ever (RFC 862,
 * CERT CA-1996-01). */
static inline int rr_udp_from_service(int port, uint16_t sport)
{
	if (sport > RR_SERVICE_PORT_MAX && !rr_our_port(sport))
		return 0;
	rr_count(port, RR_udp_from_service, 1);
	return 1;
}
#endif
