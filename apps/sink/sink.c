/*
 * sink: receive on every queue of every port, count packets and bytes per
 * port and queue (as Click's Counter), and tagged ones per VLAN, drop. It
 * exercises the drivers on their own. Shell: `sink` prints the counts,
 * `sink clear` zeroes them.
 */
#include <stdio.h>
#include <string.h>
#include "apps/app.h"
#include "kernel/shell.h"
#include "kernel/time.h"
#include "net/vlan.h"

struct sink_count {
	uint64_t packets, bytes;
	struct vlan_table vlans;	/* tagged packets among them, per VLAN */
};
static struct sink_count counts[NIC_MAX_PORTS][NIC_MAX_QUEUES];
static uint64_t since_ns;

extern const struct app app_sink;

static int sink_init(void)
{
	since_ns = now_ns();
	int n = 0;
	for (int p = 0; p < nic_count; p++)
		n += app_runs_on(&app_sink, p);
	printf("sink: counting and dropping on %d port(s)\n", n);
	return 0;
}

static void sink_rx(struct nic *nic, int q, struct pkt **pkts, int n)
{
	struct sink_count *c = &counts[nic->port][q];
	uint64_t bytes = 0;
	for (int i = 0; i < n; i++) {
		const struct pkt *p = pkts[i];
		bytes += p->len;
		if (__builtin_expect(vlan_tagged(p->data, p->len), 0)) {
			struct vlan_tags v;
			vlan_parse(p->data, p->len, &v);
			vlan_count(&c->vlans, &v, p->len);
		}
	}
	c->packets += (uint64_t)n;
	c->bytes += bytes;
	pkt_free_bulk(pkts, n);
}
/* Each port on its own: sink never transmits, and counts per queue. */
static int sink_domain(int port)
{
	return port;
}

APP(sink, .name = "sink", .help = "count and drop (Click's Counter)", .init = sink_init, .rx = sink_rx,
    .domain = sink_domain, .runtime = 1);

static int cmd_sink(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "clear")) {
		memset(counts, 0, sizeof(counts));
		since_ns = now_ns();
		return 0;
	}
	if (argc != 1) {
		printf("usage: sink | sink clear\n");
		return -1;
	}
	uint64_t ns = now_ns() - since_ns;
	printf("sink: %lu.%03lu s\n", ns / 1000000000, ns / 1000000 % 1000);
	for (int p = 0; p < nic_count; p++)
		for (int q = 0; q < nics[p]->nqueues; q++) {
			struct sink_count *c = &counts[p][q];
			if (!app_runs_on(&app_sink, p) && !c->packets)
				continue;	/* a port that ran sink before a run-time switch keeps its line */
			char prefix[32];
			printf("sink %s q%d: %lu packets %lu bytes\n", nics[p]->name, q, c->packets, c->bytes);
			snprintf(prefix, sizeof(prefix), "sink %s q%d", nics[p]->name, q);
			vlan_table_print(&c->vlans, prefix);
		}
	return 0;
}
SHELL_CMD(sink, "sink", "sink | sink clear", "packets and bytes counted by the sink app", cmd_sink);
