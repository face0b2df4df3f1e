/*
 * ixgbe: IEEE 1588 clock and timestamps of the 82599 (datasheet 7.9 "Time
 * Sync", registers 8.2.3.26), the X540 and the X550 through the port
 * clock of drivers/net/phc.c.
 *
 * The clock: SYSTIM is a 64-bit count that TIMINCA adds to at every cycle
 * of a clock whose period follows the link speed (6.4 ns at 10 Gb/s and
 * with no link, 64 ns at 1 Gb/s, 640 ns at 100 Mb/s), so the increment
 * does too, as Linux ixgbe_ptp_start_cyclecounter sets it: the period in
 * units of 2^-shift ns, 10 Gb/s 0x66666666 (2^28 units per ns), 1 Gb/s
 * 0x40000000 (2^24), 100 Mb/s 0x50000000 (2^21). The X540 takes that
 * increment whole in TIMINCA (31 bits); the 82599's IncValue has 24 bits,
 * so it takes it shifted right by 7 (0xcccccc, 2^21; 0x800000, 2^17;
 * 0xa00000, 2^14) with IncPeriod 1. The X540's count wraps every 2^36 ns
 * (68.7 s) at 10 Gb/s, the 82599's every 2^43 ns (2.4 hours): phc.c's
 * once-a-second housekeeping carries both across. A link speed change
 * registers the clock again with that speed's increment (phc_register
 * goes on from the time it had). adjfreq scales the increment;
 * settime/adjtime move phc.c's offset, never SYSTIM.
 *
 * The X550 (from Linux ixgbe_ptp.c, its datasheet not at hand): SYSTIME
 * counts seconds (SYSTIMH) and ns (SYSTIML), latched by reading SYSTIMR
 * first (ixgbe_ptp_read_X550), at the same rate at every link speed; it
 * runs once TSAUXC's DISABLE_SYSTIME is cleared (start_cyclecounter).
 * TIMINCA is a correction of its 12.5 ns period (IXGBE_X550_BASE_PERIOD,
 * 12.5 x 2^32): bits 30:0 in 2^-32 ns per period, added, or subtracted
 * with ISGN (bit 31) (ixgbe_ptp_adjfreq_X550); 0 is the nominal rate.
 * The TX latch as the 82599's, its value seconds and ns as SYSTIME's
 * (ixgbe_ptp_convert_to_hwtstamp). RX stamps come in the buffer, not the
 * latch: TSYNCRXCTL EN, TYPE_ALL and TSIP_UT_EN (Linux
 * ixgbe_ptp_set_timestamp_mode: "per-packet timestamping only works if
 * the filter is set to all packets"; MoonGen's X550 code sets the same)
 * make the MAC append SYSTIML then SYSTIMH, 8 bytes little endian, to
 * every frame it receives, counted in the descriptor's length, and set
 * the descriptor's TSIP (bit 15). e1000x/rx.c takes the 8 bytes off the
 * length and hands them to phc_rx_buf_tstamp (Linux
 * ixgbe_ptp_rx_pktstamp; its comment puts SYSTIMH first, its code and
 * MoonGen read the ns first). So every frame carries its own time: no
 * one-deep latch to lose, nothing for the housekeeping to release
 * (phc.c skips the latch check where rx_buf_cycles is set, as Linux
 * clears IXGBE_FLAG_RX_HWTSTAMP_IN_REGISTER). The cost: while RX
 * stamping is on, every frame has TSIP and leaves rx.c's fast path.
 *
 * Timestamps of the 82599 and X540: RX by TSYNCRXCTL type "V2 event
 * messages" (L2 EtherType 0x88F7 through ETQF filter 3 with its 1588
 * bit, and UDP port 319), one latch: RXSTMPL/H keep the first stamped frame's time and take no other
 * until RXSTMPH is read. A frame is stamped when its descriptor's TS bit
 * says so (e1000x/rx.c calls phc_rx_hwtstamp); a stamped frame lost
 * before software (a full ring) leaves the latch set and every later PTP
 * frame unstamped: phc_housekeeping finds it latched twice a second apart
 * with no frame read, releases it and counts rx_hwtstamp_cleared, as
 * Linux ixgbe_ptp_rx_hang does. TX (all three) by the advanced
 * descriptor's MAC_TSTAMP bit, one frame at a time, from TXSTMPL/H.
 */
#include "drivers/net/ixgbe/ixgbe.h"
#include "drivers/net/ixgbe/regs.h"
#include "drivers/net/phc.h"

/* A latched time (SYSTIM, TXSTMP, RXSTMP: low, high) as a count: the
 * X550's seconds and ns made one count of ns. */
static uint64_t stamp(struct e1000x_port *p, uint32_t lo, uint32_t hi)
{
	uint64_t raw = (uint64_t)hi << 32 | lo;
	return ixgbe_mac_of(p) == IXGBE_MAC_X550 ? systim_sec_ns(raw) : raw;
}

