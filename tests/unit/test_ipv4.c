/* Unit tests for net/ipv4.c: checksums (RFC 1071, RFC 1624), IPv4 header
 * checks, ICMP errors and ARP, against frames made by scapy 2.5.0:
 *   Ether(src=H, dst=R)/IP(src="10.1.0.2", dst="10.2.0.9", ttl=1, id=0x1234)
 *     /UDP(sport=1234, dport=5678)/b"payload-bytes-beyond-eight"
 *   Ether(dst=H, src=R)/IP(src="10.1.0.1", dst="10.1.0.2", ttl=64, tos=0xc0,
 *     id=0, flags=0)/ICMP(type=11, code=0)/raw(f1[IP])[:28]
 * with H = 02:00:00:00:00:01, R = 02:00:00:00:00:aa; the others likewise,
 * as each fixture says. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "net/bytes.h"
#include "net/ipv4.h"
#include "net/pkt.h"

static const uint8_t host_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t router_mac[6] = { 0x02, 0, 0, 0, 0, 0xaa };
#define ROUTER_IP 0x0a010001	/* 10.1.0.1 */
#define HOST_IP 0x0a010002	/* 10.1.0.2 */

/* IP(src="10.1.0.2", dst="10.2.0.9", ttl=64, id=0x1234, proto=17, len=100) */
static const uint8_t hdr_udp[20] = {
	0x45, 0x00, 0x00, 0x64, 0x12, 0x34, 0x00, 0x00, 0x40, 0x11, 0x54, 0x48,
	0x0a, 0x01, 0x00, 0x02, 0x0a, 0x02, 0x00, 0x09,
};
/* IP(src="192.168.1.1", dst="8.8.8.8", ttl=1, flags="DF", proto=6, len=40, tos=0x10) */
static const uint8_t hdr_tcp[20] = {
	0x45, 0x10, 0x00, 0x28, 0x00, 0x00, 0x40, 0x00, 0x01, 0x06, 0xa8, 0x07,
	0xc0, 0xa8, 0x01, 0x01, 0x08, 0x08, 0x08, 0x08,
};
/* IP(src="172.16.254.3", dst="10.0.0.255", ttl=255, id=0xffff, proto=1, len=84,
 *    options=[NOP, NOP, NOP, EOL]) */
static const uint8_t hdr_opt[24] = {
	0x46, 0x00, 0x00, 0x54, 0xff, 0xff, 0x00, 0x00, 0xff, 0x01, 0x03, 0x95,
	0xac, 0x10, 0xfe, 0x03, 0x0a, 0x00, 0x00, 0xff, 0x01, 0x01, 0x01, 0x00,
};

/* Recompute the header checksum of an IPv4 header in place. */
static void fix_csum(uint8_t *h)
{
	size_t hlen = (size_t)(h[0] & 0xf) * 4;
	put16(h + 10, 0);
	put16(h + 10, inet_csum(h, hlen));
}

static void test_csum_rfc1071(void **state)
{
	/* RFC 1071 section 3: the words sum to 0xddf2. */
	static const uint8_t v[8] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
	static const uint8_t odd[3] = { 0x01, 0x02, 0x03 };	/* 0x0102 + 0x0300 */
	(void)state;
	assert_int_equal(inet_csum(v, 8), 0x220d);
	assert_int_equal(inet_csum(odd, 3), (uint16_t)~0x0402);
	assert_int_equal(inet_csum(v, 0), 0xffff);
	/* The sum is independent of where a word starts (RFC 1071 2(B)). */
	uint8_t buf[9] = { 0 };
	memcpy(buf + 1, v, 8);
	assert_int_equal(inet_csum(buf + 1, 8), 0x220d);
}

