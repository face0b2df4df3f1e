/*
 * rr: the request-response server on lwIP (NO_SYS, raw API) on every port
 * with an address (ipN=). Services: netperf-style UDP/TCP request-response
 * on rr_port (rrsrv.c), echo on port 7 (RFC 862, rrsrv.c), a sockperf 3.7
 * server on port 11111 (sockperf.c); lwIP answers ping and ARP.
 *
 * Every frame rr receives ends in exactly one counter: handed to lwIP
 * (by protocol) or a named drop of rr's own checks in front of lwIP
 * (rr_filter.c); lwIP's own drops are in its statistics (rr command).
 */
#ifndef APPS_RR_H
#define APPS_RR_H
#include <stdint.h>
#include "drivers/net/nic.h"

#define RR_PCB_SPARE	16	/* PCBs beyond rr_conns: closing ones, mgmt's HTTP */
#define RR_CONNS_MAX	(65535 - RR_PCB_SPARE)	/* ceiling of rr_conns: lwIP counts a pool's blocks in 16 bits */
#define RR_ECHO_PORT	7	/* RFC 862 */
#define RR_SOCKPERF_PORT 11111	/* sockperf's default */
#define RR_UDP_MAX	65507	/* UDP's largest payload over IPv4: 65535 - 20 - 8 (RFC 791, 768) */

/* Frames handed to lwIP, by what they are. */
#define RR_STACK(X) X(arp) X(icmp) X(udp) X(tcp) X(fragment)
/* Frames rr drops before lwIP, by reason. */
#define RR_DROPS(X) \
	X(not_ipv4) X(too_short) X(bad_version) X(bad_ihl) X(bad_totlen) X(bad_csum) \
	X(not_ours) X(bad_proto) X(udp_closed_port) X(tcp_bad_option) X(syn_over_limit) \
	X(no_pbuf) X(frag_too_long)
/* Events that are not received frames. */
#define RR_EVENTS(X) \
	X(udp_rr) X(udp_rr_short) X(udp_rr_long) X(udp_rr_unanswered) X(udp_from_service) X(tcp_rr) X(tcp_rr_partial) \
	X(echo_udp) X(echo_tcp_bytes) X(sockperf_udp) X(sockperf_tcp) X(sockperf_replies) \
	X(sockperf_bad) X(rx_bytes) X(tx_bytes) \
	X(conns_accepted) X(conns_refused) X(conns_closed) X(conns_reset) X(conns_aborted) \
	X(conns_idle_closed) X(conns_fin_timeout) X(half_open_recycled) X(half_open_expired) X(tcp_out_of_window) X(tcp_rst_received) X(icmp_unreach_sent) X(icmp_rate_limited) \
	X(tx_no_buffer) X(tx_ring_full) X(tx_no_room)

#define RR_ENUM(name) RR_##name,
enum rr_stack { RR_STACK(RR_ENUM) RR_STACK_N };
enum rr_drop { RR_DROPS(RR_ENUM) RR_DROP_N };
enum rr_event { RR_EVENTS(RR_ENUM) RR_EVENT_N };

/* Per-port counters. */
struct rr_stats {
	uint64_t rx;			/* frames the app received */
	uint64_t stack[RR_STACK_N];	/* ... handed to lwIP */
	uint64_t drop[RR_DROP_N];	/* ... dropped by rr */
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
	int64_t heap_kib;		/* rr_heap: lwIP's heap, KiB */
	int64_t pbufs;			/* rr_pbufs: TCP segments, and pbuf headers */
};
extern struct rr_config rr_cfg;

/* 1 if port is one of rr's UDP/TCP services' (rr_port, echo, sockperf). */
static inline int rr_our_port(uint16_t port)
{
	return port == rr_cfg.port || port == RR_ECHO_PORT || port == RR_SOCKPERF_PORT;
}

/* rr_tcp.c: room for a new connection (a SYN to one of rr's services on
 * port): 1 if fewer than rr_conns are open or half-open; else, if one is
 * half-open, the oldest half-open one is dropped for it (RFC 4987 3.4,
 * counted half_open_recycled) and 1; 0 when all rr_conns are established. */
int rr_syn_room(int port);
/* Drop the handshakes (SYN-RECEIVED, lwIP keeps them 20 s) to a local
 * port for which ours() is 1 that are older than ms, without a RST, each
 * counted half_open_expired on its port; returns how many. */
int rr_expire_half_open(int (*ours)(uint16_t local_port), uint32_t ms);
#define RR_SYN_MS 3000	/* rr's handshakes not done in this long are dropped (half_open_expired) */

/* rr.c: a received burst through rr's checks into lwIP (the rx hook of rr
 * and of the management port, apps/mgmt). */
void rr_input(struct nic *nic, int q, struct pkt **pkts, int n);
/* rr.c: lwIP's timers, at most once a millisecond (the idle hook). */
int rr_timers(void);

/* rr_filter.c: rr's checks in front of lwIP. Returns -1 (dropped, counted,
 * freed) or the RR_STACK class of a frame to hand to lwIP. */
int rr_filter(struct nic *nic, struct pkt *p);

