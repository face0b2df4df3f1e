/*
 * The rr command and the rr JSON line: per port the frames received and
 * where each ended (handed to lwIP by protocol, or named drops before
 * lwIP, net/lwip/lwif.h), the netif's events, the
 * services' transactions and connections, then lwIP's own counters and the
 * use of every pool a frame or a connection holds (to see leaks: at rest
 * rx_pbufs, tcp_seg, pbuf and heap use are 0 and pool_free is back where
 * it started).
 */
#include <stdio.h>
#include <string.h>
#include "apps/app.h"
#include "apps/rr/rr.h"
#include "kernel/shell.h"
#include "kernel/time.h"
#include "lwip/memp.h"
#include "lwip/priv/memp_priv.h"
#include "lwip/stats.h"
#include "net/lwip/lwif.h"
#include "net/prom.h"

#define RR_NAME(name) #name,
static const char *const event_names[RR_EVENT_N] = { RR_EVENTS(RR_NAME) };

/* lwIP's per-protocol counters shown, and its pools. */
static const struct {
	const char *name;
	const struct stats_proto *s;
} protos[] = {
	{ "link", &lwip_stats.link }, { "etharp", &lwip_stats.etharp }, { "ip", &lwip_stats.ip },
	{ "ipfrag", &lwip_stats.ip_frag }, { "icmp", &lwip_stats.icmp }, { "udp", &lwip_stats.udp },
	{ "tcp", &lwip_stats.tcp }, { "ip6", &lwip_stats.ip6 }, { "ip6frag", &lwip_stats.ip6_frag },
	{ "icmp6", &lwip_stats.icmp6 }, { "nd6", &lwip_stats.nd6 },
};
static const struct {
	const char *name;
	memp_t t;
} pools[] = {
	{ "tcp_pcb", MEMP_TCP_PCB }, { "tcp_seg", MEMP_TCP_SEG }, { "pbuf", MEMP_PBUF },
	{ "pbuf_pool", MEMP_PBUF_POOL }, { "reassdata", MEMP_REASSDATA }, { "arp_queue", MEMP_ARP_QUEUE },
	{ "ip6_reassdata", MEMP_IP6_REASSDATA }, { "nd6_queue", MEMP_ND6_QUEUE }, { "mld6_group", MEMP_MLD6_GROUP },
	{ "heap256", MEMP_POOL_256 }, { "heap1600", MEMP_POOL_1600 }, { "heap64k", MEMP_POOL_65520 },
};

static void show_port(int p, enum app_show show)
{
	struct rr_stats *st = &rr_stats[p];
	const struct lwif_stats *ls = &lwif_stats[p];
	int json = show == APP_SHOW_JSON;
	if (json)
		printf("{\"stats\":\"rr\",\"scope\":\"port\",\"t_ms\":%lu,\"port\":\"%s\",\"rx\":%lu", now_ns() / 1000000, nics[p]->name, ls->rx);
	else
		printf("rr %s: rx %lu", nics[p]->name, ls->rx);
	for (int i = 0; i < LWIF_STACK_N; i++)
		app_counter(show, lwif_stack_names[i], NULL, ls->stack[i]);
	for (int i = 0; i < LWIF_DROP_N; i++)
		app_counter(show, lwif_drop_names[i], NULL, ls->drop[i]);
	if (!json)
		printf("\nrr %s:", nics[p]->name);
	app_counter(show, "conns_open", NULL, st->conns_open);
	for (int i = 0; i < RR_EVENT_N; i++)
		app_counter(show, event_names[i], NULL, st->ev[i]);
	for (int i = 0; i < LWIF_EVENT_N; i++)
		app_counter(show, lwif_event_names[i], NULL, ls->ev[i]);
	/* levels, not counters: a free count of 0 is news */
	printf(json ? ",\"pool_free\":%u,\"pool_size\":%u}\n" : " pool_free %u pool_size %u\n",
	       (unsigned)nics[p]->pool->nfree, (unsigned)nics[p]->pool->size);
}

