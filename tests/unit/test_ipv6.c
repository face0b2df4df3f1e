/* Unit tests for net/ipv6.c: the ICMPv6 checksum of a Neighbor
 * Solicitation against scapy's, solicited-node groups and their MACs, and
 * the extension header walk over each kind it accepts and refuses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "net/ipv6.h"

/* An IPv6 packet: the fixed header (next header nh, payload len - 40)
 * followed by the bytes of ext. */
static size_t pkt(uint8_t *buf, uint8_t nh, const uint8_t *ext, size_t n)
{
	memset(buf, 0, IPV6_HLEN);
	buf[0] = 0x60;
	buf[4] = (uint8_t)(n >> 8);
	buf[5] = (uint8_t)n;
	buf[6] = nh;
	buf[7] = 64;
	memcpy(buf + IPV6_HLEN, ext, n);
	return IPV6_HLEN + n;
}

static void test_csum(void **state)
{
	/* An NS from fe80::1 for fe80::2 with its source link-layer address
	 * 02:00:00:00:00:01; scapy 2.5 gives it checksum 0x7a97. */
	static const uint8_t ns[] = {
		0x60, 0, 0, 0, 0, 32, 58, 255,
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
		0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0, 0, 2,
		135, 0, 0x00, 0x00, 0, 0, 0, 0,
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
		1, 1, 2, 0, 0, 0, 0, 1,
	};
	uint8_t p[sizeof(ns)];
	(void)state;
	memcpy(p, ns, sizeof(ns));
	uint16_t c = ipv6_l4_csum((const struct ipv6_hdr *)p, IP6_ICMPV6, p + IPV6_HLEN, 32);
	assert_int_equal(c, 0x7a97);
	p[42] = (uint8_t)(c >> 8);
	p[43] = (uint8_t)c;
	assert_int_equal(ipv6_l4_csum((const struct ipv6_hdr *)p, IP6_ICMPV6, p + IPV6_HLEN, 32), 0);
	p[50] ^= 1;
	assert_int_not_equal(ipv6_l4_csum((const struct ipv6_hdr *)p, IP6_ICMPV6, p + IPV6_HLEN, 32), 0);
}

static void test_groups(void **state)
{
	static const uint8_t a[16] = { 0x20, 0x01, 0x0d, 0xb8, [13] = 0xab, 0xcd, 0xef };
	static const uint8_t want[16] = { 0xff, 0x02, [11] = 1, 0xff, 0xab, 0xcd, 0xef };
	static const uint8_t want_mac[6] = { 0x33, 0x33, 0xff, 0xab, 0xcd, 0xef };
	uint8_t g[16], mac[6];
	(void)state;
	ipv6_solicited_node(a, g);
	assert_memory_equal(g, want, 16);
	ipv6_mcast_mac(g, mac);
	assert_memory_equal(mac, want_mac, 6);
	assert_true(ipv6_multicast(g));
	assert_false(ipv6_link_local(a));
	static const uint8_t one[16] = { [15] = 1 }, zero[16], ll[16] = { 0xfe, 0xbf };
	assert_true(ipv6_unspec_or_loopback(one, 1));
	assert_false(ipv6_unspec_or_loopback(one, 0));
	assert_true(ipv6_unspec_or_loopback(zero, 0));
	assert_true(ipv6_link_local(ll));
}

