/*
 * The management port's pages: /metrics in the Prometheus text exposition
 * format 0.0.4 (one # HELP and # TYPE per family, its samples together;
 * counters end in _total; seconds and bytes), / a status page (the netstat
 * table since the last visit, apps, cores), /config as `show config`.
 * Counters are read without locks from the cores that write them (64-bit);
 * hardware registers are as folded by the once-a-second housekeeping.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "apps/app.h"
#include "apps/fwd/counters.h"
#include "apps/fwd/fwd.h"
#include "apps/mgmt/mgmt.h"
#include "apps/pktgen/pktgen.h"
#include "apps/rr/rr.h"
#include "kernel/config.h"
#include "kernel/cpu.h"
#include "kernel/time.h"
#include "kernel/version.h"
#include "net/addr.h"
#include "run/lcore.h"
#include "run/stats.h"

extern const struct app app_rr;

struct out {
	char *b;
	size_t len, used;
	int cut;	/* a line did not fit: nothing after it is written */
};

/* Append one or more whole lines, or nothing and set cut. */
static void put(struct out *o, const char *fmt, ...)
{
	if (o->cut)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(o->b + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->len - o->used) {
		o->b[o->used] = 0;
		o->cut = 1;
		return;
	}
	o->used += (size_t)n;
}

static void family(struct out *o, const char *name, const char *type, const char *help)
{
	put(o, "# HELP linerate_%s %s\n# TYPE linerate_%s %s\n", name, help, name, type);
}

/* Seconds of n TSC cycles, microsecond digits. */
static void put_seconds(struct out *o, const char *sample, uint64_t cycles)
{
	uint64_t us = cycles / (tsc.hz / 1000000);
	put(o, "%s %lu.%06lu\n", sample, us / 1000000, us % 1000000);
}

static void port_counters(struct out *o)
{
	for (int i = 0; i < NIC_STAT_N; i++) {
		char name[64];
		snprintf(name, sizeof(name), "%s_total", nic_stat_names[i]);
		family(o, name, "counter", "ethtool -S counter of the port");
		for (int p = 0; p < nic_count; p++)
			put(o, "linerate_%s{port=\"%s\"} %lu\n", name, nics[p]->name, nics[p]->stats[i]);
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
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		family(o, qs[i].name, "counter", "ethtool -S per-queue counter (rx_queue_N_packets ...)");
		for (int p = 0; p < nic_count; p++)
			for (int q = 0; q < nics[p]->nqueues; q++)
				put(o, "linerate_%s{port=\"%s\",queue=\"%d\"} %lu\n", qs[i].name, nics[p]->name, q,
				    *(const uint64_t *)((const char *)&nics[p]->q[q] + qs[i].off));
	}
	family(o, "queue_itr_interrupts_per_second", "gauge", "interrupt rate setting of the queue (0: off)");
	for (int p = 0; p < nic_count; p++)
		for (int q = 0; q < nics[p]->nqueues; q++)
			put(o, "linerate_queue_itr_interrupts_per_second{port=\"%s\",queue=\"%d\"} %lu\n",
			    nics[p]->name, q, nics[p]->q[q].itr);
	family(o, "pool_free_buffers", "gauge", "packet buffers free in the port's pools (pool_free, small_pool_free)");
	for (int p = 0; p < nic_count; p++)
		put(o, "linerate_pool_free_buffers{port=\"%s\",pool=\"main\"} %u\n"
		       "linerate_pool_free_buffers{port=\"%s\",pool=\"small\"} %u\n",
		    nics[p]->name, nics[p]->pool->nfree, nics[p]->name, nics[p]->small_pool->nfree);
	family(o, "pool_size_buffers", "gauge", "packet buffers in the port's pools (pool_size, small_pool_size)");
	for (int p = 0; p < nic_count; p++)
		put(o, "linerate_pool_size_buffers{port=\"%s\",pool=\"main\"} %u\n"
		       "linerate_pool_size_buffers{port=\"%s\",pool=\"small\"} %u\n",
		    nics[p]->name, nics[p]->pool->size, nics[p]->name, nics[p]->small_pool->size);
	family(o, "link_up", "gauge", "1 if the port's link is up");
	for (int p = 0; p < nic_count; p++)
		put(o, "linerate_link_up{port=\"%s\"} %d\n", nics[p]->name, nics[p]->link_up == 1);
}

#define NAME_OF(name) #name,

