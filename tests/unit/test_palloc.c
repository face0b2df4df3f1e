/* Unit tests for kernel/palloc.c on fake physical addresses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "kernel/palloc.h"

#define KiB 1024ull
#define MiB (1024ull * KiB)
#define GiB (1024ull * MiB)

static uint64_t bitmap[(8 * GiB / PAGE_SIZE) / 64];
static struct palloc pa;

/* Manage npages at base, all free. */
static void setup(uint64_t base, uint64_t npages)
{
	palloc_init(&pa, base, npages, bitmap);
	palloc_add_range(&pa, base, npages * PAGE_SIZE);
}

static void test_bitmap_words(void **state)
{
	(void)state;
	assert_int_equal(palloc_bitmap_words(0), 0);
	assert_int_equal(palloc_bitmap_words(1), 1);
	assert_int_equal(palloc_bitmap_words(64), 1);
	assert_int_equal(palloc_bitmap_words(65), 2);
	assert_int_equal(palloc_bitmap_words(1572864), 24576);
}

static void test_init_all_used(void **state)
{
	(void)state;
	palloc_init(&pa, 0x100000, 100, bitmap);
	assert_int_equal(pa.free_pages, 0);
	assert_int_equal(palloc_alloc(&pa, 1, 0), 0);
	assert_int_equal(bitmap[1], UINT64_MAX);	/* bits past npages too */
}

static void test_contiguous(void **state)
{
	uint64_t a, b, c;

	(void)state;
	setup(0x100000, 64);
	assert_int_equal(pa.free_pages, 64);
	a = palloc_alloc(&pa, 1, 0);
	b = palloc_alloc(&pa, 4, 0);
	c = palloc_alloc(&pa, 1, PAGE_SIZE);
	assert_int_equal(a, 0x100000);
	assert_int_equal(b, 0x101000);
	assert_int_equal(c, 0x105000);
	assert_int_equal(pa.free_pages, 58);
	/* A hole of 3 pages does not fit 4; the run after it does. */
	assert_int_equal(palloc_free(&pa, b, 3), 0);
	assert_int_equal(palloc_alloc(&pa, 4, 0), 0x106000);
	assert_int_equal(palloc_alloc(&pa, 3, 0), 0x101000);
}

static void test_alignment(void **state)
{
	uint64_t a;

	(void)state;
	setup(0x1000, 2047);	/* [0x1000, 0x800000): base not 2 MiB aligned */
	assert_int_equal(palloc_alloc(&pa, 1, 0), 0x1000);
	a = palloc_alloc(&pa, 1, 128 * KiB);
	assert_int_equal(a, 0x20000);
	a = palloc_alloc(&pa, 32, 128 * KiB);
	assert_int_equal(a, 0x40000);
	a = palloc_alloc(&pa, 512, 2 * MiB);
	assert_int_equal(a, 0x200000);
	a = palloc_alloc(&pa, 512, 2 * MiB);
	assert_int_equal(a, 0x400000);
	a = palloc_alloc(&pa, 2, 8 * MiB);	/* 0x800000 is past the end */
	assert_int_equal(a, 0);
	/* The pages skipped for alignment are still there, first fit. */
	assert_int_equal(palloc_alloc(&pa, 1, 0), 0x2000);
	assert_int_equal(palloc_alloc(&pa, 30, 0), 0x21000);
	assert_int_equal(palloc_alloc(&pa, 29, 0), 0x3000);
}

static void test_bad_requests(void **state)
{
	(void)state;
	setup(0x100000, 64);
	assert_int_equal(palloc_alloc(&pa, 0, 0), 0);
	assert_int_equal(palloc_alloc(&pa, 1, 3000), 0);
	assert_int_equal(palloc_alloc(&pa, 1, 0x3000), 0);
	assert_int_equal(palloc_alloc(&pa, 1, 2048), 0);
	assert_int_equal(palloc_alloc(&pa, 65, 0), 0);
	assert_int_equal(palloc_alloc(&pa, UINT64_MAX, 0), 0);
	assert_int_equal(palloc_alloc(&pa, 1, 1ull << 63), 0);
	assert_int_equal(pa.free_pages, 64);
	assert_int_equal(palloc_alloc(&pa, 64, 0), 0x100000);
}

