/*
 * pktgen: the appliance as a traffic generator and loss/latency meter, with
 * Linux pktgen's knob names (Documentation/networking/pktgen.rst).
 *
 * TX (tx.c): on each port that runs pktgen, after `pktgen start`, frames of
 * Ethernet II / up to two 802.1Q tags / IPv4 or IPv6 (flag IPV6) / UDP
 * with trafgen's 18-byte payload header (magic
 * 0x4c52, stream id, 64-bit sequence number, TX time in ns since boot from
 * the TSC, modulo 2^48: tools/trafgen/frame.h), so build/trafgen counts
 * them too. Stream id = lane << 11 | port << 8 | run << 4 | sweep step, run counting
 * the port's starts modulo 16 (a receiver, maybe another box, tells a new
 * run's sequence numbers from a duplicate of the last one's); latency
 * probes use the same id with PG_PROBE set and their own sequence. Sequence numbers and
 * the address/port walk advance per frame built; with clone_skb = N every
 * frame built is sent N times (the same buffer, as Linux's pktgen_xmit).
 *
 * Lanes (Linux pktgen's one thread per CPU): a port with several TX queues
 * on a box with several cores is sent on by each core that owns a TX queue
 * of the queue_map walk (nic->tx_owner: core c owns queue c, run/place.c).
 * Each such core is a lane with its own struct pg_tx, stream id (lane 0 is
 * pktgen's core when it sends, the others follow in core order) and buffers;
 * count, rate and lat_rate are split over the lanes, so the port's totals
 * are the knobs'. RX, the shell and rfc2544 stay on pktgen's core.
 *
 * RX (rx.c): every frame a pktgen port receives is counted once: ours (by
 * stream: received, lost, reordered, duplicates), bad, arp (a request for
 * one of our addresses, answered, so a router can sit between two pktgen
 * ports), nd (the same for IPv6 Neighbor Solicitations), other or
 * streams_full; probes also go into the port's latency
 * histogram. Tagged frames are also counted per VLAN (net/vlan.h).
 *
 * conf.c holds the knobs and their checks, cmd.c the shell and reports.
 */
#ifndef PKTGEN_H
#define PKTGEN_H
#include <stdint.h>
#include "apps/app.h"
#include "apps/pktgen/hist.h"
#include "drivers/net/nic.h"
#include "net/ipv4.h"
#include "net/vlan.h"

#define PG_SWEEP_MAX	16
#define PG_PROBE	0x8000u	/* stream id bit of latency probes */
#define PG_HDR_LEN	42	/* Ethernet + IPv4 + UDP headers, bytes */
#define PG_HDR_MAX	(PG_HDR_LEN + 2 * VLAN_HLEN + 20)	/* with two tags and IPv6: 70 */
#define PG_TMPL_LEN	(PG_HDR_MAX + PG_PAYLOAD_LEN)	/* bytes copied into every frame: 88 */
#define PG_PAYLOAD_LEN	18	/* trafgen's payload header */
#define PG_MAGIC	0x4c52
#define PG_MIN_SIZE	60	/* pkt_size: frame bytes without the FCS */
#define PG_WIRE_EXTRA	24	/* FCS + preamble/SFD + inter-frame gap, bytes */
#define PG_BURST_MAX	256	/* frames per tx_burst call, pktgen set burst */
#define PG_CREDIT_MS	100	/* token bucket: credit kept at most, ms of frames */
#define PG_RUNS		16	/* runs told apart in a stream id (4 bits) */
/* Streams a receiving port tells apart: two senders' full sweeps (data
 * and probes for each step), or two runs of one. */
