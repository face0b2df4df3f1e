/*
 * e1000e 82574: IEEE 1588 clock and timestamps (82574 datasheet rev 3.4,
 * 7.8 "Time SYNC", registers 10.2.12; Linux e1000e ptp.c and netdev.c).
 *
 * The clock: the 82574 runs SYSTIM from a 25 MHz clock: every INCPERIOD
 * ticks of 40 ns it adds INCVALUE. INCPERIOD 1 and INCVALUE 40 << 18
 * (Linux's choice for the 82574/82583) count 2^18 units per ns: adjfreq
 * steps of 1/(40 << 18) = 0.095 ppb, a wrap after 2^46 ns (19.5 hours).
 * settime/adjtime are a software offset, as for the 82576 (igb/ptp.c).
 *
 * Timestamps: RX by EtherType (RXCFGL 0x88F7) and UDP port (RXUDP 319
 * when UDP is asked for, else 0), TSYNCRXCTL "V2 event messages", the extended descriptor's
 * TST status bit, RXSTMPL, RXSATRL/H, then RXSTMPH. TX needs the extended data
 * descriptor with its TSTAMP command (7.8.2): the ring sends a frame that
 * asks for a stamp in one (e1000x/tx.c), every other frame in a legacy
 * descriptor as before; one at a time, TSYNCTXCTL.VALID polled, TXSTMPL/H
 * read (the high read releases). That path has run only against the
 * register model (tests/regmodel/test_e1000e_ptp.c).
 *
 * QEMU 10's e1000e has the registers but stamps nothing and scales TIMINCA
 * as igb does (INCVALUE per 16 ns, docs/qemu-nics.md C.1/C.2): SYSTIM then runs
 * 2.5 times fast. The rate check at init catches that and keeps the port
 * on the software clock.
 */
#include <stdio.h>
#include "drivers/net/e1000e/ptp.h"
#include "drivers/net/phc.h"
#include "kernel/time.h"
#include "net/ipv4.h"
#include "net/bytes.h"
#include "net/ptp.h"

/* 10.2.12: the time sync block (the same offsets as the 82576's) */
#define E1000E_TSYNCTXCTL	0x0b614	/* TX Time Sync Control - RW */
#define E1000E_TXSTMPL		0x0b618	/* TX Timestamp Value Low - RO */
#define E1000E_TXSTMPH		0x0b61c	/* TX Timestamp Value High - RO (read releases) */
#define E1000E_TSYNCRXCTL	0x0b620	/* RX Time Sync Control - RW */
#define E1000E_RXSTMPL		0x0b624	/* RX Timestamp Low - RO */
#define E1000E_RXSTMPH		0x0b628	/* RX Timestamp High - RO (read releases) */
#define E1000E_RXSATRL		0x0b62c	/* RX Timestamp Attributes Low - RO */
#define E1000E_RXSATRH		0x0b630	/* RX Timestamp Attributes High - RO */
#define E1000E_RXCFGL		0x0b634	/* RX EtherType and message type - RW */
#define E1000E_RXUDP		0x0b638	/* RX UDP port - RW */
#define E1000E_SYSTIML		0x0b600	/* System Time Low - RO */
#define E1000E_SYSTIMH		0x0b604	/* System Time High - RO */
#define E1000E_TIMINCA		0x0b608	/* Increment Attributes - RW */
#define TSYNC_VALID		(1u << 0)
#define TSYNC_ENABLED		(1u << 4)
#define TSYNCRXCTL_TYPE_MASK	(7u << 1)
#define TSYNCRXCTL_TYPE_EVENT_V2 (5u << 1)
#define TIMINCA_PERIOD_25MHZ	(1u << 24)
#define TIMINCA_INCVALUE_MASK	0xffffffu
#define SYSTIM_EPSILON		(1ull << 35)	/* Linux E1000_82574_SYSTIM_EPSILON */
#define SYSTIM_REREADS		50		/* Linux E1000_MAX_82574_SYSTIM_REREADS */
#define INCVALUE_25MHZ		(40u << 18)
#define SHIFT_25MHZ		18
#define RATE_CHECK_US		1000

/* SYSTIML then SYSTIMH. The 82574 does not latch SYSTIMH reliably on the
 * SYSTIML read (Linux e1000e_read_systim: "SYSTIMH latching upon SYSTIML
 * read does not work well"): when SYSTIML was within INCVALUE_MASK of its
 * wrap, it is read again and, if it wrapped, SYSTIMH too. */
static uint64_t read_systim_once(volatile uint8_t *r)
{
	uint32_t lo = rd32(r, E1000E_SYSTIML), hi = rd32(r, E1000E_SYSTIMH);
	if (lo >= 0xffffffffu - TIMINCA_INCVALUE_MASK) {
		uint32_t lo2 = rd32(r, E1000E_SYSTIML);
		if (lo2 < lo) {
			hi = rd32(r, E1000E_SYSTIMH);
			lo = lo2;
		}
	}
	return (uint64_t)hi << 32 | lo;
}

/* The 82574 also returns bad bits now and then (Linux
 * e1000e_sanitize_systim, FLAG2_CHECK_SYSTIM_OVERFLOW of the 82574/82583):
 * read again until a reading is less than SYSTIM_EPSILON past the one
 * before and by a whole number of INCVALUEs, at most SYSTIM_REREADS times.
 * Silicon review 2026-12-02 N1. */
static uint64_t read_systim(struct nic *nic)
{
	volatile uint8_t *r = to_port(nic)->regs;
	uint64_t t = read_systim_once(r);
	uint32_t inc = rd32(r, E1000E_TIMINCA) & TIMINCA_INCVALUE_MASK;
	for (int i = 0; i < SYSTIM_REREADS; i++) {
		uint64_t next = read_systim_once(r), d = next - t;
		t = next;
		if (d < SYSTIM_EPSILON && (inc ? d % inc == 0 : d == 0))
			break;
	}
	return t;
}

