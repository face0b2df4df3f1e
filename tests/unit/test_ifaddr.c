/* Unit tests for net/ifaddr.c's VLAN sub-interfaces: ipN.VID= and ipN.S.C= through
 * cmdline_parse (its NAME.SUB keys), the link table it builds and the
 * address rules across links. Includes net/ifaddr.c for its static knobs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "net/ifaddr.c"

static char last[CMDLINE_MSG_MAX];

static void report(const char *msg, const char *word, size_t wlen, void *ctx)
{
	(void)word;
	(void)wlen;
	(*(int *)ctx)++;
	snprintf(last, sizeof(last), "%s", msg);
}

/* Parse line against ip0..ip2 from empty tables; returns the errors. */
static int parse(const char *line)
{
	const struct knob ks[] = { knob_ip0, knob_ip1, knob_ip2 };
	int n = 0;
	memset(ifaddrs, 0, sizeof(ifaddrs));
	ifaddr_nvlans = 0;
	last[0] = 0;
	cmdline_parse(line, ks, 3, report, &n);
	return n;
}

static uint32_t ip4(unsigned a, unsigned b, unsigned c, unsigned d)
{
	return a << 24 | b << 16 | c << 8 | d;
}

static void test_links(void **state)
{
	(void)state;
	char name[16];
	assert_int_equal(parse("ip0=10.1.0.1/24 ip0.100=10.100.0.1/24,2001:db8:100::1/64 ip1.100=10.101.0.1/24 "
			       "ip0.4094=10.4.0.1/24"), 0);
	assert_int_equal(ifaddr_nvlans, 3);
	assert_int_equal(ifaddr_vlan_link(0, 100), IFADDR_PORTS);
	assert_int_equal(ifaddr_vlan_link(1, 100), IFADDR_PORTS + 1);
	assert_int_equal(ifaddr_vlan_link(0, 4094), IFADDR_PORTS + 2);
	assert_int_equal(ifaddr_vlan_link(0, 200), -1);
	assert_int_equal(ifaddr_vlan_link(2, 100), -1);
	assert_int_equal(ifaddr_link_port(IFADDR_PORTS + 1), 1);
	assert_int_equal(ifaddr_link_vid(IFADDR_PORTS + 2), 4094);
	assert_int_equal(ifaddr_link_port(3), 3);
	assert_int_equal(ifaddr_link_vid(3), 0);
	assert_string_equal(ifaddr_link_name(name, sizeof(name), "port", IFADDR_PORTS), "port0.100");
	assert_string_equal(ifaddr_link_name(name, sizeof(name), "ip", IFADDR_PORTS + 2), "ip0.4094");
	assert_string_equal(ifaddr_link_name(name, sizeof(name), "port", 1), "port1");
	/* Each link its own addresses; the port's own stays the port's. */
	assert_int_equal(ifaddrs[0].v4.addr, ip4(10, 1, 0, 1));
	assert_int_equal(ifaddrs[IFADDR_PORTS].v4.addr, ip4(10, 100, 0, 1));
	assert_int_equal(ifaddrs[IFADDR_PORTS].v4.len, 24);
	assert_int_equal(ifaddrs[IFADDR_PORTS].n6, 1);
	assert_int_equal(ifaddrs[IFADDR_PORTS + 1].v4.addr, ip4(10, 101, 0, 1));
	assert_int_equal(ifaddrs[1].v4.addr, 0);
	assert_true(ifaddr4_is_local(ip4(10, 100, 0, 1)));
	assert_true(ifaddr4_directed_broadcast(ip4(10, 101, 0, 255)));
	assert_false(ifaddr4_is_local(ip4(10, 100, 0, 2)));
	const uint8_t a6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x01, 0x00, [15] = 1 };
	assert_int_equal(ifaddr6_port_of(a6), IFADDR_PORTS);
	assert_true(ifaddr6_on_port(IFADDR_PORTS, a6));
	assert_false(ifaddr6_on_port(0, a6));
}

/* QinQ sub-interfaces (ipN.S.C=) beside one-tag ones of the same VIDs:
 * each (port, S-VID, C-VID) its own link, named S then C. */
