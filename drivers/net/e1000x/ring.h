/* Descriptor rings shared by e1000, e1000e and igb: a queue's state and
 * the burst, reclaim and hang-check calls, RX in rx.c and TX in tx.c; the
 * descriptor formats are in desc.h. */
#ifndef E1000X_RING_H
#define E1000X_RING_H
#include <stdint.h>
#include "drivers/net/nic.h"
#include "drivers/net/e1000x/desc.h"

/* RX descriptor formats (e1000x_rxq.fmt): extended/advanced (82574,
 * 82576), legacy (8254x), advanced with the 82599's write-back error bits
 * (desc.h). */
enum { RXF_EXT, RXF_LEGACY, RXF_82599 };

struct e1000x_rxq {
	struct nic *nic;
	int q;
	struct nic_qstats *qs;	/* &nic->q[q] */
	uint64_t *sw;		/* nic->qsw[q] */
	volatile union rx_desc *ring;
	struct pkt **bufs;
	uint32_t n;		/* descriptors */
	uint32_t next;		/* next descriptor to look at */
	volatile uint8_t *regs;
	uint32_t rdt;		/* offset of this queue's RDT */
	int fmt;		/* descriptor format, RXF_* */
	uint32_t ts_bit;	/* status bit meaning "timestamped", 0 if none */
	uint32_t tsip_bit;	/* status bit meaning "timestamp in the buffer's first 16
				 * bytes" (igb TSIP with SRRCTL.TIMESTAMP), 0 if off */
	uint32_t vp_bit;	/* RXDEXT_VP when the port strips VLAN tags (vlan_strip), else 0 */
	int discarding;		/* inside a frame that spans descriptors */
	uint32_t ci;		/* the checksum bits of the last frame of the last burst */
	uint64_t cr;		/* and their csum_res entry (rx.c): a burst starts from them */
};

struct e1000x_txq {
	struct nic *nic;
	int q;
	struct nic_qstats *qs;	/* &nic->q[q] */
	uint64_t *sw;		/* nic->qsw[q] */
	volatile union tx_desc *ring;
	struct pkt **bufs;
	uint32_t *rs_at;	/* [first descriptor of a tx_burst batch] = its last, the
				 * one with RS (only it gets a DD write-back) */
	uint32_t n;
	uint32_t tail;		/* next descriptor to fill */
	uint32_t clean;		/* oldest descriptor not yet reclaimed */
	volatile uint8_t *regs;
	uint32_t tdt;		/* offset of this queue's TDT */
	int adv;		/* advanced descriptors (igb) */
	int ctx_set;		/* 1: frames carry their checksum requests (the port's
				 * nic->tx_csum_on when the last burst began) */
	int8_t slot_of[16];	/* checksum request (flags >> 9 & 15) -> the context slot
				 * that serves it, -1: none yet (tx.c, ctx_map) */
	int8_t held[2];		/* the context kind (CTX_*) each slot holds, -1: none */
	uint8_t next_slot;	/* the slot the next new context goes to */
	uint64_t stall_since;	/* ns when work was pending and clean stopped moving, 0 if not */
	struct pkt ctx;		/* what bufs holds at the checksum context descriptors: one
				 * reference (in clones) per descriptor on the ring, no pool */
};

/* Allocate the ring (128-byte aligned) unless it has one, fill every RX
 * descriptor with a buffer from the port's pool. Returns 0, or -1 when
 * memory ran out (printed). */
int e1000x_rxq_init(struct e1000x_rxq *rq);
int e1000x_txq_init(struct e1000x_txq *tq);
/* Give back the buffers held by a ring (for resets); TX frames not sent
 * are counted in tx_dropped, RX frames received and not delivered in
 * rx_drop_reset. */
void e1000x_rxq_release(struct e1000x_rxq *rq);
void e1000x_txq_release(struct e1000x_txq *tq);
/* The nic_ops rx_burst and tx_burst, one per descriptor format, each
 * compiled from its direction's one body (rx.c, tx.c) with the format a
 * constant: RX extended (e1000e, igb), legacy (e1000) or 82599 advanced
 * (ixgbe), TX advanced (igb, ixgbe)
 * or legacy (e1000, e1000e). e1000x_setup_rxq/txq put the port's in its
 * ops, so a burst costs the one indirect call it always did. */
int e1000x_rx_burst_ext(struct nic *nic, int q, struct pkt **pkts, int n);
int e1000x_rx_burst_legacy(struct nic *nic, int q, struct pkt **pkts, int n);
int e1000x_rx_burst_82599(struct nic *nic, int q, struct pkt **pkts, int n);
int e1000x_tx_burst_adv(struct nic *nic, int q, struct pkt **pkts, int n);
int e1000x_tx_burst_legacy(struct nic *nic, int q, struct pkt **pkts, int n);
/* Free what the NIC has sent; returns descriptors still in flight. */
uint32_t e1000x_tx_reclaim(struct e1000x_txq *tq);
/* 1 when descriptor desc is done (DD written back) or already reclaimed:
 * the PHC waits for a timestamped frame's descriptor. */
int e1000x_tx_desc_done(const struct e1000x_txq *tq, uint32_t desc);
/* 1 when frames handed to the NIC are not all sent (read-only: core 0
 * may ask while the queue's owner sends). */
int e1000x_tx_pending(const struct e1000x_txq *tq);
/* TX hang check (once a second): work pending and nothing reclaimed for
 * timeout_ns while the link is up. Returns 1 if hung. */
int e1000x_tx_hung(struct e1000x_txq *tq, uint64_t timeout_ns);
#endif