static void test_exhaustion(void **state)
{
	int i;

	(void)state;
	setup(0x100000, 100);
	for (i = 0; i < 100; i++)
		assert_int_equal(palloc_alloc(&pa, 1, 0), 0x100000 + (uint64_t)i * PAGE_SIZE);
	assert_int_equal(pa.free_pages, 0);
	assert_int_equal(palloc_alloc(&pa, 1, 0), 0);
	assert_int_equal(palloc_free(&pa, 0x100000 + 50 * PAGE_SIZE, 1), 0);
	assert_int_equal(palloc_alloc(&pa, 2, 0), 0);
	assert_int_equal(palloc_alloc(&pa, 1, 0), 0x100000 + 50 * PAGE_SIZE);
}

static void test_free_errors(void **state)
{
	uint64_t a;

	(void)state;
	setup(0x100000, 64);
	a = palloc_alloc(&pa, 4, 0);
	assert_int_equal(palloc_free(&pa, a + 0x800, 1), -1);		/* unaligned */
	assert_int_equal(palloc_free(&pa, 0xff000, 1), -1);		/* below */
	assert_int_equal(palloc_free(&pa, 0x140000, 1), -1);		/* past the end */
	assert_int_equal(palloc_free(&pa, 0x13f000, 2), -1);		/* runs past */
	assert_int_equal(palloc_free(&pa, a, 5), -1);			/* page 5 free */
	assert_int_equal(palloc_free(&pa, a, UINT64_MAX), -1);
	assert_int_equal(pa.free_pages, 60);
	assert_int_equal(palloc_free(&pa, a + PAGE_SIZE, 2), 0);
	assert_int_equal(palloc_free(&pa, a, 4), -1);			/* partly freed */
	assert_int_equal(palloc_free(&pa, a + PAGE_SIZE, 1), -1);	/* double free */
	assert_int_equal(pa.free_pages, 62);
	assert_int_equal(palloc_free(&pa, a, 1), 0);
	assert_int_equal(palloc_free(&pa, a + 3 * PAGE_SIZE, 1), 0);
	assert_int_equal(pa.free_pages, 64);
	assert_int_equal(palloc_alloc(&pa, 64, 0), 0x100000);
}

static void test_page_zero_never(void **state)
{
	(void)state;
	setup(0, 16);
	assert_int_equal(pa.free_pages, 15);
	assert_int_equal(palloc_alloc(&pa, 1, 0), 0x1000);
	assert_int_equal(palloc_alloc(&pa, 2, 64 * KiB), 0);
	assert_int_equal(palloc_alloc(&pa, 14, 0), 0x2000);
	assert_int_equal(palloc_alloc(&pa, 1, 0), 0);
	assert_int_equal(palloc_free(&pa, 0, 1), -1);
	assert_int_equal(palloc_free(&pa, 0x1000, 15), 0);
	assert_int_equal(pa.free_pages, 15);
}

static void test_ranges_round(void **state)
{
	(void)state;
	palloc_init(&pa, 0x100000, 64, bitmap);
	/* Inward: only 0x102000..0x104000 are whole pages. */
	palloc_add_range(&pa, 0x101001, 0x2fff);
	assert_int_equal(pa.free_pages, 2);
	/* Outside the managed range: ignored; partly inside: clipped. */
	palloc_add_range(&pa, 0x0, 0x100000);
	palloc_add_range(&pa, 0x13e000, 0x10000);
	palloc_add_range(&pa, UINT64_MAX - 0x1000, 0x5000);
	assert_int_equal(pa.free_pages, 4);
	assert_int_equal(palloc_alloc(&pa, 2, 0), 0x102000);
	assert_int_equal(palloc_alloc(&pa, 2, 0), 0x13e000);
	/* Adding a range frees every page in it, allocated or not. */
	palloc_add_range(&pa, 0x100000, 64 * PAGE_SIZE);
	assert_int_equal(pa.free_pages, 64);
	/* Outward: one byte either side reserves both pages. */
	palloc_reserve_range(&pa, 0x110fff, 2);
	assert_int_equal(pa.free_pages, 62);
	palloc_reserve_range(&pa, 0x13f000, 0x100000);
	palloc_reserve_range(&pa, 0x0, 0x100001);
	palloc_reserve_range(&pa, 0x0, 0x100001);
	assert_int_equal(pa.free_pages, 60);
	assert_int_equal(palloc_alloc(&pa, 16, 0), 0x112000);
	assert_int_equal(palloc_alloc(&pa, 15, 0), 0x101000);
	assert_int_equal(palloc_alloc(&pa, 30, 0), 0);
	assert_int_equal(palloc_alloc(&pa, 29, 0), 0x122000);
}

