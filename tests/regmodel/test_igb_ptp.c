/* igb's IEEE 1588 clock and timestamps against the register model with
 * its time sync block (tests/regmodel/tsync.c): the 82576's fractional
 * count, the I350's 40-bit ns count and the I210's seconds:ns, each read
 * in its latch order, TIMINCA for a frequency adjustment, the RX timestamp
 * in the buffer (I350/I210) and the TX timestamp, converted into the
 * port's clock; the I350/I210 pins (ptp_pps on SDP0, ptp_extts). QEMU
 * emulates only the 82576 (tests/qemu/test_ptp.py): the I350 and I210
 * paths are checked here and nowhere else. */
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "drivers/net/igb/igb.c"
#include "drivers/net/igb/igb_hw.c"
#include "drivers/net/igb/ptp.c"
#include "tests/regmodel/model.h"
#include "tests/regmodel/tsync.h"

/* The kernel's clock for phc.c: a TSC of 1 GHz. */
struct tsc_info tsc = { 1000000000, "model", 1 };
uint64_t tsc_to_ns(uint64_t cycles) { return cycles; }
struct nic *nics[NIC_MAX_PORTS];
int nic_count;
extern struct nic *model_nic;

#define NS_PER_S 1000000000ull

static struct phc *up(enum model_flavour f, uint16_t dev)
{
	memset(phcs, 0, sizeof(phcs));
	model_init(f);
	assert_int_equal(model_probe(&pci_driver_igb, dev), 0);
	struct phc *c = phc_of(model_nic);
	assert_true(phc_is_hw(c));
	return c;
}

/* The clock starts over from count (SYSTIM set by the test). */
static void restart_at(struct phc *c, uint64_t count)
{
	tsync_set(count);
	systim_tc_init(&c->tc, c->ops->shift, c->ops->bits, c->ops->read_systim(c->nic), 0);
}

/* ns the clock advanced over us microseconds of the model's time (plus
 * the register reads of one gettime: a few hundred ns). */
static int64_t advance(struct phc *c, uint64_t us)
{
	int64_t t0 = phc_gettime(c);
	udelay(us);
	return phc_gettime(c) - t0;
}

static void assert_near(int64_t v, int64_t want, int64_t slack)
{
	if (v < want || v > want + slack)
		fail_msg("%ld not in [%ld, %ld]", (long)v, (long)want, (long)(want + slack));
}

static void test_82576_clock(void **st)
{
	(void)st;
	struct phc *c = up(M_82576, 0x10c9);
	assert_string_equal(c->ops->name, "82576 SYSTIM");
	assert_int_equal(model_last_write(0xb608), 0x01800000);	/* INCPERIOD 1, 16 << 19 */
	assert_near(advance(c, 1000), 1000000, 1000);
	phc_adjfreq(c, 1000000);
	assert_near(advance(c, 1000000), 1001000000, 1000);
	assert_int_equal(M.tsync_bad_writes, 0);
}

/* I350: TSAUXC.DisableSystime cleared, SYSTIMR read first, 8 ns per cycle
 * with the signed 2^-32 ns correction, the 40-bit wrap. */
static void test_i350_clock(void **st)
{
	(void)st;
	struct phc *c = up(M_I350, 0x1521);
	assert_string_equal(c->ops->name, "I350 SYSTIM");
	assert_int_equal(model_last_write(0xb640) & (1u << 31), 0);
	assert_int_equal(model_last_write(0xb608), 0);
	int r = model_find_read(0, 0xb6f8);
	assert_true(r >= 0 && model_find_read(r, 0xb600) > r);
	assert_near(advance(c, 1000), 1000000, 1000);
	phc_adjfreq(c, 1000000);
	assert_int_equal(model_last_write(0xb608), 34359738);
	assert_near(advance(c, 1000000), 1001000000, 1000);
	phc_adjfreq(c, -1000000);
	assert_int_equal(model_last_write(0xb608), 0x80000000u | 34359738);
	assert_near(advance(c, 1000000), 999000000, 1000);
	phc_adjfreq(c, 999999881);	/* past the field: clamped to max_adj */
	assert_int_equal(c->ppb, 62499999);
	assert_int_equal(model_last_write(0xb608), 2147483614);
	phc_adjfreq(c, 0);
	restart_at(c, (1ull << 40) - 500000);	/* 0.5 ms before the wrap */
	int64_t t0 = phc_gettime(c);
	udelay(1000);
	int64_t t1 = phc_gettime(c);
	assert_near(t1 - t0, 1000000, 1000);
	phc_settime(c, 5 * (int64_t)NS_PER_S);
	assert_near(phc_gettime(c), 5 * (int64_t)NS_PER_S, 1000);
	assert_int_equal(M.tsync_bad_writes, 0);	/* SYSTIM never written */
}

