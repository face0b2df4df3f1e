/* Unit tests for net/ipmap.c: tcprewrite's --srcipmap/--dstipmap forms
 * parsed, shown and refused; addresses mapped as tcpedit's remap_ipv4/6
 * (TO's network bits, the address's host bits); frames rewritten with every
 * checksum then recomputed from scratch (RFC 1071, RFC 768/793 and RFC 8200
 * 8.1 pseudo-headers) and found right: IPv4 TCP, UDP, UDP without a
 * checksum, ICMP, a later fragment, a VLAN tag, a frame cut short; IPv6
 * UDP behind a Destination Options header, ICMPv6; behind Routing headers
 * of types 0, 2 and 4 with Segments Left 0 and not (RFC 8200 8.1: the
 * pseudo-header's destination is then the final one), a Hop-by-Hop option
 * a router would drop, AH, a later fragment; tcprewrite's --pnat with
 * ARP requests and replies (ARP left alone by the src/dst maps). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "net/bytes.h"
#include "net/ipmap.h"
#include "net/ipv4.h"
#include "net/ipv6.h"

static struct ipmap map(const char *s)
{
	struct ipmap m;
	char err[256];
	assert_int_equal(ipmap_parse(&m, s, err, sizeof(err)), 0);
	return m;
}

static void test_parse_show(void **state)
{
	(void)state;
	static const char *const ok[][2] = {
		{ "off", "off" },
		{ "10.0.0.0/8:192.168.0.0/16", "10.0.0.0/8:192.168.0.0/16" },
		{ "10.1.0.0/16:10.9.0.0/16,172.16.0.1/32:172.16.0.2/32",
		  "10.1.0.0/16:10.9.0.0/16,172.16.0.1/32:172.16.0.2/32" },
		{ "[2001:DB8:0::/32]:[2001:db9::/48]", "[2001:db8::/32]:[2001:db9::/48]" },
		{ "[::/0]:[fd00::/8],0.0.0.0/0:10.0.0.0/8", "[::/0]:[fd00::/8],0.0.0.0/0:10.0.0.0/8" },
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct ipmap m = map(ok[i][0]);
		char buf[256];
		ipmap_show(&m, buf, sizeof(buf));
		assert_string_equal(buf, ok[i][1]);
	}
	static const char *const bad[][2] = {
		{ "", "accepted: off, or FROM:TO" },
		{ "10.0.0.0/8", "bad pair '10.0.0.0/8'" },
		{ "10.0.0.0/8:[2001:db8::/32]", "bad pair '10.0.0.0/8:[2001:db8::/32]'" },
		{ "10.0.0.0/33:10.0.0.0/8", "bad pair" },
		{ "10.0.0.0:10.1.0.0/16", "bad pair" },
		{ "2001:db8::/32:2001:db9::/32", "bad pair '2001:db8::/32:2001:db9::/32'" },
		{ "[2001:db8::/32:[2001:db9::/32]", "bad pair" },
		{ "10.0.0.0/8:11.0.0.0/8,", "a pair after the last ','" },
		{ "10.0.0.0/8:11.0.0.0/8;", "bad pair" },
		{ "1.0.0.0/8:2.0.0.0/8,3.0.0.0/8:4.0.0.0/8,5.0.0.0/8:6.0.0.0/8,7.0.0.0/8:8.0.0.0/8,"
		  "9.0.0.0/8:10.0.0.0/8", "more than 4 pairs" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ipmap m = map("10.0.0.0/8:11.0.0.0/8");
		char err[256] = "";
		assert_int_equal(ipmap_parse(&m, bad[i][0], err, sizeof(err)), -1);
		if (!strstr(err, bad[i][1]) || !strstr(err, "[ADDR6/LEN]:[ADDR6/LEN]"))
			fail_msg("'%s': %s", bad[i][0], err);
		assert_int_equal(m.n, 1);	/* untouched */
	}
}

