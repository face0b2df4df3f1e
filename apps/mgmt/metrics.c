/*
 * The management port's pages: /metrics in the Prometheus text exposition
 * format 0.0.4 (one # HELP and # TYPE per family, its samples together;
 * counters end in _total; seconds and bytes), / a status page (the netstat
 * table since the last visit, apps, cores), /config as `show config`.
 * Counters are read without locks from the cores that write them (64-bit);
 * hardware registers are as folded by the once-a-second housekeeping.
 */
#include <stdio.h>
#include <string.h>
#include "apps/app.h"
#include "apps/fwd/counters.h"
#include "apps/fwd/fwd.h"
#include "apps/mgmt/mgmt.h"
#include "apps/mgmt/prom.h"
#include "apps/pktgen/pktgen.h"
#include "apps/rr/rr.h"
#include "kernel/config.h"
#include "kernel/cpu.h"
#include "kernel/mem.h"
#include "kernel/time.h"
#include "kernel/version.h"
#include "net/addr.h"
#include "net/lwip/lwif.h"
#include "run/lcore.h"
#include "run/stats.h"

extern const struct app app_rr;

/* linerate_<ethtool -S name>_total, made once: a sample's name is the
 * same string at every scrape (prom.h's replay compares the pointers). */
static const char *stat_name(int i)
{
	static char names[NIC_STAT_N][48];
	if (!names[i][0])
		snprintf(names[i], sizeof(names[i]), "%s_total", nic_stat_names[i]);
	return names[i];
}

static void port_counters(struct prom *o)
{
	for (int i = 0; i < NIC_STAT_N; i++) {
		const char *name = stat_name(i);
		prom_family(o, name, "counter", "ethtool -S counter of the port");
		for (int p = 0; p < nic_count; p++)
			prom_port_sample(o, name, p, NULL, NULL, nics[p]->stats[i]);
	}
	static const struct {
		const char *name;
		size_t off;
	} qs[] = {
		{ "rx_queue_packets_total", offsetof(struct nic_qstats, rx_packets) },
		{ "rx_queue_bytes_total", offsetof(struct nic_qstats, rx_bytes) },
		{ "tx_queue_packets_total", offsetof(struct nic_qstats, tx_packets) },
		{ "tx_queue_bytes_total", offsetof(struct nic_qstats, tx_bytes) },
		{ "queue_irqs_total", offsetof(struct nic_qstats, irqs) },
		{ "queue_irqs_spurious_total", offsetof(struct nic_qstats, irqs_spurious) },
		{ "queue_polls_total", offsetof(struct nic_qstats, polls) },
		{ "queue_poll_packets_total", offsetof(struct nic_qstats, poll_pkts) },
		{ "rx_queue_drops_total", offsetof(struct nic_qstats, rx_drops) },
	};
	static const char *const qnum[] = { "0", "1", "2", "3", "4", "5", "6", "7" };
	_Static_assert(sizeof(qnum) / sizeof(qnum[0]) >= NIC_MAX_QUEUES, "a name per queue");
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		prom_family(o, qs[i].name, "counter", "ethtool -S per-queue counter (rx_queue_N_packets ...)");
		for (int p = 0; p < nic_count; p++)
			for (int q = 0; q < nics[p]->nqueues; q++)
				prom_port_sample(o, qs[i].name, p, "queue", qnum[q],
					    *(const uint64_t *)((const char *)&nics[p]->q[q] + qs[i].off));
	}
	prom_family(o, "queue_itr_interrupts_per_second", "gauge", "interrupt rate setting of the queue (0: off)");
	for (int p = 0; p < nic_count; p++)
		for (int q = 0; q < nics[p]->nqueues; q++)
			prom_port_sample(o, "queue_itr_interrupts_per_second", p, "queue", qnum[q], nics[p]->q[q].itr);
	prom_family(o, "pool_free_buffers", "gauge", "packet buffers free in the port's pools (pool_free, small_pool_free)");
	for (int p = 0; p < nic_count; p++)
	{
		prom_port_sample(o, "pool_free_buffers", p, "pool", "main", nics[p]->pool->nfree);
		prom_port_sample(o, "pool_free_buffers", p, "pool", "small", nics[p]->small_pool->nfree);
	}
	prom_family(o, "pool_size_buffers", "gauge", "packet buffers in the port's pools (pool_size, small_pool_size)");
	for (int p = 0; p < nic_count; p++)
	{
		prom_port_sample(o, "pool_size_buffers", p, "pool", "main", nics[p]->pool->size);
		prom_port_sample(o, "pool_size_buffers", p, "pool", "small", nics[p]->small_pool->size);
	}
	prom_family(o, "link_up", "gauge", "1 if the port's link is up");
	for (int p = 0; p < nic_count; p++)
		prom_port_sample(o, "link_up", p, NULL, NULL, nics[p]->link_up == 1);
}

