/*
 * The NIC interface every driver implements, in the DPDK/ixy burst style.
 *
 * Buffer ownership:
 *  - rx_burst hands out up to n received packets; from then on they belong
 *    to the caller, which must pkt_free them or pass them to tx_burst.
 *  - tx_burst takes packets of NIC_TX_MIN_LEN bytes or more in order from
 *    the front of the array and returns how many it took (fewer when the
 *    ring is full); those now
 *    belong to the driver, which frees them once the NIC has sent them
 *    (TX reclaim, inside tx_burst and nic_housekeeping). The rest still
 *    belong to the caller.
 *  - A driver never allocates on the fast path except to refill its RX
 *    ring from its port's pool; a packet it cannot replace stays in the
 *    ring (the frame is dropped and counted in alloc_rx_buff_failed).
 *
 * Interrupts (poll=napi|irq): drivers/net/napi.h owns the scheduling of
 * queues from their interrupts and the interrupt moderation (ITR).
 *
 * Counters: hardware statistics registers are read before they can wrap
 * (every second, and on demand) and added into 64-bit counters named as
 * Linux's `ethtool -S` names them; software counters sit beside them.
 */
#ifndef NIC_H
#define NIC_H
#include <stdint.h>
#include "drivers/net/napi.h"
#include "drivers/pci/pci.h"
#include "net/pkt.h"

/* Shortest frame a TX descriptor may carry, bytes without FCS: with
 * TCTL.PSP the MAC pads to 64 bytes, but below 17 the 8257x/82576 do not
 * send (Linux e1000e and igb pad to 17 before they queue). */
#define NIC_TX_MIN_LEN 17

#define NIC_MAX_PORTS 8
#define NIC_MAX_QUEUES 16	/* the 82599's RSS limit (RETA entries of 4 bits) */
/* rxd=, txd= when not given, descriptors (Linux e1000e's default). */
#define NIC_RING_DEFAULT 512
#define NIC_BURST_MAX 32
#define NIC_MC_MAX 8

/* Port counters, `ethtool -S` names. X(name, kind): kind hw = from the
 * statistics registers, sw = counted by the driver outside the fast path,
 * q = counted per queue on the fast path (nic->qsw, one writer: the core
 * that owns the queue) and summed into nic->stats by nic_stats_fold. */
#define NIC_STATS(X) \
	X(rx_packets, hw) X(tx_packets, hw) X(rx_bytes, hw) X(tx_bytes, hw) \
	X(rx_broadcast, hw) X(tx_broadcast, hw) X(rx_multicast, hw) X(tx_multicast, hw) \
	X(rx_errors, hw) X(tx_errors, hw) X(multicast, hw) X(collisions, hw) \
	X(rx_length_errors, hw) X(rx_over_errors, hw) X(rx_crc_errors, hw) X(rx_frame_errors, hw) \
	X(rx_no_buffer_count, hw) X(rx_missed_errors, hw) X(tx_aborted_errors, hw) \
	X(tx_carrier_errors, hw) X(tx_window_errors, hw) X(tx_deferred_ok, hw) \
	X(tx_single_coll_ok, hw) X(tx_multi_coll_ok, hw) X(rx_long_length_errors, hw) \
	X(rx_short_length_errors, hw) X(rx_align_errors, hw) X(rx_fifo_errors, hw) X(rx_flow_control_xon, hw) \
	X(rx_flow_control_xoff, hw) X(tx_flow_control_xon, hw) X(tx_flow_control_xoff, hw) \
	X(tx_timeout_count, sw) X(tx_restart_queue, sw) X(rx_csum_offload_good, q) \
	X(rx_csum_offload_errors, q) X(alloc_rx_buff_failed, q) X(rx_hwtstamp_cleared, sw) \
	X(rx_hwtstamp_mismatch, q) X(rx_hwtstamp_source_mismatch, q) \
	X(tx_hwtstamp_timeouts, sw) X(tx_hwtstamp_skipped, q) X(tx_hwtstamp_stale, sw) \
	X(tx_dropped, sw) X(rx_drop_reset, sw) \
	X(rx_delivered, q) X(rx_port_stopped, q) X(rx_drop_oversize, q) X(rx_drop_desc_error, q) \
	X(rx_copybreak, q) X(tx_sent, q) X(tx_ring_full, q) X(tx_csum_ctx, q) X(link_changes, sw) \
	X(resets, sw)

