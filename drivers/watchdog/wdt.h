/* The hardware watchdog (watchdog=SECONDS): armed at boot by its driver,
 * fed by core 0's housekeeping (run/lcore.c) only while every core's poll
 * loop makes progress, so a wedged core resets the box. */
#ifndef WDT_H
#define WDT_H

/* 1 when a watchdog is armed (watchdog= is not 0 and a device took it). */
int wdt_armed(void);
/* Restart the countdown: the box lives watchdog= seconds more. */
void wdt_keepalive(void);
#endif