static void test_apply(void **state)
{
	(void)state;
	struct ipmap m = map("10.1.0.0/16:192.168.0.0/24,10.0.0.0/8:172.16.0.0/12");
	uint8_t a[16] = { 10, 1, 2, 3 };
	assert_int_equal(ipmap_apply(&m, a, 4), 1);	/* the first pair: /24's network, .3 */
	assert_memory_equal(a, ((uint8_t[]){ 192, 168, 0, 3 }), 4);
	memcpy(a, (uint8_t[]){ 10, 200, 7, 9 }, 4);
	assert_int_equal(ipmap_apply(&m, a, 4), 1);	/* 172.16/12 keeps 20 host bits: 0xc8 -> 0xd8 */
	assert_memory_equal(a, ((uint8_t[]){ 172, 24 | (200 & 0x0f), 7, 9 }), 4);
	memcpy(a, (uint8_t[]){ 11, 1, 2, 3 }, 4);
	assert_int_equal(ipmap_apply(&m, a, 4), 0);
	assert_memory_equal(a, ((uint8_t[]){ 11, 1, 2, 3 }), 4);
	struct ipmap m6 = map("[2001:db8::/32]:[fd00:1:2::/48]");
	uint8_t b[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xaa, 0xbb, 0xcc, 0xdd, [15] = 5 };
	assert_int_equal(ipmap_apply(&m6, b, 16), 1);
	assert_memory_equal(b, ((uint8_t[]){ 0xfd, 0, 0, 1, 0, 2, 0xcc, 0xdd, 0, 0, 0, 0, 0, 0, 0, 5 }), 16);
	assert_int_equal(ipmap_apply(&m6, a, 4), 0);	/* a family's pairs only */
}

/* The sum of a pseudo-header (RFC 768, 793; RFC 8200 8.1) for ip. */
static uint64_t pseudo(const uint8_t *ip, int v6, uint8_t proto, uint32_t l4len)
{
	uint8_t ph[40] = { 0 };
	int alen = v6 ? 16 : 4;
	memcpy(ph, ip + (v6 ? 8 : 12), (size_t)alen * 2);
	put32(ph + 2 * alen, l4len);
	ph[2 * alen + 7] = proto;
	return inet_sum(ph, (size_t)2 * alen + 8);
}

/* 1 if the upper-layer checksum over l4 (len bytes) is right. */
static int l4_ok(const uint8_t *ip, int v6, uint8_t proto, const uint8_t *l4, uint32_t len)
{
	uint64_t s = inet_sum(l4, len) + (proto == 1 ? 0 : pseudo(ip, v6, proto, len));
	return inet_csum_fold(s) == 0;
}

/* l4's checksum at off written from scratch. */
static void l4_set(const uint8_t *ip, int v6, uint8_t proto, uint8_t *l4, uint32_t len, uint32_t off)
{
	put16(l4 + off, 0);
	put16(l4 + off, inet_csum_fold(inet_sum(l4, len) + (proto == 1 ? 0 : pseudo(ip, v6, proto, len))));
}

/* An IPv4 frame at f: tag (a VLAN ID, 0 for none), proto, frag_off, an
 * upper-layer message of l4len bytes (bytes i*7) with its checksum field
 * at csum_at; both checksums right. Returns the frame's length. */
static uint32_t v4frame(uint8_t *f, int tag, uint8_t proto, uint16_t frag, uint32_t l4len, uint32_t csum_at)
{
	uint32_t l3 = 14 + (tag ? 4 : 0);
	memset(f, 0, 1600);
	put16(f + 12, tag ? 0x8100 : 0x0800);
	if (tag) {
		put16(f + 14, (uint16_t)tag);
		put16(f + 16, 0x0800);
	}
	uint8_t *ip = f + l3, *l4 = ip + 20;
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(20 + l4len));
	put16(ip + 6, frag);
	ip[8] = 64;
	ip[9] = proto;
	memcpy(ip + 12, (uint8_t[]){ 10, 1, 0, 2, 10, 3, 0, 9 }, 8);
	for (uint32_t i = 0; i < l4len; i++)
		l4[i] = (uint8_t)(i * 7);
	if (proto == 17)
		put16(l4 + 4, (uint16_t)l4len);
	l4_set(ip, 0, proto, l4, l4len, csum_at);
	put16(ip + 10, inet_csum(ip, 20));
	return l3 + 20 + l4len;
}