static void set_freq(struct nic *nic, int64_t ppb)
{
	wr32(to_port(nic)->regs, E1000E_TIMINCA, TIMINCA_PERIOD_25MHZ | timinca_incvalue(INCVALUE_25MHZ, ppb));
}

/* 7.8.1: RX stamping of V2 event messages over L2 and UDP/319 (rx_msg is
 * the message type RXCFGL asks for first); 7.8.2: TX stamping allowed. */
static void hwtstamp_set(struct nic *nic, int rx_msg, int tx, int udp)
{
	volatile uint8_t *r = to_port(nic)->regs;
	uint32_t txc = rd32(r, E1000E_TSYNCTXCTL) & ~TSYNC_ENABLED;
	wr32(r, E1000E_TSYNCTXCTL, txc | (tx ? TSYNC_ENABLED : 0));
	uint32_t rxc = rd32(r, E1000E_TSYNCRXCTL) & ~(TSYNC_ENABLED | TSYNCRXCTL_TYPE_MASK);
	/* the UDP port in network order, 0 for L2 only (Linux
	 * e1000e_config_hwtstamp; silicon review 2026-12-02 N9) */
	wr32(r, E1000E_RXUDP, udp ? hton16(PTP_EVENT_PORT) : 0);
	if (rx_msg >= 0) {
		/* EtherType in 15:0, the V2 messageId in 31:24 (Linux's RXMTRL) */
		wr32(r, E1000E_RXCFGL, PTP_ETHERTYPE | (uint32_t)rx_msg << 24);
		rxc |= TSYNC_ENABLED | TSYNCRXCTL_TYPE_EVENT_V2;
	}
	wr32(r, E1000E_TSYNCRXCTL, rxc);
	rd32(r, E1000E_RXSTMPH);
	rd32(r, E1000E_RXSATRH);
	rd32(r, E1000E_TXSTMPL);
	rd32(r, E1000E_TXSTMPH);
}

static int rx_latched(struct nic *nic)
{
	return rd32(to_port(nic)->regs, E1000E_TSYNCRXCTL) & TSYNC_VALID;
}

/* RXSTMPL, the attributes, then RXSTMPH, whose read releases the latch
 * (as on igb, igb/ptp.c igb_rx_read; silicon review 2026-12-02 N7). */
static uint64_t rx_read(struct nic *nic, uint32_t attr[2])
{
	volatile uint8_t *r = to_port(nic)->regs;
	uint64_t lo = rd32(r, E1000E_RXSTMPL);
	attr[0] = rd32(r, E1000E_RXSATRL);
	attr[1] = rd32(r, E1000E_RXSATRH);
	return (uint64_t)rd32(r, E1000E_RXSTMPH) << 32 | lo;
}

static int tx_latched(struct nic *nic)
{
	return rd32(to_port(nic)->regs, E1000E_TSYNCTXCTL) & TSYNC_VALID;
}

/* TXSTMPL then TXSTMPH, whose read releases the latch. */
static uint64_t tx_read(struct nic *nic)
{
	volatile uint8_t *r = to_port(nic)->regs;
	uint64_t lo = rd32(r, E1000E_TXSTMPL);
	return (uint64_t)rd32(r, E1000E_TXSTMPH) << 32 | lo;
}

static int tx_desc_done(struct nic *nic, int q, uint32_t desc)
{
	return e1000x_tx_desc_done(&to_port(nic)->txq[q], desc);
}

static const struct phc_ops e1000e_phc_ops = {
	.name = "82574 SYSTIM",
	.max_adj = 600000000,	/* Linux e1000e's limit for the 82574 */
	.shift = SHIFT_25MHZ,
	.bits = 64,
	.read_systim = read_systim,
	.set_freq = set_freq,
	.hwtstamp_set = hwtstamp_set,
	.tx_latched = tx_latched,
	.rx_latched = rx_latched,
	.tx_read = tx_read,
	.rx_read = rx_read,
	.tx_desc_done = tx_desc_done,
	.udp_rx = 1,
	.rx_filters = "\tnone\n\tptpv2-event\n",
};

/* SYSTIM's rate against the TSC over RATE_CHECK_US, in parts per thousand
 * of the nominal 2^18 units per ns. The TSC is read after each SYSTIM
 * reading: read_systim's re-reads take a varying time, its value is the
 * last one. */
static int64_t rate_permille(struct nic *nic)
{
	uint64_t s0 = read_systim(nic), t0 = now_ns();
	udelay(RATE_CHECK_US);
	uint64_t s1 = read_systim(nic), ns = now_ns() - t0;
	return ns ? (int64_t)(((s1 - s0) >> SHIFT_25MHZ) * 1000 / ns) : 0;
}

void e1000e_ptp_init(struct e1000x_port *p)
{
	struct nic *nic = &p->nic;
	if (phc_is_hw(phc_of(nic))) {
		phc_register(nic, &e1000e_phc_ops);
		return;
	}
	set_freq(nic, 0);
	int64_t r = rate_permille(nic);
	if (r < 990 || r > 1010) {
		static uint32_t said;	/* ports told: once, not at every reset */
		if (!(said >> nic->port & 1))
			printf("%s: 82574 SYSTIM counts %ld.%03ld times the rate TIMINCA sets: not used as the "
			       "port's clock (QEMU's e1000e scales TIMINCA by 16 ns); software clock\n",
			       nic->name, r / 1000, r % 1000);
		said |= 1u << nic->port;
		wr32(p->regs, E1000E_TIMINCA, 0);
		return;
	}
	phc_register(nic, &e1000e_phc_ops);
}
