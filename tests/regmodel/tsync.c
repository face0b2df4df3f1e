/* The time sync block of the register model; see tsync.h. Offsets and
 * bits from the datasheets (82576 8.16, 82574 10.2.12, I350/I210 time
 * sync registers), not from the driver headers. */
#include "tests/regmodel/tsync.h"
#include "tests/regmodel/model.h"

enum {
	T_SYSTIML = 0xb600, T_SYSTIMH = 0xb604, T_TIMINCA = 0xb608, T_TSYNCTXCTL = 0xb614,
	T_TXSTMPL = 0xb618, T_TXSTMPH = 0xb61c, T_TSYNCRXCTL = 0xb620, T_RXSTMPL = 0xb624,
	T_RXSTMPH = 0xb628, T_RXSATRL = 0xb62c, T_RXSATRH = 0xb630, T_TSAUXC = 0xb640,
	T_SYSTIMR = 0xb6f8, T_TRGTTIML0 = 0xb644, T_TRGTTIMH0 = 0xb648, T_TRGTTIML1 = 0xb64c,
	T_TRGTTIMH1 = 0xb650, T_FREQOUT0 = 0xb654, T_FREQOUT1 = 0xb658, T_AUXSTMPL0 = 0xb65c,
	T_AUXSTMPH0 = 0xb660, T_AUXSTMPL1 = 0xb664, T_AUXSTMPH1 = 0xb668, T_TSICR = 0xb66c,
	T_TSIM = 0xb674, T_TSSDP = 0x3c0,
};
/* TSAUXC, TSICR, TSSDP bits; CTRL's SDP0/1 level and direction, CTRL_EXT's SDP2/3 direction */
#define EN_TT0		(1u << 0)
#define EN_TS0		(1u << 8)
#define AUTT0		(1u << 9)
#define ICR_TT0		(1u << 3)
#define ICR_AUTT0	(1u << 5)
#define AUX0_TS_SDP_EN	(1u << 2)
#define SDP0_EN		(1u << 8)
#define SDP0_DATA	(1u << 18)
#define VALID		(1u << 0)
#define ENABLED		(1u << 4)
#define NS_PER_S	1000000000ull

static struct {
	uint64_t base_vt;	/* the virtual clock at the last re-base */
	uint64_t base;		/* SYSTIM then, as a count */
	uint32_t timinca, tsauxc, txctl, rxctl;
	uint32_t lat_lo, lat_hi;	/* SYSTIML/H as latched */
	uint32_t tx_lo, tx_hi, rx_lo, rx_hi, satrl, satrh;
	int tx_valid, rx_valid;
	uint32_t tx_head;
	int hi_unlatched;	/* 82574: the last SYSTIML read did not latch SYSTIMH */
	int systiml_reads;
	int rx_next;			/* a frame latches at the next release */
	uint32_t next_satrl, next_satrh;
	uint32_t trgttiml0, trgttimh0, other_tt[4], tsicr, tsim, tssdp, aux_lo, aux_hi;
	struct tsync_edge edges[64];	/* SDP0's level changes */
	int nedges, tt_past;
} T;

static int later_part(void)
{
	return M.flav == M_I350 || M.flav == M_I210;
}

/* The X550 (ixgbe_model_x550): SYSTIME in seconds and ns, latched by
 * SYSTIMR, stopped while TSAUXC bit 31 is set (Linux ixgbe_ptp.c). */
static int x550(void)
{
	return M.flav == M_82599 && M.s.x550;
}

/* SYSTIMH:SYSTIML are seconds:ns. */
static int sec_ns(void)
{
	return M.flav == M_I210 || x550();
}

static uint64_t tick_ns(void)
{
	return M.flav == M_82574 && !M.s.qemu_timinca ? 40 : 16;
}

/* 82599/X540: the time sync clock's period in ps by LINKS (up, speed
 * 29:28): 6.4 ns at 10 Gb/s and with no link, 64 ns at 1 Gb/s, 640 ns at
 * 100 Mb/s (Linux ixgbe_ptp.c: the DMA clock follows the link speed). */
static uint64_t cycle_ps(void)
{
	uint32_t links = M.reg[0x42a4 / 4];	/* 82599 8.2.3.22.2 LINKS */
	if (!(links & 1u << 30))
		return 6400;
	return (links >> 28 & 3) == 2 ? 64000 : (links >> 28 & 3) == 1 ? 640000 : 6400;
}