static void test_rewrite_ipv4(void **state)
{
	(void)state;
	struct ipmap src = map("10.1.0.0/16:192.168.77.0/24"), dst = map("10.3.0.0/16:172.31.0.0/16");
	static const struct {
		uint8_t proto;
		int tag;
		uint32_t csum_at, l4len;
	} cases[] = { { 6, 0, 16, 40 }, { 17, 0, 6, 33 }, { 17, 100, 6, 18 }, { 1, 0, 2, 24 } };
	uint8_t f[1600];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t len = v4frame(f, cases[i].tag, cases[i].proto, 0, cases[i].l4len, cases[i].csum_at);
		uint8_t *ip = f + len - 20 - cases[i].l4len;
		uint8_t icmp_sum[2] = { ip[20 + 2], ip[20 + 3] };
		assert_int_equal(ipmap_rewrite(&src, &dst, f, len), 2);
		assert_memory_equal(ip + 12, ((uint8_t[]){ 192, 168, 77, 2, 172, 31, 0, 9 }), 8);
		assert_int_equal(inet_csum(ip, 20), 0);
		assert_true(l4_ok(ip, 0, cases[i].proto, ip + 20, cases[i].l4len));
		if (cases[i].proto == 1)	/* no pseudo-header: untouched */
			assert_memory_equal(ip + 22, icmp_sum, 2);
	}
	/* Only the source matches: one address, both sums right. */
	struct ipmap none = { 0 };
	uint32_t len = v4frame(f, 0, 6, 0, 40, 16);
	assert_int_equal(ipmap_rewrite(&src, &none, f, len), 1);
	assert_int_equal(inet_csum(f + 14, 20), 0);
	assert_true(l4_ok(f + 14, 0, 6, f + 34, 40));
	assert_int_equal(ipmap_rewrite(&none, &none, f, len), 0);
}

static void test_rewrite_ipv4_edges(void **state)
{
	(void)state;
	struct ipmap src = map("10.1.0.0/16:10.2.0.0/16"), none = { 0 };
	uint8_t f[1600], before[1600];
	/* UDP without a checksum keeps 0. */
	uint32_t len = v4frame(f, 0, 17, 0, 20, 6);
	put16(f + 34 + 6, 0);
	assert_int_equal(ipmap_rewrite(&src, &none, f, len), 1);
	assert_int_equal(get16(f + 34 + 6), 0);
	assert_int_equal(inet_csum(f + 14, 20), 0);
	/* A UDP sum that comes out 0 is sent as 0xffff (RFC 768): find one. */
	int seen = 0;
	for (int b = 0; b < 65536 && !seen; b++) {
		len = v4frame(f, 0, 17, 0, 20, 6);
		put16(f + 34 + 8, (uint16_t)b);
		l4_set(f + 14, 0, 17, f + 34, 20, 6);
		if (!get16(f + 34 + 6))
			continue;
		ipmap_rewrite(&src, &none, f, len);
		if (get16(f + 34 + 6) == 0xffff) {
			seen = 1;
			assert_true(l4_ok(f + 14, 0, 17, f + 34, 20));
		}
		assert_int_not_equal(get16(f + 34 + 6), 0);
	}
	assert_true(seen);
	/* A later fragment: the header and its sum change, the payload not. */
	len = v4frame(f, 0, 17, 185, 40, 6);
	memcpy(before, f, len);
	assert_int_equal(ipmap_rewrite(&src, &none, f, len), 1);
	assert_int_equal(inet_csum(f + 14, 20), 0);
	assert_memory_equal(f + 34, before + 34, len - 34);
	/* Cut short inside the UDP header: the IPv4 header is rewritten, nothing
	 * past len is written. */
	len = v4frame(f, 0, 17, 0, 40, 6);
	memcpy(before, f, sizeof(f));
	assert_int_equal(ipmap_rewrite(&src, &none, f, 14 + 20 + 6), 1);
	assert_int_equal(inet_csum(f + 14, 20), 0);
	assert_memory_equal(f + 34, before + 34, sizeof(f) - 34);
	/* Not IPv4 by its version, an ARP frame, a runt: left alone. */
	len = v4frame(f, 0, 17, 0, 20, 6);
	f[14] = 0x65;
	assert_int_equal(ipmap_rewrite(&src, &none, f, len), 0);
	put16(f + 12, 0x0806);
	f[14] = 0x45;
	assert_int_equal(ipmap_rewrite(&src, &none, f, len), 0);
	assert_int_equal(ipmap_rewrite(&src, &none, f, 20), 0);
}

/* An IPv6 frame: a Destination Options header (8 bytes of PadN) when
 * dstopt, then proto's message of l4len bytes with its checksum at
 * csum_at. Returns the length. */
