/* Unit tests for kernel/memmap.c: real firmware maps and a reference model. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "kernel/memmap.h"

#define U MEM_USABLE
#define R MEM_RESERVED
#define A MEM_ACPI
#define N MEM_NVS

/* Check r[0..n) against want[0..nwant) region by region. */
static void expect_map(const struct mem_region *r, int n,
		       const struct mem_region *want, int nwant)
{
	int i;

	assert_int_equal(n, nwant);
	for (i = 0; i < n; i++) {
		assert_true(r[i].base == want[i].base);
		assert_true(r[i].len == want[i].len);
		assert_int_equal(r[i].type, want[i].type);
	}
}

static void test_overlap_reserved_wins(void **state)
{
	struct mem_region r[8] = {
		{ 0x0, 0x10000, U, 0 },
		{ 0x4000, 0x2000, R, 0 },
	};
	static const struct mem_region want[] = {
		{ 0x0, 0x4000, U, 0 }, { 0x4000, 0x2000, R, 0 }, { 0x6000, 0xa000, U, 0 },
	};

	(void)state;
	expect_map(r, memmap_sanitize(r, 2, 8), want, 3);
}

static void test_overlap_usable_after_reserved(void **state)
{
	/* A usable region that starts inside a reserved one, and one fully inside. */
	struct mem_region r[8] = {
		{ 0x0, 0x3000, R, 0 },
		{ 0x2000, 0x4000, U, 0 },
		{ 0x8000, 0x4000, A, 0 },
		{ 0x9000, 0x1000, U, 0 },
	};
	static const struct mem_region want[] = {
		{ 0x0, 0x3000, R, 0 }, { 0x3000, 0x3000, U, 0 }, { 0x8000, 0x4000, A, 0 },
	};

	(void)state;
	expect_map(r, memmap_sanitize(r, 4, 8), want, 3);
}

static void test_higher_type_wins(void **state)
{
	struct mem_region r[8] = {
		{ 0x1000, 0x4000, N, 0 },
		{ 0x0, 0x8000, R, 0 },
		{ 0x2000, 0x1000, A, 0 },
		{ 0x7000, 0x2000, 9, 0 },	/* unknown type above all */
	};
	static const struct mem_region want[] = {
		{ 0x0, 0x1000, R, 0 }, { 0x1000, 0x4000, N, 0 }, { 0x5000, 0x2000, R, 0 },
		{ 0x7000, 0x2000, 9, 0 },
	};

	(void)state;
	expect_map(r, memmap_sanitize(r, 4, 8), want, 4);
}

static void test_unsorted_and_merge(void **state)
{
	struct mem_region r[8] = {
		{ 0x200000, 0x100000, U, 0 },
		{ 0x0, 0x100000, U, 0 },
		{ 0x100000, 0x100000, U, 0 },	/* adjacent: all three merge */
		{ 0x400000, 0x0, R, 0 },	/* zero length: dropped */
		{ 0x500000, 0x1000, R, 0 },
		{ 0x501000, 0x1000, R, 0 },	/* adjacent reserved merge */
		{ 0x500800, 0x100, R, 0 },	/* inside: absorbed */
	};
	static const struct mem_region want[] = {
		{ 0x0, 0x300000, U, 0 }, { 0x500000, 0x2000, R, 0 },
	};

	(void)state;
	expect_map(r, memmap_sanitize(r, 7, 8), want, 2);
}

static void test_unaligned_usable_shrunk(void **state)
{
	struct mem_region r[8] = {
		{ 0x0, 0x9fc00, U, 0 },
		{ 0x100010, 0x2ff0, U, 0 },	/* 0x100010..0x103000 -> 0x101000.. */
		{ 0x200800, 0x800, U, 0 },	/* no whole page: dropped */
		{ 0x300100, 0x1200, U, 0 },	/* straddles one boundary: dropped */
		{ 0x9fc00, 0x400, R, 0 },	/* reserved regions keep their bytes */
	};
	static const struct mem_region want[] = {
		{ 0x0, 0x9f000, U, 0 }, { 0x9fc00, 0x400, R, 0 }, { 0x101000, 0x2000, U, 0 },
	};

	(void)state;
	expect_map(r, memmap_sanitize(r, 5, 8), want, 3);
}

