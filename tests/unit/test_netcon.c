/* Unit tests for net/netcon.c: netconsole= in Linux's forms (defaults,
 * every part given, '+', several targets), every refused form with its reason, and the
 * datagram's bytes checked against an independent checksum. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "net/netcon.h"

static void shown(const char *v, const char *want)
{
	struct netcon_target t;
	char err[160] = "", buf[160];

	if (netcon_parse(v, &t, err, sizeof(err)) != 0)
		fail_msg("%s: refused: %s", v, err);
	netcon_show(&t, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_forms(void **state)
{
	struct netcon_target t;
	char err[160];
	(void)state;
	shown("@/,@10.0.0.2/", "6665@/port0,6666@10.0.0.2/");
	shown("@/,6666@10.0.0.2", "6665@/port0,6666@10.0.0.2/");
	shown("@/,@10.0.0.2/ff:ff:ff:ff:ff:ff", "6665@/port0,6666@10.0.0.2/ff:ff:ff:ff:ff:ff");
	shown("4444@10.0.0.1/port3,9353@10.0.0.2/12:34:56:78:9a:bc",
	      "4444@10.0.0.1/port3,9353@10.0.0.2/12:34:56:78:9a:bc");
	shown("+@10.0.0.1/port1,@10.0.0.2/", "+6665@10.0.0.1/port1,6666@10.0.0.2/");
	assert_int_equal(netcon_parse("@/,@10.0.0.2/", &t, err, sizeof(err)), 0);
	assert_int_equal(t.mac_given, 0);	/* ARP, broadcast until it answers */
	assert_memory_equal(t.tgt_mac, "\xff\xff\xff\xff\xff\xff", 6);
	assert_int_equal(netcon_parse("+1@10.0.0.1/port7,65535@192.168.1.1/02:00:00:00:00:02", &t, err, sizeof(err)), 0);
	assert_int_equal(t.extended, 1);
	assert_int_equal(t.port, 7);
	assert_int_equal(t.src_port, 1);
	assert_int_equal(t.tgt_port, 65535);
	assert_int_equal(t.src_ip, 0x0a000001);
	assert_int_equal(t.tgt_ip, 0xc0a80101);
	assert_memory_equal(t.tgt_mac, "\x02\x00\x00\x00\x00\x02", 6);
	assert_int_equal(t.mac_given, 1);
}

/* Several targets, ';' between them as Linux takes them. */
static void test_list(void **state)
{
	struct netcon_target t[NETCON_TARGETS];
	char err[160] = "", buf[160];
	(void)state;
	assert_int_equal(netcon_parse_list("@/,@10.0.0.2/", t, NETCON_TARGETS, err, sizeof(err)), 1);
	assert_int_equal(netcon_parse_list("+@/port1,@10.0.0.2/;4444@/port2,5555@10.0.0.3/02:00:00:00:00:03", t,
					   NETCON_TARGETS, err, sizeof(err)), 2);
	netcon_show(&t[0], buf, sizeof(buf));
	assert_string_equal(buf, "+6665@/port1,6666@10.0.0.2/");
	netcon_show(&t[1], buf, sizeof(buf));
	assert_string_equal(buf, "4444@/port2,5555@10.0.0.3/02:00:00:00:00:03");
	assert_int_equal(netcon_parse_list("@/,@10.0.0.2/;@/,@10.0.0.3/;@/,@10.0.0.4/", t, 2, err, sizeof(err)), -1);
	assert_string_equal(err, "more than 2 targets (';' between them)");
	assert_int_equal(netcon_parse_list("@/,@10.0.0.2/;@/,@10.0.0.256/", t, 4, err, sizeof(err)), -1);
	assert_string_equal(err, "target 2: target address '10.0.0.256' is not A.B.C.D");
	assert_int_equal(netcon_parse_list("@/,@10.0.0.2/;", t, 4, err, sizeof(err)), -1);
	assert_string_equal(err, "target 2: no ',' between the source and the target");
	assert_int_equal(netcon_parse_list("@/,@10.0.0.2/", t, 0, err, sizeof(err)), -1);
	assert_string_equal(err, "more than 0 targets (';' between them)");
}

static void refused(const char *v, const char *why)
{
	struct netcon_target t = { .port = 5 };
	char err[160] = "";

	assert_int_equal(netcon_parse(v, &t, err, sizeof(err)), -1);
	assert_string_equal(err, why);
	assert_int_equal(t.port, 5);	/* untouched */
}

