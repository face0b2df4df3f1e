/* Unit tests for net/pcapfile.c: a real capture (ptp4l's, tests/unit/data)
 * as classic pcap, as nanosecond pcap and as pcapng (Debian's editcap
 * makes the last two) gives the frames, lengths and times tshark gives;
 * blocks written by net/pcapng.c read back; a big-endian pcap and an
 * if_tsresol of 2^-20 s; refusals with the offset of the fault. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "net/pcapfile.h"
#include "net/pcapng.h"

#define DATA "tests/unit/data/ptp4l-l2-e2e-twostep.pcap"

static uint8_t mem[1 << 16];
static char err[256];

/* The file at path into mem; its length. */
static size_t load(const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	size_t n = fread(mem, 1, sizeof(mem), f);
	assert_true(n < sizeof(mem));
	fclose(f);
	return n;
}

/* Every record of f as "caplen sec.ns\n" lines, as tshark's frame.cap_len
 * and frame.time_epoch (-t e, ns) print them. */
static void records(const struct pcapfile *f, char *out, size_t len)
{
	struct pcapfile_cur c;
	struct pcapfile_rec r;
	size_t k = 0;
	pcapfile_rewind(f, &c);
	out[0] = 0;
	while (pcapfile_next(f, &c, &r) && k < len)
		k += (size_t)snprintf(out + k, len - k, "%u %lu.%09lu\n", r.caplen, r.ns / 1000000000, r.ns % 1000000000);
}

static void run(const char *cmd, char *out, size_t len)
{
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t n = fread(out, 1, len - 1, p);
	out[n] = 0;
	pclose(p);
}

/* The capture converted by editcap -F format (NULL: as it is) reads as
 * tshark reads the original. */
static void check_format(const char *format)
{
	static char want[16384], got[16384];
	char path[] = "/tmp/test_pcapfile_XXXXXX", cmd[512];
	const char *file = DATA;
	if (format) {
		int fd = mkstemp(path);
		assert_true(fd >= 0);
		close(fd);
		snprintf(cmd, sizeof(cmd), "editcap -F %s %s %s", format, DATA, path);
		assert_int_equal(system(cmd), 0);
		file = path;
	}
	run("tshark -r " DATA " -T fields -e frame.cap_len -e frame.time_epoch 2>/dev/null", want, sizeof(want));
	struct pcapfile f;
	size_t n = load(file);
	assert_int_equal(pcapfile_open(&f, mem, n, err, sizeof(err)), 0);
	assert_int_equal(f.ng, format && !strcmp(format, "pcapng"));
	records(&f, got, sizeof(got));
	/* tshark prints the time with the file's resolution: compare in µs */
	char *w = want, *g = got;
	int lines = 0;
	while (*w && *g) {
		unsigned wl, gl, ws, gs, wf, gf;
		assert_int_equal(sscanf(w, "%u %u.%6u", &wl, &ws, &wf), 3);
		assert_int_equal(sscanf(g, "%u %u.%6u", &gl, &gs, &gf), 3);
		assert_int_equal(wl, gl);
		assert_int_equal(ws, gs);
		assert_int_equal(wf, gf);
		w = strchr(w, '\n') + 1;
		g = strchr(g, '\n') + 1;
		lines++;
	}
	assert_int_equal(*w, 0);
	assert_int_equal(*g, 0);
	assert_int_equal(f.frames, lines);
	assert_true(lines > 10);
	if (format)
		remove(path);
}

static void test_ptp4l_capture(void **state)
{
	(void)state;
	check_format(NULL);
	check_format("nsecpcap");
	check_format("pcapng");
}

