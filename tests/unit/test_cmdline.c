/* Unit tests for kernel/cmdline.c: knob values, messages and errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "kernel/cmdline.h"

static int64_t itr, rxd, offset, poll_mode, stats_fmt;
static int routes;
static char route_seen[64];

static const struct knob_range itr_ranges[] = { { 0, 1 }, { 3, 4 }, { 100, 100000 } };
static const struct knob_range rxd_ranges[] = { { 80, 4096 } };
static const struct knob_range offset_ranges[] = { { -1000, -1 }, { 5, 5 } };
static const char *const poll_choices[] = { "busy", "napi", "irq", NULL };
static const char *const fmt_choices[] = { "table", "json", NULL };

/* route=<dst>/<len>: only checks the prefix length, enough for the tests. */
static int parse_route(const char *value, char *err, size_t errlen)
{
	const char *slash = strchr(value, '/');

	if (slash == NULL || strcmp(slash, "/33") == 0) {
		snprintf(err, errlen, "%s", slash == NULL ? "missing /len" : "prefix length over 32");
		return -1;
	}
	routes++;
	snprintf(route_seen, sizeof(route_seen), "%s", value);
	return 0;
}

static const struct knob knobs[] = {
	{ .name = "InterruptThrottleRate", .type = KNOB_INT,
	  .help = "interrupts/s: 0 off, 1 dynamic, 3 conservative, 4 simplified; default 3",
	  .ranges = itr_ranges, .nranges = 3, .ival = &itr },
	{ .name = "rxd", .type = KNOB_INT, .help = "RX descriptors per ring; default 256",
	  .ranges = rxd_ranges, .nranges = 1, .ival = &rxd },
	{ .name = "offset", .type = KNOB_INT, .help = "test knob with negative ranges",
	  .ranges = offset_ranges, .nranges = 2, .ival = &offset },
	{ .name = "poll", .type = KNOB_ENUM, .help = "poll mode; default busy",
	  .choices = poll_choices, .ival = &poll_mode },
	{ .name = "stats_format", .type = KNOB_ENUM, .help = "stats output; default table",
	  .choices = fmt_choices, .ival = &stats_fmt },
	{ .name = "route", .type = KNOB_FUNC, .help = "static route, repeatable",
	  .parse = parse_route, .accepted = "A.B.C.D/len", .repeatable = 1 },
};
#define NKNOBS (sizeof(knobs) / sizeof(knobs[0]))
#define ALL_NAMES "(accepted: InterruptThrottleRate= rxd= offset= poll= stats_format= route=)"

/* Messages reported by cmdline_parse, in order. */
static char msgs[8][CMDLINE_MSG_MAX];
static int nmsgs;

static char words[8][CMDLINE_WORD_MAX];	/* the word each refers to */

static void record(const char *msg, const char *word, size_t wlen, void *ctx)
{
	assert_ptr_equal(ctx, msgs);
	assert_true(strlen(msg) < CMDLINE_MSG_MAX);
	if (nmsgs < 8) {
		snprintf(msgs[nmsgs], sizeof(msgs[0]), "%s", msg);
		snprintf(words[nmsgs], sizeof(words[0]), "%.*s", word ? (int)wlen : 6, word ? word : "(none)");
	}
	nmsgs++;
}

static int parse(const char *line)
{
	return cmdline_parse(line, knobs, NKNOBS, record, msgs);
}

static int reset(void **state)
{
	(void)state;
	itr = rxd = offset = poll_mode = stats_fmt = -99;
	routes = 0;
	route_seen[0] = '\0';
	nmsgs = 0;
	memset(msgs, 0, sizeof(msgs));
	return 0;
}

static const struct knob *k_itr = &knobs[0];

static void test_int_values(void **state)
{
	char err[CMDLINE_MSG_MAX];

	(void)state;
	assert_int_equal(knob_set(k_itr, "0", err, sizeof(err)), 0);
	assert_int_equal(itr, 0);
	assert_int_equal(knob_set(k_itr, "4", err, sizeof(err)), 0);
	assert_int_equal(itr, 4);
	assert_int_equal(knob_set(k_itr, "100000", err, sizeof(err)), 0);
	assert_int_equal(itr, 100000);
	assert_int_equal(knob_set(k_itr, "0x2710", err, sizeof(err)), 0);
	assert_int_equal(itr, 10000);
	assert_int_equal(knob_set(&knobs[2], "-1000", err, sizeof(err)), 0);
	assert_int_equal(offset, -1000);
	assert_int_equal(knob_set(&knobs[2], "-0x10", err, sizeof(err)), 0);
	assert_int_equal(offset, -16);
}