/* I210: seconds in SYSTIMH, ns in SYSTIML, one count across a second. */
static void test_i210_clock(void **st)
{
	(void)st;
	struct phc *c = up(M_I210, 0x1533);
	assert_string_equal(c->ops->name, "I210 SYSTIM");
	assert_int_equal(model_last_write(0xb640) & (1u << 31), 0);
	restart_at(c, 5 * NS_PER_S + NS_PER_S - 2000);
	assert_near(advance(c, 10), 10000, 1000);	/* into second 6 */
	assert_near(advance(c, 2000000), 2 * (int64_t)NS_PER_S, 1000);
	phc_adjfreq(c, -62499999);
	assert_int_equal(model_last_write(0xb608), 0x80000000u | 2147483614u);
	assert_near(advance(c, 1000000), 937500001, 1000);
	assert_int_equal(M.tsync_bad_writes, 0);
}

/* RX set-up: V2 event messages over L2 and UDP/319, the time in the
 * buffer (I210: RXPBS.CFG_TS_EN); no SPQF source-port check after the
 * 82576. */
static void check_rx_setup(enum model_flavour f)
{
	assert_int_equal(model_last_write(0xb620), 1u << 4 | 5u << 1);
	assert_int_equal(model_last_write(0x5cbc), 1u << 26 | 1u << 30 | 0x88f7);
	uint32_t ftqf = (uint32_t)model_last_write(0x59ec);
	assert_true(ftqf & 1u << 27);		/* 1588 time stamp */
	assert_int_equal(ftqf & 0xff, 17);	/* UDP */
	assert_int_equal(model_last_write(0x5a8c), 0x3f01);	/* IMIR(3): port 319, network order */
	if (f == M_82576) {
		assert_int_equal(model_last_write(0x596c), 0x3f01);
		assert_false(ftqf & 1u << 29);
	} else {
		assert_int_equal(model_last_write(0x596c), -1);
		assert_true(ftqf & 1u << 29);
	}
	if (f == M_I210)
		assert_true(model_last_write(0x2404) & 1u << 31);
	else
		assert_int_equal(model_last_write(0x2404), -1);
}

/* A PTP frame with the time in front (descriptor TSIP) and one without. */
static void rx_in_buffer(enum model_flavour f, uint16_t dev, uint64_t start)
{
	struct phc *c = up(f, dev);
	restart_at(c, start);
	phc_hwtstamp(c, 0, 1, 1);
	check_rx_setup(f);
	struct e1000x_rxq *rq = &to_port(model_nic)->rxq[0];
	assert_int_equal(rq->tsip_bit, 1u << 15);
	int64_t g0 = phc_gettime(c);
	uint64_t raw = tsync_raw();
	memset(rq->bufs[0]->buf, 0, 8);
	memcpy(rq->bufs[0]->buf + 8, &raw, 8);
	memset(rq->bufs[0]->buf + 16, 0xab, 60);
	rq->ring[0].wb.length = 76;
	rq->ring[0].wb.staterr = RXDEXT_DD | RXDEXT_EOP | RXDADV_STAT_TSIP;
	memset(rq->bufs[1]->buf, 0xcd, 60);
	rq->ring[1].wb.length = 60;
	rq->ring[1].wb.staterr = RXDEXT_DD | RXDEXT_EOP;
	struct pkt *pk[4];
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, pk, 4), 2);
	assert_int_equal(pk[0]->len, 60);
	assert_int_equal(pk[0]->data[0], 0xab);
	assert_true(pk[0]->flags & PKT_RX_TSTAMP);
	assert_near((int64_t)pk[0]->tstamp, g0, 1000);
	assert_false(pk[1]->flags & PKT_RX_TSTAMP);
	assert_int_equal(model_nic->q[0].rx_tstamped, 1);	/* the TSIP frame alone */
	assert_true(phc_rx_each_event(c));	/* fwd's TC may go by the bit */
	phc_hwtstamp(c, 0, 1, 0);
	assert_false(phc_rx_each_event(c));	/* UDP not stamped */
	pkt_free(pk[0]);
	pkt_free(pk[1]);
}