#define NIC_STAT_ENUM(name, kind) NS_##name,
enum nic_stat { NIC_STATS(NIC_STAT_ENUM) NIC_STAT_N };
extern const char *const nic_stat_names[NIC_STAT_N];

/* Per-queue counters; interrupt and poll accounting for the seed graphs. */
struct nic_qstats {
	uint64_t rx_packets, rx_bytes, tx_packets, tx_bytes;
	uint64_t irqs;		/* interrupts taken on the queue's vector that found work */
	uint64_t irqs_spurious;	/* ... that found nothing: QEMU's e1000e/igb repeat every
				 * MSI-X message one EITR window later (docs/qemu-nics.md A.2) */
	uint64_t polls;		/* rx_burst calls */
	uint64_t poll_pkts;	/* packets those calls returned */
	uint64_t itr;		/* current interrupt rate setting, ints/s (0 = off) */
	uint64_t rx_drops;	/* frames the NIC dropped for want of a descriptor in this
				 * queue (igb RQDPC, with SRRCTL.DROP_EN); virtio: frames the
				 * driver dropped (bad length, oversize, no buffer) */
	uint64_t rx_kicks, tx_kicks;	/* virtio: notifications written to the device
					 * (Linux virtio_net's rx_queue_N_kicks), with nic->kicks */
	uint64_t resets;	/* virtio: the pair reset alone (reset_queue), with nic->kicks */
	uint64_t rx_short;	/* frames shorter than NIC_TX_MIN_LEN that rx_burst delivered,
				 * on a port with rx_short_counted */
	uint64_t rx_tstamped;	/* frames rx_burst delivered whose descriptor said the NIC
				 * stamped them (TS, TST or TSIP; e1000x/rx.c): fwd's
				 * transparent clock looks only at bursts that moved it, on
				 * ports whose clock stamps each PTP event message
				 * (phc_rx_each_event) */
};

struct nic;

/* A TX queue gives the buffers of sent frames back to their pools once
 * this many descriptors are in flight (DPDK's tx_free_thresh and its
 * default), when a burst needs their room, and at tx_clean once a second:
 * a burst of one frame (request-response) then pays no free of its own.
 * A pool that feeds a TX ring counts these buffers (nic_pools_create
 * counts a whole ring). */
#define NIC_TX_FREE_THRESH 32

/* What a driver provides. q is a queue index below nic->nqueues. */
struct nic_ops {
	/* Up to n received packets into pkts; returns how many (0..n). */
	int (*rx_burst)(struct nic *nic, int q, struct pkt **pkts, int n);
	/* Queue up to n packets for sending; returns how many were taken. */
	int (*tx_burst)(struct nic *nic, int q, struct pkt **pkts, int n);
	/* Unmask queue q's interrupt; returns 1 if a received frame already
	 * waits (read after unmasking: a frame that came in before it raises
	 * no interrupt the caller can count on). */
	int (*irq_enable)(struct nic *nic, int q);
	/* Mask queue q's interrupt. */
	void (*irq_disable)(struct nic *nic, int q);
	/* Raise queue q's interrupt from software (ICS/EICS). */
	void (*irq_raise)(struct nic *nic, int q);
	/* 1 if a received frame waits on queue q (descriptor done). */
	int (*rx_pending)(struct nic *nic, int q);
	/* Add the statistics registers into nic->stats (they clear on read). */
	void (*update_stats)(struct nic *nic);
	/* Once a second, on core 0: link state, TX hang check (read-only on
	 * the rings), ITR simplified mode. */
	void (*watchdog)(struct nic *nic);
	/* Once a second, on the core that sends on TX queue q (tx_owner): free what the NIC has
	 * sent (a queue that stops sending keeps no buffers). */
	void (*tx_clean)(struct nic *nic, int q);
	/* Reset the port (as after a TX hang) at the next watchdog, on core 0:
	 * the shell's `reset <port>`. */
	void (*reset)(struct nic *nic);
	/* Reset queue pair q alone at the next watchdog, on core 0 (the
	 * shell's `reset <port> queue <q>`; counted in queue_q_resets). 0, or
	 * -1 after saying why the port cannot. NULL: the driver has no such reset. */
	int (*reset_queue)(struct nic *nic, int q);
	/* Interrupt rate for queue q in ints/s (0 = no throttling). */
	void (*set_itr)(struct nic *nic, int q, uint32_t ints_per_s);
	/* Program the multicast filter with nic->mc (may be NULL: no filter). */
	void (*set_mc)(struct nic *nic);
	/* Optional (Linux's ndo_vlan_rx_add_vid): with the vlan_strip knob
	 * 1, have the NIC accept VLAN vid (1-4094) in its filter and take
	 * the tag of every tagged frame into the RX descriptor (the packet
	 * then has PKT_RX_VLAN and vlan_tci, its data no tag). Returns 0,
	 * or -1 when the port does not (knob 0, or no such hardware): then
	 * tags stay in the frame. The VID is kept either way, for
	 * vlan_strip_set. */
	int (*vlan_rx_add_vid)(struct nic *nic, uint16_t vid);
	/* Optional, with vlan_rx_add_vid (Linux's ndo_set_features for
	 * rx-vlan-offload and rx-vlan-filter): turn the NIC's stripping and
	 * VLAN filter on or off now, as nic->cfg.vlan_strip says (the filter
	 * only with nic->cfg.vlan_filter too), for the
	 * VIDs vlan_rx_add_vid was given; frames it already stripped keep
	 * PKT_RX_VLAN. 0, or -1 when the port has none to filter (its tags
	 * stay in the frame). */
	int (*vlan_strip_set)(struct nic *nic);
};