static void test_int_errors(void **state)
{
	static const char *const bad[] = {
		"2", "99", "100001", "-1", "abc", "12x", "0x", "-", "--1", "+5", "1.5",
		"99999999999999999999", "9223372036854775808", "-9223372036854775809",
	};
	char err[CMDLINE_MSG_MAX], want[CMDLINE_MSG_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		itr = 7;
		assert_int_equal(knob_set(k_itr, bad[i], err, sizeof(err)), -1);
		assert_int_equal(itr, 7);
		snprintf(want, sizeof(want), "cmdline: bad value '%s' for InterruptThrottleRate="
			 " (accepted: 0-1|3-4|100-100000)", bad[i]);
		assert_string_equal(err, want);
	}
}

static void test_int64_limits(void **state)
{
	static const struct knob any = { .name = "any", .type = KNOB_INT, .ival = &offset };
	char err[CMDLINE_MSG_MAX];

	(void)state;
	assert_int_equal(knob_set(&any, "9223372036854775807", err, sizeof(err)), 0);
	assert_true(offset == INT64_MAX);
	assert_int_equal(knob_set(&any, "-9223372036854775808", err, sizeof(err)), 0);
	assert_true(offset == INT64_MIN);
	assert_int_equal(knob_set(&any, "-0", err, sizeof(err)), -1);
	assert_string_equal(err, "cmdline: bad value '-0' for any= (accepted: integer)");
	assert_int_equal(knob_set(&any, "0512", err, sizeof(err)), -1);
	assert_true(offset == INT64_MIN);
	assert_int_equal(knob_set(&any, "9223372036854775808", err, sizeof(err)), -1);
	assert_string_equal(err, "cmdline: bad value '9223372036854775808' for any= (accepted: integer)");
}

static void test_accepted_text(void **state)
{
	static const struct knob_range itr_e1000e[] = { { 0, 1 }, { 3, 3 }, { 4, 4 }, { 100, 100000 } };
	static const struct knob k = { .name = "InterruptThrottleRate", .type = KNOB_INT,
		.ranges = itr_e1000e, .nranges = 4, .ival = &itr };
	char buf[64], tiny[8];

	(void)state;
	knob_accepted(&k, buf, sizeof(buf));
	assert_string_equal(buf, "0-1|3|4|100-100000");
	knob_accepted(&knobs[2], buf, sizeof(buf));
	assert_string_equal(buf, "-1000..-1|5");
	knob_accepted(&knobs[3], buf, sizeof(buf));
	assert_string_equal(buf, "busy|napi|irq");
	knob_accepted(&knobs[5], buf, sizeof(buf));
	assert_string_equal(buf, "A.B.C.D/len");
	knob_accepted(&knobs[3], tiny, sizeof(tiny));
	assert_string_equal(tiny, "busy|na");
}

static void test_enum(void **state)
{
	char err[CMDLINE_MSG_MAX];

	(void)state;
	assert_int_equal(knob_set(&knobs[3], "napi", err, sizeof(err)), 0);
	assert_int_equal(poll_mode, 1);
	assert_int_equal(knob_set(&knobs[3], "irq", err, sizeof(err)), 0);
	assert_int_equal(poll_mode, 2);
	assert_int_equal(knob_set(&knobs[3], "NAPI", err, sizeof(err)), -1);
	assert_int_equal(poll_mode, 2);
	assert_string_equal(err, "cmdline: bad value 'NAPI' for poll= (accepted: busy|napi|irq)");
	assert_int_equal(knob_set(&knobs[3], "nap", err, sizeof(err)), -1);
}

static void test_func(void **state)
{
	char err[CMDLINE_MSG_MAX];

	(void)state;
	assert_int_equal(knob_set(&knobs[5], "10.0.0.0/8", err, sizeof(err)), 0);
	assert_string_equal(route_seen, "10.0.0.0/8");
	assert_int_equal(knob_set(&knobs[5], "10.0.0.0/33", err, sizeof(err)), -1);
	assert_string_equal(err, "cmdline: bad value '10.0.0.0/33' for route="
			    " (prefix length over 32; accepted: A.B.C.D/len)");
	assert_int_equal(routes, 1);
}

