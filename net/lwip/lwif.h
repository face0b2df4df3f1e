/*
 * net/lwip: linerate's port of lwIP 2.1.3 (NO_SYS, raw API, on the one
 * core that polls its ports): a netif per port (netif.c), lwIP's memory
 * from free pages (pools.c), the checks in front of lwIP (filter.c) and
 * the receive path and timers (input.c). Apps on top of it (rr, mgmt) add
 * their ports with lwif_add, hand it their received bursts (lwif_input)
 * and run its timers from their idle hook (lwif_timers); they open their
 * own PCBs with lwIP's raw API.
 *
 * Every frame lwif_input receives ends in exactly one counter of its
 * port: handed to lwIP (by protocol) or a named drop of the checks in
 * front of lwIP; lwIP's own drops are in its statistics (lwip_stats).
 */
#ifndef NET_LWIP_LWIF_H
#define NET_LWIP_LWIF_H
#include <stdint.h>
#include "drivers/net/nic.h"

/* Frames handed to lwIP, by what they are. */
#define LWIF_STACK(X) X(arp) X(icmp) X(udp) X(tcp) X(fragment) X(icmp6) X(ipv6_ext)
/* Frames dropped before lwIP, by reason. */
#define LWIF_DROPS(X) \
	X(not_ip) X(too_short) X(bad_version) X(bad_ihl) X(bad_totlen) X(bad_csum) \
	X(not_ours) X(bad_proto) X(udp_closed_port) X(tcp_bad_option) X(syn_over_limit) \
	X(no_pbuf) X(frag_too_long) X(not_allowed) X(bad_saddr)
/* Events of a port's netif that are not received frames. */
#define LWIF_EVENTS(X) \
	X(rx_bytes) X(tx_bytes) X(tcp_out_of_window) X(tcp_rst_received) X(icmp_unreach_sent) \
	X(icmp_rate_limited) X(tx_no_buffer) X(tx_ring_full) X(tx_no_room) X(tx_csum_sw)

#define LWIF_ENUM(name) LWIF_##name,
enum lwif_stack { LWIF_STACK(LWIF_ENUM) LWIF_STACK_N };
enum lwif_drop { LWIF_DROPS(LWIF_ENUM) LWIF_DROP_N };
enum lwif_event { LWIF_EVENTS(LWIF_ENUM) LWIF_EVENT_N };
extern const char *const lwif_stack_names[LWIF_STACK_N];
extern const char *const lwif_drop_names[LWIF_DROP_N];
extern const char *const lwif_event_names[LWIF_EVENT_N];

/* Per-port counters of the netif. */
struct lwif_stats {
	uint64_t rx;			/* frames received */
	uint64_t stack[LWIF_STACK_N];	/* ... handed to lwIP */
	uint64_t drop[LWIF_DROP_N];	/* ... dropped before lwIP */
	uint64_t ev[LWIF_EVENT_N];
};
extern struct lwif_stats lwif_stats[NIC_MAX_PORTS];

/* Count n events e on port. */
static inline void lwif_count(int port, enum lwif_event e, uint64_t n)
{
	lwif_stats[port].ev[e] += n;
}

/* What the app on a port says of the frames to it. */
struct lwif_app {
	const char *name;	/* for messages */
	/* 1 if TCP or UDP port dport (host order) is one of the app's
	 * services: UDP to any other port is dropped (udp_closed_port, an ICMP
	 * port unreachable sent, rate-limited) before lwIP. */
	int (*ours)(uint16_t dport);
	/* May be NULL. 1 if a SYN to one of the app's ports on port must be
	 * dropped now (syn_over_limit); the app counts its own refusal. */
	int (*syn_full)(int port);
	/* May be NULL (every source). 1 if IPv4 frames from src (host order)
	 * may reach lwIP; the others are dropped (not_allowed). ARP, and DHCP
	 * replies on a port that asks for its address, are not asked. */
	int (*allowed)(uint32_t src);
	/* May be NULL (every source). As allowed, for IPv6 frames from src
	 * (network order); ND and MLD are asked too. */
	int (*allowed6)(const uint8_t src[16]);
};

/* lwIP's memory that the apps size: TCP PCBs (connections, half-open,
 * closing and TIME-WAIT ones). The heap and the segments and pbuf
 * headers are the rr_heap= and rr_pbufs= knobs (pools.c). */
struct lwif_mem {
	uint32_t pcbs;
};

/* pools.c: lwIP's heap and pools from free pages, then lwip_init; once
 * (later calls return 0). 0, or -1 with what ran out printed. */
int lwif_mem_init(const struct lwif_mem *m);
/* Fill lwIP pool desc with n fresh elements from free pages, after
 * emptying it (replace=1) or beside what it holds. 0, or -1 (no memory). */
struct memp_desc;
int lwif_pool_fill(const struct memp_desc *desc, uint32_t n, int replace);

/* netif.c: an lwIP netif for nic at addr/prefix_len (host order; 0 for a
 * DHCP port without its lease), for app (kept, not copied). lwIP's
 * memory must be set up (lwif_mem_init). The port's gateway (ipN=...,gw=,
 * net/ifaddr.h) is the netif's; the first port with one is lwIP's default
 * route. lwIP runs on one core: ports of one app only (another's is
 * refused, printed). 0, or -1. */
int lwif_add(struct nic *nic, uint32_t addr, int prefix_len, const struct lwif_app *app);
/* netif.c: port's netif (lwif_add'ed) up again (1), or down (0): its TCP
 * connections aborted first (a RST to each peer, sent at once), its ARP
 * and neighbor entries dropped; lwIP then sends nothing through it. For a
 * port taken off its app at run time (run/portcmd.c). */