/* Per-port knobs (Linux module parameters take one value per board):
 * probe copies each port's values into nic->cfg, and only that copy is read
 * on the fast path. */
struct nic_port_config {
	int64_t rxd, txd;		/* ring sizes, descriptors */
	int64_t queues;			/* queue pairs wanted */
	int64_t itr;			/* InterruptThrottleRate */
	int64_t rx_int_delay, rx_abs_int_delay;	/* RDTR, RADV: 1.024 us units */
	int64_t tx_int_delay, tx_abs_int_delay;	/* TIDV, TADV: 1.024 us units */
	int64_t copybreak;		/* bytes; 0 = off */
	int64_t prefetch;		/* 0|1 */
	int64_t poll;			/* enum poll_mode */
	int64_t napi_weight;		/* packets per NAPI round */
	int64_t vlan_strip;		/* 0|1: rx-vlan-offload (nic_ops.vlan_rx_add_vid) */
	int64_t vlan_filter;		/* 0|1: rx-vlan-filter, with vlan_strip 1 */
};

/* One port. Drivers embed it at the start of their own struct. */
struct nic {
	char name[16];		/* "port0" (fwd's VLAN sub-interfaces: "port0.4094", "port0.4094.4094") */
	int port;
	const char *driver;	/* "e1000e" */
	const char *model;	/* "82574L" */
	struct pci_dev *pci;
	const struct nic_ops *ops;
	uint8_t mac[6];
	int nqueues;		/* RX/TX queue pairs in use */
	int max_queues;		/* queue pairs the part has (ethtool -l) */
	int int_delays;		/* 1: RDTR/RADV/TIDV/TADV in use (ethtool -c) */
	int kicks;		/* 1: the driver counts rx_kicks/tx_kicks (virtio; ethtool -S) */
	int rxd, txd;		/* ring sizes, descriptors */
	int link_up;
	uint32_t speed;		/* Mb/s, when link_up */
	int full_duplex;
	uint32_t mtu;		/* bytes of IP packet: the mtu knob's (1500), or less
				 * where the device says so (virtio MTU) */
	int tx_csum;		/* 1: the driver can insert IPv4 header, TCP and UDP checksums
				 * (PKT_TX_IP_CSUM, PKT_TX_L4_CSUM, PKT_TX_UDP) */
	int tx_csum6;		/* 1: ... and TCP and UDP over IPv6 too (PKT_TX_L4_CSUM | PKT_TX_IP6) */
	int tx_csum_on;		/* set by the port's app before it sends frames that ask */
	int rx_short_counted;	/* 1: rx_burst counts every frame it delivers shorter than
				 * NIC_TX_MIN_LEN in q[].rx_short, so an app that must
				 * check lengths may skip a burst while that count stands */
	uint64_t dma_limit;	/* DMA addresses the device reaches end here (4 GiB for
				 * 32-bit parts); 0 = the whole 64-bit space */
	struct pktpool *pool;		/* RX buffers */
	struct pktpool *small_pool;	/* copybreak copies */
	volatile int sched[NIC_MAX_QUEUES];	/* set by the queue's interrupt */
	/* 1: a queue's vector masks the queue's causes itself when it fires
	 * (82574 MSI-X, e1000e_program_irq), so its handler does not */
	int irq_automask;
	/* 1: one MSI-X vector serves every queue (fewer vectors than queues):
	 * it stays on core 0, its handler schedules each queue on its owner */
	int irq_shared;
	volatile int other_pending;	/* link or other cause seen */
	struct nic_itr itr[NIC_MAX_QUEUES];
	uint8_t mc[NIC_MC_MAX][6];	/* multicast groups joined (nic_mc_add) */
	int nmc;
	uint64_t stats[NIC_STAT_N];
	struct nic_qstats q[NIC_MAX_QUEUES];
	int owner[NIC_MAX_QUEUES];	/* core that polls each queue (run/lcore.c) */
	int tx_owner[NIC_MAX_QUEUES];	/* core that sends on each TX queue, and so reclaims it
					 * (tx_clean): the queue's owner, or the core numbered
					 * as the queue when the app sends per core (run/place.c) */
	struct nic_port_config cfg;	/* this port's knob values */
	/* Fast-path counters (kind q) per queue; nic->stats holds their sum as of
	 * the last nic_stats_fold, which remembers what it already added. */
	uint64_t qsw[NIC_MAX_QUEUES][NIC_STAT_N] __attribute__((aligned(64)));
	uint64_t folded[NIC_STAT_N];
	volatile uint32_t fold_seq;	/* odd while nic_stats_fold writes stats/folded */
};

