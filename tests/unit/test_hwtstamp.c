/*
 * Unit tests for drivers/net/hwtstamp.c against a small model of the
 * 82576 timestamp registers (7.9.3): TSYNCTXCTL.VALID latches TXSTMP when a
 * frame sent with the request bit goes out, later requests are ignored
 * while VALID is set, and reading TXSTMPH releases it; the RX latch holds
 * until read. The driver side below does what drivers/net/phc.c does with
 * each action.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "drivers/net/hwtstamp.h"

#define MS 1000000ull

/* The register model: frames queued for transmission, each with or
 * without the timestamp request, sent when the test says so. */
struct model {
	int valid;		/* TSYNCTXCTL.VALID */
	uint64_t txstmp;	/* TXSTMPL/H */
	int queued_req[8];	/* frames not yet sent: request bit */
	uint64_t queued_id[8];
	int nq;
	int rx_valid;		/* TSYNCRXCTL.VALID */
};

static void model_queue(struct model *m, int req, uint64_t id)
{
	m->queued_req[m->nq] = req;
	m->queued_id[m->nq++] = id;
}

/* The oldest queued frame goes out: stamped with its id as the time. */
static void model_send_one(struct model *m)
{
	assert_true(m->nq > 0);
	if (m->queued_req[0] && !m->valid) {
		m->valid = 1;
		m->txstmp = m->queued_id[0];
	}
	for (int i = 1; i < m->nq; i++) {
		m->queued_req[i - 1] = m->queued_req[i];
		m->queued_id[i - 1] = m->queued_id[i];
	}
	m->nq--;
}

static uint64_t model_read_txstmp(struct model *m)
{
	m->valid = 0;	/* the TXSTMPH read releases the latch */
	return m->txstmp;
}

/* The driver: tx_burst with PKT_TX_TSTAMP, then polls. */
static int drv_send(struct hwts_tx *t, struct model *m, uint64_t now, uint64_t id)
{
	int clear;
	enum hwts_action a = hwts_tx_request(t, now, m->valid, &clear);
	if (clear)
		model_read_txstmp(m);
	model_queue(m, a == HWTS_GRANT, id);
	return a == HWTS_GRANT;
}

static void drv_poll(struct hwts_tx *t, struct model *m, uint64_t now)
{
	int done = m->nq == 0;	/* the granted frame is the oldest queued one in these tests */
	switch (hwts_tx_poll(t, now, m->valid, done)) {
	case HWTS_READ:
		hwts_tx_done(t, model_read_txstmp(m));
		break;
	case HWTS_CLEAR:
		model_read_txstmp(m);
		break;
	default:
		break;
	}
}

static struct hwts_tx new_slot(void)
{
	struct hwts_tx t = { 0 };
	t.timeout_ns = 10 * MS;
	return t;
}

static void test_tx_normal(void **state)
{
	(void)state;
	struct model m = { 0 };
	struct hwts_tx t = new_slot();
	uint64_t cyc;
	assert_true(drv_send(&t, &m, 0, 111));
	uint32_t seq = t.seq;
	drv_poll(&t, &m, 1 * MS);
	assert_int_equal(hwts_tx_take(&t, seq, &cyc), 0);	/* not sent yet */
	assert_int_equal(hwts_tx_peek(&t, seq, &cyc), 0);
	model_send_one(&m);
	drv_poll(&t, &m, 2 * MS);
	assert_int_equal(hwts_tx_take(&t, seq, &cyc), 1);
	assert_int_equal(cyc, 111);
	assert_int_equal(m.valid, 0);
	assert_int_equal(hwts_tx_take(&t, seq, &cyc), 0);	/* taken once */
	cyc = 0;
	assert_int_equal(hwts_tx_peek(&t, seq, &cyc), 1);	/* a capture still reads it */
	assert_int_equal(cyc, 111);
	assert_int_equal(hwts_tx_peek(&t, seq + HWTS_TX_READY, &cyc), 0);
	assert_int_equal(t.skipped + t.timeouts + t.stale, 0);
}