static void test_csum_scapy(void **state)
{
	/* ICMP(type=8, id=0x4242, seq=7)/b"linerate!": 17 bytes, odd. */
	uint8_t icmp[17] = { 0x08, 0x00, 0xd3, 0x20, 0x42, 0x42, 0x00, 0x07, 0x6c,
			     0x69, 0x6e, 0x65, 0x72, 0x61, 0x74, 0x65, 0x21 };
	const struct { const uint8_t *h; size_t len; uint16_t csum; } v[] = {
		{ hdr_udp, 20, 0x5448 }, { hdr_tcp, 20, 0xa807 }, { hdr_opt, 24, 0x0395 },
		{ icmp, 17, 0xd320 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		uint8_t b[24];
		memcpy(b, v[i].h, v[i].len);
		assert_int_equal(inet_csum(b, v[i].len), 0);	/* holds its checksum */
		put16(b + (i == 3 ? 2 : 10), 0);
		assert_int_equal(inet_csum(b, v[i].len), v[i].csum);
	}
}

static void test_csum_update_rfc1624(void **state)
{
	(void)state;
	/* RFC 1624 section 4: eqn. 3 gives 0x0000 where RFC 1141 gave 0xFFFF. */
	assert_int_equal(inet_csum_update(0xdd2f, 0x5555, 0x3285), 0x0000);
	/* Nothing changes: the same checksum, also for the two zeros. */
	assert_int_equal(inet_csum_update(0x1234, 0xabcd, 0xabcd), 0x1234);
	assert_int_equal(inet_csum_update(0x0000, 0x4011, 0x4011), 0x0000);
	/* A stored 0xFFFF (-0, which also verifies) is updated as 0x0000 would be. */
	assert_int_equal(inet_csum_update(0xffff, 0x4011, 0x3f11),
			 inet_csum_update(0x0000, 0x4011, 0x3f11));
}

/* TTL t in header h (hlen bytes), checksum made whole; then decrement and
 * compare with a full recomputation. */
static void check_ttl_dec(const uint8_t *h, size_t hlen, uint8_t t, uint16_t id)
{
	uint8_t a[24], b[24];
	memcpy(a, h, hlen);
	put16(a + 4, id);
	a[8] = t;
	fix_csum(a);
	memcpy(b, a, hlen);
	b[8] = (uint8_t)(t - 1);
	fix_csum(b);
	ipv4_ttl_dec((struct ipv4_hdr *)a);
	assert_int_equal(a[8], t - 1);
	assert_int_equal(get16(a + 10), get16(b + 10));
	assert_int_equal(inet_csum(a, hlen), 0);
}

/* The ID that makes the checksum of h with TTL t 0x0000 (sum 0xFFFF). */
static uint16_t id_for_zero_csum(const uint8_t *h, size_t hlen, uint8_t t)
{
	uint8_t a[24];
	memcpy(a, h, hlen);
	put16(a + 4, 0);
	put16(a + 10, 0);
	a[8] = t;
	uint16_t sum = (uint16_t)~inet_csum(a, hlen);	/* folded sum of the rest */
	return (uint16_t)(0xffff - sum);
}

static void test_ttl_dec_all(void **state)
{
	const struct { const uint8_t *h; size_t len; } v[] = {
		{ hdr_udp, 20 }, { hdr_tcp, 20 }, { hdr_opt, 24 },
	};
	(void)state;
	int zero_before = 0, zero_after = 0;
	for (size_t i = 0; i < 3; i++) {
		for (int t = 1; t <= 255; t++) {
			check_ttl_dec(v[i].h, v[i].len, (uint8_t)t, get16(v[i].h + 4));
			/* Checksum 0x0000 before, and 0x0000 after the decrement. */
			uint16_t id = id_for_zero_csum(v[i].h, v[i].len, (uint8_t)t);
			uint8_t a[24];
			memcpy(a, v[i].h, v[i].len);
			put16(a + 4, id);
			a[8] = (uint8_t)t;
			fix_csum(a);
			zero_before += get16(a + 10) == 0;
			check_ttl_dec(v[i].h, v[i].len, (uint8_t)t, id);
			id = id_for_zero_csum(v[i].h, v[i].len, (uint8_t)(t - 1));
			a[8] = (uint8_t)(t - 1);
			put16(a + 4, id);
			fix_csum(a);
			zero_after += get16(a + 10) == 0;
			check_ttl_dec(v[i].h, v[i].len, (uint8_t)t, id);
		}
	}
	assert_int_equal(zero_before, 3 * 255);
	assert_int_equal(zero_after, 3 * 255);

	/* A header carrying 0xFFFF for a zero checksum still verifies after. */
	uint8_t a[20];
	memcpy(a, hdr_udp, 20);
	put16(a + 4, id_for_zero_csum(hdr_udp, 20, 64));
	fix_csum(a);
	assert_int_equal(get16(a + 10), 0x0000);
	put16(a + 10, 0xffff);
	assert_int_equal(inet_csum(a, 20), 0);
	ipv4_ttl_dec((struct ipv4_hdr *)a);
	assert_int_equal(inet_csum(a, 20), 0);
}

/* ipv4_hdr20_csum_ok against inet_csum: scapy's headers verify; of all
 * 65536 checksum fields exactly the right one verifies (two, 0x0000 and
 * 0xFFFF, for a header whose checksum is 0x0000); no single-bit error
 * verifies; on pseudo-random headers, whole or not, the verdicts agree. */
static void test_hdr20_csum_ok(void **state)
{
	(void)state;
	assert_true(ipv4_hdr20_csum_ok(hdr_udp));
	assert_true(ipv4_hdr20_csum_ok(hdr_tcp));

	uint8_t a[20], z[20];
	memcpy(z, hdr_udp, 20);
	put16(z + 4, id_for_zero_csum(hdr_udp, 20, 64));
	fix_csum(z);
	assert_int_equal(get16(z + 10), 0x0000);
	int ok_udp = 0, ok_zero = 0;
	for (unsigned c = 0; c <= 0xffff; c++) {
		memcpy(a, hdr_udp, 20);
		put16(a + 10, (uint16_t)c);
		assert_int_equal(ipv4_hdr20_csum_ok(a), inet_csum(a, 20) == 0);
		ok_udp += ipv4_hdr20_csum_ok(a);
		put16(z + 10, (uint16_t)c);
		assert_int_equal(ipv4_hdr20_csum_ok(z), inet_csum(z, 20) == 0);
		ok_zero += ipv4_hdr20_csum_ok(z);
	}
	assert_int_equal(ok_udp, 1);
	assert_int_equal(ok_zero, 2);

	int ok_flip = 0;
	for (int bit = 0; bit < 160; bit++) {
		memcpy(a, hdr_udp, 20);
		a[bit / 8] ^= (uint8_t)(1u << bit % 8);
		ok_flip += ipv4_hdr20_csum_ok(a);
	}
	assert_int_equal(ok_flip, 0);

	uint32_t x = 0x2545f491;	/* xorshift32 (Marsaglia 2003) */
	int whole = 0;
	for (int n = 0; n < 100000; n++) {
		for (int i = 0; i < 20; i++) {
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			a[i] = (uint8_t)x;
		}
		a[0] = 0x45;
		if (n & 1)
			fix_csum(a);
		assert_int_equal(ipv4_hdr20_csum_ok(a), inet_csum(a, 20) == 0);
		whole += ipv4_hdr20_csum_ok(a);
	}
	assert_true(whole >= 50000 && whole < 50010);	/* the fixed half, and chance */

	/* The 64-bit adds' carries: headers of 0xff bytes (both adds carry)
	 * but for one byte, each value at each place, whole or not. */
	int ff_whole = 0;
	for (int at = 0; at < 20; at++) {
		for (unsigned v = 0; v <= 0xff; v++) {
			memset(a, 0xff, 20);
			a[at] = (uint8_t)v;
			assert_int_equal(ipv4_hdr20_csum_ok(a), inet_csum(a, 20) == 0);
			ff_whole += ipv4_hdr20_csum_ok(a);
			if (at != 10 && at != 11) {	/* whole (fix_csum reads the IHL, 15 here) */
				put16(a + 10, 0);
				put16(a + 10, inet_csum(a, 20));
				assert_true(ipv4_hdr20_csum_ok(a));
			}
		}
	}
	assert_int_equal(ff_whole, 20);	/* only the all-0xff header (ten -0 words), once per place */
}

/* The previous ipv4_hdr20_csum_ok: the five 32-bit words added into 64
 * bits, no carry to fold. */
static int hdr20_sum32_ok(const uint8_t *b)
{
	uint64_t sum = 0;
	for (int i = 0; i < 20; i += 4) {
		uint32_t w;
		memcpy(&w, b + i, 4);
		sum += w;
	}
	return sum % 0xffff == 0;
}

/* ipv4_hdr20_csum_ok (64-bit adds, carries end-around) against the
 * previous sum and inet_csum: every pair of 64-bit words and last 32-bit
 * word from values around the carries (0, 1, -0 words, the top bit, all
 * ones; the version's bit set), then the same with the checksum made
 * right (both say yes);
 * pseudo-random headers biased to high bytes (both adds carry), whole or
 * not. */
static void test_hdr20_csum_ok_sum32(void **state)
{
	(void)state;
	static const uint64_t w64[] = { 0, 1, 0xffff, 0xffff0000ffff0000ull, 0x8000000000000000ull,
					0xfffffffffffffffeull, 0xffffffffffffffffull, 0x0001000100010001ull };
	static const uint32_t w32[] = { 0, 1, 0xffff, 0xffff0000u, 0x80000000u, 0xfffffffeu, 0xffffffffu };
	uint8_t a[20];
	int agree = 0, whole = 0;
	for (unsigned i = 0; i < 8; i++)
		for (unsigned j = 0; j < 8; j++)
			for (unsigned k = 0; k < 7; k++) {
				memcpy(a, &w64[i], 8);
				memcpy(a + 8, &w64[j], 8);
				memcpy(a + 16, &w32[k], 4);
				a[0] |= 0x40;	/* version 4's bit: never a header of zeros */
				assert_int_equal(ipv4_hdr20_csum_ok(a), hdr20_sum32_ok(a));
				assert_int_equal(ipv4_hdr20_csum_ok(a), inet_csum(a, 20) == 0);
				put16(a + 10, 0);
				put16(a + 10, inet_csum(a, 20));
				assert_true(ipv4_hdr20_csum_ok(a));
				assert_true(hdr20_sum32_ok(a));
				agree++;
			}
	assert_int_equal(agree, 448);

	uint32_t x = 0x9e3779b9;	/* xorshift32 (Marsaglia 2003) */
	for (int n = 0; n < 200000; n++) {
		for (int i = 0; i < 20; i++) {
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			a[i] = (uint8_t)(n & 2 ? x | 0xf0 : x);
		}
		a[0] = 0x45;
		if (n & 1)
			fix_csum(a);
		assert_int_equal(ipv4_hdr20_csum_ok(a), hdr20_sum32_ok(a));
		assert_int_equal(ipv4_hdr20_csum_ok(a), inet_csum(a, 20) == 0);
		whole += ipv4_hdr20_csum_ok(a);
	}
	assert_true(whole >= 100000 && whole < 100010);	/* the fixed half, and chance */
}

/* ipv4_check_fields: the same checks without the checksum and TTL. */
static void test_check_fields(void **state)
{
	uint8_t p[100] = { 0 };
	(void)state;
	memcpy(p, hdr_udp, 20);
	p[10] ^= 0xff;			/* wrong checksum */
	p[8] = 1;			/* TTL 1: fine for a host */
	assert_int_equal(ipv4_check(p, 100), IPV4_BAD_CSUM);
	assert_int_equal(ipv4_check_fields(p, 100), IPV4_OK);
	assert_int_equal(ipv4_check_fields(p, 19), IPV4_TOO_SHORT);
	assert_int_equal(ipv4_check_fields(p, 99), IPV4_BAD_TOTLEN);
	p[0] = 0x65;
	assert_int_equal(ipv4_check_fields(p, 100), IPV4_BAD_VERSION);
	p[0] = 0x44;
	assert_int_equal(ipv4_check_fields(p, 100), IPV4_BAD_IHL);
}

static void test_check_reasons(void **state)
{
	uint8_t p[100] = { 0 };
	(void)state;
	memcpy(p, hdr_udp, 20);		/* total length 100 */
	assert_int_equal(ipv4_check(p, 100), IPV4_OK);
	assert_int_equal(ipv4_check(hdr_opt, 24), IPV4_BAD_TOTLEN);	/* 84 > 24 */
	assert_int_equal(ipv4_check(p, 19), IPV4_TOO_SHORT);
	assert_int_equal(ipv4_check(p, 99), IPV4_BAD_TOTLEN);

	const struct { int off; uint8_t val; size_t len; enum ipv4_check want; } v[] = {
		{ 0, 0x65, 100, IPV4_BAD_VERSION },
		{ 0, 0x44, 100, IPV4_BAD_IHL },
		{ 0, 0x40, 100, IPV4_BAD_IHL },
		{ 0, 0x4f, 40, IPV4_BAD_IHL },		/* 60 bytes of header, 40 given */
		{ 3, 19, 100, IPV4_BAD_TOTLEN },	/* shorter than the header */
		{ 3, 101, 100, IPV4_BAD_TOTLEN },
		{ 8, 1, 100, IPV4_TTL_EXPIRED },
		{ 8, 0, 100, IPV4_TTL_EXPIRED },
		{ 8, 2, 100, IPV4_OK },
		{ 3, 20, 100, IPV4_OK },		/* header alone; padding after */
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		uint8_t b[100];
		memcpy(b, p, 100);
		b[v[i].off] = v[i].val;
		if ((b[0] & 0xf) >= 5 && (b[0] & 0xf) * 4u <= v[i].len)
			fix_csum(b);	/* only the intended fault */
		assert_int_equal(ipv4_check(b, v[i].len), v[i].want);
	}
	p[11] ^= 1;
	assert_int_equal(ipv4_check(p, 100), IPV4_BAD_CSUM);
	uint8_t o[84] = { 0 };
	memcpy(o, hdr_opt, 24);
	assert_int_equal(ipv4_check(o, 84), IPV4_OK);
	o[22] ^= 0x80;		/* options are covered by the checksum */
	assert_int_equal(ipv4_check(o, 84), IPV4_BAD_CSUM);

	assert_string_equal(ipv4_check_name(IPV4_OK), "ok");
	assert_string_equal(ipv4_check_name(IPV4_BAD_CSUM), "bad_csum");
	assert_string_equal(ipv4_check_name(IPV4_TTL_EXPIRED), "ttl_expired");
	assert_string_equal(ipv4_check_name(IPV4_CHECK_N), "?");
}

/* f1 and r1 of the header comment: a UDP datagram with TTL 1, and the
 * time-exceeded error about it. */
static const uint8_t f1[68] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0xaa, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00,
	0x45, 0x00, 0x00, 0x36, 0x12, 0x34, 0x00, 0x00, 0x01, 0x11, 0x93, 0x76, 0x0a, 0x01,
	0x00, 0x02, 0x0a, 0x02, 0x00, 0x09, 0x04, 0xd2, 0x16, 0x2e, 0x00, 0x22, 0x7f, 0xb9,
	0x70, 0x61, 0x79, 0x6c, 0x6f, 0x61, 0x64, 0x2d, 0x62, 0x79, 0x74, 0x65, 0x73, 0x2d,
	0x62, 0x65, 0x79, 0x6f, 0x6e, 0x64, 0x2d, 0x65, 0x69, 0x67, 0x68, 0x74,
};
static const uint8_t r1[70] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0xaa, 0x08, 0x00,
	0x45, 0xc0, 0x00, 0x38, 0x00, 0x00, 0x00, 0x00, 0x40, 0x01, 0x66, 0x01, 0x0a, 0x01,
	0x00, 0x01, 0x0a, 0x01, 0x00, 0x02, 0x0b, 0x00, 0x5a, 0x24, 0x00, 0x00, 0x00, 0x00,
	0x45, 0x00, 0x00, 0x36, 0x12, 0x34, 0x00, 0x00, 0x01, 0x11, 0x93, 0x76, 0x0a, 0x01,
	0x00, 0x02, 0x0a, 0x02, 0x00, 0x09, 0x04, 0xd2, 0x16, 0x2e, 0x00, 0x22, 0x7f, 0xb9,
};