static void test_find(void **state)
{
	(void)state;
	assert_ptr_equal(knob_find(knobs, NKNOBS, "rxd"), &knobs[1]);
	assert_ptr_equal(knob_find(knobs, NKNOBS, "route"), &knobs[5]);
	assert_null(knob_find(knobs, NKNOBS, "RXD"));
	assert_null(knob_find(knobs, NKNOBS, "rx"));
	assert_null(knob_find(knobs, NKNOBS, ""));
	assert_null(knob_find(knobs, 0, "rxd"));
}

static void test_parse_good_line(void **state)
{
	(void)state;
	assert_int_equal(parse("  InterruptThrottleRate=3\t\trxd=0x200   poll=napi\t"
			       "route=10.0.0.0/8 route=192.168.1.0/24 stats_format=json  "), 0);
	assert_int_equal(nmsgs, 0);
	assert_int_equal(itr, 3);
	assert_int_equal(rxd, 512);
	assert_int_equal(poll_mode, 1);
	assert_int_equal(stats_fmt, 1);
	assert_int_equal(routes, 2);
	assert_string_equal(route_seen, "192.168.1.0/24");
}

static void test_parse_empty_lines(void **state)
{
	(void)state;
	assert_int_equal(parse(NULL), 0);
	assert_int_equal(parse(""), 0);
	assert_int_equal(parse(" \t \t "), 0);
	assert_int_equal(nmsgs, 0);
	assert_int_equal(cmdline_parse("foo=1 bar", knobs, NKNOBS, NULL, NULL), 2);
}

static void test_parse_unknown(void **state)
{
	(void)state;
	assert_int_equal(parse("foo=1 rxd=100"), 1);
	assert_int_equal(nmsgs, 1);
	assert_string_equal(msgs[0], "cmdline: unknown knob 'foo' " ALL_NAMES);
	assert_string_equal(words[0], "foo=1");
	assert_int_equal(rxd, 100);
}

/* A typo of a knob's name (case, a letter left out or swapped) is named. */
static void test_parse_unknown_did_you_mean(void **state)
{
	(void)state;
	assert_int_equal(parse("pol=napi interruptthrottlerate=1 InterruptThrotleRate=1 stats_fromat=json rdx=80"), 5);
	assert_string_equal(msgs[0], "cmdline: unknown knob 'pol'; did you mean poll? " ALL_NAMES);
	assert_string_equal(msgs[1], "cmdline: unknown knob 'interruptthrottlerate'; did you mean "
			    "InterruptThrottleRate? " ALL_NAMES);
	assert_string_equal(msgs[2], "cmdline: unknown knob 'InterruptThrotleRate'; did you mean "
			    "InterruptThrottleRate? " ALL_NAMES);
	assert_string_equal(msgs[3], "cmdline: unknown knob 'stats_fromat'; did you mean stats_format? " ALL_NAMES);
	assert_string_equal(msgs[4], "cmdline: unknown knob 'rdx'; did you mean rxd? " ALL_NAMES);
	assert_string_equal(words[4], "rdx=80");
	assert_null(knob_suggest(knobs, NKNOBS, "routes_x", 0));
	assert_ptr_equal(knob_suggest(knobs, NKNOBS, "routes", 0), knob_find(knobs, NKNOBS, "route"));
}

static void test_parse_unknown_short_list(void **state)
{
	static int64_t v;
	static const char *const onoff[] = { "off", "on", NULL };
	static const struct knob three[] = {
		{ .name = "app", .type = KNOB_ENUM, .choices = onoff, .ival = &v },
		{ .name = "selftest", .type = KNOB_ENUM, .choices = onoff, .ival = &v },
		{ .name = "stats", .type = KNOB_ENUM, .choices = onoff, .ival = &v },
	};

	(void)state;
	assert_int_equal(cmdline_parse("foo=bar", three, 3, record, msgs), 1);
	assert_string_equal(msgs[0], "cmdline: unknown knob 'foo' (accepted: app= selftest= stats=)");
}

static void test_parse_malformed_words(void **state)
{
	(void)state;
	assert_int_equal(parse("quiet rxd= =5 rxd=12x rxd=4096"), 5);
	assert_int_equal(nmsgs, 5);
	assert_string_equal(msgs[0], "cmdline: 'quiet' is not key=value " ALL_NAMES);
	/* rxd= is given three times (once empty): every one is refused. */
	assert_string_equal(msgs[1], "cmdline: rxd= given more than once, ignoring '' (the default stays)");
	assert_string_equal(msgs[2], "cmdline: '=5' is not key=value " ALL_NAMES);
	assert_string_equal(msgs[3], "cmdline: rxd= given more than once, ignoring '12x' (the default stays)");
	assert_string_equal(msgs[4], "cmdline: rxd= given more than once, ignoring '4096' (the default stays)");
	assert_int_equal(rxd, -99);
}