/* A second request while one is in flight goes out without the bit. */
static void test_tx_skipped(void **state)
{
	(void)state;
	struct model m = { 0 };
	struct hwts_tx t = new_slot();
	uint64_t cyc;
	assert_true(drv_send(&t, &m, 0, 1));
	uint32_t seq = t.seq;
	assert_false(drv_send(&t, &m, 1, 2));
	assert_int_equal(t.skipped, 1);
	model_send_one(&m);
	model_send_one(&m);
	drv_poll(&t, &m, 2);
	assert_int_equal(hwts_tx_take(&t, seq, &cyc), 1);
	assert_int_equal(cyc, 1);
}

/* The next stamped frame goes out before the app takes the last one's
 * stamp (a PTP master's Pdelay_Resp after its Sync): both stamps are kept
 * and each is taken by its own request, in either order. */
static void test_tx_two_before_take(void **state)
{
	(void)state;
	struct model m = { 0 };
	struct hwts_tx t = new_slot();
	uint64_t cyc;
	assert_true(drv_send(&t, &m, 0, 21));
	uint32_t first = t.seq;
	model_send_one(&m);
	drv_poll(&t, &m, 1 * MS);
	assert_true(drv_send(&t, &m, 2 * MS, 22));
	uint32_t second = t.seq;
	model_send_one(&m);
	drv_poll(&t, &m, 3 * MS);
	assert_int_equal(hwts_tx_take(&t, second, &cyc), 1);
	assert_int_equal(cyc, 22);
	assert_int_equal(hwts_tx_take(&t, first, &cyc), 1);
	assert_int_equal(cyc, 21);
	assert_int_equal(t.skipped + t.timeouts + t.stale, 0);
}

/* The stamp does not come in time: counted, the slot waits for the frame
 * (it may still latch); its late stamp is released, never handed on. */
static void test_tx_timeout_then_stale(void **state)
{
	(void)state;
	struct model m = { 0 };
	struct hwts_tx t = new_slot();
	uint64_t cyc;
	assert_true(drv_send(&t, &m, 0, 1));
	uint32_t old = t.seq;
	drv_poll(&t, &m, 11 * MS);
	assert_int_equal(t.timeouts, 1);
	assert_int_equal(t.state, HWTS_TX_ORPHAN);
	assert_false(drv_send(&t, &m, 12 * MS, 2));	/* the old frame has not gone out */
	assert_int_equal(t.skipped, 1);
	model_send_one(&m);	/* the old frame goes out late: it latches 1 */
	drv_poll(&t, &m, 13 * MS);
	assert_int_equal(t.stale, 1);
	assert_int_equal(m.valid, 0);
	assert_int_equal(hwts_tx_take(&t, old, &cyc), 0);
	model_send_one(&m);	/* the skipped frame: no request bit */
	assert_true(drv_send(&t, &m, 14 * MS, 3));
	uint32_t seq = t.seq;
	model_send_one(&m);
	drv_poll(&t, &m, 15 * MS);
	assert_int_equal(hwts_tx_take(&t, seq, &cyc), 1);
	assert_int_equal(cyc, 3);
}

/* Timed out after its frame went out unstamped; a latch that shows up
 * later anyway is found at the next request and released first. */
static void test_tx_stale_at_request(void **state)
{
	(void)state;
	struct model m = { 0 };
	struct hwts_tx t = new_slot();
	uint64_t cyc;
	assert_true(drv_send(&t, &m, 0, 1));
	m.queued_req[0] = 0;	/* the hardware lost the request */
	model_send_one(&m);
	drv_poll(&t, &m, 11 * MS);
	assert_int_equal(t.timeouts, 1);
	assert_int_equal(t.state, HWTS_TX_IDLE);
	m.valid = 1;		/* a latch nobody asked for */
	m.txstmp = 99;
	assert_true(drv_send(&t, &m, 12 * MS, 4));
	assert_int_equal(t.stale, 1);
	uint32_t seq = t.seq;
	model_send_one(&m);
	drv_poll(&t, &m, 13 * MS);
	assert_int_equal(hwts_tx_take(&t, seq, &cyc), 1);
	assert_int_equal(cyc, 4);
}