#define NAME_OF(name) #name,

static void fwd_counters(struct prom *o)
{
	struct fwd_stats st[NIC_MAX_PORTS];
	int any = 0, run[NIC_MAX_PORTS];
	for (int p = 0; p < nic_count; p++)
		if ((run[p] = app_runs_on(&app_fwd, p))) {
			fwd_stats_sum(p, &st[p]);
			any = 1;
		}
	if (!any)
		return;
	static const struct {
		const char *name, *help;
		size_t off;
	} f[] = {
		{ "fwd_received_total", "frames fwd received", offsetof(struct fwd_stats, rx) },
		{ "fwd_forwarded_total", "frames fwd handed to the egress port", offsetof(struct fwd_stats, forwarded) },
		{ "fwd_local_total", "L3: IPv4 frames to one of our addresses", offsetof(struct fwd_stats, local) },
		{ "fwd_arp_total", "L3: ARP for our address, answered or learnt", offsetof(struct fwd_stats, arp) },
	};
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		prom_family(o, f[i].name, "counter", f[i].help);
		for (int p = 0; p < nic_count; p++)
			if (run[p])
				prom_port_sample(o, f[i].name, p, NULL, NULL, *(const uint64_t *)((const char *)&st[p] + f[i].off));
	}
	prom_family(o, "fwd_dropped_total", "counter", "frames fwd dropped, by reason");
	for (int p = 0; p < nic_count; p++)
		for (int r = 0; r < FWD_DROP_N && run[p]; r++)
			prom_port_sample(o, "fwd_dropped_total", p, "reason", fwd_drop_names[r], st[p].drop[r]);
	prom_family(o, "fwd_events_total", "counter", "L3 router events (frames of its own), by event");
	for (int p = 0; p < nic_count; p++)
		for (int e = 0; e < FWD_EV_N && run[p]; e++)
			prom_port_sample(o, "fwd_events_total", p, "event", fwd_ev_names[e], st[p].ev[e]);
}

static const char *const rr_ev_names[] = { RR_EVENTS(NAME_OF) };

/* The family names of one lwIP app's frame counters. */
struct lwip_names {
	const char *received, *stack, *dropped, *events;
};
#define LWIP_NAMES(pre) { pre "_received_total", pre "_stack_total", pre "_dropped_total", pre "_events_total" }
static const struct lwip_names rr_names = LWIP_NAMES("rr"), mgmt_names = LWIP_NAMES("mgmt");

/* Frames of the ports of one lwIP app, counted by net/lwip: rr's ports as
 * linerate_rr_* (with rr's own events, rr=1), the management port as
 * linerate_mgmt_*. */
static void lwip_counters(struct prom *o, const struct app *app, const struct lwip_names *n, int rr)
{
	int any = 0, run[NIC_MAX_PORTS];
	for (int p = 0; p < nic_count; p++)
		any |= run[p] = app_runs_on(app, p);
	if (!any)
		return;
	prom_family(o, n->received, "counter", "frames the port received");
	for (int p = 0; p < nic_count; p++)
		if (run[p])
			prom_port_sample(o, n->received, p, NULL, NULL, lwif_stats[p].rx);
	prom_family(o, n->stack, "counter", "frames handed to lwIP, by protocol");
	for (int p = 0; p < nic_count; p++)
		for (int i = 0; i < LWIF_STACK_N && run[p]; i++)
			prom_port_sample(o, n->stack, p, "proto", lwif_stack_names[i], lwif_stats[p].stack[i]);
	prom_family(o, n->dropped, "counter", "frames dropped before lwIP, by reason");
	for (int p = 0; p < nic_count; p++)
		for (int i = 0; i < LWIF_DROP_N && run[p]; i++)
			prom_port_sample(o, n->dropped, p, "reason", lwif_drop_names[i], lwif_stats[p].drop[i]);
	prom_family(o, n->events, "counter", "transactions, bytes and connection events, by event");
	for (int p = 0; p < nic_count; p++) {
		for (int i = 0; i < RR_EVENT_N && run[p] && rr; i++)
			prom_port_sample(o, n->events, p, "event", rr_ev_names[i], rr_stats[p].ev[i]);
		for (int i = 0; i < LWIF_EVENT_N && run[p]; i++)
			prom_port_sample(o, n->events, p, "event", lwif_event_names[i], lwif_stats[p].ev[i]);
	}
}