/* Frames written by net/pcapng.c (ns resolution) come back whole. */
static void test_pcapng_round_trip(void **state)
{
	(void)state;
	struct pcapng_buf b = { mem, sizeof(mem), 0 };
	uint8_t frame[100];
	for (size_t i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(i * 7);
	pcapng_shb(&b, "test");
	pcapng_idb(&b, 2048, "port0", NULL);
	pcapng_epb(&b, 0, 1000000123ull, frame, 61, 61, PCAPNG_INBOUND);
	pcapng_idb(&b, 2048, "port1", NULL);
	pcapng_epb(&b, 1, 5000000000ull, frame, 100, 100, PCAPNG_OUTBOUND);
	pcapng_isb(&b, 0, 6000000000ull, 2, 0, 2, 0);
	struct pcapfile f;
	assert_int_equal(pcapfile_open(&f, mem, b.len, err, sizeof(err)), 0);
	assert_int_equal(f.frames, 2);
	assert_int_equal(f.bytes, 161);
	assert_int_equal(f.max_len, 100);
	assert_int_equal(f.first_ns, 1000000123ull);
	assert_int_equal(f.last_ns, 5000000000ull);
	struct pcapfile_cur c;
	struct pcapfile_rec r;
	pcapfile_rewind(&f, &c);
	assert_int_equal(pcapfile_next(&f, &c, &r), 1);
	assert_int_equal(r.caplen, 61);
	assert_memory_equal(r.data, frame, 61);
	assert_int_equal(pcapfile_next(&f, &c, &r), 1);
	assert_int_equal(r.caplen, 100);
	assert_memory_equal(r.data, frame, 100);
	assert_int_equal(pcapfile_next(&f, &c, &r), 0);
}

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static void le32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* A big-endian µs pcap with one frame of len bytes at 3.000005 s. */
static size_t be_pcap(uint32_t link, uint32_t caplen, uint32_t len)
{
	memset(mem, 0, 24 + 16 + 64);
	be32(mem, 0xa1b2c3d4);
	mem[5] = 2, mem[7] = 4;
	be32(mem + 16, 65535);
	be32(mem + 20, link);
	be32(mem + 24, 3);
	be32(mem + 28, 5);
	be32(mem + 32, caplen);
	be32(mem + 36, caplen);
	return 24 + 16 + len;
}

static void test_big_endian(void **state)
{
	(void)state;
	struct pcapfile f;
	assert_int_equal(pcapfile_open(&f, mem, be_pcap(1, 60, 60), err, sizeof(err)), 0);
	assert_int_equal(f.frames, 1);
	assert_int_equal(f.first_ns, 3000005000ull);
	assert_int_equal(f.max_len, 60);
}

/* A pcapng section: SHB, IDB with if_tsresol res, EPB of 60 bytes at
 * ticks; its length. */
static size_t ng_file(uint8_t res, uint64_t ticks, uint32_t ifid)
{
	uint8_t *p = mem;
	memset(mem, 0, 256);
	le32(p, 0x0a0d0d0a), le32(p + 4, 28), le32(p + 8, 0x1a2b3c4d), p[12] = 1;
	le32(p + 16, 0xffffffff), le32(p + 20, 0xffffffff), le32(p + 24, 28);
	p += 28;
	le32(p, 1), le32(p + 4, 32), p[8] = 1, le32(p + 12, 2048);
	p[16] = 9, p[18] = 1, p[20] = res;	/* if_tsresol, then opt_endofopt */
	le32(p + 28, 32);
	p += 32;
	le32(p, 6), le32(p + 4, 32 + 60), le32(p + 8, ifid), le32(p + 12, (uint32_t)(ticks >> 32));
	le32(p + 16, (uint32_t)ticks), le32(p + 20, 60), le32(p + 24, 60), le32(p + 28 + 60, 32 + 60);
	return 28 + 32 + 92;
}

static void test_tsresol(void **state)
{
	(void)state;
	struct pcapfile f;
	assert_int_equal(pcapfile_open(&f, mem, ng_file(0x80 | 20, 3ull << 20 | 1 << 19, 0), err, sizeof(err)), 0);
	assert_int_equal(f.first_ns, 3500000000ull);	/* 3.5 s in 2^-20 s ticks */
	assert_int_equal(pcapfile_open(&f, mem, ng_file(3, 1234, 0), err, sizeof(err)), 0);
	assert_int_equal(f.first_ns, 1234000000ull);	/* ms */
}

/* data[0..n) is refused with message want. */
static void refused(size_t n, const char *want)
{
	struct pcapfile f;
	err[0] = 0;
	assert_int_equal(pcapfile_open(&f, mem, n, err, sizeof(err)), -1);
	assert_string_equal(err, want);
}

static void test_refusals(void **state)
{
	(void)state;
	refused(be_pcap(1, 60, 59), "offset 24: record of 60 bytes runs past the end of the file (59 bytes left)");
	refused(be_pcap(1, 60, 60) - 70, "offset 24: record header cut short (6 of 16 bytes)");
	refused(20, "offset 0: pcap header cut short (20 of 24 bytes)");
	refused(be_pcap(101, 60, 60), "offset 20: link type 101 (accepted: 1, Ethernet)");
	refused(be_pcap(1, 0, 0), "offset 24: frame of 0 bytes");
	be_pcap(1, 70000, 0);
	refused(sizeof(mem) - 1, "offset 24: frame of 70000 bytes, beyond 65536");
	refused(24, "offset 24: the end, and no frame in the file");
	memcpy(mem, "GET ", 4);
	refused(100, "offset 0: magic 0x20544547 (accepted: pcap a1b2c3d4 or a1b23c4d, pcapng 0a0d0d0a)");
	size_t n = ng_file(9, 0, 1);
	refused(n, "offset 60: packet of interface 1, not described (1 interfaces)");
	n = ng_file(9, 0, 0);
	refused(n - 4, "offset 60: block of 92 bytes runs past the end of the file (88 bytes left)");
	mem[n - 4] = 36;
	refused(n, "offset 60: block length 92, its trailer says 36");
	ng_file(9, 0, 0);
	mem[28 + 8] = 228;	/* IEEE 802.11: not Ethernet */
	refused(n, "offset 28: interface 0 has link type 228 (accepted: 1, Ethernet)");
	ng_file(9, 0, 0);
	le32(mem + 60 + 20, 61);	/* caplen past its block */
	refused(n, "offset 60: record of 61 bytes runs past its block (60 bytes)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ptp4l_capture),
		cmocka_unit_test(test_pcapng_round_trip),
		cmocka_unit_test(test_big_endian),
		cmocka_unit_test(test_tsresol),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
