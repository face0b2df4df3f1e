/* Unit tests for net/lwip's checksum for lwIP (net/lwip/arch/chksum.h):
 * against net/ipv4.c's byte-by-byte inet_csum at every length up to 300
 * and every start offset up to 7 and at full-segment lengths, on
 * pseudo-random bytes and on all-ones (the carries), and against a header
 * scapy made. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "net/lwip/arch/chksum.h"
#include "net/ipv4.h"

/* Equal as one's complement numbers (0x0000 and 0xffff are both zero). */
static void assert_sum_equal(const uint8_t *p, int len)
{
	uint16_t ours = __builtin_bswap16(lwif_chksum(p, len));
	uint16_t ref = (uint16_t)~inet_csum(p, (size_t)len);
	assert_int_equal(ours % 0xffff, ref % 0xffff);
}

static void test_lengths_offsets(void **state)
{
	(void)state;
	static uint8_t buf[1600];
	uint32_t x = 12345;
	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (int off = 0; off < 8; off++)
		for (int len = 0; len <= 300; len++)
			assert_sum_equal(buf + off, len);
	for (int len = 1400; len <= 1590; len++)	/* full segments: many carries out of 64 bits */
		assert_sum_equal(buf + len % 8, len);
	memset(buf, 0xff, sizeof(buf));
	for (int off = 0; off < 8; off++)
		for (int len = 0; len <= 300; len++)
			assert_sum_equal(buf + off, len);
	for (int len = 1400; len <= 1590; len++)
		assert_sum_equal(buf + len % 8, len);
}

/* IP(src="192.168.1.1", dst="8.8.8.8", ttl=1, flags="DF", proto=6, len=40,
 * tos=0x10): holding its own checksum, the sum is 0xffff. */
static void test_header(void **state)
{
	(void)state;
	static const uint8_t hdr[20] = {
		0x45, 0x10, 0x00, 0x28, 0x00, 0x00, 0x40, 0x00, 0x01, 0x06, 0xa8, 0x07,
		0xc0, 0xa8, 0x01, 0x01, 0x08, 0x08, 0x08, 0x08,
	};
	assert_int_equal(lwif_chksum(hdr, 20), 0xffff);
	assert_int_equal(lwif_chksum(hdr + 1, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lengths_offsets),
		cmocka_unit_test(test_header),
	};
	return cmocka_run_group_tests_name("rrchksum", tests, NULL, NULL);
}