static void test_refused(void **state)
{
	(void)state;
	refused("", "no ',' between the source and the target");
	refused("@/port0", "no ',' between the source and the target");
	refused("r@/,@10.0.0.2/", "'r' after the start: only '+' (extended messages) is supported");
	refused("++@/,@10.0.0.2/", "'+' after the start: only '+' (extended messages) is supported");
	refused("6665/port0,@10.0.0.2/", "the source part has no '@' ([port]@ip)");
	refused("0@/,@10.0.0.2/", "source port '0' is not 1-65535");
	refused("65536@/,@10.0.0.2/", "source port '65536' is not 1-65535");
	refused("x@/,@10.0.0.2/", "source port 'x' is not 1-65535");
	refused("@10.0.0/,@10.0.0.2/", "source address '10.0.0' is not A.B.C.D");
	refused("@10.0.0.1,@10.0.0.2/", "the source has no '/' before the port ([src-port]@[src-ip]/[portN])");
	refused("@/eth0,@10.0.0.2/", "device 'eth0' is not port0-port7");
	refused("@/port8,@10.0.0.2/", "device 'port8' is not port0-port7");
	refused("@/port,@10.0.0.2/", "device 'port' is not port0-port7");
	refused("@/,10.0.0.2", "the target part has no '@' ([port]@ip)");
	refused("@/,@/", "target address '' is not A.B.C.D");
	refused("@/,@", "target address '' is not A.B.C.D");
	refused("@/,@10.0.0.256/", "target address '10.0.0.256' is not A.B.C.D");
	refused("@/,@[fd00::2]/", "target address: IPv6 is not supported (A.B.C.D)");
	refused("@/,@fd00::2/", "target address: IPv6 is not supported (A.B.C.D)");
	refused("@/,@10.0.0.2/02:00:00:00:00", "target MAC '02:00:00:00:00' is not xx:xx:xx:xx:xx:xx");
	refused("@/,@10.0.0.2x", "target address '10.0.0.2x' is not A.B.C.D");
	refused("@/,@255.255.255.255/", "target address must be a unicast address");
	refused("@/,@224.0.0.1/", "target address must be a unicast address");
	refused("@/,@0.0.0.0/", "target address must be a unicast address");
}

/* RFC 1071 sum of n bytes, folded, not complemented. */
static uint32_t sum16(const uint8_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i < n; i++)
		s += i % 2 ? p[i] : (uint32_t)p[i] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

static void test_frame(void **state)
{
	struct netcon_target t;
	char err[160];
	uint8_t f[NETCON_FRAME_MAX], mac[6] = { 2, 0, 0, 0, 0, 1 };
	const char *msg = "linerate: ready in 1234 us\n";	/* odd length */
	(void)state;
	assert_int_equal(netcon_parse("@/,6666@10.0.0.2/02:00:00:00:00:02", &t, err, sizeof(err)), 0);
	size_t n = netcon_frame(f, sizeof(f), &t, mac, 0x0a000001, 7, msg, strlen(msg));
	assert_int_equal(n, 14 + 20 + 8 + strlen(msg));
	assert_memory_equal(f, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00", 14);
	assert_memory_equal(f + 14, "\x45\x00", 2);
	assert_int_equal(f[16] << 8 | f[17], 20 + 8 + strlen(msg));
	assert_int_equal(f[18] << 8 | f[19], 7);
	assert_int_equal(f[22], 64);
	assert_int_equal(f[23], 17);
	assert_memory_equal(f + 26, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
	assert_int_equal(sum16(f + 14, 20, 0), 0xffff);	/* header checksum right */
	assert_memory_equal(f + 34, "\x1a\x09\x1a\x0a", 4);	/* 6665, 6666 */
	assert_int_equal(f[38] << 8 | f[39], 8 + strlen(msg));
	uint8_t pseudo[12] = { 10, 0, 0, 1, 10, 0, 0, 2, 0, 17, 0, (uint8_t)(8 + strlen(msg)) };
	assert_int_equal(sum16(f + 34, 8 + strlen(msg), sum16(pseudo, 12, 0)), 0xffff);
	assert_memory_equal(f + 42, msg, strlen(msg));
	assert_int_equal(netcon_frame(f, n - 1, &t, mac, 1, 0, msg, strlen(msg)), 0);	/* does not fit */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_frame),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
