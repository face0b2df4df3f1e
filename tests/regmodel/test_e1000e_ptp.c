/* The 82574's IEEE 1588 clock and TX timestamps against the register model
 * with its time sync block (tests/regmodel/tsync.c): SYSTIM at 25 MHz, a
 * frame that asks for a TX stamp sent in an extended data descriptor with
 * TSTAMP (legacy descriptors cannot ask), every other frame in a legacy
 * descriptor as before, one stamp at a time. QEMU's e1000e stamps nothing
 * (docs/qemu-nics.md C.2): this path is checked here and nowhere else. */
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "drivers/net/e1000e/e1000e.c"
#include "drivers/net/e1000e/ptp.c"
#include "tests/regmodel/model.h"
#include "tests/regmodel/tsync.h"

/* The kernel's clock for phc.c: a TSC of 1 GHz. */
struct tsc_info tsc = { 1000000000, "model", 1 };
uint64_t tsc_to_ns(uint64_t cycles) { return cycles; }
struct nic *nics[NIC_MAX_PORTS];
int nic_count;
extern struct nic *model_nic;

static struct phc *up(int qemu)
{
	memset(phcs, 0, sizeof(phcs));
	model_init(M_82574);
	M.s.qemu_timinca = qemu;
	assert_int_equal(model_probe(&pci_driver_e1000e, 0x10d3), 0);
	return phc_of(model_nic);
}

static struct pkt *frame(int tstamp)
{
	struct pkt *p = pkt_alloc_inline(model_nic->pool);
	p->len = 60;
	p->flags = tstamp ? PKT_TX_TSTAMP : 0;
	return p;
}

static uint64_t skipped(void)
{
	return model_nic->qsw[0][NS_tx_hwtstamp_skipped];
}

/* Stamped, unstamped and a second request while one is in flight; the
 * stamp read and converted into the port's clock. */
static void test_tx_extended_descriptor(void **st)
{
	(void)st;
	struct phc *c = up(0);
	assert_true(phc_is_hw(c));
	phc_hwtstamp(c, 0, 1, 1);
	assert_true(model_last_write(0xb614) & 1u << 4);	/* TSYNCTXCTL.ENABLED */
	struct pkt *p[3] = { frame(1), frame(0), frame(1) };
	uint32_t before = phc_tx_seq(c);
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, p, 3), 3);
	assert_int_equal(phc_tx_seq(c), before + 1);
	struct e1000x_txq *tq = &to_port(model_nic)->txq[0];
	uint32_t d0 = tq->ring[0].d.cmd_type_len, d1 = tq->ring[1].d.cmd_type_len;
	uint32_t d2 = tq->ring[2].d.cmd_type_len;
	/* extended data descriptor: DEXT, DTYP 0001, RS, TSTAMP in the upper dword */
	assert_int_equal(d0 & (1u << 29 | 0xfu << 20 | 1u << 27), 1u << 29 | 1u << 20 | 1u << 27);
	assert_int_equal(tq->ring[0].d.status, 1u << 4);
	assert_int_equal(d0 & 0xffff, 60);
	/* the others legacy, as the fast path writes them */
	assert_int_equal(d1 & (1u << 29 | 0xffu << 16), 0);
	assert_int_equal(tq->ring[1].d.status, 0);
	assert_int_equal(d2 & (1u << 29), 0);	/* skipped: one in flight */
	assert_int_equal(tq->ring[2].d.status, 0);
	assert_int_equal(skipped(), 1);
	int64_t ns = 0, g0 = phc_gettime(c);
	assert_int_equal(phc_tx_tstamp(c, before + 1, &ns), 0);
	assert_int_equal(tsync_tx(tq->ring, tq->n, 0x3818), 1);	/* only the first latches */
	assert_int_equal(phc_tx_tstamp(c, before + 1, &ns), 1);
	if (ns < g0 || ns > g0 + 2000)
		fail_msg("stamp %ld, clock %ld before", (long)ns, (long)g0);
	assert_false(tsync_tx_valid());
	assert_int_equal(M.tsync_bad_writes, 0);
}

