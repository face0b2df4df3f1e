/* Unit tests for apps/mgmt/prom.c (the Prometheus text builder): numbers,
 * sample and family lines, whole-line cuts; and that the latency
 * histogram's Prometheus bucket edges (2^k - 1 ns, metrics_app.c) are
 * edges of pktgen's log-linear histogram, so their counts are exact. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "apps/mgmt/prom.h"
#include "apps/pktgen/hist.h"
#include "drivers/net/nic.h"

struct nic *nics[NIC_MAX_PORTS];

static void test_numbers(void **state)
{
	(void)state;
	char b[PROM_NUM_MAX];
	assert_string_equal(prom_dec(b, 0), "0");
	assert_string_equal(prom_dec(b, UINT64_MAX), "18446744073709551615");
	assert_string_equal(prom_int(b, -42), "-42");
	assert_string_equal(prom_int(b, INT64_MIN), "-9223372036854775808");
	assert_string_equal(prom_fixed(b, 5, 100), "0.05");
	assert_string_equal(prom_fixed(b, 123456, 1000), "123.456");
	assert_string_equal(prom_fixed(b, UINT64_MAX, 1000000), "18446744073709.551615");
	assert_string_equal(prom_seconds(b, 255), "0.000000255");
	assert_string_equal(prom_seconds(b, -1500000000), "-1.500000000");
	assert_string_equal(prom_seconds(b, INT64_MIN), "-9223372036.854775808");
}

static void test_lines(void **state)
{
	(void)state;
	char buf[512];
	struct prom o = { .b = buf, .len = sizeof(buf) };
	prom_family(&o, "rx_packets_total", "counter", "frames received");
	prom_sample(&o, "rx_packets_total", "port", "port0", NULL, NULL, 300);
	prom_sample(&o, "fwd_dropped_total", "port", "port1", "reason", "no_peer", 0);
	prom_sample_text(&o, "uptime_seconds", NULL, NULL, NULL, NULL, "1.500");
	assert_false(o.cut);
	assert_string_equal(buf, "# HELP linerate_rx_packets_total frames received\n"
				 "# TYPE linerate_rx_packets_total counter\n"
				 "linerate_rx_packets_total{port=\"port0\"} 300\n"
				 "linerate_fwd_dropped_total{port=\"port1\",reason=\"no_peer\"} 0\n"
				 "linerate_uptime_seconds 1.500\n");
	assert_int_equal(o.used, strlen(buf));
}

/* A line that does not fit is taken back whole; nothing after it is written. */
static void test_cut_whole_lines(void **state)
{
	(void)state;
	char buf[64];
	struct prom o = { .b = buf, .len = sizeof(buf) };
	prom_sample(&o, "a_total", "port", "port0", NULL, NULL, 1);
	size_t used = o.used;
	prom_sample(&o, "a_long_name_that_will_not_fit_total", "port", "port0", NULL, NULL, 2);
	assert_true(o.cut);
	assert_int_equal(o.used, used);
	prom_sample(&o, "b", NULL, NULL, NULL, NULL, 3);
	prom_put(&o, "x %d\n", 4);
	assert_int_equal(o.used, used);
	assert_string_equal(buf, "linerate_a_total{port=\"port0\"} 1\n");
}

static void test_latency_edges_are_histogram_edges(void **state)
{
	(void)state;
	for (int k = 8; k <= 34; k++) {
		uint64_t edge = (UINT64_C(1) << k) - 1;
		unsigned i = hist_index(edge);
		assert_int_equal(hist_hi(i), edge);
		assert_int_equal(hist_lo(i + 1), edge + 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_cut_whole_lines),
		cmocka_unit_test(test_latency_edges_are_histogram_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
