/*
 * pktgen's /metrics: its send and receive counters, and its latency
 * histogram (apps/pktgen/hist.h) as a Prometheus histogram in seconds, one
 * bucket per power of two of nanoseconds, whose edges are edges of the
 * log-linear histogram, so every bucket's count is exact.
 */
#include "apps/app.h"
#include "apps/pktgen/pktgen.h"
#include "net/prom.h"

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
		{ "pktgen_received_nd_total", "IPv6 Neighbor Solicitations answered", offsetof(struct pg_rx, nd), 1 },
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
					    f[i].rx ? *(const uint64_t *)((const char *)&pg_rx[p] + f[i].off) :
						      pg_tx_field(p, f[i].off));
	}
	prom_family(o, "pktgen_received_dropped_total", "counter", "received frames pktgen did not count as its own, by reason");
	for (int p = 0; p < nic_count; p++)
		for (size_t r = 0; r < sizeof(drops) / sizeof(drops[0]) && app_runs_on(&app_pktgen, p); r++)
			prom_port_sample(o, "pktgen_received_dropped_total", p, "reason", drops[r].reason,
				    *(const uint64_t *)((const char *)&pg_rx[p] + drops[r].off));
}

#define LE_FIRST 8	/* bucket edges 2^8 - 1 ns (255 ns) ... */
#define LE_LAST 34	/* ... 2^34 - 1 ns (17.2 s), then +Inf */

/* One port's histogram: cumulative buckets, _sum and _count. The buckets
 * are read once; _count is their total, so it equals the +Inf bucket. */
static void latency(struct prom *o, int p)
{
	const struct hist *h = &pg_rx[p].lat;
	char num[PROM_NUM_MAX], le[PROM_NUM_MAX];
	uint64_t cum = 0;
	unsigned i = 0;
	for (int k = LE_FIRST; k <= LE_LAST; k++) {
		uint64_t edge = (1ull << k) - 1;
		while (i < HIST_BUCKETS && pg_hist_hi(i) <= edge)
			cum += h->bucket[i++];
		prom_sample_text(o, "pktgen_latency_seconds_bucket", "port", nics[p]->name, "le",
				 prom_seconds(le, (int64_t)edge), prom_dec(num, cum));
	}
	while (i < HIST_BUCKETS)
		cum += h->bucket[i++];
	prom_sample_text(o, "pktgen_latency_seconds_bucket", "port", nics[p]->name, "le", "+Inf", prom_dec(num, cum));
	prom_sample_text(o, "pktgen_latency_seconds_sum", "port", nics[p]->name, NULL, NULL,
			 prom_seconds(num, (int64_t)h->sum));
	prom_port_sample(o, "pktgen_latency_seconds_count", p, NULL, NULL, cum);
}

static void latency_histogram(struct prom *o)
{
	prom_family(o, "pktgen_latency_seconds", "histogram", "pktgen latency probes: receive time - send time");
	for (int p = 0; p < nic_count; p++)
		if (app_runs_on(&app_pktgen, p))
			latency(o, p);
}

void pg_metrics(struct prom *o)
{
	pktgen_counters(o);
	latency_histogram(o);
	rfc2544_metrics(o);
}