extern struct nic *nics[NIC_MAX_PORTS];
extern int nic_count;

/* The knobs: one value per port for each per-port knob (index = port),
 * and the two that are the same for every port. */
struct nic_config {
	int64_t burst;			/* rx_burst size, packets */
	int64_t promisc;		/* 0|1: accept every unicast and multicast */
	int64_t rxd[NIC_MAX_PORTS], txd[NIC_MAX_PORTS], queues[NIC_MAX_PORTS], itr[NIC_MAX_PORTS];
	int64_t rx_int_delay[NIC_MAX_PORTS], rx_abs_int_delay[NIC_MAX_PORTS];
	int64_t tx_int_delay[NIC_MAX_PORTS], tx_abs_int_delay[NIC_MAX_PORTS];
	int64_t copybreak[NIC_MAX_PORTS], prefetch[NIC_MAX_PORTS], poll[NIC_MAX_PORTS];
	int64_t napi_weight[NIC_MAX_PORTS];
	int64_t vlan_strip[NIC_MAX_PORTS], vlan_filter[NIC_MAX_PORTS];
	int64_t mtu[NIC_MAX_PORTS];	/* bytes of IP packet (nic.mtu) */
};
extern struct nic_config nic_cfg;
enum poll_mode { POLL_BUSY, POLL_NAPI, POLL_IRQ };

/* Fill nic->cfg with the knob values of the port nic_register will give it
 * (the next number), and rxd/txd from them; before nic_register. */
void nic_config_init(struct nic *nic);
/* Copy the run-time knobs (InterruptThrottleRate, napi_weight, copybreak,
 * prefetch) of every port into its nic->cfg, after `set`. */
void nic_config_refresh(void);
/* Give a probed port its number and name; returns the port, or -1 when
 * NIC_MAX_PORTS are taken. */
int nic_register(struct nic *nic);
/* Take back the port nic_register just gave (its probe failed), saying so;
 * only the last port registered can be taken back. */
void nic_unregister(struct nic *nic);
/* Make the port's RX pools: rxd + 2 * burst + slack buffers, and the
 * copybreak pool when copybreak is on. Returns 0 or -1 (no memory). */
