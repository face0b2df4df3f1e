/*
 * app=mgmt, or mgmt=portN: the management port (mgmt.h). It shares lwIP with
 * app=rr, so the two cannot run at once (lwIP is not safe on two cores).
 * Received bursts go through rr's checks into lwIP (rr_input); the idle hook
 * runs lwIP's timers, the DHCP lease's check and the HTTP server's
 * budgeted round.
 */
#include <stdio.h>
#include <string.h>
#include "apps/app.h"
#include "apps/fwd/l3.h"
#include "apps/mgmt/mgmt.h"
#include "net/addr.h"
#include "apps/rr/rr.h"
#include "kernel/knobs.h"

int mgmt_port = -1;
extern const struct app app_rr;

/* mgmt=portN | off */
static int parse_mgmt(const char *v, char *err, size_t len)
{
	int p, n = 0;
	if (!strcmp(v, "off")) {
		mgmt_port = -1;
		return 0;
	}
	if (sscanf(v, "port%d%n", &p, &n) != 1 || v[n] || p < 0 || p >= NIC_MAX_PORTS) {
		snprintf(err, len, "'%s' is not a port", v);
		return -1;
	}
	mgmt_port = p;
	return 0;
}
static void show_mgmt(char *buf, size_t len)
{
	if (mgmt_port < 0)
		snprintf(buf, len, "off");
	else
		snprintf(buf, len, "port%d", mgmt_port);
}
KNOB(mgmt, .name = "mgmt", .type = KNOB_FUNC, .parse = parse_mgmt, .show = show_mgmt,
     .accepted = "portN (N 0-7) or off",
     .help = "management port: runs app mgmt (ping, HTTP /metrics, /, /config on port 80) at its ipN= "
	     "address, whatever app= says; default off");

static int mgmt_init(void)
{
	int n = 0;
	for (int p = 0; p < nic_count; p++)
		if (app_of_port(p) == &app_rr) {
			printf("mgmt: app rr runs on %s: both use lwIP, which runs on one core; use one of them\n",
			       nics[p]->name);
			return -1;
		}
	for (int p = 0; p < nic_count; p++) {
		if (!app_runs_on(&app_mgmt, p))
			continue;
		if (!l3_if[p].addr && !l3_if[p].dhcp) {
			printf("mgmt: %s has no address: give one with ip%d=A.B.C.D/LEN or ip%d=dhcp\n", nics[p]->name,
			       p, p);
			return -1;
		}
		if (rr_netif_add(nics[p], l3_if[p].addr, l3_if[p].len)) {
			printf("mgmt: %s: lwIP refused the interface\n", nics[p]->name);
			return -1;
		}
		n++;
		if (l3_if[p].dhcp) {
			if (mgmt_dhcp_start(p))
				return -1;
			continue;
		}
		char a[IPV4_STR_MAX];
		printf("mgmt: %s at %s/%u: ping, HTTP on %d (/metrics, /, /config)\n", nics[p]->name, ipv4_str(a, l3_if[p].addr),
		       l3_if[p].len, HTTP_PORT);
	}
	return n ? http_init() : -1;
}

static int mgmt_idle(void)
{
	rr_timers();
	mgmt_dhcp_poll();
	mgmt_cpu_sample();
	int n = http_poll();
	rr_netif_flush();
	return n;
}

static void mgmt_report(int json)
{
	if (json)
		printf("{\"stats\":\"mgmt\"");
	else
		printf("mgmt http:");
	for (int i = 0; i < HTTP_N; i++)
		printf(json ? ",\"%s\":%lu" : " %s %lu", mgmt_http_names[i], mgmt_http[i]);
	printf(json ? "}\n" : "\n");
}

APP(mgmt, .name = "mgmt", .help = "management port: ping and HTTP /metrics (Prometheus), /, /config",
    .init = mgmt_init, .rx = rr_input, .idle = mgmt_idle, .report = mgmt_report,
    .uses = APP_USES_IP);