static void test_icmp_time_exceeded(void **state)
{
	uint8_t out[128];
	(void)state;
	memset(out, 0x5a, sizeof(out));
	size_t n = icmp_error_build(out, sizeof(out), f1, sizeof(f1), ICMP_TIME_EXCEEDED,
				    ICMP_EXC_TTL, router_mac, ROUTER_IP);
	assert_int_equal(n, sizeof(r1));
	assert_memory_equal(out, r1, sizeof(r1));
	assert_int_equal(out[n], 0x5a);		/* nothing written beyond */
	assert_int_equal(ipv4_check(out + ETH_HLEN, n - ETH_HLEN), IPV4_OK);
	assert_int_equal(inet_csum(out + ETH_HLEN + IPV4_HLEN, n - ETH_HLEN - IPV4_HLEN), 0);
	/* Exactly enough room, and one byte short. */
	assert_int_equal(icmp_error_build(out, 70, f1, sizeof(f1), 11, 0, router_mac,
					  ROUTER_IP), 70);
	assert_int_equal(icmp_error_build(out, 69, f1, sizeof(f1), 11, 0, router_mac,
					  ROUTER_IP), 0);
}

/* Ether(src=H, dst=R)/IP(src="10.1.0.2", dst="10.9.9.9", ttl=9, id=7,
 *   options=[NOP, NOP, NOP, EOL], proto=253)/b"abc", padded to 60 bytes;
 * the error: .../ICMP(type=3, code=1)/raw(f2[IP]), a 4-byte option and
 * 3 bytes of data quoted, not the padding. */
