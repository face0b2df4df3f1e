/*
 * /metrics families of the netif's counters (lwif_stats), for the apps on
 * lwIP to write under their own names: rr's ports as linerate_rr_*, the
 * management port as linerate_mgmt_*.
 */
#include "net/lwip/lwif.h"
#include "net/prom.h"

void lwif_metrics_frames(struct prom *o, const struct lwif_families *f, const int *run)
{
	prom_family(o, f->received, "counter", "frames the port received");
	for (int p = 0; p < nic_count; p++)
		if (run[p])
			prom_port_sample(o, f->received, p, NULL, NULL, lwif_stats[p].rx);
	prom_family(o, f->stack, "counter", "frames handed to lwIP, by protocol");
	for (int p = 0; p < nic_count; p++)
		for (int i = 0; i < LWIF_STACK_N && run[p]; i++)
			prom_port_sample(o, f->stack, p, "proto", lwif_stack_names[i], lwif_stats[p].stack[i]);
	prom_family(o, f->dropped, "counter", "frames dropped before lwIP, by reason");
	for (int p = 0; p < nic_count; p++)
		for (int i = 0; i < LWIF_DROP_N && run[p]; i++)
			prom_port_sample(o, f->dropped, p, "reason", lwif_drop_names[i], lwif_stats[p].drop[i]);
	prom_family(o, f->events, "counter", "transactions, bytes and connection events, by event");
}

void lwif_metrics_events(struct prom *o, const struct lwif_families *f, int port)
{
	for (int i = 0; i < LWIF_EVENT_N; i++)
		prom_port_sample(o, f->events, port, "event", lwif_event_names[i], lwif_stats[port].ev[i]);
}