static void show_lwip(enum app_show show)
{
	int json = show == APP_SHOW_JSON;
	if (json)
		printf("{\"stats\":\"rr\",\"scope\":\"lwip\",\"t_ms\":%lu", now_ns() / 1000000);
	else
		printf("rr lwip:");
	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++) {
		const struct stats_proto *s = protos[i].s;
		const char *n = protos[i].name;
		app_counter(show, n, "recv", s->recv);
		app_counter(show, n, "xmit", s->xmit);
		app_counter(show, n, "drop", s->drop);
		app_counter(show, n, "chkerr", s->chkerr);
		app_counter(show, n, "lenerr", s->lenerr);
		app_counter(show, n, "memerr", s->memerr);
		app_counter(show, n, "rterr", s->rterr);
		app_counter(show, n, "proterr", s->proterr);
		app_counter(show, n, "opterr", s->opterr);
		app_counter(show, n, "err", s->err);
	}
	if (!json)
		printf("\nrr pools:");
	app_counter(show, "rx", "pbufs", lwif_rx_pbufs());
	/* a level: 0 free is news */
	printf(json ? ",\"rx_pbufs_avail\":%u" : " rx_pbufs_avail %u", (unsigned)lwif_rx_pbufs_avail());
	app_counter(show, "conns", "open", rr_conns_open());
	for (size_t i = 0; i < sizeof(pools) / sizeof(pools[0]); i++) {
		const struct stats_mem *m = lwip_stats.memp[pools[i].t];
		app_counter(show, pools[i].name, "avail", m->avail);
		app_counter(show, pools[i].name, "used", m->used);
		app_counter(show, pools[i].name, "max", m->max);
		app_counter(show, pools[i].name, "err", m->err);
	}
	uint64_t heap[4] = { 0 };	/* avail, used, max bytes; err */
	for (unsigned t = MEMP_POOL_FIRST; t <= (unsigned)MEMP_POOL_LAST; t++) {
		const struct stats_mem *m = lwip_stats.memp[t];
		uint64_t block = memp_pools[t]->size;
		heap[0] += m->avail * block;
		heap[1] += m->used * block;
		heap[2] += m->max * block;
		heap[3] += m->err;
	}
	app_counter(show, "heap", "avail", heap[0]);
	app_counter(show, "heap", "used", heap[1]);
	app_counter(show, "heap", "max", heap[2]);
	app_counter(show, "heap", "err", heap[3]);
	printf(json ? "}\n" : "\n");
}

/* rr's /metrics: its ports' netif counters as linerate_rr_*, with rr's
 * events in linerate_rr_events_total before the netif's. */
void rr_metrics(struct prom *o)
{
	static const struct lwif_families f = LWIF_FAMILIES("rr");
	int run[NIC_MAX_PORTS];
	for (int p = 0; p < nic_count; p++)
		run[p] = rr_port_shown(p);
	lwif_metrics_frames(o, &f, run);
	for (int p = 0; p < nic_count; p++) {
		for (int i = 0; i < RR_EVENT_N && run[p]; i++)
			prom_port_sample(o, f.events, p, "event", event_names[i], rr_stats[p].ev[i]);
		if (run[p])
			lwif_metrics_events(o, &f, p);
	}
}

/* The rr counters of every port rr runs or ran on, then lwIP's. */
static void rr_show(enum app_show show)
{
	for (int p = 0; p < nic_count; p++)
		if (rr_port_shown(p))
			show_port(p, show);
	show_lwip(show);
}

void rr_report(int json)
{
	rr_show(json ? APP_SHOW_JSON : APP_SHOW_NONZERO);
}

/* lwIP is up when an app on it (rr, mgmt) added a port's netif. */
static int lwip_up(void)
{
	for (int p = 0; p < nic_count; p++)
		if (lwif_netif(p))
			return 1;
	return 0;
}

static int cmd_rr(int argc, char **argv)
{
	if (argc == 1 || (argc == 2 && !strcmp(argv[1], "json"))) {
		if (!lwip_up()) {
			printf("rr: the app runs on no port (app=rr)\n");
			return 0;
		}
		rr_show(argc == 2 ? APP_SHOW_JSON : APP_SHOW_ALL);
		return 0;
	}
	printf("usage: rr | rr json\n");
	return -1;
}
SHELL_CMD(rr, "rr", "rr | rr json",
	  "request-response server: per port frames by where they ended, transactions, connections; lwIP counters and pool use",
	  cmd_rr);