static void test_i350_rx_in_buffer(void **st)
{
	(void)st;
	rx_in_buffer(M_I350, 0x1521, (1ull << 40) + 3 * NS_PER_S);	/* bits past the 40 */
}

static void test_i210_rx_in_buffer(void **st)
{
	(void)st;
	rx_in_buffer(M_I210, 0x1533, 3 * NS_PER_S + 12345);
}

static void test_82576_rx_setup(void **st)
{
	(void)st;
	struct phc *c = up(M_82576, 0x10c9);
	phc_hwtstamp(c, 0, 1, 1);
	check_rx_setup(M_82576);
	assert_int_equal(to_port(model_nic)->rxq[0].tsip_bit, 0);
}

/* 82576: an L2 Sync (sequenceId seq) in RX descriptor i with the TS bit. */
static void rx_sync(struct e1000x_rxq *rq, int i, uint16_t seq)
{
	struct ptp_msg m = { .msg_type = PTP_SYNC, .seq = seq,
			     .source = { { 0x52, 0x54, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x09 }, 1 } };
	uint8_t *f = rq->bufs[i]->buf;
	size_t n = ptp_build(f + ptp_frame_hlen(PTP_L2), 200, &m);
	static const uint8_t mac[6] = { 0x52, 0x54, 0, 0, 0, 9 };
	n = ptp_frame_build(f, PTP_L2, mac, 0, PTP_SYNC, n);
	rq->ring[i].wb.length = (uint16_t)n;
	rq->ring[i].wb.staterr = RXDEXT_DD | RXDEXT_EOP | 1u << 16;	/* TS */
}

/* rx_sync, its time and attributes latched in the registers. */
static void rx_latched_sync(struct e1000x_rxq *rq, int i, uint16_t seq, uint32_t satrl, uint32_t satrh)
{
	rx_sync(rq, i, seq);
	assert_int_equal(tsync_rx_latch(satrl, satrh), 1);
}

/* Review 2026-12-02 N8: the RX latch lock-up check (a latch no frame
 * took for a whole housekeeping period) runs where stamps come through the
 * registers (82576), not on the I350/I210, whose frames bring theirs in
 * the buffer (Linux igb_ptp_rx_hang: 82576 only). */
static void rx_lockup(enum model_flavour f, uint16_t dev, int released)
{
	struct phc *c = up(f, dev);
	phc_hwtstamp(c, 0, 1, 0);
	assert_int_equal(tsync_rx_latch(1, 2), 1);
	for (int i = 0; i < 3; i++)
		phc_housekeeping(model_nic);
	assert_int_equal(tsync_rx_valid(), !released);
	assert_int_equal(model_nic->stats[NS_rx_hwtstamp_cleared], released);
	assert_int_equal(model_console_has("RX timestamp latched with no frame for it"), released);
}

static void test_rx_lockup_82576_only(void **st)
{
	(void)st;
	rx_lockup(M_82576, 0x10c9, 1);
	rx_lockup(M_I350, 0x1521, 0);
	rx_lockup(M_I210, 0x1533, 0);
}