static const uint8_t f2[60] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0xaa, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00,
	0x46, 0x00, 0x00, 0x1b, 0x00, 0x07, 0x00, 0x00, 0x09, 0xfd, 0x90, 0xca, 0x0a, 0x01,
	0x00, 0x02, 0x0a, 0x09, 0x09, 0x09, 0x01, 0x01, 0x01, 0x00, 0x61, 0x62, 0x63,
};
static const uint8_t r2[69] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0xaa, 0x08, 0x00,
	0x45, 0xc0, 0x00, 0x37, 0x00, 0x00, 0x00, 0x00, 0x40, 0x01, 0x66, 0x02, 0x0a, 0x01,
	0x00, 0x01, 0x0a, 0x01, 0x00, 0x02, 0x03, 0x01, 0x38, 0x9c, 0x00, 0x00, 0x00, 0x00,
	0x46, 0x00, 0x00, 0x1b, 0x00, 0x07, 0x00, 0x00, 0x09, 0xfd, 0x90, 0xca, 0x0a, 0x01,
	0x00, 0x02, 0x0a, 0x09, 0x09, 0x09, 0x01, 0x01, 0x01, 0x00, 0x61, 0x62, 0x63,
};

static void test_icmp_unreach_short_datagram(void **state)
{
	uint8_t out[128];
	(void)state;
	size_t n = icmp_error_build(out, sizeof(out), f2, sizeof(f2), ICMP_DEST_UNREACH,
				    ICMP_HOST_UNREACH, router_mac, ROUTER_IP);
	assert_int_equal(n, sizeof(r2));
	assert_memory_equal(out, r2, sizeof(r2));
	/* Code 0 (net): only the code and the ICMP checksum differ. */
	n = icmp_error_build(out, sizeof(out), f2, sizeof(f2), ICMP_DEST_UNREACH,
			     ICMP_NET_UNREACH, router_mac, ROUTER_IP);
	assert_int_equal(n, sizeof(r2));
	assert_int_equal(out[35], 0);
	assert_int_equal(get16(out + 36), 0x389c + 1);
	assert_memory_equal(out + 38, r2 + 38, sizeof(r2) - 38);
	assert_int_equal(inet_csum(out + 34, n - 34), 0);
}