/* SYSTIML then SYSTIMH: the low read latches the high half (the X550:
 * SYSTIMR's read latches both). */
static uint64_t ixgbe_read_systim(struct nic *nic)
{
	struct e1000x_port *p = to_port(nic);
	if (ixgbe_mac_of(p) == IXGBE_MAC_X550)
		rd32(p->regs, IXGBE_SYSTIMR);
	uint32_t lo = rd32(p->regs, IXGBE_SYSTIML);
	return stamp(p, lo, rd32(p->regs, IXGBE_SYSTIMH));
}

/* The increment at 10 Gb/s, 1 Gb/s, 100 Mb/s: the X540's TIMINCA, and
 * the 82599's IncValue (Linux's >> 7). */
static const uint32_t incvalue_x540[3] = { 0x66666666, 0x40000000, 0x50000000 };
static const uint32_t incvalue_82599[3] = { 0xcccccc, 0x800000, 0xa00000 };

static int speed_index(const struct nic *nic)
{
	return nic->link_up == 1 && nic->speed == 1000 ? 1 : nic->link_up == 1 && nic->speed == 100 ? 2 : 0;
}

/* X540: base + base x ppb / 1e9, rounded (Linux ixgbe_ptp_adjfreq
 * truncates); within 31 bits for |ppb| up to max_adj. */
static void ixgbe_set_freq_x540(struct nic *nic, int64_t ppb)
{
	int64_t base = incvalue_x540[speed_index(nic)], d = base * ppb;
	d = (d + (d < 0 ? -500000000 : 500000000)) / 1000000000;
	wr32(to_port(nic)->regs, IXGBE_TIMINCA, (uint32_t)(base + d));
}

/* X550: a correction of its 12.5 ns period (hwtstamp.h timinca_isgn),
 * rounded (Linux truncates); max_adj keeps it within bits 30:0
 * (30,000,000 ppb: 0x60000000). */
static void ixgbe_set_freq_x550(struct nic *nic, int64_t ppb)
{
	wr32(to_port(nic)->regs, IXGBE_TIMINCA, timinca_isgn(ppb, 25ull << 31));
}

static void ixgbe_set_freq(struct nic *nic, int64_t ppb)
{
	wr32(to_port(nic)->regs, IXGBE_TIMINCA,
	     1u << IXGBE_TIMINCA_INCPER_SHIFT | timinca_incvalue(incvalue_82599[speed_index(nic)], ppb));
}

/* Whatever the latches hold, released (RXSTMPH, TXSTMPH last). */
static void release_latches(struct e1000x_port *p)
{
	rd32(p->regs, IXGBE_RXSTMPL);
	rd32(p->regs, IXGBE_RXSTMPH);
	rd32(p->regs, IXGBE_TXSTMPL);
	rd32(p->regs, IXGBE_TXSTMPH);
}

/* 7.9.2 set-up (Linux ixgbe_ptp_set_timestamp_mode for V2 events; the
 * X550 every frame, in its buffer): the type stamps L2 and UDP port 319
 * alike, so udp changes nothing; rx_msg only says on (>= 0) or off. */
static void ixgbe_hwtstamp_set(struct nic *nic, int rx_msg, int tx, int udp)
{
	(void)udp;
	struct e1000x_port *p = to_port(nic);
	uint32_t txc = rd32(p->regs, IXGBE_TSYNCTXCTL) & ~IXGBE_TSYNC_EN;
	wr32(p->regs, IXGBE_TSYNCTXCTL, txc | (tx ? IXGBE_TSYNC_EN : 0));
	uint32_t rxc = rd32(p->regs, IXGBE_TSYNCRXCTL) &
		       ~(IXGBE_TSYNC_EN | IXGBE_TSYNCRXCTL_TYPE_MASK | IXGBE_TSYNCRXCTL_TSIP_UT_EN);
	if (rx_msg >= 0 && ixgbe_mac_of(p) == IXGBE_MAC_X550) {
		rxc |= IXGBE_TSYNC_EN | IXGBE_TSYNCRXCTL_TYPE_ALL | IXGBE_TSYNCRXCTL_TSIP_UT_EN;
		wr32(p->regs, IXGBE_ETQF(3), IXGBE_ETQF_FILTER_EN | IXGBE_ETQF_1588 | 0x88f7);
	} else if (rx_msg >= 0) {
		rxc |= IXGBE_TSYNC_EN | IXGBE_TSYNCRXCTL_TYPE_EVENT_V2;
		wr32(p->regs, IXGBE_ETQF(3), IXGBE_ETQF_FILTER_EN | IXGBE_ETQF_1588 | 0x88f7);
	} else {
		wr32(p->regs, IXGBE_ETQF(3), 0);
	}
	wr32(p->regs, IXGBE_TSYNCRXCTL, rxc);
	release_latches(p);
}