void lwif_set_up(int port, int up);
/* lwIP's udp_sendto (its err_t), for every datagram an app sends: on a
 * port with checksum insertion the NIC sums one that fits the MTU (lwIP's
 * NETIF_CHECKSUM_GEN_UDP is off there) and lwIP one that it fragments,
 * the NIC seeing only the fragments. An answer from a receive callback to
 * the datagram's source, on a PCB bound to no address, leaves from the
 * unicast address the datagram came to, on its netif (udp_sendto_if_src:
 * no route lookup, and no RFC 6724 source selection for IPv6, which was
 * 116 of the 1892 guest instructions of an IPv6 UDP_RR transaction). */
struct udp_pcb;
struct pbuf;
struct ip_addr;
int8_t lwif_udp_sendto(struct udp_pcb *pcb, struct pbuf *p, const struct ip_addr *dst, uint16_t port);
/* The lwIP interface of port, or NULL. */
struct netif *lwif_netif(int port);
/* The app port's netif was added for, or NULL (no netif). */
const struct lwif_app *lwif_app_of(int port);
/* The port whose netif has address addr_n (lwIP's ip4 u32, network order), or -1. */
int lwif_port_of_addr(uint32_t addr_n);
/* The port whose netif has address a (lwIP's ip_addr_t, either family), or -1. */
int lwif_port_of_ip(const struct ip_addr *a);
/* 1 if a (network order) is one of port's IPv6 addresses in lwIP (link-local,
 * ipN='s, SLAAC's; tentative ones too, for DAD's probes). */
int lwif_ip6_ours(int port, const uint8_t a[16]);
/* Drop the handshakes (SYN-RECEIVED, lwIP keeps them 20 s) to a local
 * port for which ours() is 1 that are older than ms, without a RST;
 * expired(port) for each, if not NULL. Returns how many. */
int lwif_expire_half_open(int (*ours)(uint16_t local_port), uint32_t ms, void (*expired)(int port));
/* The port whose netif lwIP is receiving on (inside an lwIP callback). */
int lwif_rx_port(void);

/* input.c: a received burst of n frames of nic into lwIP (from an app's rx
 * hook, which owns them): each frame through the checks (filter.c) to lwIP
 * without a copy; frames lwIP sent leave at the end in one tx_burst per
 * port. Returns the frames dropped (counted by reason, freed), for the
 * core's softnet dropped (app_count_drops). */
int lwif_input(struct nic *nic, struct pkt **pkts, int n);
/* input.c: lwIP's timers, at most once a millisecond (an app's idle hook);
 * returns 0. */
int lwif_timers(void);

/* filter.c: the checks in front of lwIP. Returns -1 (dropped, counted,
 * freed) or the LWIF_STACK class of a frame to hand to lwIP. */
int lwif_filter(struct nic *nic, struct pkt *p);
/* filter.c: 1 if port's ICMP error bucket (100 a second, RFC 4443 2.4
 * (f), RFC 1812 4.3.2.8) has a token, which is taken; else 0. */
int lwif_icmp_allowed(int port);

/* netif.c: hand a frame of lwif_filter class cls to lwIP without copying
 * (a custom pbuf pointing into it; the pkt goes back to its pool when lwIP
 * frees the pbuf); TCP and UDP to the port's address straight to lwIP's
 * TCP or UDP input. 0, or -1 (no custom pbuf: the caller drops and counts
 * it). */
int lwif_netif_input(struct nic *nic, struct pkt *p, int cls);
/* The common frame in one pass: IPv4 without options whose header and L4
 * checksums the NIC verified, to the port's own address from a unicast
 * source the app allows, not a fragment, carrying TCP without options or SYN,
 * or UDP to one of the app's ports (IPv6: without extension headers, the
 * L4 checksum verified, to a valid address of the port's): lwif_filter's
 * checks and lwif_netif_input's for such a frame, then lwIP's tcp_input/udp_input. Returns the LWIF_STACK class it
 * was handed to lwIP as (LWIF_tcp, LWIF_udp), or -1, the frame untouched,
 * for every other one (lwif_filter and lwif_netif_input take it). */
int lwif_fast_input(struct nic *nic, struct pkt *p);
/* A new ARP period (once a second, from lwif_timers): every remembered ARP
 * entry is looked up through lwIP's etharp_output again once. */
void lwif_arp_tick(void);
/* Give the NICs the frames lwIP sent since the last flush. */
void lwif_flush(void);
/* metrics.c: the names of an app's families of its ports' netif counters
 * (constants: /metrics compares the pointers). */
struct lwif_families {
	const char *received, *stack, *dropped, *events;
};
#define LWIF_FAMILIES(pre) { pre "_received_total", pre "_stack_total", pre "_dropped_total", pre "_events_total" }
struct prom;
/* The frames received, handed to lwIP and dropped of the ports with
 * run[p] set, then the # HELP and # TYPE of the events family, whose
 * samples follow: the app's own, and lwif_metrics_events's per port. */
void lwif_metrics_frames(struct prom *o, const struct lwif_families *f, const int *run);
void lwif_metrics_events(struct prom *o, const struct lwif_families *f, int port);
/* Custom RX pbufs in use (each holds a received pkt). */
uint32_t lwif_rx_pbufs(void);
/* ... the pool for frames in small (copybreak) slots holds: one per such
 * buffer of every lwIP port (frames in 2 KiB slots carry their own). */
uint32_t lwif_rx_pbufs_avail(void);
#endif