static void test_parse_bad_values_continue(void **state)
{
	(void)state;
	assert_int_equal(parse("InterruptThrottleRate=abc poll=fast rxd=256"
			       " offset=99999999999999999999"), 3);
	assert_string_equal(msgs[0], "cmdline: bad value 'abc' for InterruptThrottleRate="
			    " (accepted: 0-1|3-4|100-100000)");
	assert_string_equal(msgs[1], "cmdline: bad value 'fast' for poll= (accepted: busy|napi|irq)");
	assert_string_equal(msgs[2], "cmdline: bad value '99999999999999999999' for offset="
			    " (accepted: -1000..-1|5)");
	assert_int_equal(rxd, 256);
	assert_int_equal(itr, -99);
}

static void test_parse_duplicate(void **state)
{
	(void)state;
	/* docs/knobs.md: a knob given twice keeps its default, whichever came first. */
	assert_int_equal(parse("rxd=128 poll=busy rxd=1024 rxd=2048"), 3);
	assert_string_equal(msgs[0], "cmdline: rxd= given more than once, ignoring '128' (the default stays)");
	assert_string_equal(msgs[1], "cmdline: rxd= given more than once, ignoring '1024' (the default stays)");
	assert_string_equal(msgs[2], "cmdline: rxd= given more than once, ignoring '2048' (the default stays)");
	assert_int_equal(rxd, -99);
	assert_int_equal(poll_mode, 0);
	/* A knob whose name is a prefix of another's is not a duplicate. */
	assert_int_equal(parse("rxd_extra=1 rxd=256"), 1);
	assert_string_equal(msgs[3], "cmdline: unknown knob 'rxd_extra' " ALL_NAMES);
	assert_int_equal(rxd, 256);
}

static void test_parse_repeatable(void **state)
{
	(void)state;
	assert_int_equal(parse("route=10.0.0.0/8 route=10.1.0.0/16 route=bad route=10.2.0.0/33"), 2);
	assert_int_equal(routes, 2);
	assert_string_equal(msgs[0], "cmdline: bad value 'bad' for route="
			    " (missing /len; accepted: A.B.C.D/len)");
	assert_string_equal(msgs[1], "cmdline: bad value '10.2.0.0/33' for route="
			    " (prefix length over 32; accepted: A.B.C.D/len)");
}

/* A flag knob (Linux's boolean parameters): the bare word means NAME=1. */
static void test_parse_flag(void **state)
{
	static int64_t nox;
	static const struct knob_range bit[] = { { 0, 1 } };
	static const struct knob fk[] = { { .name = "nox2apic", .type = KNOB_INT, .help = "flag", .ranges = bit,
					    .nranges = 1, .ival = &nox, .flag = 1 } };
	(void)state;
	nox = 0;
	assert_int_equal(cmdline_parse("nox2apic", fk, 1, record, msgs), 0);
	assert_int_equal(nox, 1);
	assert_int_equal(cmdline_parse("nox2apic=0", fk, 1, record, msgs), 0);
	assert_int_equal(nox, 0);
	assert_int_equal(cmdline_parse("nox2apicx nox2apic=2", fk, 1, record, msgs), 2);
	assert_string_equal(msgs[0], "cmdline: 'nox2apicx' is not key=value (accepted: nox2apic=)");
	assert_int_equal(nox, 0);
	/* Not a flag: the bare word stays refused. */
	assert_int_equal(parse("rxd"), 1);
	assert_string_equal(msgs[2], "cmdline: 'rxd' is not key=value " ALL_NAMES);
}

static void test_parse_long_word(void **state)
{
	char line[700];

	(void)state;
	memset(line, 'a', 600);
	memcpy(line, "poll=", 5);
	strcpy(line + 600, " rxd=80");
	assert_int_equal(parse(line), 1);
	assert_string_equal(msgs[0], "cmdline: word 'poll=aaaaaaaaaaaaaaaaaaaaaaaaaaa...'"
			    " is longer than 255 bytes");
	assert_int_equal(poll_mode, -99);
	assert_int_equal(rxd, 80);
}

/* A word too long to apply still counts as its knob's word: with another
 * poll= both are refused and the default stays. */
