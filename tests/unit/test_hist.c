/* Unit tests for apps/pktgen/hist.c: bucket edges, quantiles, counts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "apps/pktgen/hist.h"

/* Every bucket's edges: contiguous from 0, each value maps into its own. */
static void test_buckets_tile_the_range(void **state)
{
	(void)state;
	uint64_t expect_lo = 0;
	for (unsigned i = 0; i < HIST_BUCKETS - 1; i++) {
		uint64_t lo = pg_hist_lo(i), hi = pg_hist_hi(i);
		assert_int_equal(lo, expect_lo);
		assert_true(hi >= lo);
		assert_int_equal(pg_hist_index(lo), i);
		assert_int_equal(pg_hist_index(hi), i);
		/* log-linear: a bucket is at most 1/16 of its lower edge wide */
		assert_true(lo < HIST_SUB || (hi - lo + 1) * HIST_SUB <= lo);
		expect_lo = hi + 1;
	}
	assert_int_equal(pg_hist_lo(HIST_BUCKETS - 1), expect_lo);
	assert_int_equal(expect_lo, (UINT64_C(1) << 48) - (UINT64_C(1) << 43));
	assert_int_equal(pg_hist_index(UINT64_MAX), HIST_BUCKETS - 1);
	assert_int_equal(pg_hist_index(15), 15);
	assert_int_equal(pg_hist_index(16), 16);
	assert_int_equal(pg_hist_index(33), 32);	/* [32, 33] */
	assert_int_equal(pg_hist_lo(32), 32);
	assert_int_equal(pg_hist_hi(32), 33);
}

static void test_quantiles(void **state)
{
	(void)state;
	struct hist *h = calloc(1, sizeof(*h));
	assert_int_equal(pg_hist_quantile(h, 5000), 0);
	for (uint64_t v = 1; v <= 1000; v++)
		pg_hist_add(h, v * 1000);	/* 1 us .. 1 ms */
	assert_int_equal(h->n, 1000);
	assert_int_equal(h->min, 1000);
	assert_int_equal(h->max, 1000000);
	assert_int_equal(h->sum, 500500000);
	uint64_t sum = 0;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		sum += h->bucket[i];
	assert_int_equal(sum, 1000);
	/* the 500th value is 500000; its bucket's upper edge is within 1/16 */
	uint64_t p50 = pg_hist_quantile(h, 5000);
	assert_true(p50 >= 500000 && p50 <= 500000 + 500000 / 16);
	uint64_t p99 = pg_hist_quantile(h, 9900);
	assert_true(p99 >= 990000 && p99 <= 1000000);
	assert_int_equal(pg_hist_quantile(h, 10000), 1000000);	/* clipped to max */
	assert_true(pg_hist_quantile(h, 1) >= 1000 && pg_hist_quantile(h, 1) <= 1000 + 1000 / 16);
	free(h);
}

static void test_one_sample(void **state)
{
	(void)state;
	struct hist *h = calloc(1, sizeof(*h));
	pg_hist_add(h, 7);
	assert_int_equal(h->bucket[7], 1);
	assert_int_equal(pg_hist_quantile(h, 5000), 7);
	assert_int_equal(pg_hist_quantile(h, 9990), 7);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets_tile_the_range),
		cmocka_unit_test(test_quantiles),
		cmocka_unit_test(test_one_sample),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
