/*
 * run/'s families of /metrics (the ports' ethtool -S counters and queues,
 * the cores' softnet counters and CPU%) and the management port's pages
 * / (status: apps and the netstat table since the last visit) and /config
 * (show config), registered with PROM_WRITER (net/prom.h).
 */
#include <stdio.h>
#include "apps/app.h"
#include "kernel/cpu.h"
#include "kernel/time.h"
#include "kernel/version.h"
#include "net/prom.h"
#include "run/lcore.h"
#include "run/stats.h"

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
			prom_port_sample(o, name, p, NULL, NULL, nic_stat_now(nics[p], (enum nic_stat)i));
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
	static const char *const qnum[] = { "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11",
					     "12", "13", "14", "15" };
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
PROM_WRITER(port, .write = port_counters);

static uint16_t busy_pct100[MAX_CPUS];	/* CPU% x 100 of each core over the last whole second */

void stats_cpu_sample(void)
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
PROM_WRITER(core, .write = core_counters);

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
PROM_WRITER(status, .path = "/", .ctype = "text/plain; charset=utf-8", .write = status);

static void config_page(struct prom *o)
{
	o->used = stats_config_text(o->b, o->len);
}
PROM_WRITER(config, .path = "/config", .ctype = "text/plain; charset=utf-8", .write = config_page);