#define PG_STREAMS	(2 * 2 * PG_SWEEP_MAX)
#define PG_PTP_HLEN	34	/* PTPv2 header in front of ours in hardware-stamped probes */
#define PG_ETHERTYPE_PTP 0x88f7	/* IEEE 1588 annex F: PTP over Ethernet */
#define PG_PTP_PROBE_LEN (ETH_HLEN + PG_PTP_HLEN + PG_PAYLOAD_LEN)	/* 66 bytes */
#define PG_HWTS		64	/* TX timestamps of recent probes kept per port */	/* streams told apart per receiving port */
#define PG_SEQ_WINDOW	4096	/* duplicates recognised this far below the highest seq */
#define PG_IMIX_MAX	8	/* sizes of an IMIX */
#define PG_RX_SIZES	16	/* frame sizes a receiving port counts apart */
#define PG_LANE_SHIFT	11	/* stream id bits 11-14: the sending lane */

enum pg_rate_kind { PG_RATE_MAX, PG_RATE_MBPS, PG_RATE_PPS, PG_RATE_DELAY };

/* Linux pktgen's flags (`pktgen set flag NAME`, !NAME clears) done here. */
#define PG_F_IPV6		(1u << 0)	/* IPv6 (dst6/src6...) instead of IPv4 */
#define PG_F_IPSRC_RND		(1u << 1)	/* random source in src_min..max */
#define PG_F_IPDST_RND		(1u << 2)
#define PG_F_UDPSRC_RND		(1u << 3)	/* random UDP source port in its range */
#define PG_F_UDPDST_RND		(1u << 4)
#define PG_F_UDPCSUM		(1u << 5)	/* IPv4 UDP checksum (IPv6: always) */
#define PG_F_QUEUE_MAP_RND	(1u << 6)	/* random TX queue in queue_map_min..max */
#define PG_F_QUEUE_MAP_CPU	(1u << 7)	/* TX queue = sending core's id */
#define PG_F_MACSRC_RND		(1u << 8)	/* random of the src_mac_count MACs */
#define PG_F_MACDST_RND		(1u << 9)
#define PG_F_VID_RND		(1u << 10)	/* random VID in the C-tag */
#define PG_F_SVID_RND		(1u << 11)	/* random VID in the S-tag */
#define PG_F_FIELD_RND		(PG_F_IPSRC_RND | PG_F_IPDST_RND | PG_F_UDPSRC_RND | PG_F_UDPDST_RND | \
				 PG_F_MACSRC_RND | PG_F_MACDST_RND)	/* draw() */

/* The knobs (conf.c); the same for every pktgen port. Addresses in host order. */
struct pg_config {
	int64_t pkt_size;		/* bytes without FCS */
	int nsweep;			/* 0: pkt_size only */
	uint16_t sweep[PG_SWEEP_MAX];	/* pkt_size of each step */
	int nimix;			/* 0: off; else sizes of the IMIX */
	uint16_t imix_size[PG_IMIX_MAX];	/* pkt_size (without FCS) of each */
	uint16_t imix_weight[PG_IMIX_MAX];	/* frames of it per sum-of-weights frames */
	int64_t count;			/* frames per port and step; 0 = forever */
	enum pg_rate_kind rate_kind;	/* the last of rate/ratep/delay given */
	int64_t rate;			/* Mb/s on the wire (frame + 24 B) */
	int64_t ratep;			/* frames/s */
	int64_t delay;			/* ns between frames */
	uint32_t dst_min, dst_max, src_min, src_max;
	int64_t udp_src_min, udp_src_max, udp_dst_min, udp_dst_max;
	uint8_t dst_mac[6], src_mac[6];
	int dst_mac_set;		/* 0: the peer port's MAC (pg_dst_mac) */
	int src_mac_set;		/* 0: the port's own MAC */
	int64_t flows, flowlen;		/* 0 flows: walk per frame */
	int64_t burst;			/* frames per tx_burst call */
	int64_t credit_ms;		/* token bucket: credit kept at most (PG_CREDIT_MS; rfc2544 trials: less) */
	int64_t clone_skb;		/* sends per frame built; 0 and 1: one */
	int64_t lat_rate;		/* probes/s per port; 0 off */
	int64_t lat_hwts;		/* 1: PTP-typed probes on ports that stamp in hardware */
	uint32_t flags;			/* PG_F_* */
	uint16_t vlan_id, svlan_id;	/* 0-4095, VLAN_NONE: no tag (svlan: outer of two) */
	int64_t vlan_p, vlan_cfi, svlan_p, svlan_cfi;
	int64_t queue_map_min, queue_map_max;	/* TX queues walked, modulo the port's */
	int64_t src_mac_count, dst_mac_count;	/* MACs walked from src_mac/dst_mac up */
	/* flag IPV6: addresses walked in their low 64 bits (upper 64 equal) */
	uint8_t dst6_min[16], dst6_max[16], src6_min[16], src6_max[16];
};
extern struct pg_config pg;