static void pktgen_counters(struct prom *o)
{
	static const struct {
		const char *name, *help;
		size_t off;
		int rx;
	} f[] = {
		{ "pktgen_sent_total", "frames pktgen sent", offsetof(struct pg_tx, sent), 0 },
		{ "pktgen_sent_bytes_total", "bytes pktgen sent", offsetof(struct pg_tx, bytes), 0 },
		{ "pktgen_probes_total", "latency probes sent", offsetof(struct pg_tx, probes), 0 },
		{ "pktgen_tx_ring_full_total", "sends the TX ring refused", offsetof(struct pg_tx, ring_full), 0 },
		{ "pktgen_alloc_failed_total", "frames not built for want of a buffer", offsetof(struct pg_tx, alloc_failed), 0 },
		{ "pktgen_received_total", "frames pktgen received", offsetof(struct pg_rx, rx), 1 },
		{ "pktgen_received_ours_total", "pktgen frames received", offsetof(struct pg_rx, ours), 1 },
		{ "pktgen_received_arp_total", "ARP requests answered", offsetof(struct pg_rx, arp), 1 },
	};
	static const struct {
		const char *reason;
		size_t off;
	} drops[] = {
		{ "bad", offsetof(struct pg_rx, bad) },
		{ "other", offsetof(struct pg_rx, other) },
		{ "streams_full", offsetof(struct pg_rx, streams_full) },
	};
	int any = 0;
	for (int p = 0; p < nic_count; p++)
		any |= app_runs_on(&app_pktgen, p);
	if (!any)
		return;
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		prom_family(o, f[i].name, "counter", f[i].help);
		for (int p = 0; p < nic_count; p++)
			if (app_runs_on(&app_pktgen, p))
				prom_port_sample(o, f[i].name, p, NULL, NULL,
					    *(const uint64_t *)((f[i].rx ? (const char *)&pg_rx[p] : (const char *)&pg_tx[p]) +
								f[i].off));
	}
	prom_family(o, "pktgen_received_dropped_total", "counter", "received frames pktgen did not count as its own, by reason");
	for (int p = 0; p < nic_count; p++)
		for (size_t r = 0; r < sizeof(drops) / sizeof(drops[0]) && app_runs_on(&app_pktgen, p); r++)
			prom_port_sample(o, "pktgen_received_dropped_total", p, "reason", drops[r].reason,
				    *(const uint64_t *)((const char *)&pg_rx[p] + drops[r].off));
}

static uint16_t busy_pct100[MAX_CPUS];	/* CPU% x 100 of each core over the last whole second */

void mgmt_cpu_sample(void)
{
	static uint64_t last_tsc, last_halted[MAX_CPUS];
	uint64_t now = rdtsc();
	if (now - last_tsc < tsc.hz)
		return;
	for (int c = 0; c < nlcores; c++) {
		uint64_t from = last_tsc ? last_tsc : lcores[c].start_tsc, dt = now - from;
		uint64_t halted = lcores[c].halted_cycles - (last_tsc ? last_halted[c] : 0);
		busy_pct100[c] = (uint16_t)(dt && halted < dt ? (dt - halted) * 10000 / dt : 0);
		last_halted[c] = lcores[c].halted_cycles;
	}
	last_tsc = now;
}