/* The QEMU q35 map of a 6 GiB guest, sanitized: 1,572,735 usable pages. */
static const struct {
	uint64_t base, len;
} q35_usable[] = {
	{ 0x0, 0x9f000 }, { 0x100000, 0x7fee0000 }, { 0x100000000, 0x100000000 },
};

static void test_q35_6g(void **state)
{
	uint64_t a, low_pages = 0x9f + 0x7fee0000 / PAGE_SIZE - 1;
	size_t i;

	(void)state;
	palloc_init(&pa, 0, 0x200000000 / PAGE_SIZE, bitmap);
	for (i = 0; i < 3; i++)
		palloc_add_range(&pa, q35_usable[i].base, q35_usable[i].len);
	palloc_reserve_range(&pa, 0x100000, 0x300000);	/* the kernel image */
	assert_int_equal(pa.free_pages, 1572735 - 1 - 0x300);
	assert_int_equal(palloc_alloc(&pa, 512, 2 * MiB), 0x400000);
	assert_int_equal(palloc_free(&pa, 0x400000, 512), 0);
	/* Fill everything below 4 GiB one page at a time. */
	for (i = 0; i < low_pages - 0x300; i++) {
		a = palloc_alloc(&pa, 1, 0);
		assert_true(a != 0 && a < 0x80000000);
	}
	assert_int_equal(pa.free_pages, 1048576);
	assert_int_equal(palloc_alloc(&pa, 1, 0), 0x100000000);
	a = palloc_alloc(&pa, 512, 2 * MiB);
	assert_int_equal(a, 0x100200000);
	assert_int_equal(a % (2 * MiB), 0);
	assert_int_equal(palloc_alloc(&pa, 2, 0), 0x100001000);
	/* The largest block left: all but the first 2 MiB + 2 MiB used. */
	assert_int_equal(palloc_alloc(&pa, 1048576 - 1024, 2 * MiB), 0x100400000);
	assert_int_equal(pa.free_pages, 509);
	assert_int_equal(palloc_alloc(&pa, 510, 0), 0);
	assert_int_equal(palloc_alloc(&pa, 509, 0), 0x100003000);
	assert_int_equal(pa.free_pages, 0);
}

/* Naive reference: one byte per page, first fit by brute force. */
#define REF_PAGES 1000
#define REF_BASE 0x7000ull

static unsigned char ref[REF_PAGES];
static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static uint64_t ref_alloc(uint64_t n, uint64_t align)
{
	uint64_t i, k, addr;

	for (i = 0; i + n <= REF_PAGES; i++) {
		addr = REF_BASE + i * PAGE_SIZE;
		if (addr % align != 0)
			continue;
		for (k = 0; k < n && !ref[i + k]; k++)
			;
		if (k == n) {
			memset(&ref[i], 1, n);
			return addr;
		}
	}
	return 0;
}