static void test_qinq_links(void **state)
{
	(void)state;
	char name[16];
	assert_int_equal(parse("ip0.100=10.100.0.1/24 ip0.10.100=10.110.0.1/24 ip0.20.100=10.120.0.1/24 "
			       "ip1.4094.4094=10.4.0.1/24"), 0);
	assert_int_equal(ifaddr_nvlans, 4);
	assert_int_equal(ifaddr_vlan_link(0, 100), IFADDR_PORTS);
	assert_int_equal(ifaddr_tags_link(0, 0, 100), IFADDR_PORTS);
	assert_int_equal(ifaddr_tags_link(0, 10, 100), IFADDR_PORTS + 1);
	assert_int_equal(ifaddr_tags_link(0, 20, 100), IFADDR_PORTS + 2);
	assert_int_equal(ifaddr_tags_link(1, 4094, 4094), IFADDR_PORTS + 3);
	assert_int_equal(ifaddr_tags_link(0, 100, 10), -1);
	assert_int_equal(ifaddr_tags_link(1, 10, 100), -1);
	assert_int_equal(ifaddr_vlan_link(0, 10), -1);
	assert_int_equal(ifaddr_link_svid(IFADDR_PORTS), 0);
	assert_int_equal(ifaddr_link_svid(IFADDR_PORTS + 2), 20);
	assert_int_equal(ifaddr_link_vid(IFADDR_PORTS + 2), 100);
	assert_int_equal(ifaddr_link_svid(0), 0);
	assert_string_equal(ifaddr_link_name(name, sizeof(name), "port", IFADDR_PORTS + 1), "port0.10.100");
	assert_string_equal(ifaddr_link_name(name, sizeof(name), "port", IFADDR_PORTS + 3), "port1.4094.4094");
	assert_string_equal(ifaddr_link_name(name, sizeof(name), "ip", IFADDR_PORTS), "ip0.100");
	assert_int_equal(ifaddrs[IFADDR_PORTS + 2].v4.addr, ip4(10, 120, 0, 1));
	/* show config's lines: S.C as given */
	char sub[16], v[64];
	assert_int_equal(show_vlan(0, 1, sub, sizeof(sub), v, sizeof(v)), 0);
	assert_string_equal(sub, "10.100");
	assert_string_equal(v, "10.110.0.1/24");
	assert_int_equal(show_vlan(0, 0, sub, sizeof(sub), v, sizeof(v)), 0);
	assert_string_equal(sub, "100");
}

/* One bad word: refused with why and the accepted forms, no link made. */
static void refused(const char *line, int vlans, const char *why)
{
	assert_int_equal(parse(line), 1);
	assert_non_null(strstr(last, why));
	assert_non_null(strstr(last, "accepted: "));
	/* A NAME.SUB word's message has the whole accepted text (a plain
	 * word's is cut at 256 bytes, before the VLAN forms). */
	assert_true(strstr(last, "for ip1=") || strstr(strstr(last, "accepted: "), "VID 1-4094"));
	assert_int_equal(ifaddr_nvlans, vlans);
}

static void test_bad_forms(void **state)
{
	(void)state;
	refused("ip0.0=10.9.0.1/24", 0, "VLAN ID '0' is not 1-4094");
	refused("ip0.4095=10.9.0.1/24", 0, "VLAN ID '4095' is not 1-4094");
	refused("ip0.0100=10.9.0.1/24", 0, "VLAN ID '0100' is not 1-4094");
	refused("ip0.99999999999=10.9.0.1/24", 0, "is not 1-4094");
	refused("ip0.1x=10.9.0.1/24", 0, "VLAN ID '1x' is not 1-4094");
	refused("ip0.=10.9.0.1/24", 0, "VLAN ID '' is not 1-4094");
	refused("ip0.100=10.100.0.1/24 ip0.100=10.9.0.1/24", 1, "ip0.100= given before");
	refused("ip0.10.0=10.9.0.1/24", 0, "VLAN ID '10.0' is not 1-4094, nor S.C");
	refused("ip0.0.100=10.9.0.1/24", 0, "VLAN ID '0.100' is not 1-4094");
	refused("ip0.10.=10.9.0.1/24", 0, "VLAN ID '10.' is not 1-4094");
	refused("ip0.10.100.5=10.9.0.1/24", 0, "VLAN ID '10.100.5' is not 1-4094");
	refused("ip0.10.4095=10.9.0.1/24", 0, "VLAN ID '10.4095' is not 1-4094");
	refused("ip0.10.100=10.100.0.1/24 ip0.10.100=10.9.0.1/24", 1, "ip0.10.100= given before");
	refused("ip0=10.1.0.1/24 ip0.100=10.1.0.9/24", 0, "overlaps ip0=10.1.0.1/24");
	refused("ip0.100=10.100.0.1/24 ip1=10.100.0.9/16", 1, "overlaps ip0.100=10.100.0.1/24");
	refused("ip0.100=dhcp", 0, "a VLAN sub-interface takes");
	refused("ip0.100=10.100.0.1/24,gw=10.100.0.9", 0, "a VLAN sub-interface takes");
	refused("ip0.100=10.100.0.1", 0, "not A.B.C.D/LEN");
	refused("ip0.1=10.0.1.1/24 ip0.2=10.0.2.1/24 ip0.3=10.0.3.1/24 ip0.4=10.0.4.1/24 ip0.5=10.0.5.1/24 "
		"ip0.6=10.0.6.1/24 ip0.7=10.0.7.1/24 ip0.8=10.0.8.1/24 ip0.9=10.0.9.1/24", IFADDR_VLANS,
		"more than 8 VLAN sub-interfaces");
	/* A refused word keeps no half of itself: the next one takes the slot. */
	assert_int_equal(parse("ip0.0=10.9.0.1/24 ip0.100=10.100.0.1/24"), 1);
	assert_int_equal(ifaddr_vlan_link(0, 100), IFADDR_PORTS);
	assert_int_equal(ifaddrs[IFADDR_PORTS + 1].v4.addr, 0);
	/* Only knobs with parse_sub take NAME.SUB; others stay unknown. */
	assert_int_equal(parse("ipx.100=10.9.0.1/24"), 1);
	assert_non_null(strstr(last, "unknown knob 'ipx.100'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_qinq_links),
		cmocka_unit_test(test_bad_forms),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