/* f1 with byte off set to val (and the IP checksum made whole again). */
static size_t build_from_modified(uint8_t *out, int off, uint8_t val, size_t len)
{
	uint8_t f[68];
	memcpy(f, f1, sizeof(f));
	f[off] = val;
	if (off >= ETH_HLEN && (f[ETH_HLEN] & 0xf) * 4u <= sizeof(f) - ETH_HLEN)
		fix_csum(f + ETH_HLEN);
	return icmp_error_build(out, 128, f, len, ICMP_TIME_EXCEEDED, ICMP_EXC_TTL,
				router_mac, ROUTER_IP);
}

static void test_icmp_not_sent(void **state)
{
	uint8_t out[128];
	(void)state;
	assert_int_equal(build_from_modified(out, 0, 0xff, 68), 0);	/* to broadcast MAC */
	assert_int_equal(build_from_modified(out, 0, 0x01, 68), 0);	/* multicast MAC */
	assert_int_equal(build_from_modified(out, 12, 0x86, 68), 0);	/* not IPv4 */
	assert_int_equal(build_from_modified(out, 14, 0x65, 68), 0);	/* version 6 */
	assert_int_equal(build_from_modified(out, 14, 0x44, 68), 0);	/* IHL 4 */
	assert_int_equal(build_from_modified(out, 14, 0x4f, 68), 0);	/* IHL beyond frame */
	assert_int_equal(build_from_modified(out, 0, 0x02, 33), 0);	/* truncated header */
	assert_int_equal(build_from_modified(out, 21, 0x01, 68), 0);	/* fragment offset 1 */
	assert_int_equal(build_from_modified(out, 20, 0x20, 68), 70);	/* first fragment: sent */
	assert_int_equal(build_from_modified(out, 26, 0, 68), 0);	/* from 0.0.0.0 */
	assert_int_equal(build_from_modified(out, 26, 127, 68), 0);	/* from loopback */
	assert_int_equal(build_from_modified(out, 26, 224, 68), 0);	/* from multicast */
	assert_int_equal(build_from_modified(out, 26, 240, 68), 0);	/* from class E */
	assert_int_equal(build_from_modified(out, 30, 239, 68), 0);	/* to multicast */

	uint8_t f[68];
	memcpy(f, f1, sizeof(f));
	memset(f + 30, 0xff, 4);	/* to 255.255.255.255 */
	fix_csum(f + ETH_HLEN);
	assert_int_equal(icmp_error_build(out, 128, f, 68, 11, 0, router_mac, ROUTER_IP), 0);

	/* ICMP inside: errors (3, 4, 5, 11, 12) are not answered, others are. */
	memcpy(f, f1, sizeof(f));
	f[23] = IP_PROTO_ICMP;
	fix_csum(f + ETH_HLEN);
	for (int t = 0; t < 20; t++) {
		f[34] = (uint8_t)t;
		int error = t == 3 || t == 4 || t == 5 || t == 11 || t == 12;
		assert_int_equal(icmp_error_build(out, 128, f, 68, 11, 0, router_mac, ROUTER_IP),
				 error ? 0 : 70);
	}
	/* ICMP with no byte of its own in the frame: its type is unknown. */
	assert_int_equal(icmp_error_build(out, 128, f, 34, 11, 0, router_mac, ROUTER_IP), 0);
}

