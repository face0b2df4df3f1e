/* Unit tests for kernel/lineedit.c: bytes in, line and terminal bytes out. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "kernel/lineedit.h"

static struct lineedit le;
static char out[8192];
static size_t outlen;

static void capture(const char *s, size_t n, void *ctx)
{
	assert_ptr_equal(ctx, out);
	assert_true(outlen + n < sizeof(out));
	memcpy(out + outlen, s, n);
	outlen += n;
	out[outlen] = '\0';
}

static int setup(void **state)
{
	(void)state;
	le_init(&le, capture, out);
	outlen = 0;
	out[0] = '\0';
	return 0;
}

static void clear_out(void)
{
	outlen = 0;
	out[0] = '\0';
}

/* Feed s (n bytes); returns how many lines completed. */
static int feed_n(const char *s, size_t n)
{
	int lines = 0;
	size_t i;

	for (i = 0; i < n; i++)
		lines += le_feed(&le, (unsigned char)s[i]);
	return lines;
}

static int feed(const char *s)
{
	return feed_n(s, strlen(s));
}

static void test_simple_line(void **state)
{
	(void)state;
	assert_int_equal(feed("stats"), 0);
	assert_string_equal(out, "stats");
	assert_int_equal(feed("\r"), 1);
	assert_string_equal(le.line, "stats");
	assert_string_equal(out, "stats\r\n");
	assert_int_equal(le.ignored, 0);
}

static void test_crlf_is_one_end(void **state)
{
	(void)state;
	assert_int_equal(feed("a\r\nb\n\rc\r\r\n\n"), 5);
	assert_string_equal(le.line, "");
	assert_string_equal(out, "a\r\nb\r\nc\r\n\r\n\r\n");
	/* A pair split by another byte is two ends. */
	clear_out();
	assert_int_equal(feed("y\rx\n"), 2);
	assert_string_equal(le.line, "x");
}

static void test_empty_line_returned(void **state)
{
	(void)state;
	strcpy(le.line, "junk");
	assert_int_equal(feed("\n"), 1);
	assert_string_equal(le.line, "");
	assert_string_equal(out, "\r\n");
}

static void test_insert_in_middle(void **state)
{
	(void)state;
	feed("helo");
	clear_out();
	feed("\x1b[D");
	assert_string_equal(out, "\x1b[1D");
	clear_out();
	feed("l");
	/* Echo the new byte and the tail, then step back over the tail. */
	assert_string_equal(out, "lo\x1b[1D");
	feed("\x1b[D\x1b[D\x1b[D\x1b[D\x1b[D");	/* extra lefts stop at 0 */
	assert_int_equal(le.cur, 0);
	clear_out();
	feed(">");
	assert_string_equal(out, ">hello\x1b[5D");
	assert_int_equal(feed("\r"), 1);
	assert_string_equal(le.line, ">hello");
}

static void test_backspace_and_delete(void **state)
{
	(void)state;
	feed("abcd");
	clear_out();
	feed("\x7f");
	assert_string_equal(out, "\x1b[1D\x1b[K");
	feed("\x1b[D\x1b[D");
	clear_out();
	feed("\b");		/* deletes 'a', tail "bc" redrawn */
	assert_string_equal(out, "\x1b[1D" "bc\x1b[K\x1b[2D");
	clear_out();
	feed("\b\b\b");		/* at column 0: nothing */
	assert_string_equal(out, "");
	clear_out();
	feed("\x1b[3~");	/* Delete: removes 'b' under the cursor */
	assert_string_equal(out, "c\x1b[K\x1b[1D");
	feed("\x1b[C\x1b[3~");	/* at the end: nothing to delete */
	assert_int_equal(feed("\r"), 1);
	assert_string_equal(le.line, "c");
	assert_int_equal(le.ignored, 0);
}

static void test_home_end(void **state)
{
	(void)state;
	feed("word");
	clear_out();
	feed("\x01");
	assert_string_equal(out, "\x1b[4D");
	feed("X\x05Y\x1b[HA\x1b[FZ\x1b[1~B\x1b[4~C\x1bOHD\x1bOFE");
	assert_int_equal(feed("\r"), 1);
	assert_string_equal(le.line, "DBAXwordYZCE");
	clear_out();
	feed("\x1b[H\x1b[F\x01\x05");	/* on an empty line: no output */
	assert_string_equal(out, "");
}

