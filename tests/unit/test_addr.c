/* Unit tests for net/addr.c: dotted quads, IPv6 addresses, prefixes and
 * MACs, the forms accepted and every kind refused; IPv6 also against
 * glibc's inet_pton(3)/inet_ntop(3) over random addresses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <stdlib.h>
#include <arpa/inet.h>
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

/* Parse s whole as an IPv6 address: 0 and a, or -1. */
static int addr6(const char *s, uint8_t a[16])
{
	return addr6_parse(&s, a) || *s ? -1 : 0;
}

/* s parses to the address inet_pton(3) gives and formats back as want. */
static void check6(const char *s, const char *want)
{
	uint8_t a[16], ref[16];
	char buf[IPV6_STR_MAX];
	if (addr6(s, a))
		fail_msg("'%s' refused", s);
	assert_int_equal(inet_pton(AF_INET6, s, ref), 1);
	assert_memory_equal(a, ref, 16);
	assert_string_equal(addr6_fmt(buf, a), want);
}

static void test_ipv6_good(void **state)
{
	(void)state;
	check6("::", "::");
	check6("::1", "::1");
	check6("1::", "1::");
	check6("2001:DB8:0:0:0:0:0:1", "2001:db8::1");
	check6("2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1");
	check6("2001:db8::0:1", "2001:db8::1");
	check6("fe80::0211:22ff:fe33:4455", "fe80::211:22ff:fe33:4455");
	check6("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8");
	/* RFC 5952 4.2.2: one zero group is not shortened; 4.2.3: the longest
	 * run, the first of equals. */
	check6("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1");
	check6("2001:0:0:1:0:0:0:1", "2001:0:0:1::1");
	check6("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1");
	check6("1:0:0:2::", "1:0:0:2::");
	check6("::2:3:4:5:6:7:8", "0:2:3:4:5:6:7:8");
	/* Embedded IPv4 (RFC 4291 2.2 form 3); RFC 5952 5 writes only the
	 * IPv4-mapped ones mixed. */
	check6("::ffff:10.1.0.1", "::ffff:10.1.0.1");
	check6("::FFFF:a01:1", "::ffff:10.1.0.1");
	check6("64:ff9b::192.0.2.33", "64:ff9b::c000:221");
	check6("1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304");
	/* addr6_parse stops where the address ends, for callers that go on. */
	uint8_t a[16];
	const char *s = "fe80::1%port1";
	assert_int_equal(addr6_parse(&s, a), 0);
	assert_string_equal(s, "%port1");
	s = "2001:db8::,x";
	assert_int_equal(addr6_parse(&s, a), 0);
	assert_string_equal(s, ",x");
}

static void test_ipv6_bad(void **state)
{
	static const char *const bad[] = {
		"", ":", ":::", "1", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7:8:", ":1:2:3:4:5:6:7:8",
		"1::2::3", "1:::2", "::1:", "1:2:3:4::5:6:7:8", "::1:2:3:4:5:6:7:8", "12345::", "g::", "1:2:3:4:5:6:7:1.2.3.4",
		"::1.2.3", "::1.2.3.4.5", "::01.2.3.4", "::256.1.1.1", "::1.2.3.4:1", "1.2.3.4", " ::1", "::1 ", "::-1",
		"::0x1", "1:2:3:4:5:6:7:8/64", "[::1]",
	};
	uint8_t a[16], keep[16];
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (addr6(bad[i], a) != -1)
			fail_msg("'%s' accepted", bad[i]);
	}
	/* A refused address leaves the output as it was. */
	memset(a, 0x5a, sizeof(a));
	memcpy(keep, a, sizeof(a));
	const char *s = "1::2::3";
	assert_int_equal(addr6_parse(&s, a), -1);
	assert_memory_equal(a, keep, 16);
}

static void test_ipv6_prefix(void **state)
{
	static const char *const bad[] = {
		"2001:db8::", "2001:db8::/", "2001:db8::/129", "2001:db8::/064", "2001:db8::/-1", "/64",
		"2001:db8::/6 4", "2001:db8/32",
	};
	uint8_t a[16], want[16] = { 0x20, 0x01, 0x0d, 0xb8 };
	int len = 7;
	(void)state;
	const char *s = "2001:db8::/32";
	assert_int_equal(addr6_prefix_parse(&s, a, &len), 0);
	assert_memory_equal(a, want, 16);
	assert_int_equal(len, 32);
	assert_int_equal(*s, 0);
	s = "::/0,fe80::1";
	assert_int_equal(addr6_prefix_parse(&s, a, &len), 0);
	assert_int_equal(len, 0);
	assert_string_equal(s, ",fe80::1");
	s = "::1/128";
	assert_int_equal(addr6_prefix_parse(&s, a, &len), 0);
	assert_int_equal(len, 128);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		s = bad[i];
		len = 7;
		if (addr6_prefix_parse(&s, a, &len) == 0 && !*s)
			fail_msg("'%s' accepted", bad[i]);
	}
	memcpy(a, want, 16);
	s = "::1/200";
	assert_int_equal(addr6_prefix_parse(&s, a, &len), -1);
	assert_memory_equal(a, want, 16);
}

/* Random addresses with many zero groups: addr6_fmt writes what inet_ntop
 * writes (but for ::a.b.c.d, which glibc still writes mixed and RFC 5952 5
 * does not ask for), and both parsers read it back to the same address. */
static void test_ipv6_random(void **state)
{
	static const uint8_t zero12[12];
	uint8_t a[16], b[16];
	char mine[IPV6_STR_MAX], ref[INET6_ADDRSTRLEN];
	(void)state;
	srand(6);
	for (int n = 0; n < 100000; n++) {
		for (int i = 0; i < 8; i++) {
			int v = rand() % 3 ? 0 : rand() & 0xffff;
			if (rand() % 16 == 0)
				v = 0xffff;
			a[2 * i] = (uint8_t)(v >> 8);
			a[2 * i + 1] = (uint8_t)v;
		}
		addr6_fmt(mine, a);
		assert_non_null(inet_ntop(AF_INET6, a, ref, sizeof(ref)));
		if (memcmp(a, zero12, 12) || (a[12] == 0 && a[13] == 0))
			assert_string_equal(mine, ref);
		assert_int_equal(addr6(mine, b), 0);
		assert_memory_equal(a, b, 16);
		assert_int_equal(addr6(ref, b), 0);
		assert_memory_equal(a, b, 16);
	}
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
		cmocka_unit_test(test_ipv6_good),
		cmocka_unit_test(test_ipv6_bad),
		cmocka_unit_test(test_ipv6_prefix),
		cmocka_unit_test(test_ipv6_random),
		cmocka_unit_test(test_mac),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