static const uint8_t arp_req[60] = {	/* request from R/10.1.0.1 for 10.1.0.2 */
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x00, 0x00, 0x00, 0x00, 0xaa, 0x08, 0x06,
	0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0xaa,
	0x0a, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x01, 0x00, 0x02,
};
static const uint8_t arp_rep[60] = {	/* reply from R/10.1.0.1 to H/10.1.0.2 */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0xaa, 0x08, 0x06,
	0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0xaa,
	0x0a, 0x01, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x0a, 0x01, 0x00, 0x02,
};

static void test_arp_build(void **state)
{
	uint8_t out[64];
	(void)state;
	memset(out, 0x5a, sizeof(out));
	assert_int_equal(arp_build(out, sizeof(out), ARP_REQUEST, router_mac, ROUTER_IP,
				   NULL, HOST_IP), ETH_ZLEN);
	assert_memory_equal(out, arp_req, 60);
	assert_int_equal(out[60], 0x5a);
	assert_int_equal(arp_build(out, 60, ARP_REPLY, router_mac, ROUTER_IP, host_mac,
				   HOST_IP), ETH_ZLEN);
	assert_memory_equal(out, arp_rep, 60);
	assert_int_equal(arp_build(out, 59, ARP_REPLY, router_mac, ROUTER_IP, host_mac,
				   HOST_IP), 0);
	assert_int_equal(arp_build(out, 60, 3, router_mac, ROUTER_IP, host_mac, HOST_IP), 0);
}

