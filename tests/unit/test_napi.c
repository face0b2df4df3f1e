/* Unit tests for drivers/net/napi.c's dynamic ITR (napi_itr_update): Linux
 * e1000e's classes and rate steps, and that the quiet-interval shortcut
 * of a steady queue gives what a full evaluation gives. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "drivers/net/nic.h"

void smp_wake(int core)	/* kernel/smp.c's, which is not linked here */
{
	(void)core;
}

/* Queue counters and the ITR state as napi_itr_init leaves them. */
static struct nic_itr itr_at(uint32_t setting, const struct nic_qstats *s)
{
	return (struct nic_itr){ .setting = setting, .current = 20000, .rx_class = 1, .tx_class = 1,
				 .rx_pkts = s->rx_packets, .rx_bytes = s->rx_bytes,
				 .tx_pkts = s->tx_packets, .tx_bytes = s->tx_bytes };
}

static void interval(struct nic_qstats *s, uint64_t pkts, uint64_t bytes)
{
	s->rx_packets += pkts;
	s->rx_bytes += bytes;
	s->tx_packets += pkts;
	s->tx_bytes += bytes;
}

/* Request-response (one 60-byte frame each way per interval): lowest
 * latency, the rate rising in steps of a quarter to 70000 and staying;
 * one 1024-byte frame each way drops it to low latency, 20000, at once. */
static void test_dynamic_steps(void **state)
{
	(void)state;
	struct nic_qstats s = { 0 };
	struct nic_itr it = itr_at(1, &s);
	static const uint32_t want[] = { 37500, 55000, 70000, 70000, 70000 };
	for (int i = 0; i < 5; i++) {
		interval(&s, 1, 60);
		assert_int_equal(napi_itr_update(&it, &s), want[i]);
	}
	assert_int_equal(it.rx_class, 0);
	interval(&s, 1, 1024);
	assert_int_equal(napi_itr_update(&it, &s), 20000);
	assert_int_equal(it.rx_class, 1);
}

/* Conservative mode (3) never goes to lowest latency's 70000. */
static void test_conservative(void **state)
{
	(void)state;
	struct nic_qstats s = { 0 };
	struct nic_itr it = itr_at(3, &s);
	for (int i = 0; i < 5; i++) {
		interval(&s, 1, 60);
		assert_int_equal(napi_itr_update(&it, &s), 20000);
	}
	assert_int_equal(it.rx_class, 0);
}

/* Random intervals, small ones mostly: the state after each call equals
 * that of a full evaluation (the same state with steady cleared). */
static void test_quiet_shortcut_exact(void **state)
{
	(void)state;
	srand(1);
	for (uint32_t setting = 1; setting <= 3; setting += 2) {
		struct nic_qstats s = { 0 };
		struct nic_itr it = itr_at(setting, &s);
		int quiet = 0;
		for (int i = 0; i < 20000; i++) {
			int r = rand() % 100;
			uint64_t pkts = r < 80 ? (uint64_t)(rand() % 3) : (uint64_t)(rand() % 50);
			uint64_t bytes = pkts * (r < 80 ? 60u : (uint64_t)(60 + rand() % 1500));
			if (r == 99) {
				s = (struct nic_qstats){ 0 };	/* clear stats */
			} else {
				s.rx_packets += pkts;
				s.rx_bytes += bytes;
				s.tx_packets += pkts / 2;
				s.tx_bytes += bytes / 2;
			}
			struct nic_itr full = it;
			full.steady = 0;
			quiet += it.steady;
			uint32_t got = napi_itr_update(&it, &s), ref = napi_itr_update(&full, &s);
			assert_int_equal(got, ref);
			assert_int_equal(it.current, full.current);
			assert_int_equal(it.rx_class, full.rx_class);
			assert_int_equal(it.tx_class, full.tx_class);
			assert_int_equal(it.rx_pkts, full.rx_pkts);
			assert_int_equal(it.rx_bytes, full.rx_bytes);
			assert_int_equal(it.tx_pkts, full.tx_pkts);
			assert_int_equal(it.tx_bytes, full.tx_bytes);
		}
		assert_true(quiet > 1000);	/* the shortcut was taken */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dynamic_steps),
		cmocka_unit_test(test_conservative),
		cmocka_unit_test(test_quiet_shortcut_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