/* RX: latched at two checks in a row with no stamped frame in between. */
static void test_rx_lockup(void **state)
{
	(void)state;
	struct hwts_rx r = { 0 };
	assert_int_equal(hwts_rx_check(&r, 1), 0);	/* first sight */
	r.frames++;					/* a stamped frame was read meanwhile */
	assert_int_equal(hwts_rx_check(&r, 1), 0);
	assert_int_equal(hwts_rx_check(&r, 1), 1);	/* stuck */
	assert_int_equal(r.cleared, 1);
	assert_int_equal(hwts_rx_check(&r, 1), 0);	/* a new latch starts over */
	assert_int_equal(hwts_rx_check(&r, 0), 0);
	assert_int_equal(hwts_rx_check(&r, 1), 0);
	assert_int_equal(r.cleared, 1);
}

static void test_systim_counter(void **state)
{
	(void)state;
	struct systim_tc tc;
	uint64_t start = ~0ull - (5ull << 19) + 1;	/* 5 ns before the 64-bit wrap */
	systim_tc_init(&tc, 19, 64, start, 1000);
	assert_int_equal(systim_tc_read(&tc, start + (3ull << 19)), 1003);
	assert_int_equal(systim_tc_read(&tc, start + (10ull << 19)), 1010);	/* across the wrap */
	assert_int_equal(systim_tc_cyc2ns(&tc, start + (8ull << 19)), 1008);	/* latched earlier */
	systim_tc_adjust(&tc, -1000);
	assert_int_equal(systim_tc_cyc2ns(&tc, start + (12ull << 19)), 12);
	/* fractions are kept: 1.5 ns twice makes 3 */
	systim_tc_init(&tc, 19, 64, 0, 0);
	assert_int_equal(systim_tc_read(&tc, 3ull << 18), 1);
	assert_int_equal(systim_tc_read(&tc, 6ull << 18), 3);
}

/* I350: SYSTIM is a 40-bit count of ns (SYSTIMH bits 7:0 over SYSTIML);
 * bits above are not part of it. The wrap is crossed, a stamp latched
 * before the last read converts back, and junk in the upper bits of a
 * latched value does not matter. */
static void test_systim_40bit(void **state)
{
	(void)state;
	struct systim_tc tc;
	uint64_t wrap = 1ull << 40;
	systim_tc_init(&tc, 0, 40, wrap - 100, 7000);
	assert_int_equal(systim_tc_read(&tc, 50), 7150);		/* across the wrap */
	assert_int_equal(systim_tc_cyc2ns(&tc, wrap - 20), 7080);	/* latched before it */
	assert_int_equal(systim_tc_cyc2ns(&tc, 0xabcdef0000000000ull | 60), 7160);
	assert_int_equal(systim_tc_read(&tc, (wrap >> 1) + 49), 7150 + (int64_t)(wrap >> 1) - 1);
}

/* QEMU 10's igb: the count leaps at a TIMINCA write; stamps latched
 * before it convert through the old base, later ones through the new. */
static void test_systim_jump(void **state)
{
	(void)state;
	struct systim_tc tc;
	uint64_t u = 1ull << 19;	/* one ns */
	systim_tc_init(&tc, 19, 64, 1000 * u, 5000);
	uint64_t before = 2000 * u, after = before + (1ull << 60) + 10 * u;	/* +2^41 ns + 10 ns */
	assert_int_equal(systim_tc_read(&tc, before), 6000);
	systim_tc_jump(&tc, before, after, 6010);
	assert_int_equal(systim_tc_cyc2ns(&tc, 1990 * u), 5990);	/* latched before the write */
	assert_int_equal(systim_tc_cyc2ns(&tc, after + 7 * u), 6017);
	assert_int_equal(systim_tc_read(&tc, after + 20 * u), 6030);
	systim_tc_adjust(&tc, 100);
	assert_int_equal(systim_tc_cyc2ns(&tc, 1990 * u), 6090);
	assert_int_equal(systim_tc_cyc2ns(&tc, after + 20 * u), 6130);
}

