/* Unit tests for kernel/config.c: `set <knob> <value>` replies, good and
 * bad, and the `show config` lines. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "kernel/config.h"

static int64_t itr = 3, rxd = 512, fmt;
static int applied;
static const struct knob_range itr_ranges[] = { { 0, 1 }, { 3, 4 }, { 100, 100000 } };
static const struct knob_range rxd_ranges[] = { { 80, 4096 } };
static const char *const fmt_choices[] = { "table", "json", NULL };

static int parse_app(const char *v, char *err, size_t len)
{
	if (strcmp(v, "sink") == 0)
		return 0;
	snprintf(err, len, "no app '%s'", v);
	return -1;
}

static void show_app(char *buf, size_t len)
{
	snprintf(buf, len, "sink");
}

/* 64 routes of 31 bytes each, as apps/fwd/route.c's show_route writes them. */
static void show_routes(char *buf, size_t len)
{
	size_t used = 0;
	for (int i = 0; i < 64 && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s10.200.%03d.0/24,10.100.200.250",
					 i ? " " : "", i);
}

static void apply_itr(void)
{
	applied++;
}

static const struct knob knobs[] = {
	{ .name = "InterruptThrottleRate", .type = KNOB_INT, .help = "ints/s; default 3",
	  .ranges = itr_ranges, .nranges = 3, .ival = &itr, .live = 1, .apply = apply_itr },
	{ .name = "rxd", .type = KNOB_INT, .help = "RX ring size; default 512",
	  .ranges = rxd_ranges, .nranges = 1, .ival = &rxd },
	{ .name = "stats_format", .type = KNOB_ENUM, .help = "table|json; default table",
	  .choices = fmt_choices, .ival = &fmt, .live = 1 },
	{ .name = "app", .type = KNOB_FUNC, .help = "what to run", .parse = parse_app,
	  .accepted = "sink", .show = show_app },
	{ .name = "route", .type = KNOB_FUNC, .help = "a route", .parse = parse_app, .accepted = "A/len" },
	{ .name = "routes", .type = KNOB_FUNC, .help = "64 routes", .parse = parse_app, .accepted = "A/len",
	  .show = show_routes },
};
#define NKNOBS (sizeof(knobs) / sizeof(knobs[0]))


static int set(const char *name, const char *value, char *msg, size_t len)
{
	return config_set(knobs, NKNOBS, -1, name, value, msg, len);
}

static void test_set_ok(void **state)
{
	char msg[256];
	(void)state;
	applied = 0;
	assert_int_equal(set("InterruptThrottleRate", "4", msg, sizeof(msg)), 0);
	assert_string_equal(msg, "InterruptThrottleRate=4");
	assert_int_equal(itr, 4);
	assert_int_equal(applied, 1);
	assert_int_equal(set("InterruptThrottleRate", "0x3e8", msg, sizeof(msg)), 0);
	assert_string_equal(msg, "InterruptThrottleRate=1000");
	assert_int_equal(set("stats_format", "json", msg, sizeof(msg)), 0);
	assert_string_equal(msg, "stats_format=json");
	assert_int_equal(fmt, 1);
	assert_int_equal(applied, 2);
}

static void test_set_bad_value(void **state)
{
	static const char *const bad[] = { "2", "99", "100001", "-1", "", "abc", "3x", " 3",
					   "\x01\xff", "99999999999999999999999" };
	char msg[256], want[256];
	(void)state;
	itr = 3;
	applied = 0;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(set("InterruptThrottleRate", bad[i], msg, sizeof(msg)), -1);
		snprintf(want, sizeof(want), "set: bad value '%.64s' for InterruptThrottleRate= "
			 "(accepted: 0-1|3-4|100-100000)", bad[i]);
		assert_string_equal(msg, want);
	}
	assert_int_equal(itr, 3);
	assert_int_equal(applied, 0);
	assert_int_equal(set("stats_format", "JSON", msg, sizeof(msg)), -1);
	assert_string_equal(msg, "set: bad value 'JSON' for stats_format= (accepted: table|json)");
}

