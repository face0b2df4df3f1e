/* Unit tests for net/prom.c (the Prometheus text builder): numbers,
 * sample and family lines, whole-line cuts; and that the latency
 * histogram's Prometheus bucket edges (2^k - 1 ns, apps/pktgen/metrics.c) are
 * edges of pktgen's log-linear histogram, so their counts are exact. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "net/prom.h"
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

static uint64_t page_v[3];
static const char *page_port1 = "port1";

/* A small page: a family, samples of two ports, a printf line, and a
 * family without samples at the end. */
static void page(struct prom *o)
{
	char num[PROM_NUM_MAX];
	prom_family(o, "rx_packets_total", "counter", "frames received");
	prom_sample(o, "rx_packets_total", "port", "port0", NULL, NULL, page_v[0]);
	prom_sample(o, "rx_packets_total", "port", page_port1, NULL, NULL, page_v[1]);
	prom_family(o, "uptime_seconds", "gauge", "seconds since boot");
	prom_sample_text(o, "uptime_seconds", NULL, NULL, NULL, NULL, prom_fixed(num, page_v[2], 1000));
	prom_put(o, "linerate_x{a=\"%d\"} 1\n", (int)page_v[0]);
	prom_family(o, "empty", "gauge", "no samples");
}

/* The same page with page_v, built line by line (no layout). */
static void page_plain(char *buf, size_t len)
{
	struct prom o = { .b = buf, .len = len };
	page(&o);
}

/* A replayed page equals the page built line by line with the new values;
 * a sample the recording does not have fails the replay, and the page is
 * then recorded anew. */
static void test_layout_replay(void **state)
{
	(void)state;
	char text[1024], want[512], buf[512];
	struct prom_slot slots[8];
	struct prom_layout lay = { .text = text, .cap = sizeof(text), .slot = slots, .max_slot = 8 };
	page_v[0] = 1, page_v[1] = 22, page_v[2] = 1500;
	struct prom o = { .b = buf, .len = sizeof(buf) };
	prom_begin(&o, &lay);
	page(&o);
	assert_int_equal(prom_finish(&o), 0);
	assert_true(lay.valid);
	assert_int_equal(lay.nslot, 4);
	page_plain(want, sizeof(want));
	assert_string_equal(buf, want);

	page_v[0] = 123456789012, page_v[1] = 0, page_v[2] = 7;
	o = (struct prom){ .b = buf, .len = sizeof(buf) };
	prom_begin(&o, &lay);
	assert_true(o.replay);
	page(&o);
	assert_int_equal(prom_finish(&o), 0);
	page_plain(want, sizeof(want));
	assert_string_equal(buf, want);
	assert_int_equal(o.used, strlen(want));

	page_port1 = "port2";	/* another label value: not the recorded page */
	o = (struct prom){ .b = buf, .len = sizeof(buf) };
	prom_begin(&o, &lay);
	page(&o);
	assert_int_equal(prom_finish(&o), -1);
	assert_false(lay.valid);
	o = (struct prom){ .b = buf, .len = sizeof(buf) };
	prom_begin(&o, &lay);
	assert_false(o.replay);
	page(&o);
	assert_int_equal(prom_finish(&o), 0);
	page_plain(want, sizeof(want));
	assert_string_equal(buf, want);
	page_port1 = "port1";
}

/* A replayed page that does not fit ends at its last whole line and is cut. */
static void test_layout_replay_cut(void **state)
{
	(void)state;
	char text[1024], buf[512], small[300];
	struct prom_slot slots[8];
	struct prom_layout lay = { .text = text, .cap = sizeof(text), .slot = slots, .max_slot = 8 };
	page_v[0] = 1, page_v[1] = 2, page_v[2] = 3;
	struct prom o = { .b = buf, .len = sizeof(buf) };
	prom_begin(&o, &lay);
	page(&o);
	prom_finish(&o);
	o = (struct prom){ .b = small, .len = sizeof(small) };
	prom_begin(&o, &lay);
	page(&o);
	assert_int_equal(prom_finish(&o), 0);
	assert_true(o.cut);
	assert_int_equal(o.used, strlen(small));
	assert_true(o.used > 0 && small[o.used - 1] == '\n');
	assert_memory_equal(small, buf, o.used);
}

/* A page with more samples than slots is never recorded. */
static void test_layout_overflow(void **state)
{
	(void)state;
	char text[1024], buf[512];
	struct prom_slot slots[2];
	struct prom_layout lay = { .text = text, .cap = sizeof(text), .slot = slots, .max_slot = 2 };
	struct prom o = { .b = buf, .len = sizeof(buf) };
	prom_begin(&o, &lay);
	page(&o);
	assert_int_equal(prom_finish(&o), 0);
	assert_false(lay.valid);
	assert_false(o.cut);
}

static void test_latency_edges_are_histogram_edges(void **state)
{
	(void)state;
	for (int k = 8; k <= 34; k++) {
		uint64_t edge = (UINT64_C(1) << k) - 1;
		unsigned i = pg_hist_index(edge);
		assert_int_equal(pg_hist_hi(i), edge);
		assert_int_equal(pg_hist_lo(i + 1), edge + 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_cut_whole_lines),
		cmocka_unit_test(test_layout_replay),
		cmocka_unit_test(test_layout_replay_cut),
		cmocka_unit_test(test_layout_overflow),
		cmocka_unit_test(test_latency_edges_are_histogram_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