static uint32_t v6frame(uint8_t *f, int dstopt, uint8_t proto, uint32_t l4len, uint32_t csum_at)
{
	static const uint8_t s[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2 };
	static const uint8_t d[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 3, [15] = 5 };
	memset(f, 0, 1600);
	put16(f + 12, ETHERTYPE_IPV6);
	uint8_t *ip = f + 14, *l4 = ip + 40 + (dstopt ? 8 : 0);
	ip[0] = 0x60;
	put16(ip + 4, (uint16_t)(l4len + (dstopt ? 8 : 0)));
	ip[6] = dstopt ? IP6_DSTOPTS : proto;
	ip[7] = 64;
	memcpy(ip + 8, s, 16);
	memcpy(ip + 24, d, 16);
	if (dstopt)
		memcpy(ip + 40, (uint8_t[]){ proto, 0, 1, 4, 0, 0, 0, 0 }, 8);
	for (uint32_t i = 0; i < l4len; i++)
		l4[i] = (uint8_t)(i * 13);
	if (proto == 17)
		put16(l4 + 4, (uint16_t)l4len);
	if (proto == IP6_ICMPV6)
		l4[0] = 128;
	l4_set(ip, 1, proto, l4, l4len, csum_at);
	return 14 + 40 + (dstopt ? 8 : 0) + l4len;
}

static void test_rewrite_ipv6(void **state)
{
	(void)state;
	struct ipmap src = map("[2001:db8:1::/48]:[fd00:aa::/32]"), dst = map("[2001:db8::/32]:[2001:db9::/32]");
	static const uint8_t s2[16] = { 0xfd, 0, 0, 0xaa, 0, 1, [15] = 2 };
	static const uint8_t d2[16] = { 0x20, 0x01, 0x0d, 0xb9, 0, 3, [15] = 5 };
	static const struct {
		int dstopt;
		uint8_t proto;
		uint32_t csum_at, l4len;
	} cases[] = { { 0, 17, 6, 21 }, { 1, 17, 6, 30 }, { 0, 6, 16, 20 }, { 1, IP6_ICMPV6, 2, 16 } };
	uint8_t f[1600];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t len = v6frame(f, cases[i].dstopt, cases[i].proto, cases[i].l4len, cases[i].csum_at);
		uint8_t *ip = f + 14;
		assert_int_equal(ipmap_rewrite(&src, &dst, f, len), 2);
		assert_memory_equal(ip + 8, s2, 16);
		assert_memory_equal(ip + 24, d2, 16);
		assert_true(l4_ok(ip, 1, cases[i].proto, f + len - cases[i].l4len, cases[i].l4len));
	}
	/* An IPv4 map leaves IPv6 alone. */
	struct ipmap v4 = map("0.0.0.0/0:10.0.0.0/8");
	uint32_t len = v6frame(f, 0, 17, 21, 6);
	assert_int_equal(ipmap_rewrite(&v4, &v4, f, len), 0);
}

/* The sum of an IPv6 pseudo-header (RFC 8200 8.1) of src, dst. */
static uint64_t pseudo6(const uint8_t *src, const uint8_t *dst, uint8_t proto, uint32_t l4len)
{
	uint8_t ph[40] = { 0 };
	memcpy(ph, src, 16);
	memcpy(ph + 16, dst, 16);
	put32(ph + 32, l4len);
	ph[39] = proto;
	return inet_sum(ph, 40);
}

static const uint8_t A_SRC[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2 };
static const uint8_t A_HOP[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 3, [15] = 5 };
static const uint8_t A_FINAL[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 9, [15] = 7 };

/* An IPv6 frame with the extension header ext (extlen bytes, its Next
 * Header set here to UDP) and a UDP datagram of 24 bytes whose checksum
 * takes final as the pseudo-header's destination. Returns the length. */
static uint32_t v6ext(uint8_t *f, uint8_t ext_type, const uint8_t *ext, uint32_t extlen, const uint8_t *final)
{
	memset(f, 0, 1600);
	put16(f + 12, ETHERTYPE_IPV6);
	uint8_t *ip = f + 14, *udp = ip + 40 + extlen;
	ip[0] = 0x60;
	put16(ip + 4, (uint16_t)(extlen + 24));
	ip[6] = ext_type;
	ip[7] = 64;
	memcpy(ip + 8, A_SRC, 16);
	memcpy(ip + 24, A_HOP, 16);
	memcpy(ip + 40, ext, extlen);
	ip[40] = 17;
	put16(udp, 1234);
	put16(udp + 2, 5678);
	put16(udp + 4, 24);
	for (int i = 8; i < 24; i++)
		udp[i] = (uint8_t)(i * 5);
	put16(udp + 6, inet_csum_fold(inet_sum(udp, 24) + pseudo6(A_SRC, final, 17, 24)));
	return 14 + 40 + extlen + 24;
}

