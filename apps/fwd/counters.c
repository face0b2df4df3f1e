/* fwd's counters (apps/fwd/counters.h). */
#include <string.h>
#include "apps/fwd/counters.h"
#include "apps/app.h"
#include "apps/fwd/fwd.h"
#include "apps/fwd/l3.h"
#include "apps/fwd/tc.h"
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

/* A sample of link l: port="portN" for a port, link="portN.VID" for a
 * VLAN sub-interface (whose frames its port's samples do not count). */
static void link_sample(struct prom *o, const char *name, int l, const char *k, const char *v, uint64_t value)
{
	if (l < NIC_MAX_PORTS)
		prom_port_sample(o, name, l, k, v, value);
	else
		prom_sample(o, name, "link", l3_nics[l]->name, k, v, value);
}

/* fwd's /metrics families (struct app .metrics): the ports fwd runs on,
 * then the VLAN sub-interfaces it routes on. */
void fwd_metrics(struct prom *o)
{
	static struct fwd_stats st[FWD_LINKS];	/* one scrape at a time: the mgmt core's */
	int any = 0, run[FWD_LINKS] = { 0 };
	for (int l = 0; l < FWD_LINKS; l++)
		if ((run[l] = l < NIC_MAX_PORTS ? l < nic_count && app_runs_on(&app_fwd, l) : l3_nics[l] != NULL)) {
			fwd_stats_sum(l, &st[l]);
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
		{ "fwd_local_total", "L3: IPv4 or IPv6 frames to one of our addresses; L2 ptp_tc=p2p: Pdelay",
		  offsetof(struct fwd_stats, local) },
		{ "fwd_arp_total", "L3: ARP for our address, answered or learnt", offsetof(struct fwd_stats, arp) },
		{ "fwd_nd_total", "L3: IPv6 Neighbor Discovery for us, answered or learnt", offsetof(struct fwd_stats, nd) },
	};
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		prom_family(o, f[i].name, "counter", f[i].help);
		for (int l = 0; l < FWD_LINKS; l++)
			if (run[l])
				link_sample(o, f[i].name, l, NULL, NULL, *(const uint64_t *)((const char *)&st[l] + f[i].off));
	}
	prom_family(o, "fwd_dropped_total", "counter", "frames fwd dropped, by reason");
	for (int l = 0; l < FWD_LINKS; l++)
		for (int r = 0; r < FWD_DROP_N && run[l]; r++)
			link_sample(o, "fwd_dropped_total", l, "reason", fwd_drop_names[r], st[l].drop[r]);
	prom_family(o, "fwd_events_total", "counter", "L3 router events (frames of its own), by event");
	for (int l = 0; l < FWD_LINKS; l++)
		for (int e = 0; e < FWD_EV_N && run[l]; e++)
			link_sample(o, "fwd_events_total", l, "event", fwd_ev_names[e], st[l].ev[e]);
	fwd_tc_metrics(o, run);
}