/* Review 2026-12-02 N7: the attributes are read before RXSTMPH, whose
 * read releases the latch on silicon (I210 8.15.1-8.15.3): a second Sync
 * latching right at the release leaves the first its stamp and gets its
 * own. */
static void test_82576_rx_release_last(void **st)
{
	(void)st;
	struct phc *c = up(M_82576, 0x10c9);
	phc_hwtstamp(c, 0, 1, 0);
	struct e1000x_rxq *rq = &to_port(model_nic)->rxq[0];
	rx_latched_sync(rq, 0, 0x0102, 0x00feff00u, 0x02010900u);
	rx_sync(rq, 1, 0x0103);
	tsync_rx_latch_at_release(0x00feff00u, 0x03010900u);
	struct pkt *pk[4];
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, pk, 4), 2);
	assert_true(pk[0]->flags & PKT_RX_TSTAMP);
	assert_true(pk[1]->flags & PKT_RX_TSTAMP);
	assert_true(pk[1]->tstamp > pk[0]->tstamp);
	assert_int_equal(model_nic->q[0].rx_tstamped, 2);
	assert_false(phc_rx_each_event(c));	/* a latch: one may be missed */
	assert_int_equal(model_nic->qsw[0][NS_rx_hwtstamp_mismatch], 0);
	assert_false(tsync_rx_valid());
	pkt_free(pk[0]);
	pkt_free(pk[1]);
}

/* The attributes as the datasheet lays them out for sequenceId 0x0102
 * and the source 5254.00ff.fe00.0009-1 (bytes 20-29), as
 * QEMU 10 fills them, and another frame's: only that one is refused
 * (counted rx_hwtstamp_mismatch), its latch released all the same. */
static void test_82576_rx_attr_match(void **st)
{
	(void)st;
	struct phc *c = up(M_82576, 0x10c9);
	phc_hwtstamp(c, 0, 1, 0);
	struct e1000x_rxq *rq = &to_port(model_nic)->rxq[0];
	uint32_t l = 0x00feff00u, h = 0x02010900u;	/* bytes 22-25, 26-27, seq 30-31 */
	uint32_t ql = 0x090000feu, qh = 0x00000100u;	/* QEMU: 24-27, 28-29 (port 1), 32-33 */
	struct pkt *pk[4];
	int64_t g0 = phc_gettime(c);
	rx_latched_sync(rq, 0, 0x0102, l, h);
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, pk, 4), 1);
	assert_true(pk[0]->flags & PKT_RX_TSTAMP);
	assert_near((int64_t)pk[0]->tstamp, g0, 2000);
	assert_false(tsync_rx_valid());
	pkt_free(pk[0]);
	rx_latched_sync(rq, 1, 0x0102, ql, qh);
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, pk, 4), 1);
	assert_true(pk[0]->flags & PKT_RX_TSTAMP);
	pkt_free(pk[0]);
	rx_latched_sync(rq, 2, 0x0103, l, h);		/* the latch is another Sync's */
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, pk, 4), 1);
	assert_false(pk[0]->flags & PKT_RX_TSTAMP);
	assert_false(tsync_rx_valid());
	assert_int_equal(model_nic->qsw[0][NS_rx_hwtstamp_mismatch], 1);
	pkt_free(pk[0]);
	/* Review 2026-12-02 N6: RXSATRL shifted by 2 bytes (the source ID's
	 * layout unverified on silicon), the sequenceId right: stamp kept,
	 * counted */
	rx_latched_sync(rq, 3, 0x0102, 0x090000feu, 0x02010100u);	/* bytes 24-29, seq 30-31 */
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, pk, 4), 1);
	assert_true(pk[0]->flags & PKT_RX_TSTAMP);
	assert_int_equal(model_nic->qsw[0][NS_rx_hwtstamp_mismatch], 1);
	assert_int_equal(model_nic->qsw[0][NS_rx_hwtstamp_source_mismatch], 1);
	pkt_free(pk[0]);
}