/* A Routing header of type (0, 2 or 4: SRH, RFC 8754 2) carrying final as
 * the last address of its path, segments left, into rh; its length. */
static uint32_t routing(uint8_t *rh, uint8_t type, uint8_t left, const uint8_t *final)
{
	memset(rh, 0, 40);
	rh[1] = 4;	/* two addresses: 8 + 32 bytes */
	rh[2] = type;
	rh[3] = left;
	if (type == 2) {	/* RFC 6275 6.4: one address, the home address */
		rh[1] = 2;
		memcpy(rh + 8, final, 16);
		return 24;
	}
	memcpy(rh + 8, type == 4 ? final : A_HOP, 16);	/* SRH: Segment List[0] is the last */
	memcpy(rh + 24, type == 4 ? A_HOP : final, 16);
	return 40;
}

static void test_rewrite_ipv6_routing(void **state)
{
	(void)state;
	struct ipmap src = map("[2001:db8:1::/48]:[fd00:aa::/32]"), dst = map("[2001:db8::/32]:[2001:db9::/32]");
	static const uint8_t s2[16] = { 0xfd, 0, 0, 0xaa, 0, 1, [15] = 2 };
	static const uint8_t d2[16] = { 0x20, 0x01, 0x0d, 0xb9, 0, 3, [15] = 5 };
	uint8_t f[1600], rh[40];
	for (int type = 0; type <= 4; type += 2) {
		for (int left = 0; left <= 1; left++) {
			/* Segments Left 0: the header's destination is the final one. */
			uint32_t n = routing(rh, (uint8_t)type, (uint8_t)left, left ? A_FINAL : A_HOP);
			uint32_t len = v6ext(f, IP6_ROUTING, rh, n, left ? A_FINAL : A_HOP);
			uint8_t *ip = f + 14, *udp = f + len - 24;
			assert_int_equal(ipmap_rewrite(&src, &dst, f, len), 2);
			assert_memory_equal(ip + 8, s2, 16);
			assert_memory_equal(ip + 24, d2, 16);
			assert_memory_equal(ip + 40 + 8, rh + 8, n - 8);	/* the path as it was */
			if (inet_csum_fold(inet_sum(udp, 24) + pseudo6(s2, left ? A_FINAL : d2, 17, 24)))
				fail_msg("type %d segments left %d: UDP checksum wrong", type, left);
		}
	}
	/* A Hop-by-Hop option of an unknown type a router discards (RFC 8200
	 * 4.2, 10xxxxxx), AH (RFC 4302: length in 4-byte units, less 2). */
	static const uint8_t hbh[8] = { 0, 0, 0x80, 4, 1, 2, 3, 4 };
	static const uint8_t ah[16] = { 0, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 9, 9, 9, 9 };
	const struct {
		uint8_t type;
		const uint8_t *h;
		uint32_t n;
	} others[] = { { IP6_HOPOPTS, hbh, sizeof(hbh) }, { IP6_AH, ah, sizeof(ah) } };
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		uint32_t len = v6ext(f, others[i].type, others[i].h, others[i].n, A_HOP);
		uint8_t *udp = f + len - 24;
		assert_int_equal(ipmap_rewrite(&src, &dst, f, len), 2);
		assert_int_equal(inet_csum_fold(inet_sum(udp, 24) + pseudo6(s2, d2, 17, 24)), 0);
		for (int k = 8; k < 24; k++)	/* the sum moved in its field, not in the payload */
			assert_int_equal(udp[k], (uint8_t)(k * 5));
	}
	/* A fragment past the first: its payload stays. */
	static const uint8_t frag[8] = { 0, 0, 0, 8 * 8, 0, 0, 0, 1 };
	uint8_t before[1600];
	uint32_t len = v6ext(f, IP6_FRAGMENT, frag, sizeof(frag), A_HOP);
	memcpy(before, f, sizeof(f));
	assert_int_equal(ipmap_rewrite(&src, &dst, f, len), 2);
	assert_memory_equal(f + 62, before + 62, sizeof(f) - 62);
	/* A Routing header cut short: the addresses change, nothing past len. */
	uint32_t n = routing(rh, 4, 1, A_FINAL);
	len = v6ext(f, IP6_ROUTING, rh, n, A_FINAL);
	memcpy(before, f, sizeof(f));
	assert_int_equal(ipmap_rewrite(&src, &dst, f, 14 + 40 + 20), 2);
	assert_memory_equal(f + 54, before + 54, sizeof(f) - 54);
}