static int ixgbe_tx_latched(struct nic *nic)
{
	return rd32(to_port(nic)->regs, IXGBE_TSYNCTXCTL) & IXGBE_TSYNC_VALID;
}

static int ixgbe_rx_latched(struct nic *nic)
{
	return rd32(to_port(nic)->regs, IXGBE_TSYNCRXCTL) & IXGBE_TSYNC_VALID;
}

/* TXSTMPL then TXSTMPH, whose read releases the latch. */
static uint64_t ixgbe_tx_read(struct nic *nic)
{
	struct e1000x_port *p = to_port(nic);
	uint32_t lo = rd32(p->regs, IXGBE_TXSTMPL);
	return stamp(p, lo, rd32(p->regs, IXGBE_TXSTMPH));
}

/* RXSTMPL, the attributes (source and sequence ID), then RXSTMPH, whose
 * read releases the latch: a frame latched meanwhile cannot change what
 * was read. */
static uint64_t ixgbe_rx_read(struct nic *nic, uint32_t attr[2])
{
	struct e1000x_port *p = to_port(nic);
	uint32_t lo = rd32(p->regs, IXGBE_RXSTMPL);
	attr[0] = rd32(p->regs, IXGBE_RXSATRL);
	attr[1] = rd32(p->regs, IXGBE_RXSATRH);
	return stamp(p, lo, rd32(p->regs, IXGBE_RXSTMPH));
}

static int ixgbe_tx_desc_done(struct nic *nic, int q, uint32_t desc)
{
	return e1000x_tx_desc_done(&to_port(nic)->txq[q], desc);
}

/* max_adj: the increment stays within the field at 10 Gb/s (82599 24
 * bits: 0xcccccc x 1.25; X540 31 bits: 0x66666666 x 1.25); the X550's
 * Linux's. */
#define IXGBE_PHC_FIELDS(n, adj, sh, freq) .name = n, .max_adj = adj, .shift = sh, .bits = 64, \
	.read_systim = ixgbe_read_systim, .set_freq = freq, .hwtstamp_set = ixgbe_hwtstamp_set, \
	.tx_latched = ixgbe_tx_latched, .rx_latched = ixgbe_rx_latched, .tx_read = ixgbe_tx_read, \
	.rx_read = ixgbe_rx_read, .tx_desc_done = ixgbe_tx_desc_done, .udp_rx = 1
#define IXGBE_PHC(n, adj, sh, freq) { IXGBE_PHC_FIELDS(n, adj, sh, freq), \
	.rx_filters = "\tnone\n\tptpv2-event\n" }

#define IXGBE_PHC_1G(n, sh, freq) IXGBE_PHC(n, 249999999, sh, freq)

static const struct phc_ops ixgbe_phc_ops[2][3] = {
	[IXGBE_MAC_82599] = {
		IXGBE_PHC_1G("82599 SYSTIM (10 Gb/s increment)", 21, ixgbe_set_freq),
		IXGBE_PHC_1G("82599 SYSTIM (1 Gb/s increment)", 17, ixgbe_set_freq),
		IXGBE_PHC_1G("82599 SYSTIM (100 Mb/s increment)", 14, ixgbe_set_freq),
	},
	[IXGBE_MAC_X540] = {
		IXGBE_PHC_1G("X540 SYSTIM (10 Gb/s increment)", 28, ixgbe_set_freq_x540),
		IXGBE_PHC_1G("X540 SYSTIM (1 Gb/s increment)", 24, ixgbe_set_freq_x540),
		IXGBE_PHC_1G("X540 SYSTIM (100 Mb/s increment)", 21, ixgbe_set_freq_x540),
	},
};

static const struct phc_ops ixgbe_phc_x550 = {
	IXGBE_PHC_FIELDS("X550 SYSTIME (seconds and ns)", 30000000, 0, ixgbe_set_freq_x550),
	.rx_buf_cycles = systim_sec_ns, .rx_filters = "\tnone\n\tall\n",
};

/* The clock of the port's MAC at its link speed (the X550's at any). */
static const struct phc_ops *speed_ops(struct e1000x_port *p)
{
	if (ixgbe_mac_of(p) == IXGBE_MAC_X550)
		return &ixgbe_phc_x550;
	return &ixgbe_phc_ops[ixgbe_mac_of(p)][speed_index(&p->nic)];
}

void ixgbe_ptp_init(struct e1000x_port *p)
{
	if (ixgbe_mac_of(p) == IXGBE_MAC_X550)
		clear_flags32(p->regs, IXGBE_TSAUXC, IXGBE_TSAUXC_DISABLE_SYSTIME);
	phc_register(&p->nic, speed_ops(p));
}

void ixgbe_ptp_link(struct e1000x_port *p)
{
	if (phc_of(&p->nic)->ops != speed_ops(p))
		ixgbe_ptp_init(p);
}