static void core_counters(struct prom *o)
{
	static const char *const cores[] = { "0", "1", "2", "3", "4", "5", "6", "7" };
	_Static_assert(sizeof(cores) / sizeof(cores[0]) >= MAX_CPUS, "a name per core");
	char num[PROM_NUM_MAX];
	prom_family(o, "softnet_processed_total", "counter", "packets the core handed to the apps");
	for (int c = 0; c < nlcores; c++)
		prom_sample(o, "softnet_processed_total", "core", cores[c], NULL, NULL, lcores[c].processed);
	prom_family(o, "softnet_dropped_total", "counter", "packets the core's apps dropped");
	for (int c = 0; c < nlcores; c++)
		prom_sample(o, "softnet_dropped_total", "core", cores[c], NULL, NULL, app_drops[c].n);
	prom_family(o, "softnet_time_squeeze_total", "counter", "poll rounds that ran out of napi_weight with work left");
	for (int c = 0; c < nlcores; c++)
		prom_sample(o, "softnet_time_squeeze_total", "core", cores[c], NULL, NULL, lcores[c].time_squeeze);
	prom_family(o, "cpu_halted_seconds_total", "counter", "seconds the core spent in hlt (idle)");
	for (int c = 0; c < nlcores; c++)
		prom_sample_text(o, "cpu_halted_seconds_total", "core", cores[c], NULL, NULL,
			    prom_fixed(num, lcores[c].halted_cycles / (tsc.hz / 1000000), 1000000));
	prom_family(o, "cpu_busy_percent", "gauge", "CPU% of the core over the last whole second");
	for (int c = 0; c < nlcores; c++)
		prom_sample_text(o, "cpu_busy_percent", "core", cores[c], NULL, NULL, prom_fixed(num, busy_pct100[c], 100));
	prom_family(o, "uptime_seconds", "gauge", "seconds since boot");
	prom_sample_text(o, "uptime_seconds", NULL, NULL, NULL, NULL, prom_fixed(num, now_ns() / 1000000, 1000));
}

static void http_counters(struct prom *o)
{
	prom_family(o, "mgmt_http_total", "counter",
	       "management HTTP: answers (ok, not_found, bad_method, bad_request, too_large, truncated) and connection events");
	for (int i = 0; i < HTTP_N; i++)
		prom_sample(o, "mgmt_http_total", "event", mgmt_http_names[i], NULL, NULL, mgmt_http[i]);
}

/* The management port's DHCP lease (ipN=dhcp), if a port runs the client. */
static void dhcp_gauges(struct prom *o)
{
	struct mgmt_lease l[NIC_MAX_PORTS];
	int any = 0, run[NIC_MAX_PORTS];
	for (int p = 0; p < nic_count; p++)
		any |= run[p] = mgmt_dhcp_lease(p, &l[p]) == 0;
	if (!any)
		return;
	prom_family(o, "mgmt_dhcp_bound", "gauge", "1 while the port holds a DHCP lease (ipN=dhcp)");
	for (int p = 0; p < nic_count; p++)
		if (run[p])
			prom_port_sample(o, "mgmt_dhcp_bound", p, NULL, NULL, (uint64_t)l[p].bound);
	prom_family(o, "mgmt_dhcp_refused_total", "counter",
		    "DHCP leases refused (an address ipN= would refuse, a mask that is not a prefix): released, asked again");
	for (int p = 0; p < nic_count; p++)
		if (run[p])
			prom_port_sample(o, "mgmt_dhcp_refused_total", p, NULL, NULL, l[p].refused);
	prom_family(o, "mgmt_dhcp_lease_info", "gauge", "the DHCP lease held: address, prefix length, router (\"\" if none) and server (value 1)");
	for (int p = 0; p < nic_count; p++) {
		if (!run[p] || !l[p].bound)
			continue;
		char a[IPV4_STR_MAX], r[IPV4_STR_MAX] = "", s[IPV4_STR_MAX];	/* no router: "" */
		ipv4_str(a, l[p].addr);
		if (l[p].router)
			ipv4_str(r, l[p].router);
		ipv4_str(s, l[p].server);
		prom_put(o, "linerate_mgmt_dhcp_lease_info{port=\"%s\",address=\"%s\",prefix=\"%d\",router=\"%s\",server=\"%s\"} 1\n",
		    nics[p]->name, a, l[p].mask ? 32 - __builtin_ctz(l[p].mask) : 0, r, s);
	}
	static const struct {
		const char *name, *help;
		size_t off;
	} t[] = {
		{ "mgmt_dhcp_lease_seconds", "lease time of the last DHCPACK", offsetof(struct mgmt_lease, lease_s) },
		{ "mgmt_dhcp_renew_seconds", "renewal time (T1) of the last DHCPACK", offsetof(struct mgmt_lease, renew_s) },
		{ "mgmt_dhcp_rebind_seconds", "rebinding time (T2) of the last DHCPACK", offsetof(struct mgmt_lease, rebind_s) },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		prom_family(o, t[i].name, "gauge", t[i].help);
		for (int p = 0; p < nic_count; p++)
			if (run[p] && l[p].bound)
				prom_port_sample(o, t[i].name, p, NULL, NULL, *(const uint32_t *)((const char *)&l[p] + t[i].off));
	}
}

