/*
 * Knobs from the serial shell: `set <knob> <value>` for the knobs that may
 * change while the appliance runs, and `show config` for all of them.
 * Portable (host unit tests): replies are written into buffers. The shell
 * commands themselves are in run/statscmds.c.
 */
#ifndef KERNEL_CONFIG_H
#define KERNEL_CONFIG_H
#include <stddef.h>
#include "kernel/cmdline.h"

/*
 * Set knob name of knobs[0..n) to value, if the knob is live, then call
 * its apply. port >= 0: only that port's value of a per-port knob
 * ("set: X is one value for every port" for the others); -1: as given. Writes one line of reply into msg (len bytes, no newline):
 *   "InterruptThrottleRate=4"                          (returns 0)
 *   "set: unknown knob 'stat'; did you mean stats? (run-time knobs: a b)"
 *                                                      (returns -1)
 *   "set: rxd is read at boot only: give rxd= on the kernel command line
 *    (run-time knobs: a b)"                            (returns -1)
 *   "set: bad value 'x' for InterruptThrottleRate= (accepted: 0-1|3-4|100-100000)"
 * A bad value leaves the knob as it was.
 */
int config_set(const struct knob *knobs, size_t n, int port, const char *name, const char *value, char *msg, size_t len);

/* The current value of k as text into buf (len bytes): the number, the
 * choice's name, or what k->show writes ("?" without show). */
void knob_value(const struct knob *k, char *buf, size_t len);

/* Ports that exist: a per-port knob shows its values for ports
 * 0..config_ports-1 only. KNOB_MAX_PORTS until run/main.c sets nic_count
 * after probe. */
extern int config_ports;

/* Longest knob value `show config` prints whole, NUL included (route= with
 * 64 routes). */
#define CONFIG_VALUE_MAX 2304

/*
 * `show config`: one line per knob of knobs[0..n):
 *   "InterruptThrottleRate=3        run   0 off, 1 dynamic, ...; default 3"
 * ("run": settable at run time, knob.live; "boot": kernel command line only).
 * Grouped by the file that declares them, a "[drivers/net/nic.c]" line
 * before each group, the groups in config_groups' order (general, NIC,
 * addresses, then each app), each file's knobs in declaration order;
 * knobs without a file first, in their order. A knob's NAME.SUB keys
 * (show_sub, e.g. ip0.100=) follow its line, one line each.
 * Writes whole lines into buf (len bytes, NUL-terminated); returns the
 * length written.
 */
size_t config_show(char *buf, size_t len, const struct knob *knobs, size_t n);
#endif