static void test_parse_long_word_repeats(void **state)
{
	char line[700];

	(void)state;
	memset(line, 'a', 600);
	memcpy(line, "poll=", 5);
	strcpy(line + 600, " poll=busy");
	assert_int_equal(parse(line), 2);
	assert_string_equal(msgs[1], "cmdline: poll= given more than once, ignoring 'busy' (the default stays)");
	assert_int_equal(poll_mode, -99);
}

/* A boot line of 16 KB: duplicates found however far apart, every word
 * reported once. */
static void test_parse_long_line(void **state)
{
	static char line[16384];
	size_t used = 0;

	(void)state;
	used += (size_t)snprintf(line + used, sizeof(line) - used, "rxd=80");
	for (int i = 0; i < 2000; i++)
		used += (size_t)snprintf(line + used, sizeof(line) - used, " poll=%s", i ? "x" : "irq");
	used += (size_t)snprintf(line + used, sizeof(line) - used, " route=1.0.0.0/8 rxd=96");
	assert_true(used < sizeof(line) - 1);
	assert_int_equal(parse(line), 2002);
	assert_string_equal(msgs[0], "cmdline: rxd= given more than once, ignoring '80' (the default stays)");
	assert_string_equal(msgs[1], "cmdline: poll= given more than once, ignoring 'irq' (the default stays)");
	assert_int_equal(nmsgs, 2002);
	assert_int_equal(routes, 1);
	assert_int_equal(rxd, -99);
	assert_int_equal(poll_mode, -99);
}

/* More knobs than cmdline_parse counts: said once, nothing applied. */
static void test_parse_too_many_knobs(void **state)
{
	static struct knob many[CMDLINE_KNOBS_MAX + 1];

	(void)state;
	for (int i = 0; i <= CMDLINE_KNOBS_MAX; i++)
		many[i] = knobs[1];
	assert_int_equal(cmdline_parse("rxd=80", many, CMDLINE_KNOBS_MAX + 1, record, msgs), 1);
	assert_string_equal(msgs[0], "cmdline: 257 knobs registered, more than 256: nothing applied");
	assert_int_equal(rxd, -99);
	assert_int_equal(cmdline_parse("rxd=80", many, CMDLINE_KNOBS_MAX, record, msgs), 0);
	assert_int_equal(rxd, 80);
}

static void test_message_truncation(void **state)
{
	char err[40];
	char value[300];

	(void)state;
	memset(value, '9', sizeof(value) - 1);
	value[sizeof(value) - 1] = '\0';
	assert_int_equal(knob_set(k_itr, value, err, sizeof(err)), -1);
	assert_int_equal(strlen(err), sizeof(err) - 1);
	assert_memory_equal(err, "cmdline: bad value '9999999999999999999", sizeof(err));
}

static void test_unknown_long_list_truncated(void **state)
{
	static int64_t v;
	static char names[100][32];
	struct knob many[100];
	unsigned i;

	(void)state;
	memset(many, 0, sizeof(many));
	for (i = 0; i < 100; i++) {
		snprintf(names[i], sizeof(names[i]), "a_rather_long_knob_%02u", i);
		many[i].name = names[i];
		many[i].type = KNOB_INT;
		many[i].ival = &v;
	}
	assert_int_equal(cmdline_parse("a_rather_long_knob_39=1 zzz=1", many, 100, record, msgs), 1);
	assert_int_equal(v, 1);
	assert_int_equal(strlen(msgs[0]), CMDLINE_MSG_MAX - 1);
	assert_memory_equal(msgs[0], "cmdline: unknown knob 'zzz' (accepted: a_rather_long_knob_00= ", 62);
}

/* Per-port knobs: one value for every port, or a list by port; each
 * element checked; the rest of the ports keep theirs. */
static int64_t pp_itr[KNOB_MAX_PORTS], pp_poll[KNOB_MAX_PORTS];

static int multiple_of_8(int64_t v, char *err, size_t len)
{
	if (v % 8) {
		snprintf(err, len, "%lld is not a multiple of 8", (long long)v);
		return -1;
	}
	return 0;
}

static const struct knob pp_itr_knob = { .name = "InterruptThrottleRate", .type = KNOB_INT,
	.ranges = itr_ranges, .nranges = 3, .ival = pp_itr, .per_port = 1 };
static const struct knob pp_poll_knob = { .name = "poll", .type = KNOB_ENUM, .choices = poll_choices,
	.ival = pp_poll, .per_port = 1 };