/* Per sending port and lane (pg_tx[port] is pktgen's core's lane and
 * holds the port's run: active, start_tsc, stopped_any). */
struct pg_tx {
	int running;
	int core, lane, nlanes;		/* this lane's core and number, the run's lanes */
	uint64_t count;			/* this lane's share of pg.count (0: forever) */
	volatile int req;		/* PG_LREQ_* asked by pktgen's core, done by this lane's */
	volatile int active;		/* pg_tx[port]: lanes of the run still sending */
	int stopped_any;		/* pg_tx[port]: a lane of the run was stopped */
	struct pktpool *pool;
	int step;			/* sweep step */
	int run;			/* this run's number: starts before it, modulo PG_RUNS */
	uint32_t starts;
	uint8_t dst_mac[6];		/* where this run's frames go */
	uint16_t size;			/* pkt_size of this step (of this frame with imix) */
	uint16_t rate_size;		/* pkt_size the rate counts: size, or the IMIX's mean */
	/* imix: each size's headers and checksum sums, and its smooth weighted
	 * round-robin credit (the pick is exact per sum of the weights) */
	uint8_t imix_hdr[PG_IMIX_MAX][PG_TMPL_LEN];
	uint32_t imix_ip_sum[PG_IMIX_MAX];
	uint64_t imix_udp_sum[PG_IMIX_MAX];
	int32_t imix_credit[PG_IMIX_MAX];
	uint16_t stream;
	uint64_t seq;			/* frames built in this step */
	uint64_t queued;		/* frames (copies included) queued in this step */
	uint64_t step_sent;
	struct pkt *cur;		/* clone_skb: frame being repeated */
	uint32_t cur_left;		/* copies of cur not yet queued */
	struct pkt *pend[PG_BURST_MAX];	/* queued, not yet taken by the ring */
	int npend;
	struct pkt *probe;		/* a probe the ring refused */
	uint64_t probe_seq;
	struct pktpool *probe_pool;	/* probes: PTP-typed ones are longer than 60 bytes */
	int hw;				/* port stamps PTP frames in hardware (igb) */
	struct pg_hwts {		/* TX stamp of probe seq: request txseq of the port's clock */
		uint64_t seq;
		uint32_t txseq;
		int state;		/* 0 none, 1 requested, 2 ns known */
		int64_t ns;
	} hwts[PG_HWTS];
	/* address walk: tuple index and offsets into each range */
	uint64_t flow, inflow, off_dst, off_src, off_sport, off_dport;
	uint64_t off_smac, off_dmac;
	uint64_t dst_span, src_span, sport_span, dport_span, smac_span, dmac_span;	/* range lengths - 1 */
	uint64_t rnd;			/* xorshift64 state of the *_RND flags */
	uint16_t queue;			/* queue_map of the last frame built, before modulo */
	int qwalk;			/* 0: every frame on curq */
	int extra;			/* *_RND flags or MAC walks: build_extra and draw per frame */
	uint32_t ip_sum;		/* IPv4 checksum of the fixed words of this step */
	uint64_t udp_sum;		/* UDP checksum's fixed words; 0: no checksum (IPv4 without UDPCSUM) */
	uint64_t src6_lo, dst6_lo;	/* low 64 bits of src6_min, dst6_min (swapped with back) */
	uint32_t src4, dst4;		/* src_min, dst_min (swapped with back) */
	int back;			/* 1: the way back through a router (rfc2544 bidir with back_mac):
					   to back_mac, src and dst ranges swapped; set before pg_start */
	uint8_t back_mac[6];
	uint16_t l3, hlen;		/* IP header offset, header bytes (tags counted) */
	uint8_t src_mac[6];		/* first source MAC of this run */
	uint8_t hdr[PG_TMPL_LEN];	/* headers of this step, addresses filled per frame,
					   zeros up to a constant length (one inlined copy) */
	uint16_t pendq[PG_BURST_MAX];	/* TX queue of each frame in pend */
	uint16_t curq;			/* TX queue of cur */
	uint64_t sent_q[NIC_MAX_QUEUES];	/* frames sent per TX queue */
	/* token bucket: next frame due at next_tsc; interval ivl + rem/num cycles */
	uint64_t next_tsc, ivl, rem, num, acc;
	uint64_t next_probe, probe_ivl;
	/* counters */
	uint64_t sent, bytes, probes, built, ring_full, alloc_failed, clamped;
	uint64_t start_tsc, stop_tsc, sent_at_start, bytes_at_start;
	uint64_t ring_full_at_start, alloc_failed_at_start;
};