static void metrics(struct prom *o)
{
	prom_family(o, "build_info", "gauge", "version and git describe of the image (value 1)");
	prom_sample_text(o, "build_info", "version", LINERATE_RELEASE, "git", GIT_DESCRIBE, "1");
	port_counters(o);
	fwd_counters(o);
	lwip_counters(o, &app_rr, &rr_names, 1);
	lwip_counters(o, &app_mgmt, &mgmt_names, 0);
	pktgen_counters(o);
	mgmt_metrics_latency(o);
	mgmt_metrics_ptp(o);
	core_counters(o);
	http_counters(o);
	dhcp_gauges(o);
}

#define PAGE_SLOTS 8192	/* samples of a recorded page: 8 ports of 8 queues fit */

/* /metrics replayed from its recording (prom.h), or recorded anew when its
 * shape changed; a page over len, or no memory for the recording, is
 * built line by line each time. */
static void metrics_page(struct prom *o)
{
	static struct prom_layout lay;
	static int tried;
	if (!tried) {
		tried = 1;
		lay.text = dma_alloc(o->len + PROM_SLACK, 64);
		lay.slot = dma_alloc(PAGE_SLOTS * sizeof(*lay.slot), 64);
		if (lay.text && lay.slot) {
			lay.cap = o->len + PROM_SLACK;
			lay.max_slot = PAGE_SLOTS;
		}
	}
	struct prom start = *o;
	prom_begin(o, &lay);
	metrics(o);
	if (prom_finish(o)) {
		*o = start;
		prom_begin(o, &lay);
		metrics(o);
		prom_finish(o);
	}
}

static void snap(struct stats_snap *s)
{
	s->tsc = rdtsc();
	s->uptime_ms = now_ns() / 1000000;
	s->nports = nic_count;
	for (int i = 0; i < nic_count; i++)
		stats_sample_port(&s->port[i], nics[i]);
	s->ncores = nlcores;
	for (int i = 0; i < nlcores; i++)
		stats_sample_core(&s->core[i], &lcores[i]);
}

/* linerate's version, the apps by port, and the netstat table since the
 * previous visit (since the poll loop started, at first). */
static void status(struct prom *o)
{
	static struct stats_snap a, b;
	if (!a.tsc)
		a.tsc = lcores[0].start_tsc;
	snap(&b);
	prom_put(o, "linerate %s\napps:", LINERATE_VERSION);
	for (int p = 0; p < nic_count; p++)
		prom_put(o, " %s=%s", nics[p]->name, app_runs_on(app_of_port(p), p) ? app_of_port(p)->name : "none");
	prom_put(o, "\n\n");
	if (!o->cut)
		o->used += stats_format(o->b + o->used, o->len - o->used, &a, &b, tsc.hz, STATS_TABLE, -1);
	a = b;
	prom_put(o, "\n/metrics: Prometheus text format; /config: show config\n");
}

int mgmt_page(const char *path, char *buf, size_t len, size_t *n, const char **ctype, int *truncated)
{
	struct prom o = { .b = buf, .len = len };
	buf[0] = 0;
	if (!strcmp(path, "/metrics")) {
		*ctype = "text/plain; version=0.0.4; charset=utf-8";
		metrics_page(&o);
	} else if (!strcmp(path, "/")) {
		*ctype = "text/plain; charset=utf-8";
		status(&o);
	} else if (!strcmp(path, "/config")) {
		*ctype = "text/plain; charset=utf-8";
		o.used = config_text(buf, len);
	} else {
		*n = 0;
		return 404;
	}
	*n = o.used;
	*truncated = o.cut;
	return 200;
}
