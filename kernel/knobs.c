/* Command-line knobs gathered from the .knobs section. */
#include <stdio.h>
#include "kernel/knobs.h"

static void report(const char *msg, void *ctx)
{
	(void)ctx;
	printf("%s\n", msg);
}

int knobs_parse(const char *cmdline)
{
	return cmdline_parse(cmdline, __knobs_start, KNOBS_COUNT, report, 0);
}