uint64_t tsync_count(void)
{
	uint64_t dt = now_ns() - T.base_vt;
	if (x550()) {
		if (T.tsauxc & (1u << 31))
			return T.base;
		/* 12.5 ns each 12.5 ns period (80 per us), +/- INCVALUE x 2^-32 ns */
		uint64_t corr = (uint64_t)(((unsigned __int128)(dt * 2 / 25) * (T.timinca & 0x7fffffff)) >> 32);
		return T.base + dt + (T.timinca >> 31 ? -corr : corr);
	}
	if (M.flav == M_82599 && M.s.x540 && !T.timinca)
		return T.base;
	if (later_part()) {
		if (T.tsauxc & (1u << 31))
			return T.base;
		/* 8 ns each 8 ns cycle, +/- INCVALUE x 2^-32 ns */
		uint64_t corr = (uint64_t)(((unsigned __int128)(dt / 8) * (T.timinca & 0x7fffffff)) >> 32);
		return T.base + dt + (T.timinca >> 31 ? -corr : corr);
	}
	uint32_t period = T.timinca >> 24, inc = T.timinca & 0xffffff;
	if (!period)
		return T.base;
	if (M.flav == M_82599 && M.s.x540)	/* TIMINCA each cycle, mod 2^64 */
		return T.base + dt * 1000 / cycle_ps() * T.timinca;
	if (M.flav == M_82599)	/* IncValue each IncPeriod cycles */
		return T.base + dt * 1000 / (cycle_ps() * period) * inc;
	if (M.s.qemu_timinca)	/* QEMU scales its clock: no steps */
		return T.base + (uint64_t)((unsigned __int128)dt * inc / (16 * period));
	return T.base + dt / (tick_ns() * period) * inc;	/* INCVALUE at each INCPERIOD */
}

void tsync_to_wrap(uint64_t ns)
{
	uint64_t per = tick_ns() * (T.timinca >> 24), inc = T.timinca & 0xffffff;
	uint64_t left = 0x100000000ull - (uint32_t)tsync_count();
	uint64_t periods = (left + inc - 1) / inc, back = (ns + per - 1) / per;
	model_advance_ns((periods > back ? periods - back : 0) * per);
}

static void rebase(void)
{
	T.base = tsync_count();
	T.base_vt = now_ns();
}

void tsync_clock_change(void)
{
	rebase();
}

void tsync_set(uint64_t count)
{
	T.base = count;
	T.base_vt = now_ns();
}

/* A count in the registers' layout: I210 seconds:ns; I350 40 bits of ns
 * with the reserved upper bits of SYSTIMH not zero (reads may return
 * anything there). */
static void split(uint64_t c, uint32_t *lo, uint32_t *hi)
{
	if (sec_ns()) {
		*lo = (uint32_t)(c % NS_PER_S);
		*hi = (uint32_t)(c / NS_PER_S);
		return;
	}
	*lo = (uint32_t)c;
	*hi = (uint32_t)(c >> 32);
	if (M.flav == M_I350)
		*hi = (*hi & 0xff) | 0x5a000000u;
}

uint64_t tsync_raw(void)
{
	uint32_t lo, hi;
	split(tsync_count(), &lo, &hi);
	return (uint64_t)hi << 32 | lo;
}

/* Target time 0 as a count, and SYSTIM's distance past it (I350: in 40 bits). */
static uint64_t tt0_count(void)
{
	if (M.flav == M_I210)
		return (uint64_t)T.trgttimh0 * NS_PER_S + T.trgttiml0;
	return (uint64_t)(T.trgttimh0 & 0xff) << 32 | T.trgttiml0;
}

static int64_t past_tt0(void)
{
	uint64_t c = tsync_count();
	if (M.flav == M_I210)
		return (int64_t)(c - tt0_count());
	return (int64_t)((c - tt0_count()) << 24) >> 24;
}

/* SDPn is an output (CTRL bits 22/23, CTRL_EXT bits 10/11). */
static int sdp_out(int pin)
{
	return pin < 2 ? (M.reg[0] >> (22 + pin)) & 1 : (M.reg[0x18 / 4] >> (8 + pin)) & 1;
}

/* SYSTIM reached target time 0: SDP0 toggles if it carries it, TSICR.TT0,
 * EN_TT0 cleared (armed again by software). */
static void tt_check(void)
{
	if (!later_part() || !(T.tsauxc & EN_TT0) || past_tt0() < 0)
		return;
	T.tsauxc &= ~EN_TT0;
	T.tsicr |= ICR_TT0;
	if ((T.tssdp & (3u << 6 | SDP0_EN)) != SDP0_EN || !sdp_out(0))
		return;
	M.reg[0] ^= SDP0_DATA;
	if (T.nedges < (int)(sizeof(T.edges) / sizeof(T.edges[0])))
		T.edges[T.nedges++] = (struct tsync_edge){ tt0_count(), (M.reg[0] & SDP0_DATA) != 0 };
}