static void fwd_counters(struct out *o)
{
	struct fwd_stats st[NIC_MAX_PORTS];
	int any = 0;
	for (int p = 0; p < nic_count; p++)
		if (app_runs_on(&app_fwd, p)) {
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
		family(o, f[i].name, "counter", f[i].help);
		for (int p = 0; p < nic_count; p++)
			if (app_runs_on(&app_fwd, p))
				put(o, "linerate_%s{port=\"%s\"} %lu\n", f[i].name, nics[p]->name,
				    *(const uint64_t *)((const char *)&st[p] + f[i].off));
	}
	family(o, "fwd_dropped_total", "counter", "frames fwd dropped, by reason");
	for (int p = 0; p < nic_count; p++)
		for (int r = 0; r < FWD_DROP_N && app_runs_on(&app_fwd, p); r++)
			put(o, "linerate_fwd_dropped_total{port=\"%s\",reason=\"%s\"} %lu\n", nics[p]->name,
			    fwd_drop_names[r], st[p].drop[r]);
	family(o, "fwd_events_total", "counter", "L3 router events (frames of its own), by event");
	for (int p = 0; p < nic_count; p++)
		for (int e = 0; e < FWD_EV_N && app_runs_on(&app_fwd, p); e++)
			put(o, "linerate_fwd_events_total{port=\"%s\",event=\"%s\"} %lu\n", nics[p]->name,
			    fwd_ev_names[e], st[p].ev[e]);
}

static const char *const rr_stack_names[] = { RR_STACK(NAME_OF) };
static const char *const rr_drop_names[] = { RR_DROPS(NAME_OF) };
static const char *const rr_ev_names[] = { RR_EVENTS(NAME_OF) };

static int on_lwip(int p)
{
	return app_runs_on(&app_rr, p) || app_runs_on(&app_mgmt, p);
}

/* rr's counters, on rr's ports and the management port (both use lwIP). */
static void rr_counters(struct out *o)
{
	family(o, "rr_received_total", "counter", "frames received by lwIP's app (rr, mgmt)");
	for (int p = 0; p < nic_count; p++)
		if (on_lwip(p))
			put(o, "linerate_rr_received_total{port=\"%s\"} %lu\n", nics[p]->name, rr_stats[p].rx);
	family(o, "rr_stack_total", "counter", "frames handed to lwIP, by protocol");
	for (int p = 0; p < nic_count; p++)
		for (int i = 0; i < RR_STACK_N && on_lwip(p); i++)
			put(o, "linerate_rr_stack_total{port=\"%s\",proto=\"%s\"} %lu\n", nics[p]->name,
			    rr_stack_names[i], rr_stats[p].stack[i]);
	family(o, "rr_dropped_total", "counter", "frames dropped before lwIP, by reason");
	for (int p = 0; p < nic_count; p++)
		for (int i = 0; i < RR_DROP_N && on_lwip(p); i++)
			put(o, "linerate_rr_dropped_total{port=\"%s\",reason=\"%s\"} %lu\n", nics[p]->name,
			    rr_drop_names[i], rr_stats[p].drop[i]);
	family(o, "rr_events_total", "counter", "rr transactions, bytes and connection events, by event");
	for (int p = 0; p < nic_count; p++)
		for (int i = 0; i < RR_EVENT_N && on_lwip(p); i++)
			put(o, "linerate_rr_events_total{port=\"%s\",event=\"%s\"} %lu\n", nics[p]->name,
			    rr_ev_names[i], rr_stats[p].ev[i]);
}

static void pktgen_counters(struct out *o)
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
		family(o, f[i].name, "counter", f[i].help);
		for (int p = 0; p < nic_count; p++)
			if (app_runs_on(&app_pktgen, p))
				put(o, "linerate_%s{port=\"%s\"} %lu\n", f[i].name, nics[p]->name,
				    *(const uint64_t *)((f[i].rx ? (const char *)&pg_rx[p] : (const char *)&pg_tx[p]) +
							f[i].off));
	}
	family(o, "pktgen_received_dropped_total", "counter", "received frames pktgen did not count as its own, by reason");
	for (int p = 0; p < nic_count; p++)
		for (size_t r = 0; r < sizeof(drops) / sizeof(drops[0]) && app_runs_on(&app_pktgen, p); r++)
			put(o, "linerate_pktgen_received_dropped_total{port=\"%s\",reason=\"%s\"} %lu\n", nics[p]->name,
			    drops[r].reason, *(const uint64_t *)((const char *)&pg_rx[p] + drops[r].off));
}