/* An ARP packet over Ethernet (RFC 826) with a tag when tag: op, sender and
 * target protocol addresses. Returns the length. */
static uint32_t arpframe(uint8_t *f, int tag, uint16_t op, const uint8_t spa[4], const uint8_t tpa[4])
{
	uint32_t l3 = 14 + (tag ? 4 : 0);
	memset(f, 0, 1600);
	memset(f, 0xff, 6);
	put16(f + 12, tag ? 0x8100 : 0x0806);
	if (tag) {
		put16(f + 14, (uint16_t)tag);
		put16(f + 16, 0x0806);
	}
	uint8_t *a = f + l3;
	put16(a, 1);
	put16(a + 2, 0x0800);
	a[4] = 6;
	a[5] = 4;
	put16(a + 6, op);
	memset(a + 8, 0x02, 6);
	memcpy(a + 14, spa, 4);
	memcpy(a + 24, tpa, 4);
	return l3 + 28;
}

static void test_pnat(void **state)
{
	(void)state;
	struct ipmap m = map("10.1.0.0/16:192.168.77.0/24,10.3.0.0/16:172.31.0.0/16"), none = { 0 };
	static const uint8_t a[4] = { 10, 1, 0, 2 }, b[4] = { 10, 3, 0, 9 };
	static const uint8_t a2[4] = { 192, 168, 77, 2 }, b2[4] = { 172, 31, 0, 9 };
	uint8_t f[1600], before[1600];
	for (int tag = 0; tag <= 100; tag += 100) {
		for (uint16_t op = 1; op <= 2; op++) {
			uint32_t len = arpframe(f, tag, op, op == 1 ? a : b, op == 1 ? b : a);
			uint8_t *arp = f + len - 28;
			memcpy(before, f, sizeof(f));
			assert_int_equal(ipmap_rewrite(&m, &m, f, len), 0);	/* --srcipmap/--dstipmap: not ARP */
			assert_int_equal(ipmap_pnat(&m, f, len), 2);
			assert_memory_equal(arp + 14, op == 1 ? a2 : b2, 4);
			assert_memory_equal(arp + 24, op == 1 ? b2 : a2, 4);
			memcpy(before + len - 28 + 14, arp + 14, 4);
			memcpy(before + len - 28 + 24, arp + 24, 4);
			assert_memory_equal(f, before, sizeof(f));	/* nothing else */
		}
	}
	/* Only requests and replies (as tcprewrite), IPv4 over 4-byte
	 * addresses, whole: RARP's op 3, a protocol length of 16, a cut. */
	uint32_t len = arpframe(f, 0, 3, a, b);
	assert_int_equal(ipmap_pnat(&m, f, len), 0);
	len = arpframe(f, 0, 1, a, b);
	f[14 + 5] = 16;
	assert_int_equal(ipmap_pnat(&m, f, len), 0);
	len = arpframe(f, 0, 1, a, b);
	assert_int_equal(ipmap_pnat(&m, f, len - 1), 0);
	assert_int_equal(ipmap_pnat(&m, f, len), 2);
	assert_int_equal(ipmap_pnat(&none, f, len), 0);
	/* IPv4 and IPv6: both addresses by the one map. */
	len = v4frame(f, 0, 6, 0, 40, 16);
	memcpy(f + 14 + 16, b, 4);
	put16(f + 14 + 10, 0);
	put16(f + 14 + 10, inet_csum(f + 14, 20));
	l4_set(f + 14, 0, 6, f + 34, 40, 16);
	assert_int_equal(ipmap_pnat(&m, f, len), 2);
	assert_memory_equal(f + 14 + 12, a2, 4);
	assert_memory_equal(f + 14 + 16, b2, 4);
	assert_int_equal(inet_csum(f + 14, 20), 0);
	assert_true(l4_ok(f + 14, 0, 6, f + 34, 40));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_show),
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_rewrite_ipv4),
		cmocka_unit_test(test_rewrite_ipv4_edges),
		cmocka_unit_test(test_rewrite_ipv6),
		cmocka_unit_test(test_rewrite_ipv6_routing),
		cmocka_unit_test(test_pnat),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