/* A frame sent with PKT_TX_TSTAMP: MAC_TSTAMP in its descriptor, the
 * latched TXSTMP converted into the clock. */
static void tx_stamp(enum model_flavour f, uint16_t dev, uint64_t start)
{
	struct phc *c = up(f, dev);
	restart_at(c, start);
	phc_hwtstamp(c, 0, 1, 1);
	struct pkt *p = pkt_alloc_inline(model_nic->pool);
	p->len = 60;
	p->flags = PKT_TX_TSTAMP;
	uint32_t before = phc_tx_seq(c);
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, &p, 1), 1);
	uint32_t seq = phc_tx_seq(c);
	assert_int_equal(seq, before + 1);
	struct e1000x_txq *tq = &to_port(model_nic)->txq[0];
	assert_true(tq->ring[0].d.cmd_type_len & ADVTXD_MAC_TSTAMP);
	int64_t ns = 0, g0 = phc_gettime(c);
	assert_int_equal(phc_tx_tstamp(c, seq, &ns), 0);	/* not sent yet */
	assert_int_equal(tsync_tx(tq->ring, tq->n, 0xe018), 1);
	assert_int_equal(phc_tx_tstamp(c, seq, &ns), 1);
	assert_near(ns, g0, 2000);
	assert_false(tsync_tx_valid());				/* released */
	assert_int_equal(model_nic->qsw[0][NS_tx_hwtstamp_skipped], 0);
}

static void test_82576_tx(void **st)
{
	(void)st;
	tx_stamp(M_82576, 0x10c9, 0);
}

static void test_i350_tx(void **st)
{
	(void)st;
	tx_stamp(M_I350, 0x1521, (1ull << 40) - 100);	/* latched after the wrap */
}

static void test_i210_tx(void **st)
{
	(void)st;
	tx_stamp(M_I210, 0x1533, 7 * NS_PER_S - 100);	/* latched in the next second */
}

/* A stamp that does not come in tx_timestamp_timeout, found by the app's
 * poll (phc_tx_tstamp, maybe on another core than the queue's): counted
 * in the port's counters under the clock's lock, not in the queue's
 * fast-path counters; its late latch is released and counted stale. */
static void test_tx_timeout_and_stale_counters(void **st)
{
	(void)st;
	struct phc *c = up(M_82576, 0x10c9);
	phc_hwtstamp(c, 0, 1, 1);
	struct pkt *p = pkt_alloc_inline(model_nic->pool);
	p->len = 60;
	p->flags = PKT_TX_TSTAMP;
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, &p, 1), 1);
	uint32_t seq = phc_tx_seq(c);
	int64_t ns;
	udelay(11000);	/* past the 10 ms default */
	assert_int_equal(phc_tx_tstamp(c, seq, &ns), -1);
	assert_int_equal(model_nic->stats[NS_tx_hwtstamp_timeouts], 1);
	struct e1000x_txq *tq = &to_port(model_nic)->txq[0];
	assert_int_equal(tsync_tx(tq->ring, tq->n, 0xe018), 1);	/* it goes out late, latches */
	assert_int_equal(phc_tx_tstamp(c, seq, &ns), -1);
	assert_int_equal(model_nic->stats[NS_tx_hwtstamp_stale], 1);
	assert_false(tsync_tx_valid());
	for (int q = 0; q < NIC_MAX_QUEUES; q++)
		assert_int_equal(model_nic->qsw[q][NS_tx_hwtstamp_timeouts] + model_nic->qsw[q][NS_tx_hwtstamp_stale] +
				 model_nic->qsw[q][NS_tx_hwtstamp_skipped], 0);
}

/* The clock and SYSTIM's count (ns) read together, a few hundred ns of
 * register reads apart: an edge's count is clock time through this. */
struct ref {
	int64_t t;
	uint64_t count;
};

static struct ref measure(struct phc *c)
{
	struct ref r = { phc_gettime(c), 0 };
	r.count = tsync_count();
	return r;
}