static const struct knob pp_rxd_knob = { .name = "rxd", .type = KNOB_INT, .ranges = rxd_ranges,
	.nranges = 1, .ival = pp_itr, .per_port = 1, .check = multiple_of_8 };

static void test_per_port_lists(void **state)
{
	char err[CMDLINE_MSG_MAX];
	(void)state;
	for (int i = 0; i < KNOB_MAX_PORTS; i++)
		pp_itr[i] = 3;
	assert_int_equal(knob_set(&pp_itr_knob, "8000", err, sizeof(err)), 0);
	for (int i = 0; i < KNOB_MAX_PORTS; i++)
		assert_int_equal(pp_itr[i], 8000);
	assert_int_equal(knob_set(&pp_itr_knob, "1,0,100", err, sizeof(err)), 0);
	assert_int_equal(pp_itr[0], 1);
	assert_int_equal(pp_itr[1], 0);
	assert_int_equal(pp_itr[2], 100);
	assert_int_equal(pp_itr[3], 8000);
	assert_int_equal(knob_set(&pp_poll_knob, "napi,busy", err, sizeof(err)), 0);
	assert_int_equal(pp_poll[0], 1);
	assert_int_equal(pp_poll[1], 0);
	assert_int_equal(knob_set_port(&pp_itr_knob, 5, "4", err, sizeof(err)), 0);
	assert_int_equal(pp_itr[5], 4);
}

static void test_per_port_bad_lists(void **state)
{
	char err[CMDLINE_MSG_MAX];
	(void)state;
	for (int i = 0; i < KNOB_MAX_PORTS; i++)
		pp_itr[i] = 3;
	assert_int_equal(knob_set(&pp_itr_knob, "1,2,3", err, sizeof(err)), -1);
	assert_string_equal(err, "cmdline: bad value '1,2,3' for InterruptThrottleRate= (port 1: '2'; accepted: "
				 "0-1|3-4|100-100000, or one per port: V,V,... (up to 8))");
	assert_int_equal(knob_set(&pp_itr_knob, "1,,3", err, sizeof(err)), -1);
	assert_int_equal(knob_set(&pp_itr_knob, "1,3,", err, sizeof(err)), -1);
	assert_int_equal(knob_set(&pp_itr_knob, "0,0,0,0,0,0,0,0,0", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than 8 values"));
	for (int i = 0; i < KNOB_MAX_PORTS; i++)
		assert_int_equal(pp_itr[i], 3);	/* a refused list changes nothing */
	assert_int_equal(knob_set(&pp_rxd_knob, "512,84", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "84 is not a multiple of 8"));
	assert_int_equal(knob_set_port(&pp_itr_knob, 2, "7", err, sizeof(err)), -1);
	assert_int_equal(pp_itr[2], 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_per_port_lists),
		cmocka_unit_test(test_per_port_bad_lists),
		cmocka_unit_test_setup(test_int_values, reset),
		cmocka_unit_test_setup(test_int_errors, reset),
		cmocka_unit_test_setup(test_int64_limits, reset),
		cmocka_unit_test_setup(test_accepted_text, reset),
		cmocka_unit_test_setup(test_enum, reset),
		cmocka_unit_test_setup(test_func, reset),
		cmocka_unit_test_setup(test_find, reset),
		cmocka_unit_test_setup(test_parse_good_line, reset),
		cmocka_unit_test_setup(test_parse_empty_lines, reset),
		cmocka_unit_test_setup(test_parse_unknown, reset),
		cmocka_unit_test_setup(test_parse_unknown_did_you_mean, reset),
		cmocka_unit_test_setup(test_parse_unknown_short_list, reset),
		cmocka_unit_test_setup(test_parse_malformed_words, reset),
		cmocka_unit_test_setup(test_parse_bad_values_continue, reset),
		cmocka_unit_test_setup(test_parse_duplicate, reset),
		cmocka_unit_test_setup(test_parse_repeatable, reset),
		cmocka_unit_test_setup(test_parse_flag, reset),
		cmocka_unit_test_setup(test_parse_long_word, reset),
		cmocka_unit_test_setup(test_parse_long_word_repeats, reset),
		cmocka_unit_test_setup(test_parse_long_line, reset),
		cmocka_unit_test_setup(test_parse_too_many_knobs, reset),
		cmocka_unit_test_setup(test_message_truncation, reset),
		cmocka_unit_test_setup(test_unknown_long_list_truncated, reset),
	};

	return cmocka_run_group_tests_name("cmdline", tests, NULL, NULL);
}
