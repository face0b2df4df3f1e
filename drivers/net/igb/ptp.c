/*
 * igb 82576: IEEE 1588 clock and timestamps (82576EB datasheet rev 2.63,
 * 7.9 "Time SYNC (IEEE1588 and 802.1AS)", registers 8.16).
 *
 * The clock: SYSTIM is a 64-bit count that TIMINCA advances by INCVALUE
 * every INCPERIOD x 16 ns. With INCPERIOD 1 and INCVALUE 16 << 19 (Linux's
 * choice) it counts 2^19 units per ns: the 19-bit fraction gives adjfreq a
 * step of 1/2^23 = 0.12 ppb and the count wraps after 2^45 ns (9.8 hours),
 * which the time counter in hwtstamp.c crosses. settime/adjtime move a
 * software offset (as Linux does for the 82576), never SYSTIM: QEMU ignores
 * SYSTIM writes (QEMU-NICS.md C.1), and an offset keeps the count monotonic.
 *
 * Timestamps: RX by EtherType 0x88F7 (ETQF, 1588 bit) and UDP port 319
 * (FTQF/IMIR/SPQF filter 3, as Linux), TSYNCRXCTL type "V2 event
 * messages"; the frame is marked by the descriptor's TS status bit and its
 * time read from RXSTMPL/H. QEMU 10 stamps only L2 PTPv2 frames whose first
 * byte equals TSYNCRXCFG[15:8], hence rx_msg. TX by the advanced
 * descriptor's MAC_TSTAMP bit, one frame at a time, read from TXSTMPL/H.
 */
#include "drivers/net/igb/igb.h"
#include "drivers/net/igb/ptp.h"
#include "drivers/net/igb/regs.h"
#include "drivers/net/phc.h"
#include "net/ipv4.h"
#include "net/ptp.h"

#define INCPERIOD_82576		(1u << TIMINCA_INCPERIOD_SHIFT)
#define INCVALUE_82576		(16u << IGB_82576_TSYNC_SHIFT)

/* SYSTIML then SYSTIMH: reading the low half latches the high half (7.9.3.1). */
static uint64_t igb_read_systim(struct nic *nic)
{
	struct e1000x_port *p = to_port(nic);
	uint64_t lo = rd32(p->regs, IGB_SYSTIML);
	return (uint64_t)rd32(p->regs, IGB_SYSTIMH) << 32 | lo;
}

/* TIMINCA (8.16.3): INCPERIOD 1, INCVALUE scaled by the adjustment. */
static void igb_set_freq(struct nic *nic, int64_t ppb)
{
	struct e1000x_port *p = to_port(nic);
	wr32(p->regs, IGB_TIMINCA, INCPERIOD_82576 | timinca_incvalue(INCVALUE_82576, ppb));
}

/* Release whatever the RX and TX registers hold (7.9.3.1, 7.9.3.2). */
static void release_latches(struct e1000x_port *p)
{
	rd32(p->regs, IGB_RXSTMPL);
	rd32(p->regs, IGB_RXSTMPH);
	rd32(p->regs, IGB_RXSATRL);
	rd32(p->regs, IGB_RXSATRH);
	rd32(p->regs, IGB_TXSTMPL);
	rd32(p->regs, IGB_TXSTMPH);
}

/* UDP/IPv4 destination port 319 to the timestamp unit: 5-tuple filter 3
 * (7.1.2.4: FTQF protocol UDP with the 1588 bit, IMIR port, SPQF source
 * port), other fields masked. */
static void udp_filter(struct e1000x_port *p, int on)
{
	if (!on) {
		wr32(p->regs, IGB_FTQF(3), FTQF_MASK);
		return;
	}
	uint32_t ftqf = 17 | FTQF_VF_BP | FTQF_1588_TIME_STAMP | (FTQF_MASK & ~FTQF_MASK_PROTO_BP &
								  ~FTQF_MASK_SOURCE_PORT_BP);
	wr32(p->regs, IGB_IMIR(3), hton16(PTP_EVENT_PORT));
	wr32(p->regs, IGB_IMIREXT(3), IMIREXT_SIZE_BP | IMIREXT_CTRL_BP);
	wr32(p->regs, IGB_SPQF(3), hton16(PTP_EVENT_PORT));
	wr32(p->regs, IGB_FTQF(3), ftqf);
}

