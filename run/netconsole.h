/* netconsole=: console messages as UDP to a collector (run/netconsole.c,
 * net/netcon.h for the form). */
#ifndef RUN_NETCONSOLE_H
#define RUN_NETCONSOLE_H
#include <stddef.h>

/* The core that sends the datagrams (the owner of the port's TX queue 0),
 * or -1 when netconsole is off. */
extern int netcon_core;
/* Keep n bytes of a message for every console (kernel/conout.c): carriage
 * returns, other control bytes and VT100 sequences are left out; what does
 * not fit the 16 KiB buffer is dropped and counted. Nothing when off.
 * Any core, any time (interrupts off inside). */
void netcon_put(const char *s, size_t n);
/* After lcore_place: check the port netconsole= named exists, make the
 * datagrams' buffers and choose the core; prints the boot report's
 * "netconsole:" line (or why it is not used). */
void netcon_apply(void);
/* On netcon_core, once a turn of its loop: send up to a few datagrams of
 * whole lines once the port's link is up and it has a source address;
 * never waits. Returns 1 while lines are left to send. */
int netcon_poll(void);
/* The `console` command's line for netconsole (nothing when off). */
void netcon_print(void);
#endif
