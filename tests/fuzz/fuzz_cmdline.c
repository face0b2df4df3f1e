/* Fuzz the kernel command line and every knob parser (kernel/cmdline.c and
 * the KNOB_FUNC parsers of nic.c, fwd.c, route.c, net/ifaddr.c, app.c), and `set` /
 * `show config` (kernel/config.c), with the real knob registry. Checks:
 * no crash, every message whole and shorter than CMDLINE_MSG_MAX, every
 * value shown NUL-terminated, and what a refused value must not leave
 * behind: ring sizes stay multiples of 8 in range, ipN= subnets never
 * overlap, no port gets a network or broadcast address. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "drivers/net/nic.h"
#include "kernel/config.h"
#include "kernel/knobs.h"
#include "net/ifaddr.h"
#include "net/ipv4.h"
#include "tests/fuzz/fuzz_state.h"

/* Words of an input also given to `set`. */
#define SET_WORDS 16

static void report(const char *msg, const char *word, size_t wlen, void *ctx)
{
	(void)ctx;
	assert(word == NULL || wlen);
	size_t n = strlen(msg);
	assert(n < CMDLINE_MSG_MAX && !strncmp(msg, "cmdline: ", 9));
}

static void check_state(void)
{
	for (int p = 0; p < NIC_MAX_PORTS; p++) {
		assert(nic_cfg.rxd[p] % 8 == 0 && nic_cfg.rxd[p] >= 80 && nic_cfg.rxd[p] <= 4096);
		assert(nic_cfg.txd[p] % 8 == 0 && nic_cfg.txd[p] >= 80 && nic_cfg.txd[p] <= 4096);
	}
	for (int p = 0; p < NIC_MAX_PORTS; p++) {
		if (!ifaddrs[p].v4.addr)
			continue;
		uint32_t m = ipv4_mask(ifaddrs[p].v4.len);
		assert(ifaddrs[p].v4.len >= 1 && ifaddrs[p].v4.len <= 32);
		assert(!ifaddrs[p].v4.gw || (!((ifaddrs[p].v4.gw ^ ifaddrs[p].v4.addr) & m) &&
					      ifaddrs[p].v4.gw != ifaddrs[p].v4.addr));
		if (ifaddrs[p].v4.len <= 30)
			assert((ifaddrs[p].v4.addr & ~m) && (ifaddrs[p].v4.addr & ~m) != ~m);
		for (int q = p + 1; q < NIC_MAX_PORTS; q++) {
			int l = ifaddrs[q].v4.len < ifaddrs[p].v4.len ? ifaddrs[q].v4.len : ifaddrs[p].v4.len;
			assert(!ifaddrs[q].v4.addr || ((ifaddrs[p].v4.addr ^ ifaddrs[q].v4.addr) & ipv4_mask(l)));
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	/* Every knob made live without its apply, so `set` reaches every parser. */
	static struct knob live[256];
	static char big[1 << 16], v[CONFIG_VALUE_MAX];
	if (!kstate_saved) {
		kstate_save();
		assert(KNOBS_COUNT <= 256);
		for (size_t i = 0; i < KNOBS_COUNT; i++) {
			live[i] = __knobs_start[i];
			live[i].live = 1;
			live[i].apply = 0;
			/* The accepted forms come from the knob's definition
			 * alone: the same for every input, checked once. */
			knob_accepted(&__knobs_start[i], big, 256);
			assert(strlen(big) < 256);
		}
	}
	kstate_restore();
	char *line = malloc(len + 1);
	for (size_t i = 0; i < len; i++)
		line[i] = data[i] ? (char)data[i] : ' ';
	line[len] = 0;
	cmdline_parse(line, __knobs_start, KNOBS_COUNT, report, 0);
	check_state();
	for (const struct knob *k = __knobs_start; k < __knobs_end; k++) {
		knob_value(k, v, sizeof(v));
		assert(memchr(v, 0, sizeof(v)));
	}
	size_t n = config_show(big, sizeof(big), live, KNOBS_COUNT);
	assert(n == strlen(big));
	/* The first SET_WORDS key=value words through `set <knob> <value>`,
	 * as the shell splits them. The shell takes one knob a line; every
	 * word of a 4 KB line made `set` a fifth of the harness's time. */
	char msg[CMDLINE_MSG_MAX], *save = 0;
	int sets = 0;
	for (char *w = strtok_r(line, " \t", &save); w && sets < SET_WORDS; w = strtok_r(0, " \t", &save)) {
		char *eq = strchr(w, '=');
		if (!eq)
			continue;
		sets++;
		*eq = 0;
		config_set(live, KNOBS_COUNT, -1, w, eq + 1, msg, sizeof(msg));
		assert(strlen(msg) < sizeof(msg));
		check_state();
	}
	free(line);
	return 0;
}