int nic_pools_create(struct nic *nic);
/*
 * Set by the layer that runs the poll loops (run/lcore.c): stop(1) parks
 * every other core outside the fast path and returns once they are parked;
 * stop(0) lets them go. A driver brackets a port reset with it, since the
 * reset frees ring buffers that another core's rx_burst or tx_burst (into
 * this port, from a paired one) may be using. NULL: one core, nothing to do.
 */
extern void (*nic_stop_others)(int stop);
/* Add what the queues counted (kind q) since the last fold into
 * nic->stats; update_stats calls it, so readers see current totals. */
#define NIC_STAT_IS_Q(name, kind) [NS_##name] = sizeof(#kind) == 2,
static inline uint64_t nic_qsw_sum(const struct nic *nic, int i)
{
	uint64_t sum = 0;
	for (int q = 0; q < NIC_MAX_QUEUES; q++)
		sum += nic->qsw[q][i];
	return sum;
}
static inline void nic_stats_fold(struct nic *nic)
{
	static const uint8_t per_queue[NIC_STAT_N] = { NIC_STATS(NIC_STAT_IS_Q) };
	for (int i = 0; i < NIC_STAT_N; i++) {
		if (!per_queue[i])
			continue;
		uint64_t sum = nic_qsw_sum(nic, i);
		nic->fold_seq++;
		__asm__ volatile("" ::: "memory");
		nic->stats[i] += sum - nic->folded[i];
		nic->folded[i] = sum;
		__asm__ volatile("" ::: "memory");
		nic->fold_seq++;
	}
}
/* Counter i (kind q) as of now: nic->stats plus what the queues counted
 * since the last fold, so a report's totals and its rates (read from the
 * live nic->q) come from the same instant (issue 34 N23). Any core may
 * read it: a read that met a fold (fold_seq odd or moved) is taken again,
 * as Linux's seqcount readers do. */
static inline uint64_t nic_stat_now(const struct nic *nic, enum nic_stat i)
{
	uint32_t seq;
	uint64_t v;
	do {
		seq = nic->fold_seq;
		__asm__ volatile("" ::: "memory");
		v = nic->stats[i] - nic->folded[i];
		__asm__ volatile("" ::: "memory");
	} while ((seq & 1) || seq != nic->fold_seq);
	return v + nic_qsw_sum(nic, i);
}
/* Word i (0-9) of the 40-byte RSS key every port hashes with, bytes in
 * ascending order from its low byte (the Intel RSSRK layout, 7.1.2.8.1 of
 * the 82576 datasheet); virtio-net's RSS gets the same key. */
static inline uint32_t nic_rss_key_word(int i)
{
	return 0x6d5a6d5au + (uint32_t)i * 0x01010101u;
}
/* Once a second for every port: update_stats and watchdog. */
void nic_housekeeping(void);
/* Accept frames to the multicast MAC mc on the port (SIOCADDMULTI); kept
 * across resets. Returns 0, or -1 if NIC_MC_MAX groups are joined. */
int nic_mc_add(struct nic *nic, const uint8_t mc[6]);
/*
 * A port's interrupt vectors from the PCI layer: queue q on vector q
 * (napi_queue_irq, "portN-rxQ") and other causes on vector nqueues (other
 * with arg, "portN-<what>"). Returns 1 when MSI-X gave them all; 0 when
 * one vector came (MSI or INTx: nqueues becomes 1, said when it was more;
 * the driver then serves every cause from vector 0, pci_irq_set_handler);
 * -1 when none (printed).
 */
int nic_setup_vectors(struct nic *nic, irq_handler_t other, void *arg, const char *what);
/* Around a port reset (TX hang, the device's request, the shell's
 * `reset`), on core 0: begin says why and parks the other cores
 * (nic_stop_others); end counts it in resets and, unless err, unmasks the
 * queues (poll=napi|irq) and takes the link down until the watchdog sees
 * it up, as Linux does; then lets the cores go. */
void nic_reset_begin(struct nic *nic, const char *why);
void nic_reset_end(struct nic *nic, int err);
/* The port called name ("port0"), or NULL. */
struct nic *nic_find(const char *name);
/* "ports: port0 port1" (or "ports: none"), one line: the names a command takes. */
void nic_print_ports(void);
#endif