int tsync_edges(const struct tsync_edge **e)
{
	tt_check();
	*e = T.edges;
	return T.nedges;
}

int tsync_tt_past(void)
{
	return T.tt_past;
}

int tsync_sdp_edge(int pin)
{
	tt_check();
	if (!(T.tssdp & AUX0_TS_SDP_EN) || (int)(T.tssdp & 3) != pin || !(T.tsauxc & EN_TS0) || sdp_out(pin) ||
	    (T.tsauxc & AUTT0))
		return 0;
	split(tsync_count(), &T.aux_lo, &T.aux_hi);
	T.tsauxc |= AUTT0;
	T.tsicr |= ICR_AUTT0;
	return 1;
}

void tsync_reset(void)
{
	T = (typeof(T)){ 0 };
	T.base_vt = now_ns();
	if (later_part() || x550())
		T.tsauxc = 1u << 31;	/* DisableSystime at power-on (X550: assumed, Linux clears it) */
}

int tsync_read(uint32_t reg, uint32_t *v)
{
	tt_check();
	switch (reg) {
	case T_TRGTTIML0:
		*v = T.trgttiml0;
		return 1;
	case T_TRGTTIMH0:
		*v = T.trgttimh0;
		return 1;
	case T_TRGTTIML1:
	case T_TRGTTIMH1:
	case T_FREQOUT0:
	case T_FREQOUT1:
		*v = T.other_tt[(reg - T_TRGTTIML1) / 4];
		return 1;
	case T_AUXSTMPL0:
		*v = T.aux_lo;
		return 1;
	case T_AUXSTMPH0:
		*v = T.aux_hi;
		T.tsauxc &= ~AUTT0;	/* the next edge may latch */
		return 1;
	case T_AUXSTMPL1:
	case T_AUXSTMPH1:
		*v = 0;
		return 1;
	case T_TSICR:
		*v = T.tsicr;
		T.tsicr = 0;	/* clear on read */
		return 1;
	case T_TSIM:
		*v = T.tsim;
		return 1;
	case T_TSSDP:
		*v = T.tssdp;
		return 1;
	case T_SYSTIMR:
		split(tsync_count(), &T.lat_lo, &T.lat_hi);
		*v = 0;
		return 1;
	case T_SYSTIML:
		if (!later_part() && !x550())	/* the lowest register latches; there SYSTIMR is */
			split(tsync_count(), &T.lat_lo, &T.lat_hi);
		if (M.flav == M_82574) {
			T.hi_unlatched = (uint64_t)T.lat_lo + (T.timinca & 0xffffff) > 0xffffffffu;
			if (M.s.systim_garbage && ++T.systiml_reads % M.s.systim_garbage == 0)
				T.lat_hi ^= 1;
		}
		*v = T.lat_lo;
		return 1;
	case T_SYSTIMH:
		if (T.hi_unlatched) {	/* 82574: SYSTIMH as it is now */
			uint32_t lo;
			split(tsync_count(), &lo, &T.lat_hi);
			T.hi_unlatched = 0;
		}
		*v = T.lat_hi;
		return 1;
	case T_TIMINCA:
		*v = T.timinca;
		return 1;
	case T_TSAUXC:
		*v = T.tsauxc;
		return 1;
	case T_TSYNCTXCTL:
		*v = (T.txctl & ~VALID) | (T.tx_valid ? VALID : 0);
		return 1;
	case T_TSYNCRXCTL:
		*v = (T.rxctl & ~VALID) | (T.rx_valid ? VALID : 0);
		return 1;
	case T_TXSTMPL:
		*v = T.tx_lo;
		return 1;
	case T_TXSTMPH:
		*v = T.tx_hi;
		T.tx_valid = 0;
		return 1;
	case T_RXSTMPL:
		*v = T.rx_lo;
		return 1;
	case T_RXSTMPH:
		*v = T.rx_hi;
		T.rx_valid = 0;	/* silicon releases here (QEMU 10 on RXSATRH) */
		if (T.rx_next) {
			T.rx_next = 0;
			tsync_rx_latch(T.next_satrl, T.next_satrh);
		}
		return 1;
	case T_RXSATRL:
		*v = T.satrl;
		return 1;
	case T_RXSATRH:
		*v = T.satrh;
		return 1;
	}
	return 0;
}

