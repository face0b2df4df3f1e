/* Command-line knobs gathered from the .knobs section. Errors found while
 * booting are kept and printed after ready: the serial line is slow (87 us
 * a byte at 115200) and would otherwise stretch the boot time. */
#include <stdio.h>
#include <string.h>
#include "kernel/knobs.h"

static char errors[2048];
static size_t errors_len;

static void keep(const char *msg, void *ctx)
{
	(void)ctx;
	int n = snprintf(errors + errors_len, sizeof(errors) - errors_len, "%s\n", msg);
	if (n > 0)
		errors_len += strnlen(errors + errors_len, (size_t)n);
}

int knobs_parse(const char *cmdline)
{
	return cmdline_parse(cmdline, __knobs_start, KNOBS_COUNT, keep, 0);
}

void knobs_report(void)
{
	fputs(errors, stdout);
	if (errors_len + 1 >= sizeof(errors))
		printf("cmdline: more errors than fit in %zu bytes; the rest were not shown\n", sizeof(errors));
	errors_len = 0;
	errors[0] = 0;
}