/* The clock time of SYSTIM count (the I350's wrapping at 40 bits). */
static int64_t at(struct ref r, uint64_t count)
{
	int64_t d = (int64_t)(count - r.count);
	if (M.flav == M_I350)
		d = (int64_t)((count - r.count) << 24) >> 24;
	return r.t + d;
}

/* Poll the pins every 10 ms for ms milliseconds. */
static void poll_for(struct phc *c, int ms)
{
	for (int i = 0; i < ms / 10; i++) {
		udelay(10000);
		phc_pins_poll_port(c);
	}
}

/* Every level change of SDP0 from index from on: rising at a whole
 * second of the clock, falling at a half (within the 1 us slack of the
 * reads in r). Returns the number of changes so far. */
static int check_edges(int from, struct ref r, int want)
{
	const struct tsync_edge *e;
	int n = tsync_edges(&e);
	for (int i = from; i < n && n - from != want; i++)
		print_message("edge %d to %d at %ld ns\n", i, e[i].level, (long)at(r, e[i].count));
	assert_int_equal(n - from, want);
	for (int i = from; i < n; i++) {
		int64_t t = at(r, e[i].count);
		int64_t rem = (t - (e[i].level ? 0 : (int64_t)NS_PER_S / 2)) % (int64_t)NS_PER_S;
		rem += rem < 0 ? (int64_t)NS_PER_S : 0;
		if (rem > 1000 && (int64_t)NS_PER_S - rem > 1000)
			fail_msg("edge %d to %d at %ld.%09ld", i, e[i].level, (long)(t / (int64_t)NS_PER_S),
				 (long)(t % (int64_t)NS_PER_S));
		if (i > 0)
			assert_int_not_equal(e[i].level, e[i - 1].level);
	}
	return n;
}

/* ptp_pps=1: SDP0 an output routed to target time 0 (TSSDP bits 8:6 =
 * 100b, CTRL.SDP0_DIR); its level rising at each whole second of the
 * clock (a software offset over SYSTIM) and falling at each half, re-armed
 * after each toggle, after a step of the clock and a frequency change;
 * a re-arm that comes late skips whole seconds and keeps the phase. */
