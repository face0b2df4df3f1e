/* The watchdog= knob and the armed watchdog's feed (drivers/watchdog/wdt.h). */
#include <stdio.h>
#include <string.h>
#include "drivers/watchdog/wdt.h"
#include "kernel/knobs.h"

int64_t wdt_seconds;
/* 1 s is refused: the feed comes once a second, as late as the reset. */
static const struct knob_range range[] = { { 0, 0 }, { 2, WDT_SECONDS_MAX } };
KNOB(watchdog, .name = "watchdog", .type = KNOB_INT, .ranges = range, .nranges = 2, .ival = &wdt_seconds,
     .help = "seconds a wedged core has before the hardware watchdog (i6300esb, else q35's ICH9 TCO timer, "
	     "at most 1227 s) resets the box; fed once a second while every core's poll loop runs (so at "
	     "least 2); 0 off; default 0");

static void (*feed)(void);
static char armed_by[40];

int wdt_claim(const char *who, void (*keepalive)(void))
{
	if (feed) {
		printf("watchdog: %s not armed: %s is (one watchdog at a time)\n", who, armed_by);
		return -1;
	}
	snprintf(armed_by, sizeof(armed_by), "%s", who);
	feed = keepalive;
	return 0;
}

void wdt_keepalive(void)
{
	if (feed)
		feed();
}