static void test_set_unknown_and_boot_only(void **state)
{
	char msg[256];
	(void)state;
	assert_int_equal(set("frobnicate", "1", msg, sizeof(msg)), -1);
	assert_string_equal(msg, "set: unknown knob 'frobnicate' (run-time knobs: InterruptThrottleRate "
			    "stats_format)");
	/* Names are case-sensitive, as on the command line; a near one is offered. */
	assert_int_equal(set("interruptthrottlerate", "1", msg, sizeof(msg)), -1);
	assert_string_equal(msg, "set: unknown knob 'interruptthrottlerate'; did you mean InterruptThrottleRate? "
			    "(run-time knobs: InterruptThrottleRate stats_format)");
	assert_int_equal(set("stats_fromat", "json", msg, sizeof(msg)), -1);
	assert_string_equal(msg, "set: unknown knob 'stats_fromat'; did you mean stats_format? "
			    "(run-time knobs: InterruptThrottleRate stats_format)");
	/* Only run-time knobs are offered: rxd is boot-only. */
	assert_int_equal(set("rxdd", "1", msg, sizeof(msg)), -1);
	assert_string_equal(msg, "set: unknown knob 'rxdd' (run-time knobs: InterruptThrottleRate stats_format)");
	rxd = 512;
	assert_int_equal(set("rxd", "1024", msg, sizeof(msg)), -1);
	assert_string_equal(msg, "set: rxd is read at boot only: give rxd= on the kernel command line "
			    "(run-time knobs: InterruptThrottleRate stats_format)");
	assert_int_equal(rxd, 512);
}

/* Replies are cut to the buffer, never overrun it. */
static void test_set_short_buffer(void **state)
{
	char msg[32];
	(void)state;
	memset(msg, 'x', sizeof(msg));
	assert_int_equal(set("frobnicate", "1", msg, 20), -1);
	assert_int_equal(strlen(msg), 19);
	assert_int_equal(msg[20], 'x');
	assert_int_equal(set("InterruptThrottleRate", "2", msg, 20), -1);
	assert_string_equal(msg, "set: bad value ");
	assert_int_equal(set("rxd", "1", msg, 8), -1);
	assert_int_equal(strlen(msg), 7);
}

static void test_show(void **state)
{
	char buf[4096], routes[2100], line[2200];
	(void)state;
	itr = 3;
	rxd = 512;
	fmt = 0;
	show_routes(routes, sizeof(routes));
	assert_int_equal(strlen(routes), 64 * 31 - 1);
	snprintf(line, sizeof(line), "routes=%s boot  64 routes\n", routes);
	size_t n = config_show(buf, sizeof(buf), knobs, NKNOBS);
	const char *head =
		"InterruptThrottleRate=3        run   ints/s; default 3\n"
		"rxd=512                        boot  RX ring size; default 512\n"
		"stats_format=table             run   table|json; default table\n"
		"app=sink                       boot  what to run\n"
		"route=?                        boot  a route\n";
	assert_memory_equal(buf, head, strlen(head));
	/* A value longer than 64 bytes (every route=) is shown whole. */
	assert_string_equal(buf + strlen(head), line);
	assert_int_equal(n, strlen(buf));
	/* Whole lines only. */
	n = config_show(buf, 60, knobs, NKNOBS);
	assert_string_equal(buf, "InterruptThrottleRate=3        run   ints/s; default 3\n");
}

/* Grouped by declaring file in config_groups' order (general before NIC
 * before the apps), each file's knobs by line; per-port values only for
 * the ports that exist. */
static void test_show_order_and_ports(void **state)
{
	static int64_t q[KNOB_MAX_PORTS] = { 1, 2, 9, 9, 9, 9, 9, 9 }, one;
	static const struct knob placed[] = {
		{ .name = "count", .type = KNOB_INT, .ival = &one, .file = "apps/pktgen/conf.c", .line = 9 },
		{ .name = "queues", .type = KNOB_INT, .ival = q, .per_port = 1, .file = "drivers/net/nic.c", .line = 74 },
		{ .name = "ip1", .type = KNOB_INT, .ival = &one, .file = "net/ifaddr.c", .line = 138 },
		{ .name = "ip0", .type = KNOB_INT, .ival = &one, .file = "net/ifaddr.c", .line = 137 },
		{ .name = "app", .type = KNOB_INT, .ival = &one, .file = "apps/app.c", .line = 50 },
		{ .name = "cores", .type = KNOB_INT, .ival = &one, .file = "run/place.c", .line = 30 },
	};
	char buf[1024];
	(void)state;
	config_ports = 2;
	config_show(buf, sizeof(buf), placed, sizeof(placed) / sizeof(placed[0]));
	config_ports = KNOB_MAX_PORTS;
	assert_string_equal(buf,
			    "[run/place.c]\n"
			    "cores=0                        boot  \n"
			    "[apps/app.c]\n"
			    "app=0                          boot  \n"
			    "[drivers/net/nic.c]\n"
			    "queues=1,2                     boot  \n"
			    "[net/ifaddr.c]\n"
			    "ip0=0                          boot  \n"
			    "ip1=0                          boot  \n"
			    "[apps/pktgen/conf.c]\n"
			    "count=0                        boot  \n");
}