static void test_ctrl_u_and_ctrl_c(void **state)
{
	(void)state;
	feed("reboot");
	feed("\x1b[D\x1b[D");
	clear_out();
	feed("\x15");
	assert_string_equal(out, "\x1b[4D\x1b[K");
	assert_int_equal(le.len, 0);
	feed("stats");
	clear_out();
	assert_int_equal(feed("\x03"), 1);	/* an empty line: the shell prompts again */
	assert_string_equal(out, "^C\r\n");
	assert_string_equal(le.line, "");
	assert_int_equal(feed("ok\r"), 1);
	assert_string_equal(le.line, "ok");
	/* Abandoned lines do not enter history. */
	feed("\x1b[A\x1b[A");
	assert_string_equal(le.buf, "ok");
}

static void test_history(void **state)
{
	(void)state;
	feed("one\rtwo\rtwo\r\rthree\r");
	clear_out();
	feed("dra");
	feed("\x1b[A");
	assert_string_equal(le.buf, "three");
	assert_string_equal(out, "dra\x1b[3D" "three\x1b[K");
	feed("\x1b[A");
	assert_string_equal(le.buf, "two");	/* the duplicate was kept once */
	feed("\x1b[A");
	assert_string_equal(le.buf, "one");
	feed("\x1b[A");				/* no older line: stays */
	assert_string_equal(le.buf, "one");
	feed("\x1b[B\x1b[B");
	assert_string_equal(le.buf, "three");
	feed("\x1b[B");				/* back to the draft */
	assert_string_equal(le.buf, "dra");
	feed("\x1b[B");
	assert_string_equal(le.buf, "dra");
	feed("\x15\x1bOA\x1bOA");		/* SS3 arrows too */
	assert_int_equal(feed("\r"), 1);
	assert_string_equal(le.line, "two");
	assert_int_equal(le.ignored, 0);
}

static void test_history_ring(void **state)
{
	char line[8];
	int i;

	(void)state;
	for (i = 0; i < LE_HISTORY + 3; i++) {
		line[0] = (char)('a' + i);
		line[1] = '\r';
		line[2] = '\0';
		feed(line);
	}
	for (i = 0; i < LE_HISTORY + 5; i++)
		feed("\x1b[A");
	assert_string_equal(le.buf, "d");	/* the oldest of the last 8 */
	feed("\x1b[B");
	assert_string_equal(le.buf, "e");
}

static void test_overflow_rings_bel(void **state)
{
	char full[LE_LINE_MAX + 1];

	(void)state;
	memset(full, 'x', LE_LINE_MAX);
	full[LE_LINE_MAX] = '\0';
	feed(full);
	assert_int_equal(le.overflow, 0);
	clear_out();
	feed("yz");
	assert_string_equal(out, "\a\a");
	assert_int_equal(le.overflow, 2);
	feed("\x01");
	clear_out();
	feed("q");
	assert_string_equal(out, "\a");
	assert_int_equal(feed("\r\n"), 1);
	assert_int_equal(strlen(le.line), LE_LINE_MAX);
	assert_string_equal(le.line, full);
	assert_int_equal(le.overflow, 3);
	/* The line lost 3 bytes: the caller is told, so it does not run it. */
	assert_int_equal(le.cut, 3);
	assert_int_equal(feed("ok\r"), 1);
	assert_int_equal(le.cut, 0);
	/* Ctrl-U forgets the refused bytes with the line. */
	feed(full);
	feed("zz\x15" "ab");
	assert_int_equal(feed("\r"), 1);
	assert_string_equal(le.line, "ab");
	assert_int_equal(le.cut, 0);
	/* A full line from history still leaves room for editing after erase. */
	feed("\x1b[A\x1b[A\x1b[A\x7fw\r");
	assert_int_equal(le.line[LE_LINE_MAX - 1], 'w');
	assert_int_equal(le.cut, 0);
}