static void test_arp_parse(void **state)
{
	struct arp_info a;
	(void)state;
	assert_int_equal(arp_parse(arp_req, 60, &a), ARP_OK);
	assert_int_equal(a.op, ARP_REQUEST);
	assert_memory_equal(a.sha, router_mac, 6);
	assert_int_equal(a.spa, ROUTER_IP);
	assert_int_equal(a.tpa, HOST_IP);
	assert_int_equal(arp_parse(arp_rep, 42, &a), ARP_OK);	/* unpadded */
	assert_int_equal(a.op, ARP_REPLY);
	assert_memory_equal(a.tha, host_mac, 6);

	/* Round trip: build what was parsed. */
	uint8_t out[60];
	assert_int_equal(arp_build(out, 60, a.op, a.sha, a.spa, a.tha, a.tpa), 60);
	assert_memory_equal(out, arp_rep, 60);

	const struct { int off; uint8_t val; enum arp_check want; } bad[] = {
		{ 13, 0x00, ARP_NOT_ARP },	/* 0x0800 */
		{ 15, 0x06, ARP_BAD_HTYPE },	/* IEEE 802 */
		{ 16, 0x86, ARP_BAD_PTYPE },	/* 0x86dd */
		{ 18, 8, ARP_BAD_HLEN },
		{ 19, 16, ARP_BAD_PLEN },
		{ 21, 0, ARP_BAD_OP },
		{ 21, 3, ARP_BAD_OP },		/* RARP request */
		{ 22, 0xff, ARP_BAD_SHA },	/* broadcast sender */
		{ 22, 0x01, ARP_BAD_SHA },	/* multicast sender */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t f[60];
		memcpy(f, arp_req, 60);
		f[bad[i].off] = bad[i].val;
		assert_int_equal(arp_parse(f, 60, &a), bad[i].want);
	}
	assert_int_equal(arp_parse(arp_req, 41, &a), ARP_TOO_SHORT);
	assert_int_equal(arp_parse(arp_req, 0, &a), ARP_TOO_SHORT);
}

/* scapy 2.5.0, H and R as above:
 *   Ether(src=R, dst=H)/IP(src="10.4.0.1", dst="10.4.0.2", id=3)/TCP(sport=12866,
 *     dport=3001, seq=0x196f, ack=0x3f1, flags="PA", window=0x2d98)/(b"r" * 9)
 *   Ether(src=R, dst=H)/IP(src="10.4.0.1", dst="10.4.0.2")/UDP(sport=12866,
 *     dport=4100)/(b"q" * 8)
 *   Ether(src=R, dst=H)/IPv6(src="fd09::1", dst="fd09::2")/UDP(sport=7,
 *     dport=40000)/b"echo"
 * with their checksums as scapy computes them. */
static const uint8_t tcp4_frame[63] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0xaa, 0x08, 0x00, 0x45, 0x00,
	0x00, 0x31, 0x00, 0x03, 0x00, 0x00, 0x40, 0x06, 0x66, 0xba, 0x0a, 0x04, 0x00, 0x01, 0x0a, 0x04,
	0x00, 0x02, 0x32, 0x42, 0x0b, 0xb9, 0x00, 0x00, 0x19, 0x6f, 0x00, 0x00, 0x03, 0xf1, 0x50, 0x18,
	0x2d, 0x98, 0xd6, 0xfb, 0x00, 0x00, 0x72, 0x72, 0x72, 0x72, 0x72, 0x72, 0x72, 0x72, 0x72,
};
static const uint8_t udp4_frame[50] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0xaa, 0x08, 0x00, 0x45, 0x00,
	0x00, 0x24, 0x00, 0x01, 0x00, 0x00, 0x40, 0x11, 0x66, 0xbe, 0x0a, 0x04, 0x00, 0x01, 0x0a, 0x04,
	0x00, 0x02, 0x32, 0x42, 0x10, 0x04, 0x00, 0x10, 0xe3, 0xb7, 0x71, 0x71, 0x71, 0x71, 0x71, 0x71,
	0x71, 0x71,
};
static const uint8_t udp6_frame[66] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0xaa, 0x86, 0xdd, 0x60, 0x00,
	0x00, 0x00, 0x00, 0x0c, 0x11, 0x40, 0xfd, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xfd, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x07, 0x9c, 0x40, 0x00, 0x0c, 0x9b, 0xa5, 0x65, 0x63,
	0x68, 0x6f,
};

