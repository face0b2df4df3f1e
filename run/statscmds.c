/*
 * The periodic statistics report (knobs stats=, stats_format=) and the shell
 * commands about ports and knobs: stats, ifconfig/link, set, show config,
 * clear stats. Formatting lives in run/stats.c and kernel/config.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "apps/app.h"
#include "drivers/net/nic.h"
#include "kernel/config.h"
#include "kernel/cpu.h"
#include "kernel/knobs.h"
#include "run/lcore.h"
#include "kernel/shell.h"
#include "run/stats.h"
#include "kernel/time.h"
#include "net/addr.h"

static int64_t stats_period = 1;	/* seconds; 0 = off */
static int64_t stats_fmt = STATS_TABLE;
static int64_t since_report;	/* housekeeping calls since the last periodic report */

/* set stats: a new period starts now. */
static void stats_apply(void)
{
	since_report = 0;
}
static const struct knob_range period_range[] = { { 0, 3600 } };
KNOB(stats, .name = "stats", .type = KNOB_INT, .ranges = period_range, .nranges = 1, .ival = &stats_period,
     .live = 1, .apply = stats_apply,
     .help = "seconds between statistics reports on the console; 0 off; default 1");
static const char *const format_choices[] = { "table", "json", 0 };
KNOB(stats_format, .name = "stats_format", .type = KNOB_ENUM, .choices = format_choices, .ival = &stats_fmt, .live = 1,
     .help = "table: netstat -i style text; json: one object per line for tools/statplot.py; default table");

static struct stats_snap base, now;	/* the last report, and this one */
static char report[32768];		/* 8 ports of 8 queues in JSON fit */

#define NCORES nlcores
_Static_assert(MAX_CPUS <= STATS_MAX_CORES, "STATS_MAX_CORES is below MAX_CPUS");

static void sample(struct stats_snap *s, uint64_t tsc_now)
{
	s->tsc = tsc_now;
	s->uptime_ms = now_ns() / 1000000;
	s->nports = nic_count;
	for (int i = 0; i < nic_count; i++)
		stats_sample_port(&s->port[i], nics[i]);
	s->ncores = NCORES;
	for (int i = 0; i < s->ncores; i++)
		stats_sample_core(&s->core[i], &lcores[i]);
}

/* Print the report since the last one (since the poll loop started, for
 * the first) for one port or all (-1); it becomes the new base. */
static void print_report(uint64_t tsc_now, int port)
{
	if (!base.tsc)
		base.tsc = lcores[0].start_tsc ? lcores[0].start_tsc : tsc_now;
	sample(&now, tsc_now);
	stats_format(report, sizeof(report), &base, &now, tsc.hz, (enum stats_format)stats_fmt, port);
	fputs(report, stdout);
	base = now;
}

void stats_tick(uint64_t now_tsc)
{
	if (!stats_period || ++since_report < stats_period)
		return;
	since_report = 0;
	print_report(now_tsc, -1);
	for (int i = 0; apps_running[i]; i++)
		if (apps_running[i]->report)
			apps_running[i]->report(stats_fmt == STATS_JSON);
}

static int cmd_stats(int argc, char **argv)
{
	struct nic *nic = argc == 2 ? nic_find(argv[1]) : 0;
	if (argc > 2 || (argc == 2 && !nic)) {
		printf("usage: stats [port]; ");
		nic_print_ports();
		return -1;
	}
	for (int i = 0; i < nic_count; i++)
		nics[i]->ops->update_stats(nics[i]);
	print_report(rdtsc(), nic ? nic->port : -1);
	return 0;
}
SHELL_CMD(stats, "stats", "stats [port]", "netstat -i table, queue rates and CPU% since the last report",
	  cmd_stats);

static const char *const int_modes[] = { "legacy INTx", "MSI", "MSI-X" };

static int cmd_ifconfig(int argc, char **argv)
{
	struct nic *nic = argc == 2 ? nic_find(argv[1]) : 0;
	if (argc > 2 || (argc == 2 && !nic)) {
		printf("usage: %s [port]; ", argv[0]);
		nic_print_ports();
		return -1;
	}
	if (!nic_count)
		printf("no ports\n");
	for (int i = 0; i < nic_count; i++) {
		struct nic *n = nics[i];
		if (nic && n != nic)
			continue;
		printf("%s: %s %s", n->name, n->driver, n->model);
		if (n->pci)
			printf(" at %02x:%02x.%x, %s", n->pci->bus, n->pci->dev, n->pci->fn,
			       n->pci->int_mode >= 0 && n->pci->int_mode <= 2 ? int_modes[n->pci->int_mode] : "no interrupts");
		char m[MAC_STR_MAX];
		printf("\n    ether %s  mtu %u  ", mac_str(m, n->mac), n->mtu);
		if (n->link_up == 1)
			printf("link up %u Mb/s %s duplex\n", n->speed, n->full_duplex ? "full" : "half");
		else
			printf("link down\n");
		printf("    queues %d  rxd %d  txd %d\n", n->nqueues, n->rxd, n->txd);
	}
	return 0;
}
SHELL_CMD(ifconfig, "ifconfig", "ifconfig [port]", "ports: driver, PCI address, MAC, MTU, link, queues",
	  cmd_ifconfig);