/* The order's edges: knobs without a file first, in their order and
 * without a header; a file of apps/rr/ before apps/mgmt/ (config_groups'
 * order), each before "apps/"'s catch-all; a file no group names last; in a
 * group, files by name and each file's knobs by line, whatever their order
 * in the table. */
static void test_show_order_edges(void **state)
{
	static int64_t one;
	static const struct knob mixed[] = {
		{ .name = "z", .type = KNOB_INT, .ival = &one, .file = "lib/x.c", .line = 1 },
		{ .name = "rr3", .type = KNOB_INT, .ival = &one, .file = "apps/rr/rr.c", .line = 30 },
		{ .name = "n1", .type = KNOB_INT, .ival = &one },
		{ .name = "rr2", .type = KNOB_INT, .ival = &one, .file = "apps/rr/rr.c", .line = 20 },
		{ .name = "ns", .type = KNOB_INT, .ival = &one, .file = "apps/rr/netserver.c", .line = 50 },
		{ .name = "n2", .type = KNOB_INT, .ival = &one },
		{ .name = "rr1", .type = KNOB_INT, .ival = &one, .file = "apps/rr/rr.c", .line = 10 },
		{ .name = "sink", .type = KNOB_INT, .ival = &one, .file = "apps/sink/sink.c", .line = 5 },
		{ .name = "mg", .type = KNOB_INT, .ival = &one, .file = "apps/mgmt/mgmt.c", .line = 3 },
		{ .name = "k", .type = KNOB_INT, .ival = &one, .file = "kernel/x.c", .line = 7 },
	};
	char buf[1024];
	(void)state;
	config_show(buf, sizeof(buf), mixed, sizeof(mixed) / sizeof(mixed[0]));
	assert_string_equal(buf,
			    "n1=0                           boot  \n"
			    "n2=0                           boot  \n"
			    "[kernel/x.c]\n"
			    "k=0                            boot  \n"
			    "[apps/rr/netserver.c]\n"
			    "ns=0                           boot  \n"
			    "[apps/rr/rr.c]\n"
			    "rr1=0                          boot  \n"
			    "rr2=0                          boot  \n"
			    "rr3=0                          boot  \n"
			    "[apps/mgmt/mgmt.c]\n"
			    "mg=0                           boot  \n"
			    "[apps/sink/sink.c]\n"
			    "sink=0                         boot  \n"
			    "[lib/x.c]\n"
			    "z=0                            boot  \n");
}

/* ip0.100=, ip0.200= as net/ifaddr.c's show_vlan gives them. */
static int show_vlans(int i, char *sub, size_t sublen, char *buf, size_t len)
{
	static const char *const subs[][2] = { { "100", "10.100.0.1/24" }, { "200", "10.200.0.1/24,2001:db8::1/64" } };
	if (i < 0 || i >= 2)
		return -1;
	snprintf(sub, sublen, "%s", subs[i][0]);
	snprintf(buf, len, "%s", subs[i][1]);
	return 0;
}

/* A knob's NAME.SUB keys: a line each after its own, whole lines only (a
 * file's header goes with its first line or not at all). */
static void test_show_sub_keys(void **state)
{
	static const struct knob ip[] = {
		{ .name = "ip0", .type = KNOB_FUNC, .help = "port0's addresses", .parse = parse_app, .show = show_app,
		  .show_sub = show_vlans, .file = "net/ifaddr.c", .line = 1 },
	};
	const char *want = "[net/ifaddr.c]\n"
			   "ip0=sink                       boot  port0's addresses\n"
			   "ip0.100=10.100.0.1/24          boot  ip0.SUB: see ip0\n"
			   "ip0.200=10.200.0.1/24,2001:db8::1/64 boot  ip0.SUB: see ip0\n";
	char buf[512];
	(void)state;
	size_t n = config_show(buf, sizeof(buf), ip, 1);
	assert_string_equal(buf, want);
	assert_int_equal(n, strlen(want));
	n = config_show(buf, strlen(want), ip, 1);	/* the last line does not fit */
	assert_int_equal(n, strlen(want) - strlen(strstr(want, "ip0.200")));
	n = config_show(buf, 20, ip, 1);		/* the header alone would */
	assert_int_equal(n, 0);
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_ok),
		cmocka_unit_test(test_set_bad_value),
		cmocka_unit_test(test_set_unknown_and_boot_only),
		cmocka_unit_test(test_set_short_buffer),
		cmocka_unit_test(test_show),
		cmocka_unit_test(test_show_order_and_ports),
		cmocka_unit_test(test_show_order_edges),
		cmocka_unit_test(test_show_sub_keys),
	};

	return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