static void test_garbage_ignored(void **state)
{
	unsigned char g[256];
	int i, n = 0;

	(void)state;
	feed("ab");
	for (i = 0x80; i <= 0xff; i++)
		g[n++] = (unsigned char)i;
	for (i = 0; i < 0x20; i++)
		if (i != '\r' && i != '\n' && i != 0x1b && i != 0x01 && i != 0x03 &&
		    i != 0x05 && i != 0x08 && i != 0x15)
			g[n++] = (unsigned char)i;
	clear_out();
	assert_int_equal(feed_n((const char *)g, (size_t)n), 0);
	assert_int_equal(le.ignored, 128 + 24);
	assert_string_equal(out, "");
	assert_int_equal(feed("c\r"), 1);
	assert_string_equal(le.line, "abc");
	assert_int_equal(le.overflow, 0);
}

static void test_unknown_escapes(void **state)
{
	(void)state;
	feed("ab");
	clear_out();
	feed("\x1b[Z");			/* unknown CSI */
	feed("\x1b[2~");		/* Insert key: unknown */
	feed("\x1bx");			/* Alt-x */
	feed("\x1bOP");			/* F1 */
	feed("\x1b[1;5D");		/* Ctrl-Left */
	assert_int_equal(le.ignored, 5);
	feed("\x1b[1;2;3;4;5;6;7;8;9;10m");	/* longer than 8 bytes */
	assert_int_equal(le.ignored, 6);
	feed("\x1b[12345678D");		/* too long, even if it ends like Left */
	assert_int_equal(le.ignored, 7);
	assert_string_equal(out, "");
	assert_int_equal(le.cur, 2);
	assert_int_equal(feed("c\r"), 1);
	assert_string_equal(le.line, "abc");
}

static void test_escape_cut_short(void **state)
{
	(void)state;
	feed("ab");
	/* ESC [ then Enter: the sequence is dropped, the Enter counts. */
	assert_int_equal(feed("\x1b[\r"), 1);
	assert_string_equal(le.line, "ab");
	assert_int_equal(le.ignored, 1);
	/* ESC ESC [ D: the first sequence is dropped, the second works. */
	feed("xy\x1b\x1b[Dz\r");
	assert_string_equal(le.line, "xzy");
	assert_int_equal(le.ignored, 2);
	/* A byte >= 0x80 inside a sequence: both discarded. */
	feed("k\x1b[\xc3" "A\r");
	assert_string_equal(le.line, "kA");
	assert_int_equal(le.ignored, 4);
}

static void test_random_bytes_safe(void **state)
{
	uint64_t x = 0x853c49e6748fea9bull;
	unsigned char c;
	int i, lines = 0;

	(void)state;
	for (i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		c = (unsigned char)x;
		if (outlen > sizeof(out) / 2)
			clear_out();
		lines += le_feed(&le, c);
		assert_true(le.len <= LE_LINE_MAX);
		assert_true(le.cur <= le.len);
		assert_int_equal(strlen(le.buf), le.len);
		assert_true(strlen(le.line) <= LE_LINE_MAX);
	}
	assert_true(lines > 0);
	assert_true(le.ignored > 0);
}

static void test_no_output_callback(void **state)
{
	(void)state;
	le_init(&le, NULL, NULL);
	assert_int_equal(feed("ab\x1b[Dc\x7f\r"), 1);
	assert_string_equal(le.line, "ab");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_simple_line, setup),
		cmocka_unit_test_setup(test_crlf_is_one_end, setup),
		cmocka_unit_test_setup(test_empty_line_returned, setup),
		cmocka_unit_test_setup(test_insert_in_middle, setup),
		cmocka_unit_test_setup(test_backspace_and_delete, setup),
		cmocka_unit_test_setup(test_home_end, setup),
		cmocka_unit_test_setup(test_ctrl_u_and_ctrl_c, setup),
		cmocka_unit_test_setup(test_history, setup),
		cmocka_unit_test_setup(test_history_ring, setup),
		cmocka_unit_test_setup(test_overflow_rings_bel, setup),
		cmocka_unit_test_setup(test_garbage_ignored, setup),
		cmocka_unit_test_setup(test_unknown_escapes, setup),
		cmocka_unit_test_setup(test_escape_cut_short, setup),
		cmocka_unit_test_setup(test_random_bytes_safe, setup),
		cmocka_unit_test_setup(test_no_output_callback, setup),
	};

	return cmocka_run_group_tests_name("lineedit", tests, NULL, NULL);
}