SHELL_CMD(link, "link", "link [port]", "the same as ifconfig", cmd_ifconfig);

/* reset <port> [queue <q>]: the driver's recovery path on demand (count
 * in resets), or queue pair q alone where the driver can (queue_q_resets). */
static int cmd_reset(int argc, char **argv)
{
	struct nic *nic = argc == 2 || argc == 4 ? nic_find(argv[1]) : 0;
	if (!nic || (argc == 4 && strcmp(argv[2], "queue"))) {
		printf("usage: reset <port> [queue <q>]; ");
		nic_print_ports();
		return -1;
	}
	if (argc == 2) {
		nic->ops->reset(nic);
		printf("%s: reset requested (the watchdog resets it now; ethtool -S counts resets)\n", nic->name);
		return 0;
	}
	char *end;
	long q = strtol(argv[3], &end, 10);
	if (*end || end == argv[3] || q < 0 || q >= nic->nqueues) {
		printf("reset: queue '%s': %s has queue pairs 0 to %d\n", argv[3], nic->name, nic->nqueues - 1);
		return -1;
	}
	if (!nic->ops->reset_queue) {
		printf("%s: %s resets no queue alone: `reset %s` resets the port\n", nic->name, nic->driver, nic->name);
		return -1;
	}
	if (nic->ops->reset_queue(nic, (int)q))
		return -1;
	printf("%s: queue pair %ld reset requested (the watchdog resets it now; ethtool -S counts queue_%ld_resets)\n",
	       nic->name, q, q);
	return 0;
}
SHELL_CMD(reset, "reset", "reset <port> [queue <q>]",
	  "reset a port as after a TX hang: stop DMA, reset, set it up again; with queue, that queue pair alone (virtio)",
	  cmd_reset);

static int cmd_set(int argc, char **argv)
{
	char msg[CMDLINE_MSG_MAX];
	struct nic *nic = argc == 4 ? nic_find(argv[1]) : 0;
	if (argc == 4 && !nic && knob_find(__knobs_start, KNOBS_COUNT, argv[1])) {
		printf("set: one value after %s: usage: set [port] <knob> <value>\n", argv[1]);
		return -1;
	}
	if (argc == 4 && !nic) {
		printf("set: no port '%s'; ", argv[1]);
		nic_print_ports();
		return -1;
	}
	if (argc != 3 && argc != 4) {
		printf("usage: set [port] <knob> <value>; run-time knobs:");
		for (const struct knob *k = __knobs_start; k < __knobs_end; k++)
			if (k->live)
				printf(" %s", k->name);
		printf(" (show config lists them all)\n");
		return -1;
	}
	int err = config_set(__knobs_start, KNOBS_COUNT, nic ? nic->port : -1, argv[argc - 2],
			     argv[argc - 1], msg, sizeof(msg));
	printf("%s\n", msg);
	return err;
}
SHELL_CMD(set, "set", "set [port] <knob> <value>",
	  "change a run-time knob, for every port or one (show config lists them)", cmd_set);

size_t stats_config_text(char *buf, size_t len)
{
	return config_show(buf, len, __knobs_start, KNOBS_COUNT);
}

static int cmd_show(int argc, char **argv)
{
	if (argc != 2 || strcmp(argv[1], "config")) {
		printf("usage: show config\n");
		return -1;
	}
	config_show(report, sizeof(report), __knobs_start, KNOBS_COUNT);
	fputs(report, stdout);
	return 0;
}
SHELL_CMD(show, "show", "show config", "every knob: value, run or boot, meaning", cmd_show);

/* Zero every port's and core's counters; the hardware registers are read
 * (they clear on read) and their counts discarded. The other cores are
 * parked meanwhile: each counter has one writer, its core, and a core
 * that incremented a counter while core 0 zeroed it could write the old
 * count back. */
static int cmd_clear(int argc, char **argv)
{
	if (argc != 2 || strcmp(argv[1], "stats")) {
		printf("usage: clear stats\n");
		return -1;
	}
	if (nic_stop_others)
		nic_stop_others(1);
	for (int i = 0; i < nic_count; i++) {
		struct nic *n = nics[i];
		n->ops->update_stats(n);
		memset(n->stats, 0, sizeof(n->stats));
		for (int q = 0; q < n->nqueues; q++)
			n->q[q] = (struct nic_qstats){ .itr = n->q[q].itr };
	}
	for (int i = 0; i < NCORES; i++)
		lcores[i].processed = lcores[i].time_squeeze = app_drops[i].n = 0;
	if (nic_stop_others)
		nic_stop_others(0);
	sample(&base, rdtsc());
	since_report = 0;
	printf("counters of %d port(s) and %d core(s) cleared\n", nic_count, NCORES);
	return 0;
}
SHELL_CMD(clear, "clear", "clear stats", "zero the port, queue and core counters", cmd_clear);
