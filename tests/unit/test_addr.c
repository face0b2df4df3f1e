/* Unit tests for net/addr.c: dotted quads, prefixes and MACs, the forms
 * accepted and every kind refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "net/addr.h"

/* Parse s whole as a dotted quad: 0 and *a, or -1. */
static int quad(const char *s, uint32_t *a)
{
	return ipv4_parse(&s, a) || *s ? -1 : 0;
}

static void test_ipv4_good(void **state)
{
	uint32_t a;
	char buf[IPV4_STR_MAX];
	(void)state;
	assert_int_equal(quad("10.1.0.2", &a), 0);
	assert_int_equal(a, 0x0a010002);
	assert_int_equal(quad("0.0.0.0", &a), 0);
	assert_int_equal(a, 0);
	assert_int_equal(quad("255.255.255.255", &a), 0);
	assert_int_equal(a, 0xffffffff);
	assert_string_equal(ipv4_str(buf, 0xc0a80101), "192.168.1.1");
	assert_string_equal(ipv4_str(buf, 0xffffffff), "255.255.255.255");
	/* ipv4_parse stops after the fourth part, for callers that go on. */
	const char *s = "10.0.0.1,rest";
	assert_int_equal(ipv4_parse(&s, &a), 0);
	assert_string_equal(s, ",rest");
}

static void test_ipv4_bad(void **state)
{
	static const char *const bad[] = {
		"", "10", "10.1.0", "10.1.0.", "10.1.0.2.", "10.1.0.256", "256.0.0.1", "010.1.0.2",
		"10.01.0.2", "10.1.0.00", "1000.1.0.2", "10..0.2", " 10.1.0.2", "10.1.0.2 ", "+10.1.0.2",
		"-1.1.0.2", "10.1.0.0x2", "a.b.c.d", "10,1,0,2", "10.1.0.2/24",
	};
	uint32_t a = 0x12345678;
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (quad(bad[i], &a) != -1)
			fail_msg("'%s' accepted", bad[i]);
	}
}

static void test_prefix(void **state)
{
	static const char *const bad[] = {
		"10.1.0.0", "10.1.0.0/", "10.1.0.0/33", "10.1.0.0/024", "10.1.0.0/-1", "10.1.0.0/2 4",
		"10.1.0/24", "/24",
	};
	uint32_t a = 7;
	int len = 7;
	(void)state;
	const char *s = "10.6.0.0/16";
	assert_int_equal(ipv4_prefix_parse(&s, &a, &len), 0);
	assert_int_equal(a, 0x0a060000);
	assert_int_equal(len, 16);
	assert_int_equal(*s, 0);
	s = "0.0.0.0/0,10.1.0.1";
	assert_int_equal(ipv4_prefix_parse(&s, &a, &len), 0);
	assert_int_equal(len, 0);
	assert_string_equal(s, ",10.1.0.1");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		s = bad[i];
		a = 7;
		len = 7;
		if (ipv4_prefix_parse(&s, &a, &len) == 0 && !*s)
			fail_msg("'%s' accepted", bad[i]);
	}
	/* A refused prefix leaves the outputs as they were. */
	s = "10.1.0.0/40";
	assert_int_equal(ipv4_prefix_parse(&s, &a, &len), -1);
	assert_int_equal(a, 7);
	assert_int_equal(len, 7);
}

static void test_mac(void **state)
{
	static const char *const bad[] = {
		"", "02:00:00:00:00", "02:00:00:00:00:01:", "02:00:00:00:00:01:02", "2:00:00:00:00:01",
		"02:00:00:00:00:1", "02-00-00-00-00-01", "02:00:00:00:00:0g", " 02:00:00:00:00:01",
		"02:00:00:00:00:01 ", "020000000001", "0x:00:00:00:00:01", "02:00:00:00:00:+1",
	};
	uint8_t m[6] = { 9, 9, 9, 9, 9, 9 };
	const uint8_t want[6] = { 0x02, 0xab, 0xcd, 0xef, 0x00, 0xff };
	char buf[MAC_STR_MAX];
	(void)state;
	assert_int_equal(mac_parse("02:AB:cd:Ef:00:ff", m), 0);
	assert_memory_equal(m, want, 6);
	assert_string_equal(mac_str(buf, m), "02:ab:cd:ef:00:ff");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (mac_parse(bad[i], m) != -1)
			fail_msg("'%s' accepted", bad[i]);
		assert_memory_equal(m, want, 6);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4_good),
		cmocka_unit_test(test_ipv4_bad),
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_mac),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