static void test_walk(void **state)
{
	uint8_t b[256];
	struct ipv6_walk w;
	(void)state;
	/* UDP at once. */
	assert_int_equal(ipv6_ext_walk(b, pkt(b, 17, (const uint8_t[8]){ 0 }, 8), &w), IPV6_EXT_OK);
	assert_int_equal(w.proto, 17);
	assert_int_equal(w.off, 40);
	/* HbH (PadN, Router Alert), Destination Options, then ICMPv6. */
	static const uint8_t chain[] = { IP6_DSTOPTS, 0, 1, 0, 5, 2, 0, 0, IP6_ICMPV6, 0, 1, 4, 0, 0, 0, 0, 128, 0 };
	assert_int_equal(ipv6_ext_walk(b, pkt(b, IP6_HOPOPTS, chain, sizeof(chain)), &w), IPV6_EXT_OK);
	assert_int_equal(w.proto, IP6_ICMPV6);
	assert_int_equal(w.off, 56);
	/* HbH after a Destination Options header: pointer at its Next Header. */
	static const uint8_t late[] = { IP6_HOPOPTS, 0, 1, 4, 0, 0, 0, 0, 17, 0, 1, 4, 0, 0, 0, 0 };
	assert_int_equal(ipv6_ext_walk(b, pkt(b, IP6_DSTOPTS, late, sizeof(late)), &w), IPV6_EXT_HBH_NOT_FIRST);
	assert_int_equal(w.ptr, 40);
	/* RH0 (RFC 5095): pointer at its Routing Type. */
	static const uint8_t rh0[24] = { 17, 2, 0, 1 };
	assert_int_equal(ipv6_ext_walk(b, pkt(b, IP6_ROUTING, rh0, sizeof(rh0)), &w), IPV6_EXT_RH0);
	assert_int_equal(w.ptr, 42);
	/* A header longer than the packet; one cut before its 8 bytes. */
	static const uint8_t longer[8] = { 17, 3, 1, 4 };
	assert_int_equal(ipv6_ext_walk(b, pkt(b, IP6_DSTOPTS, longer, 8), &w), IPV6_EXT_TRUNCATED);
	assert_int_equal(w.ptr, 41);
	assert_int_equal(ipv6_ext_walk(b, pkt(b, IP6_DSTOPTS, longer, 4), &w), IPV6_EXT_TRUNCATED);
	assert_int_equal(w.ptr, 6);
	/* An option running past its header. */
	static const uint8_t opt_past[8] = { 17, 0, 1, 9 };
	assert_int_equal(ipv6_ext_walk(b, pkt(b, IP6_HOPOPTS, opt_past, 8), &w), IPV6_EXT_TRUNCATED);
	assert_int_equal(w.ptr, 42);
	/* Unknown options by their action bits (RFC 8200 4.2). */
	static const uint8_t skip[8] = { 17, 0, 0x1e, 2, 0, 0, 1, 0 };
	assert_int_equal(ipv6_ext_walk(b, pkt(b, IP6_HOPOPTS, skip, 8), &w), IPV6_EXT_OK);
	static const uint8_t discard[8] = { 17, 0, 0x5e, 2, 0, 0, 1, 0 };
	assert_int_equal(ipv6_ext_walk(b, pkt(b, IP6_HOPOPTS, discard, 8), &w), IPV6_EXT_OPT_DISCARD);
	static const uint8_t tell[8] = { 17, 0, 0x9e, 2, 0, 0, 1, 0 };
	assert_int_equal(ipv6_ext_walk(b, pkt(b, IP6_HOPOPTS, tell, 8), &w), IPV6_EXT_OPT_ICMP);
	assert_int_equal(w.ptr, 42);
	assert_true(w.mcast_ok);
	static const uint8_t tell_unicast[8] = { 17, 0, 0xde, 2, 0, 0, 1, 0 };
	assert_int_equal(ipv6_ext_walk(b, pkt(b, IP6_HOPOPTS, tell_unicast, 8), &w), IPV6_EXT_OPT_ICMP);
	assert_false(w.mcast_ok);
	/* A fragment past the first ends the walk; the first goes on. */
	static const uint8_t later[16] = { IP6_DSTOPTS, 0, 0x03, 0x20, 0, 0, 0, 1 };
	assert_int_equal(ipv6_ext_walk(b, pkt(b, IP6_FRAGMENT, later, 16), &w), IPV6_EXT_OK);
	assert_int_equal(w.proto, IP6_FRAGMENT);
	assert_true(w.frag);
	static const uint8_t first[16] = { 17, 0, 0, 1, 0, 0, 0, 1 };
	assert_int_equal(ipv6_ext_walk(b, pkt(b, IP6_FRAGMENT, first, 16), &w), IPV6_EXT_OK);
	assert_int_equal(w.proto, 17);
	assert_int_equal(w.off, 48);
	/* AH's length is in 4-byte units, less 2. */
	static const uint8_t ah[16] = { 17, 2 };
	assert_int_equal(ipv6_ext_walk(b, pkt(b, IP6_AH, ah, 16), &w), IPV6_EXT_OK);
	assert_int_equal(w.off, 56);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csum),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_walk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