static void test_top_of_address_space(void **state)
{
	struct mem_region r[4] = {
		{ 0xfffffffffffff000ull, 0x2000, R, 0 },	/* wraps: clipped */
		{ UINT64_MAX, 1, U, 0 },			/* clipped to nothing */
	};

	(void)state;
	assert_int_equal(memmap_sanitize(r, 2, 4), 1);
	assert_true(r[0].base == 0xfffffffffffff000ull);
	assert_true(r[0].len == 0xfff);
	assert_int_equal(r[0].type, R);
}

static const struct mem_region q35_6g[] = {
	{ 0x0, 0x9fc00, U, 0 },
	{ 0x9fc00, 0x400, R, 0 },
	{ 0xf0000, 0x10000, R, 0 },
	{ 0x100000, 0x7fee0000, U, 0 },
	{ 0x7ffe0000, 0x20000, R, 0 },
	{ 0xb0000000, 0x10000000, R, 0 },
	{ 0xfed1c000, 0x4000, R, 0 },
	{ 0xfeffc000, 0x4000, R, 0 },
	{ 0xfffc0000, 0x40000, R, 0 },
	{ 0x100000000, 0x100000000, U, 0 },
};

static void test_qemu_q35_6g(void **state)
{
	struct mem_region r[BOOT_MMAP_MAX];
	int n;

	(void)state;
	memcpy(r, q35_6g, sizeof(q35_6g));
	/* Firmware order is not guaranteed: reverse it. */
	for (n = 0; n < 5; n++) {
		struct mem_region t = r[n];

		r[n] = r[9 - n];
		r[9 - n] = t;
	}
	n = memmap_sanitize(r, 10, BOOT_MMAP_MAX);
	assert_int_equal(n, 10);
	assert_true(r[0].len == 0x9f000);
	assert_true(memmap_usable_bytes(r, n) == 0x9f000ull + 0x7fee0000ull + 0x100000000ull);
	assert_true(memmap_usable_bytes(r, n) == 6441922560ull);
	assert_int_equal(memmap_count_type(r, n, U), 3);
	assert_int_equal(memmap_count_type(r, n, R), 7);
	assert_int_equal(memmap_count_type(r, n, A), 0);
	assert_true(memmap_top(r, n, U) == 0x200000000ull);
	assert_true(memmap_top(r, n, R) == 0x100000000ull);
	assert_true(memmap_top(r, n, A) == 0);
	expect_map(r + 1, n - 1, q35_6g + 1, 9);
	/* Sanitizing again changes nothing. */
	assert_int_equal(memmap_sanitize(r, n, BOOT_MMAP_MAX), 10);
	assert_true(memmap_usable_bytes(r, n) == 6441922560ull);
}

static void test_reserve_split(void **state)
{
	struct mem_region r[8] = { { 0x0, 0x10000, U, 0 }, { 0x20000, 0x1000, A, 0 } };
	static const struct mem_region want[] = {
		{ 0x0, 0x1000, U, 0 }, { 0x1800, 0x1000, R, 0 }, { 0x3000, 0xd000, U, 0 },
		{ 0x20000, 0x1000, A, 0 },
	};
	static const struct mem_region want2[] = {
		{ 0x0, 0x1000, U, 0 }, { 0x1800, 0x1000, R, 0 }, { 0x3000, 0xc000, U, 0 },
		{ 0xf000, 0x11000, R, 0 }, { 0x20000, 0x1000, A, 0 }, { 0x21000, 0x1000, R, 0 },
	};
	int n;

	(void)state;
	/* An unaligned kernel image inside usable RAM. */
	n = memmap_reserve(r, 2, 8, 0x1800, 0x1000);
	expect_map(r, n, want, 4);
	/* Across the end of usable RAM, a hole and an ACPI region. */
	n = memmap_reserve(r, n, 8, 0xf000, 0x13000);
	expect_map(r, n, want2, 6);
	assert_int_equal(memmap_reserve(r, n, 8, 0x5000, 0), n);
}

static void test_reserve_no_room(void **state)
{
	struct mem_region r[3] = { { 0x0, 0x10000, U, 0 } };
	struct mem_region copy[3];

	(void)state;
	memcpy(copy, r, sizeof(r));
	/* Splitting one usable region needs two more entries. */
	assert_int_equal(memmap_reserve(r, 1, 2, 0x4000, 0x1000), -1);
	assert_memory_equal(r, copy, sizeof(r));
	assert_int_equal(memmap_reserve(r, 1, 3, 0x4000, 0x1000), 3);
}