int tsync_write(uint32_t reg, uint32_t v)
{
	tt_check();
	switch (reg) {
	case T_TRGTTIML0:
	case T_TRGTTIMH0:
		if (T.tsauxc & EN_TT0)	/* armed: a half-written time could match */
			M.tsync_bad_writes++;
		*(reg == T_TRGTTIML0 ? &T.trgttiml0 : &T.trgttimh0) = v;
		return 1;
	case T_TRGTTIML1:
	case T_TRGTTIMH1:
	case T_FREQOUT0:
	case T_FREQOUT1:
		T.other_tt[(reg - T_TRGTTIML1) / 4] = v;
		return 1;
	case T_TSICR:
		T.tsicr &= ~v;	/* write 1 to clear */
		return 1;
	case T_TSIM:
		T.tsim = v;
		return 1;
	case T_TSSDP:
		T.tssdp = v;
		return 1;
	case T_AUXSTMPL0:
	case T_AUXSTMPH0:
	case T_AUXSTMPL1:
	case T_AUXSTMPH1:
		M.tsync_bad_writes++;
		return 1;
	case T_TIMINCA:
		rebase();
		T.timinca = v;
		return 1;
	case T_TSAUXC:
		rebase();
		if ((v & EN_TT0) && !(T.tsauxc & EN_TT0) && past_tt0() >= 0)
			T.tt_past++;	/* armed at a time already gone */
		T.tsauxc = (v & ~AUTT0) | (T.tsauxc & AUTT0);	/* AUTT0 is the hardware's */
		return 1;
	case T_TSYNCTXCTL:
		T.txctl = v & ~VALID;
		return 1;
	case T_TSYNCRXCTL:
		T.rxctl = v & ~VALID;
		return 1;
	case T_SYSTIML:
	case T_SYSTIMH:
	case T_SYSTIMR:
	case T_TXSTMPL:
	case T_TXSTMPH:
	case T_RXSTMPL:
	case T_RXSTMPH:
	case T_RXSATRL:
	case T_RXSATRH:
		M.tsync_bad_writes++;	/* read-only, or SYSTIM: the driver keeps an offset instead */
		return 1;
	}
	return 0;
}

/* Does the descriptor ask for a timestamp? igb advanced data descriptor
 * (82576 7.2.2.3): DEXT, DTYP 0011, MAC_TSTAMP bit 19 of cmd_type_len.
 * 82574 extended (TCP/IP) data descriptor: DEXT, DTYP 0001, TSTAMP bit 4
 * of the upper dword. Legacy descriptors (DEXT clear) cannot. */
static int wants_stamp(volatile union tx_desc *d)
{
	uint32_t c = d->d.cmd_type_len;
	if (!(c & (1u << 29)))
		return 0;
	if (M.flav == M_82574)
		return ((c >> 20) & 0xf) == 1 && (d->d.status & (1u << 4));
	return ((c >> 20) & 0xf) == 3 && (c & (1u << 19));
}

int tsync_tx(volatile union tx_desc *ring, uint32_t n, uint32_t tdt)
{
	int stamped = 0;
	uint32_t tail = M.reg[tdt / 4];
	for (; T.tx_head != tail; T.tx_head = (T.tx_head + 1) % n) {
		volatile union tx_desc *d = &ring[T.tx_head];
		if (wants_stamp(d) && (T.txctl & ENABLED) && !T.tx_valid) {
			split(tsync_count(), &T.tx_lo, &T.tx_hi);
			T.tx_valid = 1;
			stamped++;
		}
		d->d.status |= 1u;	/* DD */
	}
	return stamped;
}

#define TSIP_UT_EN	(1u << 23)	/* X550 TSYNCRXCTL */
#define TYPE_ALL	(4u << 1)

int tsync_rx_in_buf(uint64_t *raw)
{
	if (!x550() || (T.rxctl & (ENABLED | 7u << 1 | TSIP_UT_EN)) != (ENABLED | TYPE_ALL | TSIP_UT_EN))
		return 0;
	*raw = tsync_raw();
	return 1;
}

int tsync_rx_latch(uint32_t satrl, uint32_t satrh)
{
	if (!(T.rxctl & ENABLED) || T.rx_valid || (x550() && (T.rxctl & TSIP_UT_EN)))
		return 0;
	split(tsync_count(), &T.rx_lo, &T.rx_hi);
	T.satrl = satrl;
	T.satrh = satrh;
	T.rx_valid = 1;
	return 1;
}

void tsync_rx_latch_at_release(uint32_t satrl, uint32_t satrh)
{
	T.rx_next = 1;
	T.next_satrl = satrl;
	T.next_satrh = satrh;
}

int tsync_tx_valid(void)
{
	return T.tx_valid;
}

int tsync_rx_valid(void)
{
	return T.rx_valid;
}
