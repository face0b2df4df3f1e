/*
 * igb: IEEE 1588 clock and timestamps. 82576EB datasheet rev 2.63, 7.9
 * "Time SYNC (IEEE1588 and 802.1AS)", registers 8.16; the I350 and I210
 * datasheets' time sync chapters where the later parts differ.
 *
 * The clock. 82576: SYSTIM is a 64-bit count that TIMINCA advances by
 * INCVALUE every INCPERIOD x 16 ns. With INCPERIOD 1 and INCVALUE 16 << 19
 * (Linux's choice) it counts 2^19 units per ns: the 19-bit fraction gives
 * adjfreq a step of 1/2^23 = 0.12 ppb and the count wraps after 2^45 ns
 * (9.8 hours), which the time counter in hwtstamp.c crosses.
 * I350: SYSTIM counts ns in 40 bits (SYSTIMH bits 7:0 over SYSTIML; 18.3
 * minutes to the wrap), I210/I211: seconds in SYSTIMH, ns in SYSTIML.
 * Both add 8 ns every 8 ns cycle, corrected by TIMINCA in 2^-32 ns per
 * cycle with a sign bit (hwtstamp.h timinca_isgn); SYSTIMR, the residue
 * below a ns, is read first and latches SYSTIML/H; TSAUXC.DisableSystime
 * (set at reset) must be cleared or SYSTIM stands still. On every part
 * settime/adjtime move a software offset (as Linux does for the 82576),
 * never SYSTIM: QEMU ignores SYSTIM writes (docs/qemu-nics.md C.1), and an
 * offset keeps the count monotonic.
 *
 * Timestamps: RX by EtherType 0x88F7 (ETQF, 1588 bit) and UDP port 319
 * (FTQF/IMIR filter 3, as Linux; on the 82576 also SPQF, the source
 * port), TSYNCRXCTL type "V2 event messages". 82576: the frame is marked
 * by the descriptor's TS status bit and its time read from RXSTMPL/H.
 * QEMU 10 stamps only L2 PTPv2 frames whose first byte equals
 * TSYNCRXCFG[15:8], hence rx_msg. I350/I210: SRRCTL.TIMESTAMP (and, on the
 * I210, RXPBS.CFG_TS_EN) put the time in 16 bytes in front of each
 * stamped frame, marked by the descriptor's TSIP bit (the ring strips it,
 * e1000x/rx.c); with the V2-event type only PTP event frames get it, so
 * other frames keep the fast path (Linux asks for every frame, TYPE_ALL).
 * TX on every part by the advanced descriptor's MAC_TSTAMP bit, one frame
 * at a time, read from TXSTMPL/H.
 *
 * The I350/I210 paths have run only against the register model
 * (tests/regmodel/test_igb_ptp.c): QEMU emulates no igb but the 82576. The
 * I210's PHY latencies (Linux igb IGB_I210_RX/TX_LATENCY_*) are not taken
 * off the stamps: two I210s cancel them, a path delay includes them.
 */
#include "drivers/net/igb/igb.h"
#include "drivers/net/igb/ptp.h"
#include "drivers/net/igb/regs.h"
#include "drivers/net/phc.h"
#include "net/ipv4.h"
#include "net/ptp.h"

#define INCPERIOD_82576		(1u << TIMINCA_INCPERIOD_SHIFT)
#define INCVALUE_82576		(16u << IGB_82576_TSYNC_SHIFT)
#define NS_PER_S		1000000000ull

/* The I210/I211 count seconds and ns (SYSTIMH, SYSTIML): one count of ns. */
static int sec_ns(const struct e1000x_port *p)
{
	return igb_part_of(p)->mac >= IGB_I210;
}

static uint64_t count_plain(uint64_t raw)
{
	return raw;
}

/* A latched time (SYSTIM, TXSTMP, RXSTMP: low, high) as a count. */
static uint64_t stamp(const struct e1000x_port *p, uint32_t lo, uint32_t hi)
{
	uint64_t raw = (uint64_t)hi << 32 | lo;
	return sec_ns(p) ? systim_sec_ns(raw) : raw;
}

/* SYSTIML then SYSTIMH: reading the low half latches the high half
 * (7.9.3.1); on the I350/I210 SYSTIMR comes first and latches both. */
static uint64_t igb_read_systim(struct nic *nic)
{
	struct e1000x_port *p = to_port(nic);
	if (igb_mac_of(p)->systim_ns)
		rd32(p->regs, IGB_SYSTIMR);
	uint32_t lo = rd32(p->regs, IGB_SYSTIML);
	return stamp(p, lo, rd32(p->regs, IGB_SYSTIMH));
}

/* TIMINCA (8.16.3): 82576 INCPERIOD 1, INCVALUE scaled by the adjustment;
 * I350/I210 the signed correction per 8 ns cycle. */