/* The frame as a stack hands it to a NIC with checksum insertion: the
 * IPv4 header's field 0 (ip: its offset, or 0), the L4 field at l4 the
 * pseudo-header's sum, not inverted (net/pkt.h). */
static void as_offloaded(uint8_t *f, size_t len, uint32_t ip, uint32_t l4, uint8_t proto)
{
	if (ip)
		put16(f + ip + 10, 0);
	put16(f + l4, 0);
	uint32_t l4start = ip ? ip + 20 : ETH_HLEN + 40;
	uint64_t sum = (ip ? inet_sum(f + ip + 12, 8) : inet_sum(f + ETH_HLEN + 8, 32)) + proto +
		       (uint32_t)(len - l4start);
	put16(f + l4, (uint16_t)~inet_csum_fold(sum));
}

/* csum_offload_fill: from the stack's fields (TCP with an odd length,
 * UDP, UDP over IPv6) the copy gets the checksums scapy computes; from
 * fields the NIC already filled (QEMU writes its L4 result back) the
 * same; a copy shorter than the frame gets the fields inside it. */
static void test_csum_offload_fill(void **state)
{
	(void)state;
	const struct {
		const uint8_t *want;
		size_t len;
		uint32_t flags, ip, l4;
		uint8_t proto;
	} cases[] = {
		{ tcp4_frame, sizeof(tcp4_frame), PKT_TX_IP_CSUM | PKT_TX_L4_CSUM, ETH_HLEN, 34 + 16, 6 },
		{ udp4_frame, sizeof(udp4_frame), PKT_TX_IP_CSUM | PKT_TX_L4_CSUM | PKT_TX_UDP, ETH_HLEN, 34 + 6, 17 },
		{ udp6_frame, sizeof(udp6_frame), PKT_TX_L4_CSUM | PKT_TX_IP6 | PKT_TX_UDP, 0, 54 + 6, 17 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t f[80], out[80];
		memcpy(f, cases[i].want, cases[i].len);
		as_offloaded(f, cases[i].len, cases[i].ip, cases[i].l4, cases[i].proto);
		assert_memory_not_equal(f, cases[i].want, cases[i].len);
		memcpy(out, f, cases[i].len);
		csum_offload_fill(cases[i].flags, f, (uint32_t)cases[i].len, out, (uint32_t)cases[i].len);
		assert_memory_equal(out, cases[i].want, cases[i].len);
		memcpy(out, cases[i].want, cases[i].len);	/* fields already the NIC's */
		csum_offload_fill(cases[i].flags, cases[i].want, (uint32_t)cases[i].len, out, (uint32_t)cases[i].len);
		assert_memory_equal(out, cases[i].want, cases[i].len);
		memcpy(out, f, cases[i].len);			/* a copy that ends inside the L4 field */
		csum_offload_fill(cases[i].flags, f, (uint32_t)cases[i].len, out, cases[i].l4 + 1);
		assert_memory_equal(out, cases[i].want, cases[i].l4);
		assert_memory_equal(out + cases[i].l4, f + cases[i].l4, 2);
	}
	/* The IP length past the frame: nothing written. */
	uint8_t f[50], out[50];
	memcpy(f, udp4_frame, sizeof(f));
	put16(f + ETH_HLEN + 2, 37);
	memset(out, 0xee, sizeof(out));
	csum_offload_fill(PKT_TX_L4_CSUM | PKT_TX_UDP, f, sizeof(f), out, sizeof(out));
	for (size_t k = 0; k < sizeof(out); k++)
		assert_int_equal(out[k], 0xee);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csum_rfc1071),
		cmocka_unit_test(test_csum_scapy),
		cmocka_unit_test(test_csum_update_rfc1624),
		cmocka_unit_test(test_hdr20_csum_ok),
		cmocka_unit_test(test_hdr20_csum_ok_sum32),
		cmocka_unit_test(test_ttl_dec_all),
		cmocka_unit_test(test_check_reasons),
		cmocka_unit_test(test_check_fields),
		cmocka_unit_test(test_icmp_time_exceeded),
		cmocka_unit_test(test_icmp_unreach_short_datagram),
		cmocka_unit_test(test_icmp_not_sent),
		cmocka_unit_test(test_arp_build),
		cmocka_unit_test(test_arp_parse),
		cmocka_unit_test(test_csum_offload_fill),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