/* Review 2026-12-02 N9: RXUDP written as Linux e1000e_config_hwtstamp
 * does: htons(319) for UDP stamping, 0 for L2 only. */
static void test_rxudp(void **st)
{
	(void)st;
	struct phc *c = up(0);
	phc_hwtstamp(c, 0, 1, 1);
	assert_int_equal(model_last_write(0xb638), 0x3f01);
	phc_hwtstamp(c, 0, 1, 0);
	assert_int_equal(model_last_write(0xb638), 0);
}

/* TX off (no app asked): the frame goes legacy, counted skipped. */
static void test_tx_off(void **st)
{
	(void)st;
	struct phc *c = up(0);
	assert_true(phc_is_hw(c));
	struct pkt *p = frame(1);
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, &p, 1), 1);
	assert_int_equal(to_port(model_nic)->txq[0].ring[0].d.cmd_type_len & (1u << 29), 0);
	assert_int_equal(skipped(), 1);
}

/* QEMU's SYSTIM runs 2.5 times fast: software clock, legacy descriptors. */
static void test_qemu_rate_software_clock(void **st)
{
	(void)st;
	struct phc *c = up(1);
	assert_false(phc_is_hw(c));
	assert_true(model_console_has("82574 SYSTIM counts 2.500 times the rate TIMINCA sets"));
	model_nic->ops->reset(model_nic);	/* said once per port, not at every reset (newcomer N19) */
	model_nic->ops->watchdog(model_nic);
	assert_true(model_console_has("reset asked for from the shell"));
	const char *said = strstr(M.console, "82574 SYSTIM counts");
	assert_null(strstr(said + 1, "82574 SYSTIM counts"));
	c = phc_of(model_nic);
	assert_false(phc_is_hw(c));
	phc_hwtstamp(c, 0, 1, 1);
	struct pkt *p = frame(1);
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, &p, 1), 1);
	assert_int_equal(to_port(model_nic)->txq[0].ring[0].d.cmd_type_len & (1u << 29), 0);
	assert_int_equal(skipped(), 1);
}

/* Review 2026-12-02 N1: the 82574's SYSTIM read errata (tsync.c). Reads
 * land in the last INCPERIODs before SYSTIML wraps, where SYSTIMH is not
 * latched, and every 7th read comes with a bad SYSTIMH bit: the clock
 * registers at probe (rate check), each reading moves with the virtual
 * clock, and adjfreq absorbs no jump (Linux e1000e_read_systim,
 * e1000e_sanitize_systim). */
static void test_systim_read_errata(void **st)
{
	(void)st;
	memset(phcs, 0, sizeof(phcs));
	model_init(M_82574);
	M.s.systim_garbage = 7;
	assert_int_equal(model_probe(&pci_driver_e1000e, 0x10d3), 0);
	struct phc *c = phc_of(model_nic);
	assert_true(phc_is_hw(c));
	int64_t prev = phc_gettime(c);
	uint64_t prev_vt = now_ns();
	for (int i = 0; i < 1000; i++) {
		tsync_to_wrap((uint64_t)(i % 8) * 40);
		int64_t t = phc_gettime(c);
		int64_t err = (t - prev) - (int64_t)(now_ns() - prev_vt);
		if (err < -1000 || err > 1000)
			fail_msg("read %d: clock moved %ld ns, virtual clock %lu", i, (long)(t - prev),
				 (unsigned long)(now_ns() - prev_vt));
		prev = t;
		prev_vt = now_ns();
	}
	for (int i = 0; i < 32; i++) {
		tsync_to_wrap((uint64_t)i * 40);
		phc_adjfreq(c, i % 2 ? 1000 : -1000);
	}
	assert_int_equal(c->timinca_jumps, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tx_extended_descriptor),
		cmocka_unit_test(test_tx_off),
		cmocka_unit_test(test_rxudp),
		cmocka_unit_test(test_qemu_rate_software_clock),
		cmocka_unit_test(test_systim_read_errata),
	};
	return cmocka_run_group_tests_name("regmodel e1000e ptp", tests, NULL, NULL);
}
