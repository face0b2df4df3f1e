/* fwd's counters (apps/fwd/counters.h). */
#include <string.h>
#include "apps/fwd/counters.h"
#include "apps/app.h"
#include "apps/fwd/fwd.h"
#include "net/prom.h"

struct fwd_stats fwd_stats[MAX_CPUS][FWD_LINKS];

#define FWD_NAME(name) #name,
const char *const fwd_drop_names[FWD_DROP_N] = { FWD_DROPS(FWD_NAME) };
const char *const fwd_ev_names[FWD_EV_N] = { FWD_EVENTS(FWD_NAME) };

void fwd_drop(int port, enum fwd_drop reason, uint64_t n)
{
	fwd_st(port)->drop[reason] += n;
	app_count_drops(n);
}

void fwd_stats_sum(int port, struct fwd_stats *out)
{
	uint64_t *o = (uint64_t *)out;
	memset(out, 0, sizeof(*out));
	for (int c = 0; c < ncpus; c++) {	/* cores that never ran counted nothing */
		const uint64_t *in = (const uint64_t *)&fwd_stats[c][port];
		for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
			o[i] += in[i];
	}
}

/* fwd's /metrics families (struct app .metrics). */
void fwd_metrics(struct prom *o)
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
		{ "fwd_local_total", "L3: IPv4 or IPv6 frames to one of our addresses", offsetof(struct fwd_stats, local) },
		{ "fwd_arp_total", "L3: ARP for our address, answered or learnt", offsetof(struct fwd_stats, arp) },
		{ "fwd_nd_total", "L3: IPv6 Neighbor Discovery for us, answered or learnt", offsetof(struct fwd_stats, nd) },
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