static void igb_set_freq(struct nic *nic, int64_t ppb)
{
	struct e1000x_port *p = to_port(nic);
	if (igb_mac_of(p)->systim_ns)
		wr32(p->regs, IGB_TIMINCA, timinca_isgn(ppb, 8ull << 32));
	else
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
 * (7.1.2.4: FTQF protocol UDP with the 1588 bit, IMIR port; on the 82576
 * SPQF, the source port, too, as Linux), other fields masked. */
static void udp_filter(struct e1000x_port *p, int on)
{
	if (!on) {
		wr32(p->regs, IGB_FTQF(3), FTQF_MASK);
		return;
	}
	uint32_t ftqf = 17 | FTQF_VF_BP | FTQF_1588_TIME_STAMP | (FTQF_MASK & ~FTQF_MASK_PROTO_BP);
	wr32(p->regs, IGB_IMIR(3), hton16(PTP_EVENT_PORT));
	wr32(p->regs, IGB_IMIREXT(3), IMIREXT_SIZE_BP | IMIREXT_CTRL_BP);
	if (igb_part_of(p)->mac == IGB_82576) {
		wr32(p->regs, IGB_SPQF(3), hton16(PTP_EVENT_PORT));
		ftqf &= ~FTQF_MASK_SOURCE_PORT_BP;
	}
	wr32(p->regs, IGB_FTQF(3), ftqf);
}

/* 7.9.3.1 / 7.9.3.2 set-up (Linux igb_ptp_set_timestamp_mode, but V2
 * events only on every part). The I210 also needs RXPBS.CFG_TS_EN for the
 * time in the buffer. */
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
		if (sec_ns(p))
			set_flags32(p->regs, IGB_RXPBS, RXPBS_CFG_TS_EN);
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
	uint32_t lo = rd32(p->regs, IGB_TXSTMPL);
	return stamp(p, lo, rd32(p->regs, IGB_TXSTMPH));
}

/* RXSTMPL, the attributes, then RXSTMPH: silicon releases the latch on
 * the RXSTMPH read (I210 8.15.1-8.15.3), so a PTP event frame arriving
 * meanwhile cannot replace the attributes of the stamp read (silicon
 * review 2026-12-02 N7). QEMU 10 releases on RXSATRH (docs/qemu-nics.md
 * C.3): there a frame latched between the last two reads would change
 * RXSTMPH. RXSATRL/H (source and sequence id) are matched against the
 * frame by phc.c, in the datasheet's layout or QEMU's (hwtstamp.h). */
static uint64_t igb_rx_read(struct nic *nic, uint32_t attr[2])
{
	struct e1000x_port *p = to_port(nic);
	uint32_t lo = rd32(p->regs, IGB_RXSTMPL);
	attr[0] = rd32(p->regs, IGB_RXSATRL);
	attr[1] = rd32(p->regs, IGB_RXSATRH);
	return stamp(p, lo, rd32(p->regs, IGB_RXSTMPH));
}

static int igb_tx_desc_done(struct nic *nic, int q, uint32_t desc)
{
	return e1000x_tx_desc_done(&to_port(nic)->txq[q], desc);
}

/*
 * The SDP pins of the I350 and I210/I211 (their datasheets' "Time Sync
 * Related Auxiliary Elements" and TSSDP, TSAUXC, TRGTTIM, AUXSTMP, TSICR;
 * the set-up of Linux igb_pin_perout and igb_pin_extts). What the pins
 * carry is phc.c's (ptp_pps, ptp_extts).
 */

/* SDPn's direction: SDP0/1 in CTRL, SDP2/3 in CTRL_EXT; 1 is output. */
static void pin_dir(struct e1000x_port *p, int pin, int out)
{
	static const uint32_t reg[4] = { CTRL, CTRL, CTRL_EXT, CTRL_EXT };
	static const uint32_t bit[4] = { CTRL_SDP0_DIR, CTRL_SDP1_DIR, CTRL_EXT_SDP2_DIR, CTRL_EXT_SDP3_DIR };
	if (out)
		set_flags32(p->regs, reg[pin], bit[pin]);
	else
		clear_flags32(p->regs, reg[pin], bit[pin]);
}

static int igb_pps_level(struct nic *nic)
{
	return (rd32(to_port(nic)->regs, CTRL) & CTRL_SDP0_DATA) != 0;
}

/* Target time 0 at count, in SYSTIM's layout (I210 seconds over ns, I350
 * the 40-bit count's bits 39:32 over 31:0), written while disarmed so
 * that no half-written time can match; SDP0 routed to it the first time. */
