/* Unit tests for kernel/bootparse.c, Multiboot2 information with lying
 * sizes (found by tests/fuzz/fuzz_bootinfo): a tag running past the block,
 * a memory map with entries of 0 bytes, a command line without a NUL. The
 * blocks are heap copies of their exact size, so ASan catches any read
 * past them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>
#include "kernel/boot.h"

uint64_t boot_entry_tsc, boot_info_addr;
uint32_t boot_magic = 0x36d76289, boot_path = BOOT_MULTIBOOT2;

static struct boot_info bi;

/* Parse the block words[0..n) (total_size set to its size). */
static int parse(const uint32_t *words, size_t n)
{
	uint32_t *b = malloc(n * 4);
	memcpy(b, words, n * 4);
	b[0] = (uint32_t)(n * 4);
	boot_info_addr = (uint64_t)b;
	int r = boot_parse(&bi);
	free(b);
	return r;
}

static void test_good_block(void **state)
{
	(void)state;
	/* cmdline "a=1", then a map of one entry, then the end tag. */
	const uint32_t w[] = { 0, 0, 1, 12, 0x00313d61, 0, 6, 40, 24, 0, 0x100000, 0, 0x800000, 0, 1, 0, 0, 8 };
	assert_int_equal(parse(w, sizeof(w) / 4), 0);
	assert_string_equal(bi.cmdline, "a=1");
	assert_int_equal(bi.nregions, 1);
	assert_int_equal(bi.regions[0].base, 0x100000);
	assert_int_equal(bi.regions[0].len, 0x800000);
}

static void test_tag_past_block(void **state)
{
	(void)state;
	/* A map tag claiming 4 KiB in a 32-byte block: refused, nothing read past. */
	const uint32_t w[] = { 0, 0, 6, 4096, 24, 0, 0, 0 };
	assert_int_equal(parse(w, sizeof(w) / 4), -1);
	assert_int_equal(bi.nregions, 0);
}

static void test_map_entry_size_zero(void **state)
{
	(void)state;
	/* entry_size 0 looped forever (o += 0) before. */
	const uint32_t w[] = { 0, 0, 6, 16, 0, 0, 0, 8 };
	assert_int_equal(parse(w, sizeof(w) / 4), -1);
	assert_int_equal(bi.nregions, 0);
}

static void test_map_entry_size_wraps(void **state)
{
	(void)state;
	/* entry_size 0xfffffff8: 8 + it wrapped the 32-bit bound check and an
	 * entry was read past the tag (found by fuzz_bootinfo). */
	const uint32_t w[] = { 0, 0, 6, 24, 0xfffffff8u, 0, 0, 0 };
	assert_int_equal(parse(w, sizeof(w) / 4), 0);
	assert_int_equal(bi.nregions, 0);
}

static void test_cmdline_without_nul(void **state)
{
	(void)state;
	/* "a=1 b=2" fills its tag with no NUL; the block ends right after. */
	const uint32_t w[] = { 0, 0, 1, 16, 0x20313d61, 0x00323d62 | 0x7a000000u };
	assert_int_equal(parse(w, sizeof(w) / 4), 0);
	assert_string_equal(bi.cmdline, "a=1 b=2z");
}

static void test_modules(void **state)
{
	(void)state;
	/* Two module tags (GRUB's module2 lines, spec 3.6.6): the first is
	 * kept, [0x200000, 0x200100) named "replay". */
	const uint32_t w[] = { 0, 0, 3, 23, 0x200000, 0x200100, 0x6c706572, 0x00007961, 3, 17, 0x300000, 0x300010, 0,
			       0, 0, 8 };
	assert_int_equal(parse(w, sizeof(w) / 4), 0);
	assert_int_equal(bi.module_base, 0x200000);
	assert_int_equal(bi.module_len, 0x100);
	/* A module ending before it starts: none. */
	const uint32_t e[] = { 0, 0, 3, 16, 0x200000, 0x100000, 0, 8 };
	assert_int_equal(parse(e, sizeof(e) / 4), 0);
	assert_int_equal(bi.module_len, 0);
}

static void test_pvh_module(void **state)
{
	(void)state;
	/* hvm_start_info with one hvm_modlist_entry (QEMU's -initrd). */
	uint64_t mod[4] = { 0x400000, 12345, 0, 0 };
	uint32_t si[14] = { 0x336ec578, 1, 0, 1 };
	memcpy(&si[4], &(uint64_t){ (uint64_t)mod }, 8);
	boot_path = BOOT_PVH;
	boot_info_addr = (uint64_t)si;
	assert_int_equal(boot_parse(&bi), 0);
	boot_path = BOOT_MULTIBOOT2;
	assert_int_equal(bi.module_base, 0x400000);
	assert_int_equal(bi.module_len, 12345);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_block),
		cmocka_unit_test(test_tag_past_block),
		cmocka_unit_test(test_map_entry_size_zero),
		cmocka_unit_test(test_map_entry_size_wraps),
		cmocka_unit_test(test_cmdline_without_nul),
		cmocka_unit_test(test_modules),
		cmocka_unit_test(test_pvh_module),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
