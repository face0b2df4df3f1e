/* Unit tests for net/pktsum.c: each frame's line is the one Debian's
 * tcpdump 4.99.3 prints with -q -n after its timestamp for the same bytes
 * (text2pcap of the hex, then tcpdump -q -n -r), but for the VLAN and
 * unknown-ethertype lines, which take tcpdump -q -n -e's words; then frames
 * cut short and lying lengths. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "net/pktsum.h"

#define ETH "020000000002020000000001"
#define IP4_UDP "4500002400010000401100000a0100020a020002"
#define UDP "04d2162e001000000000000000000000"
#define ARP_REQ "0001080006040001020000000001" "0a010002" "000000000000" "0a010001"
#define IP6_UDP "6000000000101101fe800000000000000000000000000002ff02000000000000000000000000006b"

static const struct { const char *hex, *want; } cases[] = {
	{ ETH "0800" IP4_UDP UDP, "IP 10.1.0.2.1234 > 10.2.0.2.5678: UDP, length 8" },
	{ ETH "0800" "4500002800010000400600000a0100020a020002" "04d2005000000000000000005002000000000000",
	  "IP 10.1.0.2.1234 > 10.2.0.2.80: tcp 0" },
	{ ETH "0800" "4500001c00010000400100000a0100020a020002" "0800000000010001",
	  "IP 10.1.0.2 > 10.2.0.2: ICMP echo request, id 1, seq 1, length 8" },
	{ "ffffffffffff020000000001" "0806" ARP_REQ, "ARP, Request who-has 10.1.0.1 tell 10.1.0.2, length 28" },
	{ ETH "0806" "0001080006040002020000000001" "0a010002" "020000000002" "0a010001",
	  "ARP, Reply 10.1.0.2 is-at 02:00:00:00:00:01, length 28" },
	{ "3333000000" "6b020000000001" "86dd" IP6_UDP UDP, "IP6 fe80::2.1234 > ff02::6b.5678: UDP, length 8" },
	{ ETH "0800" "450000180001000040fd00000a0100020a020002" "00000800",
	  "IP 10.1.0.2 > 10.2.0.2:  ip-proto-253 4" },
	/* tcpdump -e: "vlan 100, p 0, ethertype IPv4 (0x0800), 10.1.0.2.1234 > ..." */
	{ ETH "8100" "0064" "0800" IP4_UDP UDP, "vlan 100, p 0, IP 10.1.0.2.1234 > 10.2.0.2.5678: UDP, length 8" },
	{ ETH "88b5" "0002", "02:00:00:00:00:01 > 02:00:00:00:00:02, Unknown Ethertype (0x88b5), length 16" },
	/* cut short, lying */
	{ ETH "08", "[|ether]" },
	{ ETH "0800" "45000024000100004011", "IP [|ip]" },
	{ ETH "0800" IP4_UDP "04d2162e", "IP 10.1.0.2.1234 > 10.2.0.2.5678: [|udp]" },
	{ ETH "0800" IP4_UDP "04d2162e0004", "IP 10.1.0.2.1234 > 10.2.0.2.5678: [|udp]" },
	{ ETH "0800" IP4_UDP "04d2162e00040000", "IP 10.1.0.2.1234 > 10.2.0.2.5678: UDP, length 0" },
	{ ETH "0800" "4500000a00010000400600000a0100020a020002" "04d2005000000000000000005002000000000000",
	  "IP 10.1.0.2.1234 > 10.2.0.2.80: tcp 0" },
	{ ETH "86dd" "60000000", "IP6 [|ip6]" },
	{ ETH "0806" "00010800060400", "ARP, [|arp]" },
	{ "3333000000" "6b020000000001" "86dd" "6000000000083a01" "00000000000000000000000000000001"
	  "00010000000000000000000000000000" "8000000000070009", "IP6 ::1 > 1::: ICMP6, echo request, id 7, seq 9, length 8" },
};

static size_t unhex(const char *s, uint8_t *out)
{
	size_t n = 0;
	for (; s[0] && s[1]; s += 2)
		out[n++] = (uint8_t)strtoul((char[]){ s[0], s[1], 0 }, NULL, 16);
	return n;
}

static void test_lines(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t f[256];
		char line[160];
		uint32_t n = (uint32_t)unhex(cases[i].hex, f);
		pkt_summary(line, sizeof(line), f, n, n);
		if (strcmp(line, cases[i].want))
			fail_msg("case %zu: got '%s', want '%s'", i, line, cases[i].want);
	}
}

/* A short buffer gets a cut, NUL-terminated line. */
static void test_cut(void **state)
{
	uint8_t f[256];
	char line[12];
	(void)state;
	uint32_t n = (uint32_t)unhex(cases[0].hex, f);
	memset(line, 'x', sizeof(line));
	pkt_summary(line, sizeof(line), f, n, n);
	assert_string_equal(line, "IP 10.1.0.2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_cut),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
