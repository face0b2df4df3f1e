/* Command-line knobs gathered from the .knobs section. Errors found while
 * booting are kept and printed after ready: the serial line is slow (87 us
 * a byte at 115200) and would otherwise stretch the boot time. */
#include <stdio.h>
#include <string.h>
#include "kernel/knobs.h"

static char errors[8192];	/* every knob's bad-value message (67 knobs: ~4.4 KiB) */
static size_t errors_len;
static unsigned errors_dropped;	/* messages that did not fit whole */
static char refused[160];	/* the refused words' keys, for knobs_summary */
static unsigned nrefused;

/* The key of a refused word (before its '=', at most 24 bytes) into refused. */
static void keep_key(const char *word, size_t wlen)
{
	size_t used = strlen(refused), key = strcspn(word, "=");
	key = key < wlen ? key : wlen;
	nrefused++;
	if (used + 30 >= sizeof(refused)) {
		if (!strstr(refused, " ..."))
			strcpy(refused + used, " ...");
		return;
	}
	snprintf(refused + used, sizeof(refused) - used, "%s%.*s", used ? " " : "", (int)(key < 24 ? key : 24), word);
}

/* Keep msg whole or not at all: a message cut mid-word could say
 * something else than what was wrong. */
static void keep(const char *msg, const char *word, size_t wlen, void *ctx)
{
	(void)ctx;
	if (word)
		keep_key(word, wlen);
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

void knobs_summary(void)
{
	if (nrefused)
		printf("cmdline: %u word%s refused (%s): defaults kept (messages above)\n", nrefused,
		       nrefused == 1 ? "" : "s", refused);
}
