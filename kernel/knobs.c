/* Command-line knobs gathered from the .knobs section. Errors found while
 * booting are kept and printed after ready: the serial line is slow (87 us
 * a byte at 115200) and would otherwise stretch the boot time. */
#include <stdio.h>
#include <string.h>
#include "kernel/knobs.h"

static char errors[4096];
static size_t errors_len;
static unsigned errors_dropped;	/* messages that did not fit whole */

/* Keep msg whole or not at all: a message cut mid-word could say
 * something else than what was wrong. */
static void keep(const char *msg, void *ctx)
{
	(void)ctx;
	size_t n = strlen(msg);
	if (errors_len + n + 2 > sizeof(errors)) {
		errors_dropped++;
		return;
	}
	memcpy(errors + errors_len, msg, n);
	errors[errors_len + n] = '\n';
	errors_len += n + 1;
	errors[errors_len] = 0;
}

int knobs_parse(const char *cmdline)
{
	return cmdline_parse(cmdline, __knobs_start, KNOBS_COUNT, keep, 0);
}

void knobs_report(void)
{
	fputs(errors, stdout);
	if (errors_dropped)
		printf("cmdline: %u more error(s) not shown (over %zu bytes of messages)\n", errors_dropped,
		       sizeof(errors));
	errors_len = 0;
	errors_dropped = 0;
	errors[0] = 0;
}
