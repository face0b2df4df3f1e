/*
 * Descriptor rings shared by e1000, e1000e and igb.
 * RX: legacy descriptors (8254x 3.2.3) or the 16-byte extended (82574
 * 7.1.4.2) / advanced one-buffer (82576 7.1.5) format, whose read and
 * write-back layouts are the same where this code looks.
 * TX: legacy (8254x 3.3.3) or advanced data descriptors (82576 7.2.2.3).
 * Both report DD in bit 0 of byte 12.
 */
#ifndef E1000X_RING_H
#define E1000X_RING_H
#include <stdint.h>
#include "drivers/net/nic.h"

union rx_desc {
	struct { uint64_t addr, hdr_addr; } read;
	struct {
		uint32_t info;		/* MRQ / packet type (unused here) */
		uint32_t rss_hash;
		uint32_t staterr;	/* status 19:0, errors 31:20 */
		uint16_t length;
		uint16_t vlan;
	} wb;
	struct {			/* legacy */
		uint64_t addr;
		uint16_t length, csum;
		uint8_t status, errors;
		uint16_t special;
	} legacy;
};

/* Extended/advanced write-back status and error bits (82574 7.1.4.2, 82576 7.1.5.2) */
#define RXDEXT_DD	(1u << 0)
#define RXDEXT_EOP	(1u << 1)
#define RXDEXT_UDPCS	(1u << 4)
#define RXDEXT_TCPCS	(1u << 5)
#define RXDEXT_IPCS	(1u << 6)
#define RXDADV_STAT_TSIP (1u << 15)	/* I350/I210: timestamp in packet buffer */
#define RX_TS_HDR_LEN	16	/* its header: 8 reserved bytes, SYSTIML, SYSTIMH */
#define RXDEXT_ERR_CE	(1u << 24)
#define RXDEXT_ERR_SE	(1u << 25)
#define RXDEXT_ERR_SEQ	(1u << 26)
#define RXDEXT_ERR_CXE	(1u << 28)
#define RXDEXT_ERR_TCPE	(1u << 29)
#define RXDEXT_ERR_IPE	(1u << 30)
#define RXDEXT_ERR_RXE	(1u << 31)
#define RXDEXT_ERR_FRAME (RXDEXT_ERR_CE | RXDEXT_ERR_SE | RXDEXT_ERR_SEQ | RXDEXT_ERR_CXE | RXDEXT_ERR_RXE)

union tx_desc {
	struct {
		uint64_t addr;
		uint32_t cmd_type_len;	/* legacy: length 15:0, cso, cmd 31:24 */
		uint32_t status;	/* DD in bit 0 (legacy: status byte; advanced: STA) */
	} d;
};
#define TXD_DD		(1u << 0)
/* Advanced data descriptor (82576 7.2.2.3) */
#define ADVTXD_DTYP_DATA (3u << 20)
#define ADVTXD_DCMD_EOP	(1u << 24)
#define ADVTXD_DCMD_IFCS (1u << 25)
#define ADVTXD_DCMD_RS	(1u << 27)
#define ADVTXD_DCMD_DEXT (1u << 29)
#define ADVTXD_MAC_TSTAMP (1u << 19)
#define ADVTXD_PAYLEN_SHIFT 14

struct e1000x_rxq {
	struct nic *nic;
	int q;
	volatile union rx_desc *ring;
	struct pkt **bufs;
	uint32_t n;		/* descriptors */
	uint32_t next;		/* next descriptor to look at */
	volatile uint8_t *regs;
	uint32_t rdt;		/* offset of this queue's RDT */
	int legacy;		/* legacy descriptor format */
	uint32_t ts_bit;	/* status bit meaning "timestamped", 0 if none */
	uint32_t tsip_bit;	/* status bit meaning "timestamp in the buffer's first 16
				 * bytes" (igb TSIP with SRRCTL.TIMESTAMP), 0 if off */
	int discarding;		/* inside a frame that spans descriptors */
};

struct e1000x_txq {
	struct nic *nic;
	int q;
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
	uint64_t stall_since;	/* ns when work was pending and clean stopped moving, 0 if not */
};

/* Allocate the ring (128-byte aligned) unless it has one, fill every RX
 * descriptor with a buffer from the port's pool. Returns 0, or -1 when
 * memory ran out (printed). */
int e1000x_rxq_init(struct e1000x_rxq *rq);
int e1000x_txq_init(struct e1000x_txq *tq);
/* Give back the buffers held by a ring (for resets); TX frames not sent
 * are counted in tx_dropped. */
void e1000x_rxq_release(struct e1000x_rxq *rq);
void e1000x_txq_release(struct e1000x_txq *tq);
/* The burst calls of struct nic_ops, on one queue. */
int e1000x_rx_burst(struct e1000x_rxq *rq, struct pkt **pkts, int n);
int e1000x_tx_burst(struct e1000x_txq *tq, struct pkt **pkts, int n);
/* 1 if the next descriptor is done (a frame waits). */
int e1000x_rx_pending(const struct e1000x_rxq *rq);
/* Free what the NIC has sent; returns descriptors still in flight. */
uint32_t e1000x_tx_reclaim(struct e1000x_txq *tq);
/* TX hang check (once a second): work pending and nothing reclaimed for
 * timeout_ns while the link is up. Returns 1 if hung. */
int e1000x_tx_hung(struct e1000x_txq *tq, uint64_t timeout_ns);
#endif