static void pps(enum model_flavour f, uint16_t dev, uint64_t start)
{
	phc_pps_knob = 1;
	struct phc *c = up(f, dev);
	phc_pins_report(c);
	assert_true(c->pps_on);
	assert_int_equal(model_last_write(0x3c0) & 0x1c7, 0x100);
	assert_true(model_peek(0) & 1u << 22);
	assert_true(model_last_write(0xb640) & 1u << 0);		/* EN_TT0 */
	const struct tsync_edge *e;
	restart_at(c, start);	/* I210: SYSTIM jumps past the first target (1.0): SDP0 goes high */
	int jumped = tsync_edges(&e);
	assert_int_equal(jumped, f == M_I210);
	phc_settime(c, 5 * (int64_t)NS_PER_S + 300000000);	/* a TT0 from the jump dropped */
	assert_int_equal(c->pps_next_ns, (jumped ? 5500 : 6000) * (int64_t)1000000);
	struct ref r = measure(c);
	poll_for(c, 3150);				/* (5.5 down), 6.0 up, 6.5, 7.0 up, 7.5, 8.0 up */
	int n = check_edges(jumped, r, 5 + jumped);
	assert_int_equal(c->pps_edges, 3);
	phc_adjtime(c, 250000000);				/* 8.7: high now, next 9.5 down */
	assert_int_equal(c->pps_next_ns, 9 * (int64_t)NS_PER_S + 500000000);
	phc_adjfreq(c, 1000000);				/* 1000 ppm: SYSTIM runs fast, targets stay */
	r = measure(c);
	poll_for(c, 1500);					/* 9.5, 10.0 up */
	n = check_edges(n, r, 2);
	assert_int_equal(c->pps_edges, 4);
	udelay(1700000);					/* no poll: 10.5 down, then not armed */
	phc_pins_poll_port(c);					/* at 11.9: 11.0 too late, 12.0 armed */
	assert_int_equal(c->pps_late, 1);
	assert_int_equal(c->pps_next_ns, 12 * (int64_t)NS_PER_S);
	poll_for(c, 500);					/* 10.5 down (before), 12.0 up */
	check_edges(n, r, 2);
	assert_int_equal(c->pps_edges, 5);
	assert_int_equal(tsync_tt_past(), 0);
	assert_int_equal(M.tsync_bad_writes, 0);		/* TRGTTIM written disarmed, SYSTIM never */
	assert_true(model_console_has("port0: pins: pps on SDP0, extts off\n"));
	/* A reset the NIC asks for (DRSTA) clears the pins: set again */
	M.icr = 1u << 30;
	M.handlers[model_nic->nqueues](0, M.args[model_nic->nqueues]);
	model_nic->ops->watchdog(model_nic);
	assert_int_equal(model_nic->stats[NS_resets], 1);
	assert_true(model_peek(0) & 1u << 22);
	int rst = model_find_write(0, 0, 1u << 26, 1u << 26);
	assert_true(model_find_write(rst, 0x3c0, 0x1c0, 0x100) > rst);
	assert_true(model_find_write(rst, 0xb640, 1u << 0, 1u << 0) > rst);
	assert_true(c->pps_next_ns > phc_gettime(c));
	n = tsync_edges(&e);
	poll_for(c, 1000);
	check_edges(n, measure(c), 2);
	assert_int_equal(tsync_tt_past(), 0);
	phc_pins_show(c);
	assert_true(model_console_has("port0: pin SDP0 pps output (target time 0): 6 rising edges, "
				      "1 seconds skipped (re-armed late), next toggle at "));
	assert_true(model_console_has("port0: extts input: off (ptp_extts=PIN)\n"));
	phc_pps_knob = 0;
}

static void test_i210_pps(void **st)
{
	(void)st;
	pps(M_I210, 0x1533, 41 * NS_PER_S + 777777777);
}

static void test_i350_pps(void **st)
{
	(void)st;
	pps(M_I350, 0x1521, (1ull << 40) - 2 * NS_PER_S);	/* SYSTIM wraps 40 bits on the way */
}

/* ptp_extts=1: SDP1 an input feeding auxiliary time stamp 0 (TSSDP
 * AUX0_SEL 1 | AUX0_TS_SDP_EN, CTRL.SDP1_DIR clear, TSAUXC.EN_TS0); an
 * edge stamped in the clock's time and counted; a second edge before the
 * stamp is taken is not latched (the hardware holds one); edges on
 * other pins are not stamped; shown as phc_ctl pins prints it. */
static void extts(enum model_flavour f, uint16_t dev)
{
	phc_extts_knob = 1;
	struct phc *c = up(f, dev);
	phc_extts_knob = -1;
	assert_int_equal(model_last_write(0x3c0), 0x5);
	assert_false(model_peek(0) & 1u << 23);
	assert_true(model_last_write(0xb640) & 1u << 8);
	assert_false(c->pps_on);
	phc_settime(c, 100 * (int64_t)NS_PER_S);
	udelay(1234);
	int64_t t = phc_gettime(c);
	assert_int_equal(tsync_sdp_edge(1), 1);
	assert_int_equal(tsync_sdp_edge(1), 0);
	assert_int_equal(tsync_sdp_edge(2), 0);
	udelay(5000);
	phc_pins_poll_port(c);
	assert_int_equal(c->extts_events, 1);
	assert_near(c->extts_last_ns, t, 1000);
	phc_pins_poll_port(c);
	assert_int_equal(c->extts_events, 1);
	udelay(1000000);
	t = phc_gettime(c);
	assert_int_equal(tsync_sdp_edge(1), 1);
	phc_pins_poll_port(c);
	assert_int_equal(c->extts_events, 2);
	assert_near(c->extts_last_ns, t, 1000);
	phc_pins_show(c);
	assert_true(model_console_has("port0: pin SDP0 pps output: off (ptp_pps=1)\n"));
	assert_true(model_console_has("port0: pin SDP1 extts input (auxiliary time stamp 0): 2 events\n"));
	assert_true(model_console_has("port0: extts index 0 at 101.00"));
	assert_int_equal(M.tsync_bad_writes, 0);
}

