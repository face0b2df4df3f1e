/*
 * `phc_ctl <port> get|freq [ppb]|pins`: read a port's clock or set its
 * frequency adjustment by hand, as linuxptp's phc_ctl does for a PHC
 * (its get and freq commands), or show its pins (ptp_pps, ptp_extts) as
 * Linux's testptp -l / -e would. A clock the ptp app steers as slave is
 * re-set by its servo at the next Sync; a master's or a free clock keeps
 * it (tests/qemu/test_ptp.py runs a master 2 % fast this way).
 */
#include <stdio.h>
#include <string.h>
#include "drivers/net/phc.h"
#include "kernel/fmt.h"
#include "kernel/shell.h"

/* A signed decimal ppb: an optional sign, then parse_u64's digits. */
static int parse_ppb(const char *s, int64_t *out)
{
	int neg = *s == '-';
	uint64_t v;
	if (parse_u64(s + (neg || *s == '+'), &v) || v > 1000000000u)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* What was wrong (what, its value), then the accepted forms. */
static int usage(const char *what, const char *arg)
{
	if (what)
		printf("phc_ctl: %s '%s'\n", what, arg);
	printf("usage: phc_ctl <port> get | phc_ctl <port> freq [ppb]  (ppb: -1000000000..1000000000) | "
	       "phc_ctl <port> pins; ports:");
	for (int i = 0; i < nic_count; i++)
		printf(" %s", nics[i]->name);
	printf("%s\n", nic_count ? "" : " none");
	return -1;
}

static int cmd_phc_ctl(int argc, char **argv)
{
	if (argc < 3)
		return usage(0, 0);
	struct nic *nic = nic_find(argv[1]);
	if (!nic)
		return usage("no port", argv[1]);
	struct phc *c = phc_of(nic);
	if (!strcmp(argv[2], "get")) {
		if (argc > 3)
			return usage("get takes nothing after it, not", argv[3]);
		int64_t t = phc_gettime(c);
		uint64_t a = t < 0 ? (uint64_t)-t : (uint64_t)t;
		printf("%s: clock time is %s%lu.%09lu (%s clock, adjfreq %ld ppb)\n", nic->name, t < 0 ? "-" : "",
		       a / 1000000000u, a % 1000000000u, phc_is_hw(c) ? "hardware" : "software", c->ppb);
		return 0;
	}
	if (!strcmp(argv[2], "pins")) {
		if (argc > 3)
			return usage("pins takes nothing after it, not", argv[3]);
		phc_pins_show(c);
		return 0;
	}
	if (strcmp(argv[2], "freq"))
		return usage("not a command (get, freq, pins)", argv[2]);
	if (argc > 4)
		return usage("freq takes one value, not also", argv[4]);
	int64_t ppb;
	if (argc == 4) {
		if (parse_ppb(argv[3], &ppb))
			return usage("not a ppb value", argv[3]);
		phc_adjfreq(c, ppb);
		printf("%s: adjusted clock frequency offset to %ld ppb\n", nic->name, c->ppb);
		return 0;
	}
	printf("%s: clock frequency offset is %ld ppb\n", nic->name, c->ppb);
	return 0;
}
SHELL_CMD(phc_ctl, "phc_ctl", "phc_ctl <port> get|freq [ppb]|pins",
	  "a port's clock: its time, its frequency adjustment read or set (linuxptp's phc_ctl), or its SDP pins "
	  "(ptp_pps output, ptp_extts input stamps)", cmd_phc_ctl);