/* Runs inside [lo, hi): above 4 GiB first, below 4 GiB for 32-bit DMA. */
static void test_range(void **state)
{
	size_t i;

	(void)state;
	palloc_init(&pa, 0, 0x200000000 / PAGE_SIZE, bitmap);
	for (i = 0; i < 3; i++)
		palloc_add_range(&pa, q35_usable[i].base, q35_usable[i].len);
	palloc_reserve_range(&pa, 0x100000, 0x300000);
	assert_int_equal(palloc_alloc_range(&pa, 4, 0, 0x100000000, UINT64_MAX), 0x100000000);
	assert_int_equal(palloc_alloc_range(&pa, 512, 2 * MiB, 0x100000000, UINT64_MAX), 0x100200000);
	/* lo not page-aligned rounds up */
	assert_int_equal(palloc_alloc_range(&pa, 1, 0, 0x100004001, UINT64_MAX), 0x100005000);
	/* the low allocations are not disturbed: the hint still starts at the bottom */
	assert_int_equal(palloc_alloc(&pa, 1, 0), 0x1000);
	/* a run that must end below 4 GiB: the last free low page is 0x7ffdf000 */
	assert_int_equal(palloc_alloc_range(&pa, 1, 0, 0x7ffd0000, 0x100000000), 0x7ffd0000);
	assert_int_equal(palloc_alloc_range(&pa, 2, 0, 0x7ffde000, 0x100000000), 0x7ffde000);
	assert_int_equal(palloc_alloc_range(&pa, 1, 0, 0x7ffde000, 0x100000000), 0);
	/* a hi bound inside the run refuses it */
	assert_int_equal(palloc_alloc_range(&pa, 2, 0, 0x100004000, 0x100005000), 0);
	assert_int_equal(palloc_alloc_range(&pa, 1, 0, 0x100004000, 0x100005000), 0x100004000);
}

static void test_random_against_model(void **state)
{
	static const uint64_t aligns[] = { 0, PAGE_SIZE, 8 * KiB, 64 * KiB, 128 * KiB, 1 * MiB };
	struct {
		uint64_t addr, n;
	} live[256];
	int nlive = 0, iter, j;
	uint64_t n, align, got, want, free_ref, k;

	(void)state;
	palloc_init(&pa, REF_BASE, REF_PAGES, bitmap);
	memset(ref, 1, sizeof(ref));
	palloc_add_range(&pa, REF_BASE, REF_PAGES * PAGE_SIZE);
	memset(ref, 0, sizeof(ref));
	palloc_reserve_range(&pa, REF_BASE + 100 * PAGE_SIZE + 5, 3 * PAGE_SIZE);
	memset(&ref[100], 1, 4);
	for (iter = 0; iter < 200000; iter++) {
		if (nlive < 256 && rnd(100) < 55) {
			n = 1 + rnd(rnd(4) == 0 ? 64 : 8);
			align = aligns[rnd(6)];
			want = ref_alloc(n, align != 0 ? align : PAGE_SIZE);
			got = palloc_alloc(&pa, n, align);
			assert_int_equal(got, want);
			if (got != 0) {
				live[nlive].addr = got;
				live[nlive++].n = n;
			}
		} else if (nlive > 0) {
			j = (int)rnd((uint32_t)nlive);
			assert_int_equal(palloc_free(&pa, live[j].addr, live[j].n), 0);
			memset(&ref[(live[j].addr - REF_BASE) / PAGE_SIZE], 0, live[j].n);
			if (rnd(8) == 0)
				assert_int_equal(palloc_free(&pa, live[j].addr, 1), -1);
			live[j] = live[--nlive];
		}
		for (free_ref = 0, k = 0; k < REF_PAGES; k++)
			free_ref += !ref[k];
		assert_int_equal(pa.free_pages, free_ref);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bitmap_words),
		cmocka_unit_test(test_init_all_used),
		cmocka_unit_test(test_contiguous),
		cmocka_unit_test(test_alignment),
		cmocka_unit_test(test_bad_requests),
		cmocka_unit_test(test_exhaustion),
		cmocka_unit_test(test_free_errors),
		cmocka_unit_test(test_page_zero_never),
		cmocka_unit_test(test_ranges_round),
		cmocka_unit_test(test_q35_6g),
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_random_against_model),
	};

	return cmocka_run_group_tests_name("palloc", tests, NULL, NULL);
}