/* Per stream received on a port. */
struct pg_stream {
	int used;
	uint16_t id;
	uint64_t received, unique, reordered, duplicates, bytes;
	uint64_t next;			/* highest sequence number seen + 1 */
	uint64_t seen[PG_SEQ_WINDOW / 64];
};

/* Our data frames received of one size (bytes with the 4-byte FCS). */
struct pg_size {
	uint16_t len;
	uint64_t frames;
};

/* Per receiving port. rx = ours + bad + arp + nd + other + streams_full;
 * arp: requests for an address in src_min..src_max or dst_min..dst_max,
 * answered; nd: Neighbor Solicitations for one in the src6/dst6 ranges,
 * answered. vlans: tagged frames of every kind per VLAN, besides; sizes:
 * our data frames (not probes) per size, besides (sizes_full past 16). */
struct pg_rx {
	uint64_t rx, ours, bad, arp, nd, other, streams_full;
	struct pg_size sizes[PG_RX_SIZES];
	uint64_t sizes_full;
	struct vlan_table vlans;
	struct pg_stream streams[PG_STREAMS];
	struct hist lat;		/* probes: receive - send time, ns */
	uint64_t lat_hw, lat_sw;	/* probes timed by NIC stamps both ends / by the TSC */
};

/* cmd.c: the app (app_runs_on asks about it). */
extern const struct app app_pktgen;
/* metrics.c: pktgen's /metrics families (struct app .metrics, net/prom.h). */
struct prom;
void pg_metrics(struct prom *o);
/* Per port, nic_count of each, from free pages when the app starts
 * (pg_init; boxes without pktgen keep the memory): NULL until then. */
extern struct pg_tx *pg_tx;
extern struct pg_rx *pg_rx;

/* tx.c: port p's TX counters summed over its lanes (every core that has
 * sent on it); run_*: since the last start; stop_tsc: the last lane's end. */
struct pg_tx_sum {
	uint64_t sent, bytes, probes, built, ring_full, alloc_failed, clamped;
	uint64_t run_sent, run_bytes, run_ring_full, run_alloc_failed, stop_tsc;
	uint64_t sent_q[NIC_MAX_QUEUES];
};
void pg_tx_sum(int p, struct pg_tx_sum *s);
/* tx.c: the uint64_t at offset off of struct pg_tx summed over port p's lanes. */
uint64_t pg_tx_field(int p, size_t off);
/* tx.c: lane 0 of port p's last run (its step and size), else pg_tx[p]. */
const struct pg_tx *pg_lead(int p);
/* tx.c: 1 while a lane of port p sends. */
int pg_running(int p);
/* tx.c: zero port p's TX counters (every lane; a lane that sends on another
 * core zeroes its own). */
void pg_tx_clear(int p);
/* tx.c (app tx_per_core): 1 if port p's TX queue q is sent on by core q,
 * so several cores send: more than one queue and core, and pktgen's core
 * (the one polling the port) owns one. */