/* 7.9.3.1 / 7.9.3.2 set-up (Linux igb_ptp_set_timestamp_mode for 82576). */
static void igb_hwtstamp_set(struct nic *nic, int rx_msg, int tx, int udp)
{
	struct e1000x_port *p = to_port(nic);
	uint32_t txc = rd32(p->regs, IGB_TSYNCTXCTL) & ~TSYNCTXCTL_ENABLED;
	wr32(p->regs, IGB_TSYNCTXCTL, txc | (tx ? TSYNCTXCTL_ENABLED : 0));
	uint32_t rxc = rd32(p->regs, IGB_TSYNCRXCTL) & ~(TSYNCRXCTL_ENABLED | TSYNCRXCTL_TYPE_MASK);
	if (rx_msg >= 0) {
		rxc |= TSYNCRXCTL_ENABLED | TSYNCRXCTL_TYPE_EVENT_V2;
		wr32(p->regs, IGB_TSYNCRXCFG, (uint32_t)rx_msg << TSYNCRXCFG_V2_MSGID_SHIFT);
		wr32(p->regs, IGB_ETQF(3), ETQF_FILTER_ENABLE | ETQF_1588 | PTP_ETHERTYPE);
	} else {
		wr32(p->regs, IGB_ETQF(3), 0);
	}
	wr32(p->regs, IGB_TSYNCRXCTL, rxc);
	udp_filter(p, rx_msg >= 0 && udp);
	release_latches(p);
}

static int igb_tx_latched(struct nic *nic)
{
	return rd32(to_port(nic)->regs, IGB_TSYNCTXCTL) & TSYNCTXCTL_VALID;
}

static int igb_rx_latched(struct nic *nic)
{
	return rd32(to_port(nic)->regs, IGB_TSYNCRXCTL) & TSYNCRXCTL_VALID;
}

/* TXSTMPL then TXSTMPH; the high read releases the latch. */
static uint64_t igb_tx_read(struct nic *nic)
{
	struct e1000x_port *p = to_port(nic);
	uint64_t lo = rd32(p->regs, IGB_TXSTMPL);
	return (uint64_t)rd32(p->regs, IGB_TXSTMPH) << 32 | lo;
}

/* RXSTMPL, RXSTMPH, then the attributes: silicon releases the latch on
 * the RXSTMPH read, QEMU 10 only on RXSATRH (QEMU-NICS.md C.3), so both
 * are read. RXSATRL/H (source and sequence id) are not used to match the
 * frame: the TS bit does, and QEMU fills them from other offsets. */
static uint64_t igb_rx_read(struct nic *nic)
{
	struct e1000x_port *p = to_port(nic);
	uint64_t lo = rd32(p->regs, IGB_RXSTMPL);
	uint64_t t = (uint64_t)rd32(p->regs, IGB_RXSTMPH) << 32 | lo;
	rd32(p->regs, IGB_RXSATRL);
	rd32(p->regs, IGB_RXSATRH);
	return t;
}

static int igb_tx_desc_done(struct nic *nic, int q, uint32_t desc)
{
	struct e1000x_txq *tq = &to_port(nic)->txq[q];
	uint32_t inflight = (tq->tail + tq->n - tq->clean) % tq->n;
	uint32_t pos = (desc + tq->n - tq->clean) % tq->n;
	return pos >= inflight || (tq->ring[desc].d.status & TXD_DD);
}

static const struct phc_ops igb_phc_ops = {
	.name = "82576 SYSTIM",
	.max_adj = 999999881,	/* INCVALUE may not exceed 24 bits (Linux's limit) */
	.shift = IGB_82576_TSYNC_SHIFT,
	.read_systim = igb_read_systim,
	.set_freq = igb_set_freq,
	.hwtstamp_set = igb_hwtstamp_set,
	.tx_latched = igb_tx_latched,
	.rx_latched = igb_rx_latched,
	.tx_read = igb_tx_read,
	.rx_read = igb_rx_read,
	.tx_desc_done = igb_tx_desc_done,
	.udp_rx = 1,
	.rx_filters = "\tnone\n\tptpv1-l4-sync\n\tptpv1-l4-delay-req\n\tptpv2-event\n",
};

void igb_ptp_init(struct e1000x_port *p)
{
	if (igb_part_of(p)->mac == IGB_82576)
		phc_register(&p->nic, &igb_phc_ops);
}