static void igb_pps_target(struct nic *nic, uint64_t count)
{
	struct e1000x_port *p = to_port(nic);
	clear_flags32(p->regs, IGB_TSAUXC, TSAUXC_EN_TT0);
	wr32(p->regs, IGB_TRGTTIML(0), sec_ns(p) ? (uint32_t)(count % NS_PER_S) : (uint32_t)count);
	wr32(p->regs, IGB_TRGTTIMH(0), sec_ns(p) ? (uint32_t)(count / NS_PER_S) : (uint32_t)(count >> 32) & 0xff);
	uint32_t sdp = rd32(p->regs, IGB_TSSDP);
	if ((sdp & (TSSDP_SDP_SEL_MASK(0) | TSSDP_SDP_EN(0))) != TSSDP_SDP_EN(0)) {
		if ((sdp & TSSDP_AUX0_SEL_MASK) == TSSDP_AUX0_SEL(0))	/* not an input as well */
			sdp &= ~TSSDP_AUX0_TS_SDP_EN;
		wr32(p->regs, IGB_TSSDP, (sdp & ~TSSDP_SDP_SEL_MASK(0)) | TSSDP_SDP_EN(0));
		pin_dir(p, 0, 1);
	}
	set_flags32(p->regs, IGB_TSAUXC, TSAUXC_EN_TT0);
}

/* Auxiliary time stamp 0 from input pin; a stamp held from before is
 * released (AUXSTMPH0 read). */
static void igb_extts_set(struct nic *nic, int pin)
{
	struct e1000x_port *p = to_port(nic);
	uint32_t sdp = rd32(p->regs, IGB_TSSDP) & ~(TSSDP_AUX0_SEL_MASK | TSSDP_SDP_EN(pin));
	pin_dir(p, pin, 0);
	wr32(p->regs, IGB_TSSDP, sdp | TSSDP_AUX0_SEL(pin) | TSSDP_AUX0_TS_SDP_EN);
	rd32(p->regs, IGB_AUXSTMPL(0));
	rd32(p->regs, IGB_AUXSTMPH(0));
	set_flags32(p->regs, IGB_TSAUXC, TSAUXC_EN_TS0);
}

/* TSICR clears on read (I210 8.16.1; so it is read once and every cause
 * in it taken, as Linux igb_tsync_interrupt since "igb: Fix missing time
 * sync events"); AUXSTMPL0 then AUXSTMPH0, whose read frees the latch. */
static uint32_t igb_pins_poll(struct nic *nic, uint64_t *aux)
{
	struct e1000x_port *p = to_port(nic);
	uint32_t icr = rd32(p->regs, IGB_TSICR), causes = 0;
	if (icr & TSICR_TT0)
		causes |= PHC_PIN_TT0;
	if (icr & TSICR_AUTT0) {
		uint32_t lo = rd32(p->regs, IGB_AUXSTMPL(0));
		*aux = stamp(p, lo, rd32(p->regs, IGB_AUXSTMPH(0)));
		causes |= PHC_PIN_AUTT0;
	}
	return causes;
}

#define IGB_PHC_PINS \
	.pps_level = igb_pps_level, .pps_target = igb_pps_target, .extts_set = igb_extts_set, \
	.pins_poll = igb_pins_poll

#define IGB_PHC_COMMON \
	.read_systim = igb_read_systim, .set_freq = igb_set_freq, .hwtstamp_set = igb_hwtstamp_set, \
	.tx_latched = igb_tx_latched, .rx_latched = igb_rx_latched, .tx_read = igb_tx_read, \
	.rx_read = igb_rx_read, .tx_desc_done = igb_tx_desc_done, .udp_rx = 1

/* By enum igb_mac. max_adj: the 82576's INCVALUE may not exceed 24 bits,
 * the later parts' correction 31 bits (Linux's limits). */
static const struct phc_ops igb_phc_ops[] = {
	[IGB_82576] = { .name = "82576 SYSTIM", .max_adj = 999999881, .shift = IGB_82576_TSYNC_SHIFT,
			.bits = 64, IGB_PHC_COMMON,
			.rx_filters = "\tnone\n\tptpv1-l4-sync\n\tptpv1-l4-delay-req\n\tptpv2-event\n" },
	[IGB_I350] = { .name = "I350 SYSTIM", .max_adj = 62499999, .shift = 0, .bits = 40, IGB_PHC_COMMON, IGB_PHC_PINS,
		       .rx_buf_cycles = count_plain, .rx_each_event = 1, .rx_filters = "\tnone\n\tptpv2-event\n" },
	[IGB_I210] = { .name = "I210 SYSTIM", .max_adj = 62499999, .shift = 0, .bits = 64, IGB_PHC_COMMON, IGB_PHC_PINS,
		       .rx_buf_cycles = systim_sec_ns, .rx_each_event = 1, .rx_filters = "\tnone\n\tptpv2-event\n" },
	[IGB_I211] = { .name = "I211 SYSTIM", .max_adj = 62499999, .shift = 0, .bits = 64, IGB_PHC_COMMON, IGB_PHC_PINS,
		       .rx_buf_cycles = systim_sec_ns, .rx_each_event = 1, .rx_filters = "\tnone\n\tptpv2-event\n" },
};

void igb_ptp_init(struct e1000x_port *p)
{
	if (igb_mac_of(p)->systim_ns)
		clear_flags32(p->regs, IGB_TSAUXC, TSAUXC_DISABLE_SYSTIME);
	phc_register(&p->nic, &igb_phc_ops[igb_part_of(p)->mac]);
}