static void core_counters(struct out *o)
{
	static uint64_t last_tsc, last_halted[MAX_CPUS];
	uint64_t now = rdtsc();
	family(o, "softnet_processed_total", "counter", "packets the core handed to the apps");
	for (int c = 0; c < nlcores; c++)
		put(o, "linerate_softnet_processed_total{core=\"%d\"} %lu\n", c, lcores[c].processed);
	family(o, "softnet_dropped_total", "counter", "packets the core's apps dropped");
	for (int c = 0; c < nlcores; c++)
		put(o, "linerate_softnet_dropped_total{core=\"%d\"} %lu\n", c, app_drops[c].n);
	family(o, "softnet_time_squeeze_total", "counter", "poll rounds that ran out of napi_weight with work left");
	for (int c = 0; c < nlcores; c++)
		put(o, "linerate_softnet_time_squeeze_total{core=\"%d\"} %lu\n", c, lcores[c].time_squeeze);
	family(o, "cpu_halted_seconds_total", "counter", "seconds the core spent in hlt (idle)");
	for (int c = 0; c < nlcores; c++) {
		char s[64];
		snprintf(s, sizeof(s), "linerate_cpu_halted_seconds_total{core=\"%d\"}", c);
		put_seconds(o, s, lcores[c].halted_cycles);
	}
	family(o, "cpu_busy_percent", "gauge", "CPU% of the core since the previous scrape (since its start at first)");
	for (int c = 0; c < nlcores; c++) {
		uint64_t from = last_tsc ? last_tsc : lcores[c].start_tsc, dt = now - from;
		uint64_t halted = lcores[c].halted_cycles - (last_tsc ? last_halted[c] : 0);
		uint64_t busy = dt && halted < dt ? (dt - halted) * 10000 / dt : 0;
		put(o, "linerate_cpu_busy_percent{core=\"%d\"} %lu.%02lu\n", c, busy / 100, busy % 100);
		last_halted[c] = lcores[c].halted_cycles;
	}
	last_tsc = now;
	family(o, "uptime_seconds", "gauge", "seconds since boot");
	uint64_t ms = now_ns() / 1000000;
	put(o, "linerate_uptime_seconds %lu.%03lu\n", ms / 1000, ms % 1000);
}

static void http_counters(struct out *o)
{
	family(o, "mgmt_http_total", "counter",
	       "management HTTP: answers (ok, not_found, bad_method, bad_request, too_large, truncated) and connection events");
	for (int i = 0; i < HTTP_N; i++)
		put(o, "linerate_mgmt_http_total{event=\"%s\"} %lu\n", mgmt_http_names[i], mgmt_http[i]);
}

/* The management port's DHCP lease (ipN=dhcp), if a port runs the client. */
static void dhcp_gauges(struct out *o)
{
	struct mgmt_lease l[NIC_MAX_PORTS];
	int any = 0, run[NIC_MAX_PORTS];
	for (int p = 0; p < nic_count; p++)
		any |= run[p] = mgmt_dhcp_lease(p, &l[p]) == 0;
	if (!any)
		return;
	family(o, "mgmt_dhcp_bound", "gauge", "1 while the port holds a DHCP lease (ipN=dhcp)");
	for (int p = 0; p < nic_count; p++)
		if (run[p])
			put(o, "linerate_mgmt_dhcp_bound{port=\"%s\"} %d\n", nics[p]->name, l[p].bound);
	family(o, "mgmt_dhcp_lease_info", "gauge", "the DHCP lease held: address, prefix length, router (\"\" if none) and server (value 1)");
	for (int p = 0; p < nic_count; p++) {
		if (!run[p] || !l[p].bound)
			continue;
		char a[IPV4_STR_MAX], r[IPV4_STR_MAX] = "", s[IPV4_STR_MAX];	/* no router: "" */
		ipv4_str(a, l[p].addr);
		if (l[p].router)
			ipv4_str(r, l[p].router);
		ipv4_str(s, l[p].server);
		put(o, "linerate_mgmt_dhcp_lease_info{port=\"%s\",address=\"%s\",prefix=\"%d\",router=\"%s\",server=\"%s\"} 1\n",
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
		family(o, t[i].name, "gauge", t[i].help);
		for (int p = 0; p < nic_count; p++)
			if (run[p] && l[p].bound)
				put(o, "linerate_%s{port=\"%s\"} %u\n", t[i].name, nics[p]->name,
				    *(const uint32_t *)((const char *)&l[p] + t[i].off));
	}
}

static void metrics(struct out *o)
{
	family(o, "build_info", "gauge", "version and git describe of the image (value 1)");
	put(o, "linerate_build_info{version=\"%s\",git=\"%s\"} 1\n", LINERATE_RELEASE, GIT_DESCRIBE);
	port_counters(o);
	fwd_counters(o);
	rr_counters(o);
	pktgen_counters(o);
	core_counters(o);
	http_counters(o);
	dhcp_gauges(o);
}

static void sample(struct stats_snap *s)
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
static void status(struct out *o)
{
	static struct stats_snap a, b;
	if (!a.tsc)
		a.tsc = lcores[0].start_tsc;
	sample(&b);
	put(o, "linerate %s\napps:", LINERATE_VERSION);
	for (int p = 0; p < nic_count; p++)
		put(o, " %s=%s", nics[p]->name, app_runs_on(app_of_port(p), p) ? app_of_port(p)->name : "none");
	put(o, "\n\n");
	if (!o->cut)
		o->used += stats_format(o->b + o->used, o->len - o->used, &a, &b, tsc.hz, STATS_TABLE, -1);
	a = b;
	put(o, "\n/metrics: Prometheus text format; /config: show config\n");
}

int mgmt_page(const char *path, char *buf, size_t len, size_t *n, const char **ctype, int *truncated)
{
	struct out o = { .b = buf, .len = len };
	buf[0] = 0;
	if (!strcmp(path, "/metrics")) {
		*ctype = "text/plain; version=0.0.4; charset=utf-8";
		metrics(&o);
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
