/* The hardware watchdog (watchdog=SECONDS): armed at boot by its driver
 * (i6300esb.c, itco.c), fed by core 0's housekeeping (run/lcore.c) only
 * while every core's poll loop makes progress, so a wedged core resets the
 * box. One device is armed: the first found on the PCI walk. */
#ifndef WDT_H
#define WDT_H
#include <stdint.h>

#define WDT_SECONDS_MAX 2046	/* the i6300esb's limit; a driver refuses more than its own */

/* watchdog=: seconds a wedged core has, 0 off. */
extern int64_t wdt_seconds;
/* Make who (e.g. "i6300esb 00:03.0") the armed watchdog fed by keepalive.
 * Returns 0, or -1 after printing that another one is armed already. */
int wdt_claim(const char *who, void (*keepalive)(void));
/* Restart the countdown: the box lives watchdog= seconds more. */
void wdt_keepalive(void);
#endif