/* rr_pools.c: lwIP's heap and pools from free pages, sized by rr_heap,
 * rr_conns and rr_pbufs, then lwip_init; once (later calls return 0).
 * 0, or -1 with what ran out printed. */
int rr_lwip_init(void);
/* Fill lwIP pool desc with n fresh elements from free pages, after
 * emptying it (replace=1) or beside what it holds. 0, or -1 (no memory). */
struct memp_desc;
int rr_pool_fill(const struct memp_desc *desc, uint32_t n, int replace);

/* rr_netif.c: lwIP netif of a port. */
int rr_netif_add(struct nic *nic, uint32_t addr, int prefix_len);
/* Hand a frame of rr_filter class cls to lwIP without copying (a custom
 * pbuf pointing into it; the pkt goes back to its pool when lwIP frees the
 * pbuf); TCP and UDP to the port's address straight to lwIP's TCP or UDP
 * input. 0, or -1 (no custom pbuf: the caller drops and counts it). */
int rr_netif_input(struct nic *nic, struct pkt *p, int cls);
/* The common frame in one pass: IPv4 without options whose header and L4
 * checksums the NIC verified, to the port's own address from a unicast
 * source, not a fragment, carrying TCP without options or SYN, or UDP to one
 * of rr's ports: rr_filter's checks and rr_netif_input's for such a frame,
 * then lwIP's tcp_input/udp_input. Returns the RR_STACK class it was
 * handed to lwIP as (RR_tcp, RR_udp), or -1, the frame untouched, for
 * every other one (rr_filter and rr_netif_input take it). */
int rr_netif_fast_input(struct nic *nic, struct pkt *p);
/* A new ARP period (once a second, from rr_timers): every remembered ARP
 * entry is looked up through lwIP's etharp_output again once. */
void rr_netif_arp_tick(void);
/* Give the NIC the frames lwIP sent since the last flush. */
void rr_netif_flush(void);
/* The port whose netif has address addr (lwIP's ip4 u32, network order), or -1. */
int rr_port_of_addr(uint32_t addr_n);
/* The lwIP interface of port, or NULL. */
struct netif *rr_netif(int port);
/* 1 if port has an lwIP interface. */
int rr_port_of_addr_port(int port);
/* Print the rr counters and lwIP's (rr_show.c): text, or JSON lines. */
void rr_report(int json);
/* Custom RX pbufs in use (each holds a received pkt). */
uint32_t rr_netif_rx_pbufs(void);
/* ... the pool for frames in small (copybreak) slots holds: one per such
 * buffer of every lwIP port (frames in 2 KiB slots carry their own). */
uint32_t rr_netif_rx_pbufs_avail(void);

/* A TCP connection of one of rr's services (rr_tcp.c). */
enum rr_svc { RR_SVC_RR, RR_SVC_ECHO, RR_SVC_SOCKPERF, RR_SVC_N };
struct tcp_pcb;
struct pbuf;
struct rr_conn {
	struct tcp_pcb *pcb;
	uint8_t port;		/* the rr port it arrived on */
	uint8_t svc;		/* enum rr_svc */
	uint32_t have;		/* RR: bytes of the current request so far */
	uint32_t owed;		/* RR: responses not yet all queued (no send buffer) */
	uint32_t rsp_left;	/* RR: bytes of the first of them still to queue (0: not begun) */
	uint8_t peer_fin;	/* the peer closed its side: close once nothing is owed */
	uint32_t unread;	/* bytes taken but not yet given back to the window */
	uint8_t hdr[14];	/* sockperf: the current message's header */
	uint8_t hlen;		/* ... bytes of it so far */
	uint8_t reply;		/* ... the client asked for a reply */
	uint32_t left;		/* ... message bytes after the header still to come */
	struct rr_conn *next_free;
};
/* What a service does with received data p (non-NULL, at least 1 byte):
 * 0 when it took all of it (the caller frees p and opens the window), 1
 * when it took it but has output waiting for send buffer, or -1 to refuse
 * it for now (no send buffer; lwIP offers it again later).
 * sent: called when the peer acknowledged data while output or refused
 * data waits (may be NULL). */
struct rr_svc_ops {
	int (*recv)(struct rr_conn *c, struct pbuf *p);
	void (*sent)(struct rr_conn *c);
};
extern const struct rr_svc_ops rr_svc_ops[RR_SVC_N];
/* Listen on TCP port for service svc on every rr address; 0 or -1. */
int rr_tcp_listen(uint16_t port, enum rr_svc svc);
/* TCP connections open now; pbuf in use counts for the rr command. */
int rr_conns_open(void);

/* rrsrv.c / sockperf.c: open the listening and bound pcbs; 0 or -1. */
int rr_services_init(void);
int sockperf_init(void);
int rr_sockperf_recv(struct rr_conn *c, struct pbuf *p);
/* rrsrv.c: the request-response service's recv (rr_svc_ops[RR_SVC_RR]),
 * which on_recv calls directly. */
int rr_tcp_rr_recv(struct rr_conn *c, struct pbuf *p);
/* The rr port whose netif lwIP is receiving on (inside a UDP callback). */
int rr_rx_port_of(void);
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