int pg_tx_per_core(int p);

/* conf.c: p < 0: check the knobs against each other; p >= 0: check the
 * frame sizes against port p's MTU. Prints each problem with the accepted
 * forms. 0 or -1. */
int pg_check(int port);
/* conf.c: VLAN tags pktgen sends (0-2), and the bytes of its headers:
 * Ethernet, the tags, IPv4 or IPv6 (flag IPV6), UDP. */
int pg_ntags(void);
uint32_t pg_hdr_len(void);
/* conf.c: set a pktgen knob by name, as on the command line; prints the
 * reply. 0 or -1. */
int pg_set(const char *name, const char *value);
/* conf.c: the knob names `pktgen set` takes, space-separated. */
extern const char pg_knob_names[];

/* cmd.c: run a shell request (PG_REQ_*) for port (-1: every pktgen port)
 * on pktgen's core: at once when that is the caller's, else through a
 * mailbox its idle hook empties (waiting up to 2 s). Returns its result. */
enum { PG_REQ_START = 1, PG_REQ_STOP, PG_REQ_RATE, PG_REQ_CLEAR, PG_REQ_RFC2544 };
int pg_request(int what, int port);
/* cmd.c: pktgen's core takes a pending request (from pg_idle). */
void pg_requests(void);

/* tx.c: create the TX pools of every pktgen port; 0 or -1. */
int pg_tx_init(void);
/* tx.c: create port p's TX pools unless it has them (a port given to
 * pktgen at run time, maybe again); 0, or -1 after saying so. */
int pg_tx_port_init(int p);
/* tx.c, on pktgen's core: start (after pg_check(port) and a link check;
 * the caller ran pg_check(-1)) / stop port p. 0 or -1. pg_stop ends the
 * lanes of other cores at their next turn, or at once with parked 1 (the
 * other cores parked); the last lane to end prints the Result. */
int pg_start(int port);
void pg_stop(int port, int parked);
/* tx.c, on pktgen's core: recompute port p's rate interval for its step
 * in every lane (after a rate knob changed). */
void pg_rate_update(int port);
/* tx.c: the poll loop's idle hook: send on every lane of this core. */
int pg_idle(void);
/* tx.c: forget which core is pktgen's (a run-time placement moved it). */
void pg_home_changed(void);

/* rx.c: account a received burst (the app's rx hook); frees the packets. */
void pg_rx_burst(struct nic *nic, int q, struct pkt **pkts, int n);
/* cmd.c: after port p stopped or finished, one line as Linux pktgen's
 * Result: frames, time, pps, Mb/s as Linux counts them and on the wire. */
void pg_result(int port, const char *why);

/* tx.c: 1 while RFC 2544 trials run: pg_start and the Result lines are
 * silent (rfc2544.c prints each trial instead). */
extern int pg_quiet;

/* rfc2544.c: `pktgen rfc2544 ...` (argv[1] is "rfc2544"): checks the
 * arguments, prints what is wrong with the accepted forms, else starts the
 * tests on pktgen's core. 0 or -1. */
int rfc2544_cmd(int argc, char **argv);
/* rfc2544.c, on pktgen's core: begin the run the command set up (the
 * PG_REQ_RFC2544 request); advance it (from pg_idle; returns 1 while it
 * runs); end it early (pktgen stop; returns 1 if one was running). */
int rfc2544_begin(void);
int rfc2544_poll(void);
int rfc2544_stop(void);
/* rfc2544.c: 1 after saying so while a run is on (pktgen start, clear and
 * set wait for its end), else 0. */
int rfc2544_busy(void);
/* rfc2544.c: its /metrics families (the run's progress and results). */
void rfc2544_metrics(struct prom *o);

/* rx.c: lost frames of stream s: highest seq + 1 - distinct seen (0 when
 * more were seen: a sender that restarted its sequence numbers). */
uint64_t pg_stream_lost(const struct pg_stream *s);
#endif
