/* Unit tests for kernel/fmt.c: exact strings for the report formats. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "kernel/fmt.h"

static void test_group(void **state)
{
	static const struct {
		uint64_t v;
		const char *want;
	} cases[] = {
		{ 0, "0" }, { 7, "7" }, { 999, "999" }, { 1000, "1,000" },
		{ 12345, "12,345" }, { 999999, "999,999" }, { 1234567, "1,234,567" },
		{ 1000000000, "1,000,000,000" },
		{ UINT64_MAX, "18,446,744,073,709,551,615" },
	};
	char buf[FMT_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(fmt_group(buf, sizeof(buf), cases[i].v), cases[i].want);
}

static void test_group_truncates(void **state)
{
	char buf[6];

	(void)state;
	memset(buf, 'x', sizeof(buf));
	assert_ptr_equal(fmt_group(buf, sizeof(buf), 1234567), buf);
	assert_string_equal(buf, "1,234");
}

static void test_bytes(void **state)
{
	static const struct {
		uint64_t v;
		const char *want;
	} cases[] = {
		{ 0, "0 B" }, { 1, "1 B" }, { 1023, "1023 B" }, { 1024, "1 KiB" },
		{ 1536, "1.50 KiB" }, { 1025, "1.00 KiB" }, { 4096, "4 KiB" },
		{ 1048575, "1.00 MiB" },	/* rounds up into the next unit */
		{ 134217728, "128 MiB" }, { 1575936, "1.50 MiB" },
		{ 2145386496, "2.00 GiB" },	/* 2046 MiB: the unit follows the size */
		{ 6ull << 30, "6 GiB" }, { (6ull << 30) + (1ull << 29), "6.50 GiB" },
		{ 6441922560ull, "6.00 GiB" },	/* usable RAM of a 6 GiB q35 guest */
		{ 1ull << 40, "1 TiB" }, { 3ull << 50, "3 PiB" }, { 1ull << 60, "1 EiB" },
		{ UINT64_MAX, "16.00 EiB" },
		{ (1ull << 60) + (1ull << 59), "1.50 EiB" },
	};
	char buf[FMT_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(fmt_bytes(buf, sizeof(buf), cases[i].v), cases[i].want);
}

static void test_rate(void **state)
{
	static const struct {
		uint64_t v;
		const char *unit, *want;
	} cases[] = {
		{ 0, "pps", "0 pps" }, { 950, "bps", "950 bps" }, { 999, "pps", "999 pps" },
		{ 1000, "pps", "1.00 kpps" }, { 1234, "pps", "1.23 kpps" },
		{ 1235, "pps", "1.24 kpps" },	/* rounds half up */
		{ 999994, "pps", "999.99 kpps" }, { 999995, "pps", "1.00 Mpps" },
		{ 1234567, "pps", "1.23 Mpps" }, { 14880952, "pps", "14.88 Mpps" },
		{ 1000000000, "bps", "1.00 Gbps" }, { 9999999999ull, "bps", "10.00 Gbps" },
		{ 2500000000000ull, "bps", "2.50 Tbps" },
		{ UINT64_MAX, "bps", "18446744.07 Tbps" },
		{ 1500, "", "1.50 k" },
	};
	char buf[FMT_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(fmt_rate(buf, sizeof(buf), cases[i].v, cases[i].unit),
				    cases[i].want);
}

static void test_parse_ok(void **state)
{
	static const struct {
		const char *s;
		uint64_t want;
	} cases[] = {
		{ "0", 0 }, { "42", 42 }, { "0x007", 7 }, { "0x0", 0 }, { "0x1f", 31 },
		{ "0XFF", 255 }, { "0xDeadBeef", 0xdeadbeef },
		{ "18446744073709551615", UINT64_MAX },
		{ "0xffffffffffffffff", UINT64_MAX },
	};
	uint64_t v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = 12345;
		assert_int_equal(parse_u64(cases[i].s, &v), 0);
		assert_true(v == cases[i].want);
	}
}

static void test_parse_bad(void **state)
{
	static const char *const bad[] = {
		"", "0x", "-1", "+1", " 1", "1 ", "12x", "x12", "0x1g", "1.5", "0b101",
		"18446744073709551616", "99999999999999999999", "0x10000000000000000",
		"0x0x1", "007", "00", "0512",
	};
	uint64_t v = 12345;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse_u64(bad[i], &v), -1);
		assert_true(v == 12345);
	}
	assert_int_equal(parse_u64(NULL, &v), -1);
}

/* parse_u64_si: k, M, G scale by 10^3, 10^6, 10^9; the rest as parse_u64. */
static void test_parse_si(void **state)
{
	static const struct {
		const char *s;
		uint64_t want;
	} cases[] = {
		{ "10", 10 }, { "20k", 20000 }, { "1M", 1000000 }, { "10G", 10000000000ull },
		{ "18446744073k", 18446744073000ull }, { "18446744073709551615", UINT64_MAX },
	};
	static const char *const bad[] = {
		"", "k", "M", "1K", "1m", "1g", "1.5M", "1kk", "1 k", "-1k", "18446744073709552k", "1T", "01k",
	};
	uint64_t v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = 12345;
		assert_int_equal(parse_u64_si(cases[i].s, &v), 0);
		assert_true(v == cases[i].want);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 12345;
		assert_int_equal(parse_u64_si(bad[i], &v), -1);
		assert_true(v == 12345);
	}
	assert_int_equal(parse_u64_si(NULL, &v), -1);
}

/* fmt_put: pieces appended, cut at the buffer's end, nothing once full. */
static void test_put(void **state)
{
	(void)state;
	char b[8] = "";
	size_t u = fmt_put(b, sizeof(b), 0, "ab");
	assert_int_equal(u, 2);
	u = fmt_put(b, sizeof(b), u, "cdefgh");
	assert_int_equal(u, 7);
	assert_string_equal(b, "abcdefg");
	assert_int_equal(fmt_put(b, sizeof(b), u, "x"), 7);
	assert_string_equal(b, "abcdefg");
	assert_int_equal(fmt_put(b, 1, 0, "x"), 0);
	assert_string_equal(b, "abcdefg");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group),
		cmocka_unit_test(test_group_truncates),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_parse_si),
		cmocka_unit_test(test_put),
	};

	return cmocka_run_group_tests_name("fmt", tests, NULL, NULL);
}