static void test_timinca(void **state)
{
	(void)state;
	uint32_t base = 16u << 19;
	assert_int_equal(timinca_incvalue(base, 0), base);
	assert_int_equal(timinca_incvalue(base, 1000000), base + 8389);	/* +1000 ppm */
	assert_int_equal(timinca_incvalue(base, -1000000), base - 8389);
	assert_int_equal(timinca_incvalue(base, 999999881), 0xffffff);
	assert_int_equal(timinca_incvalue(40u << 18, 500), (40u << 18) + 5);
}

/* 82580+ TIMINCA: 2^-32 ns per 8 ns cycle, sign in bit 31. */
static void test_timinca_82580(void **state)
{
	(void)state;
	assert_int_equal(timinca_isgn(0, 8ull << 32), 0);
	assert_int_equal(timinca_isgn(1, 8ull << 32), 34);			/* 2^35 / 1e9 = 34.36 */
	assert_int_equal(timinca_isgn(-1, 8ull << 32), 0x80000000u | 34);
	assert_int_equal(timinca_isgn(1000000, 8ull << 32), 34359738);	/* 1000 ppm: 8 us/s */
	assert_int_equal(timinca_isgn(-62499999, 8ull << 32), 0x80000000u | 2147483614u);
	assert_int_equal(timinca_isgn(999999881, 8ull << 32), 0x7fffffff);	/* beyond the field: limited */
	assert_int_equal(timinca_isgn(-999999881, 8ull << 32), 0xffffffffu);
}

/* RXSATRL/H against a Sync: clockIdentity 20-27, portNumber 28-29,
 * sequenceId 30-31 (0x1234), controlField 32, logMessageInterval 33. */
static void test_rx_attr_match(void **state)
{
	(void)state;
	uint8_t m[44] = { 0 };
	for (int i = 20; i < 28; i++)
		m[i] = (uint8_t)(0xa0 + i);
	m[28] = 0x00, m[29] = 0x01;
	m[30] = 0x12, m[31] = 0x34;
	m[32] = 0x00, m[33] = 0xfe;
	/* the datasheet's layout: bytes 22-25, 26-27, sequenceId */
	uint32_t l = 0xb9b8b7b6u, h = 0x3412bbbau;
	assert_int_equal(hwts_rx_attr_match(m, sizeof(m), l, h), HWTS_ATTR_ALL);
	assert_int_equal(hwts_rx_attr_match(m, sizeof(m), l, h ^ 0x00010000u), 0);	/* another sequenceId */
	/* another source, or the source bytes elsewhere on silicon: the
	 * sequenceId alone (review 2026-12-02 N6) */
	assert_int_equal(hwts_rx_attr_match(m, sizeof(m), l ^ 1, h), HWTS_ATTR_SEQ);
	assert_int_equal(hwts_rx_attr_match(m, sizeof(m), l, h ^ 1), HWTS_ATTR_SEQ);
	/* QEMU 10: bytes 24-27, 28-29 and 32-33 */
	assert_int_equal(hwts_rx_attr_match(m, sizeof(m), 0xbbbab9b8u, 0xfe000100u), HWTS_ATTR_ALL);
	assert_int_equal(hwts_rx_attr_match(m, sizeof(m), 0xbbbab9b8u, 0xfe000101u), HWTS_ATTR_SEQ);
	assert_int_equal(hwts_rx_attr_match(m, sizeof(m), 0xbbbab9b8u, 0xfe010100u), 0);
	assert_int_equal(hwts_rx_attr_match(m, 33, l, h), 0);			/* no full header */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tx_normal),
		cmocka_unit_test(test_tx_skipped),
		cmocka_unit_test(test_tx_two_before_take),
		cmocka_unit_test(test_tx_timeout_then_stale),
		cmocka_unit_test(test_tx_stale_at_request),
		cmocka_unit_test(test_rx_lockup),
		cmocka_unit_test(test_rx_attr_match),
		cmocka_unit_test(test_systim_counter),
		cmocka_unit_test(test_systim_40bit),
		cmocka_unit_test(test_systim_jump),
		cmocka_unit_test(test_timinca),
		cmocka_unit_test(test_timinca_82580),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
