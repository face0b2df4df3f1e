/*
 * testpmd's run-time port verbs: stop a port, give it another app, start
 * it again, without a reboot.
 *   port                          each port's app, started or stopped
 *   port stop|start PORT|all      stopped: the port's frames are dropped,
 *                                 counted in its rx_port_stopped (ethtool -S)
 *   port config PORT app NAME     while stopped: the app that gets them
 * Only apps marked runtime (sink, fwd's L2 pairs, pktgen, rr) are placed
 * or taken off at run time; the cores that poll each queue stay as the
 * boot placed them, so an app that runs on one core (pktgen, rr) takes a
 * port only if that core polls all its queues.
 */
#include <stdio.h>
#include <string.h>
#include "apps/app.h"
#include "kernel/shell.h"
#include "run/lcore.h"

static uint8_t stopped[NIC_MAX_PORTS];

static void park(int stop)
{
	if (nic_stop_others)
		nic_stop_others(stop);
}

/* The apps a port can be given at run time, as "sink fwd" into buf. */
static const char *runtime_apps(char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (const struct app *a = __apps_start; a < __apps_end && used < len; a++)
		if (a->runtime)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " " : "", a->name);
	return buf;
}

static void set_stopped(struct nic *nic, int stop)
{
	const struct app *a = app_of_port(nic->port);
	park(1);
	stopped[nic->port] = (uint8_t)stop;
	lcore_set_port_app(nic->port, !stop && app_runs_on(a, nic->port) ? a : 0);
	park(0);
	printf("%s: %s (%s)\n", nic->name, stop ? "stopped: frames dropped, counted in rx_port_stopped" : "started",
	       a->name);
}

/* Ports that send through each other (a's domain) must have queue q on
 * one core: the boot placed them by their app at the time. 0, or -1 after
 * saying which two are apart. */
static int same_cores(const struct app *a, const struct nic *nic)
{
	if (!a->domain)
		return 0;
	for (int r = 0; r < nic_count; r++) {
		if (r == nic->port || app_of_port(r) != a || a->domain(r) != a->domain(nic->port))
			continue;
		for (int q = 0; q < nic->nqueues && q < nics[r]->nqueues; q++) {
			int c = lcore_of_queue(nic, q), d = lcore_of_queue(nics[r], q);
			if (c != d) {
				printf("port: %s and %s would send through each other but their queue %d is on core%d and "
				       "core%d (placed at boot: lcore_map= or app= puts them together)\n",
				       nic->name, nics[r]->name, q, c, d);
				return -1;
			}
		}
	}
	return 0;
}

/* An app without a domain runs on one core (apps/app.h): every queue of
 * nic and of the app's other ports on one. 0, or -1 after saying which
 * cores poll them. */
static int one_core(const struct app *a, const struct nic *nic)
{
	if (a->domain)
		return 0;
	int c = lcore_of_queue(nic, 0);
	for (int r = 0; r < nic_count; r++) {
		if (r != nic->port && !app_runs_on(a, r))
			continue;
		for (int q = 0; q < nics[r]->nqueues; q++) {
			int d = lcore_of_queue(nics[r], q);
			if (d != c) {
				printf("port: %s runs on one core, but %s queue 0 is on core%d and %s queue %d on core%d "
				       "(placed at boot: lcore_map= puts them on one core)\n",
				       a->name, nic->name, c, nics[r]->name, q, d);
				return -1;
			}
		}
	}
	return 0;
}

static int config_app(struct nic *nic, const char *name)
{
	char list[64], err[128];
	const struct app *a = app_by_name(name), *was = app_of_port(nic->port);
	if (!a || !a->runtime) {
		printf("port: %s '%s'%s%s%s: at run time a port takes %s\n", a ? "not at run time:" : "no app", name,
		       a && a->boot_only ? " (" : "", a && a->boot_only ? a->boot_only : "", a && a->boot_only ? ")" : "",
		       runtime_apps(list, sizeof(list)));
		return -1;
	}
	if (!was->runtime) {
		printf("port: %s runs %s, which is placed at boot only (app=%s%s); at run time: %s\n", nic->name,
		       was->name, was->boot_only ? ": " : "", was->boot_only ? was->boot_only : "",
		       runtime_apps(list, sizeof(list)));
		return -1;
	}
	if (!stopped[nic->port]) {
		printf("port: %s is started: port stop %s first\n", nic->name, nic->name);
		return -1;
	}
	if (same_cores(a, nic) || one_core(a, nic))
		return -1;
	park(1);
	int r = app_place(nic->port, a, err, sizeof(err));
	lcore_apps_changed();
	park(0);
	if (r) {
		printf("port: %s\n", err);
		return -1;
	}
	printf("%s: app %s (was %s); port start %s delivers to it\n", nic->name, a->name, was->name, nic->name);
	return 0;
}

static void show(void)
{
	for (int p = 0; p < nic_count; p++)
		printf("%s: %s, %s\n", nics[p]->name, app_of_port(p)->name, stopped[p] ? "stopped" : "started");
}

static int usage(void)
{
	char list[64];
	printf("usage: port | port stop|start PORT|all | port config PORT app NAME (NAME: %s); ",
	       runtime_apps(list, sizeof(list)));
	nic_print_ports();
	return -1;
}

static int cmd_port(int argc, char **argv)
{
	if (argc == 1) {
		show();
		return 0;
	}
	if (argc == 3 && (!strcmp(argv[1], "stop") || !strcmp(argv[1], "start"))) {
		int stop = !strcmp(argv[1], "stop");
		struct nic *nic = nic_find(argv[2]);
		if (!nic && strcmp(argv[2], "all"))
			return usage();
		for (int p = 0; p < nic_count; p++)
			if (!nic || nic->port == p)
				set_stopped(nics[p], stop);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "config") && !strcmp(argv[3], "app") && nic_find(argv[2]))
		return config_app(nic_find(argv[2]), argv[4]);
	return usage();
}
SHELL_CMD(port, "port", "port | port stop|start PORT|all | port config PORT app NAME",
	  "testpmd's run-time port verbs: stop a port (its frames dropped, counted in rx_port_stopped), give it another app "
	  "(sink, fwd, pktgen, rr), start it again, without a reboot", cmd_port);