static void test_sanitize_no_room(void **state)
{
	struct mem_region r[2] = { { 0x0, 0x10000, U, 0 }, { 0x4000, 0x1000, R, 0 } };

	(void)state;
	assert_int_equal(memmap_sanitize(r, 2, 2), -1);
	assert_int_equal(memmap_sanitize(r, 3, 2), -1);
}

static void test_type_names(void **state)
{
	(void)state;
	assert_string_equal(memmap_type_name(MEM_USABLE), "usable");
	assert_string_equal(memmap_type_name(MEM_RESERVED), "reserved");
	assert_string_equal(memmap_type_name(MEM_ACPI), "acpi");
	assert_string_equal(memmap_type_name(MEM_NVS), "nvs");
	assert_string_equal(memmap_type_name(MEM_BAD), "bad");
	assert_string_equal(memmap_type_name(0), "unknown");
	assert_string_equal(memmap_type_name(12), "unknown");
}

/*
 * Reference model: 1 KiB cells over 64 KiB, each holding the winning type
 * (0 for a hole). Usable runs are then cut to whole 4-cell pages.
 */
#define CELL 0x400u
#define NCELLS 64

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static int stronger(uint32_t a, uint32_t b)
{
	if (b == 0)
		return a != 0;
	if (a == U || b == U)
		return b == U && a != U;
	return a > b;
}

/* Regions from cells, with usable runs shrunk to whole pages. */
static int cells_to_map(const uint32_t *cell, struct mem_region *out)
{
	int i = 0, j, n = 0;
	uint64_t lo, hi;

	while (i < NCELLS) {
		for (j = i; j < NCELLS && cell[j] == cell[i]; j++)
			;
		lo = (uint64_t)i * CELL;
		hi = (uint64_t)j * CELL;
		if (cell[i] == U) {
			lo = (lo + 0xfff) & ~0xfffull;
			hi &= ~0xfffull;
		}
		if (cell[i] != 0 && lo < hi) {
			out[n].base = lo;
			out[n].len = hi - lo;
			out[n].type = cell[i];
			out[n].pad = 0;
			n++;
		}
		i = j;
	}
	return n;
}

static void test_random_against_model(void **state)
{
	struct mem_region r[64], want[64];
	uint32_t cell[NCELLS];
	int iter, i, k, n, nwant;
	uint64_t lo, hi;

	(void)state;
	for (iter = 0; iter < 20000; iter++) {
		memset(cell, 0, sizeof(cell));
		n = 1 + (int)rnd(12);
		for (i = 0; i < n; i++) {
			lo = rnd(NCELLS);
			hi = lo + rnd((uint32_t)(NCELLS - lo + 1));
			r[i].base = lo * CELL;
			r[i].len = (hi - lo) * CELL;
			r[i].type = 1 + rnd(6);
			r[i].pad = 0;
			for (k = (int)lo; k < (int)hi; k++)
				if (stronger(r[i].type, cell[k]))
					cell[k] = r[i].type;
		}
		nwant = cells_to_map(cell, want);
		n = memmap_sanitize(r, n, 64);
		expect_map(r, n, want, nwant);

		/* Reserve a random range (1 KiB granular) on the sanitized map. */
		memset(cell, 0, sizeof(cell));
		for (i = 0; i < n; i++)
			for (k = 0; k < (int)(r[i].len / CELL); k++)
				cell[r[i].base / CELL + (uint64_t)k] = r[i].type;
		lo = rnd(NCELLS);
		hi = lo + rnd((uint32_t)(NCELLS - lo + 1));
		for (k = (int)lo; k < (int)hi; k++)
			if (cell[k] == 0 || cell[k] == U)
				cell[k] = R;
		nwant = cells_to_map(cell, want);
		n = memmap_reserve(r, n, 64, lo * CELL, (hi - lo) * CELL);
		expect_map(r, n, want, nwant);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overlap_reserved_wins),
		cmocka_unit_test(test_overlap_usable_after_reserved),
		cmocka_unit_test(test_higher_type_wins),
		cmocka_unit_test(test_unsorted_and_merge),
		cmocka_unit_test(test_unaligned_usable_shrunk),
		cmocka_unit_test(test_top_of_address_space),
		cmocka_unit_test(test_qemu_q35_6g),
		cmocka_unit_test(test_reserve_split),
		cmocka_unit_test(test_reserve_no_room),
		cmocka_unit_test(test_sanitize_no_room),
		cmocka_unit_test(test_type_names),
		cmocka_unit_test(test_random_against_model),
	};

	return cmocka_run_group_tests_name("memmap", tests, NULL, NULL);
}
