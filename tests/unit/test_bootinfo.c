/* Unit tests for kernel/boot_info.h: a command line longer than the
 * kernel keeps loses whole words, never part of one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "kernel/boot_info.h"

/* Copy the first keep bytes of line as the boot paths do. */
static uint32_t cut(char *out, const char *line, size_t keep)
{
	size_t n = strlen(line) < keep ? strlen(line) : keep;
	memcpy(out, line, n);
	return boot_cmdline_words(out, n, strlen(line), line[n]);
}

static void test_fits(void **state)
{
	char out[64];
	(void)state;
	assert_int_equal(cut(out, "a=1 b=2", 20), 0);
	assert_string_equal(out, "a=1 b=2");
	assert_int_equal(cut(out, "", 20), 0);
	assert_string_equal(out, "");
}

static void test_word_cut_in_two_is_refused(void **state)
{
	char out[64];
	(void)state;
	/* The example: a route whose next hop would lose its last digit. */
	const char *line = "app=fwd route=10.200.0.0/16,10.1.0.25";
	assert_int_equal(cut(out, line, strlen(line) - 1), strlen("route=10.200.0.0/16,10.1.0.25"));
	assert_string_equal(out, "app=fwd ");
	/* Cut right after a word: the word is whole and stays. */
	assert_int_equal(cut(out, "a=1 b=2", 3), 4);
	assert_string_equal(out, "a=1");
	assert_int_equal(cut(out, "a=1\tb=2", 4), 3);
	assert_string_equal(out, "a=1\t");
	/* One word longer than everything: nothing of it is kept. */
	assert_int_equal(cut(out, "route=1.2.3.0/24,1.2.3.4", 10), 24);
	assert_string_equal(out, "");
}

static void test_full_buffer(void **state)
{
	static char big[BOOT_CMDLINE_MAX + 100], out[BOOT_CMDLINE_MAX];
	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	memcpy(big, "stats=5 ", 8);
	assert_int_equal(cut(out, big, BOOT_CMDLINE_MAX - 1), sizeof(big) - 1 - 8);
	assert_string_equal(out, "stats=5 ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fits),
		cmocka_unit_test(test_word_cut_in_two_is_refused),
		cmocka_unit_test(test_full_buffer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
