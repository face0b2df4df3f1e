/* Unit tests for net/pcapng.c: a section built of its blocks (SHB, IDB,
 * two EPBs of each direction, ISB) is read by Debian's tshark without a
 * warning, with the frames, directions, ns times, interface name and
 * description as written, the ISB after them; blocks that do not fit
 * leave the buffer as it was. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "net/pcapng.h"

static uint8_t mem[4096];

/* tshark's output for fields of the file at path, lines joined; stderr
 * (but for its note on running as root) into the same text. */
static void tshark(const char *path, const char *args, char *out, size_t len)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "tshark -r %s %s 2>&1 | grep -v '^Running as user'", path, args);
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	size_t n = fread(out, 1, len - 1, f);
	out[n] = 0;
	pclose(f);
}

static void test_tshark_reads_it(void **state)
{
	struct pcapng_buf b = { mem, sizeof(mem), 0 };
	uint8_t frame[61];
	char path[] = "/tmp/test_pcapng_XXXXXX", out[2048];
	(void)state;
	for (size_t i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)i;
	assert_int_equal(pcapng_shb(&b, "linerate"), 44);
	assert_int_equal(pcapng_idb(&b, 2048, "port0", "e1000e 82574L"), 64);
	assert_int_not_equal(pcapng_epb(&b, 0, 1000000123ull, frame, 61, 61, PCAPNG_INBOUND), 0);
	assert_int_not_equal(pcapng_epb(&b, 0, 5000000000ull, frame, 14, 60, PCAPNG_OUTBOUND), 0);
	assert_int_not_equal(pcapng_isb(&b, 0, 6000000000ull, 7, 1, 2, 3), 0);
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "wb");
	assert_int_equal(fwrite(mem, 1, b.len, f), b.len);
	fclose(f);
	tshark(path, "-T fields -e frame.time_epoch -e frame.len -e frame.cap_len -e frame.packet_flags_direction "
		     "-e frame.interface_name -e frame.interface_description -e data.data", out, sizeof(out));
	assert_string_equal(out,
		"1.000000123\t61\t61\t0x00000001\tport0\te1000e 82574L\t"
		"0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c\n"
		"5.000000000\t60\t14\t0x00000002\tport0\te1000e 82574L\t\n");
	remove(path);
}

static void test_no_room(void **state)
{
	uint8_t frame[64] = { 0 };
	(void)state;
	struct pcapng_buf b = { mem, 100, 56 };
	assert_int_equal(pcapng_epb(&b, 0, 0, frame, 64, 64, PCAPNG_INBOUND), 0);
	assert_int_equal(pcapng_isb(&b, 0, 0, 0, 0, 0, 0), 0);
	assert_int_equal(b.len, 56);
	assert_int_equal(pcapng_idb(&b, 64, "port0", NULL), 44);
	assert_int_equal(b.len, 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tshark_reads_it),
		cmocka_unit_test(test_no_room),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