static void test_i210_extts(void **st)
{
	(void)st;
	extts(M_I210, 0x1533);
}

static void test_i350_extts(void **st)
{
	(void)st;
	extts(M_I350, 0x1521);
}

/* Both pins at once on the I210: SDP0 out, SDP3 in (CTRL_EXT.SDP3_DIR
 * clear); TSICR read once a poll, both causes taken from it. ptp_extts=0
 * with ptp_pps=1 is refused by name, the PPS kept. The 82576 has no
 * pins: both knobs refused by name, no pin register written. */
static void test_pins_together_and_refused(void **st)
{
	(void)st;
	phc_pps_knob = 1;
	phc_extts_knob = 3;
	struct phc *c = up(M_I210, 0x1533);
	phc_pins_report(c);
	assert_int_equal(model_last_write(0x3c0), 0x100 | 0x4 | 0x3);
	assert_false(model_peek(0x18) & 1u << 11);
	assert_true(model_console_has("port0: pins: pps on SDP0, extts on SDP3\n"));
	phc_settime(c, 3 * (int64_t)NS_PER_S + 900000000);	/* 4.0 next */
	udelay(100000);						/* 4.0: toggled */
	assert_int_equal(tsync_sdp_edge(3), 1);
	int from = M.nlog;
	phc_pins_poll_port(c);
	assert_int_equal(c->pps_edges, 1);
	assert_int_equal(c->extts_events, 1);
	int r = model_find_read(from, 0xb66c);
	assert_true(r >= from);
	assert_int_equal(model_find_read(r + 1, 0xb66c), -1);	/* one TSICR read */
	phc_extts_knob = 0;
	phc_pins_report(up(M_I210, 0x1533));
	assert_true(model_console_has("port0: ptp_extts=0 not set: SDP0 is ptp_pps's output (use SDP1-3)\n"));
	assert_int_equal(model_last_write(0x3c0), 0x100);
	c = up(M_82576, 0x10c9);
	phc_pins_report(c);
	phc_pps_knob = 0;
	phc_extts_knob = -1;
	assert_true(model_console_has("port0: ptp_pps/ptp_extts not set: its clock (82576 SYSTIM) has no SDP pins here"));
	assert_false(c->pps_on);
	assert_int_equal(model_last_write(0x3c0), -1);
	phc_pins_show(c);
	assert_true(model_console_has("port0: no pins (82576 SYSTIM clock; SDP pins on the I350, I210 and I211 only)\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_82576_clock),
		cmocka_unit_test(test_i350_clock),
		cmocka_unit_test(test_i210_clock),
		cmocka_unit_test(test_i350_rx_in_buffer),
		cmocka_unit_test(test_i210_rx_in_buffer),
		cmocka_unit_test(test_82576_rx_setup),
		cmocka_unit_test(test_82576_rx_attr_match),
		cmocka_unit_test(test_82576_rx_release_last),
		cmocka_unit_test(test_rx_lockup_82576_only),
		cmocka_unit_test(test_82576_tx),
		cmocka_unit_test(test_i350_tx),
		cmocka_unit_test(test_i210_tx),
		cmocka_unit_test(test_tx_timeout_and_stale_counters),
		cmocka_unit_test(test_i210_pps),
		cmocka_unit_test(test_i350_pps),
		cmocka_unit_test(test_i210_extts),
		cmocka_unit_test(test_i350_extts),
		cmocka_unit_test(test_pins_together_and_refused),
	};
	return cmocka_run_group_tests_name("regmodel igb ptp", tests, NULL, NULL);
}
