/*
 * The ptp app's /metrics: per port its state, servo, offset, frequency and
 * path delay (and the P2P neighbor delay) as gauges (the figures of the `ptp` command, apps/ptp/ptp.h)
 * and its frame counters.
 */
#include "apps/app.h"
#include "apps/ptp/ptp.h"
#include "net/prom.h"

extern const struct app app_ptp;

#define NAME_OF(name) #name,
static const char *const ptp_rx_names[PC_N] = { PTP_RX_USED(NAME_OF) PTP_RX_DROPS(NAME_OF) };
static const char *const ptp_ev_names[PE_N] = { PTP_EVENTS(NAME_OF) };

static void ptp_gauges(struct prom *o)
{
	char num[PROM_NUM_MAX];
	prom_family(o, "ptp_port_state", "gauge", "1 for the port's state (IEEE 1588 9.2.5, ptp4l's names), 0 for the others");
	for (int p = 0; p < nic_count; p++)
		for (int s = 0; s < PS_N && app_runs_on(&app_ptp, p); s++)
			prom_port_sample(o, "ptp_port_state", p, "state", ptp_state_names[s],
					 (int)ptp_ports[p].state == s);
	prom_family(o, "ptp_servo_state", "gauge", "ptp4l's servo state: 0 unlocked (s0), 1 jump (s1), 2 locked (s2)");
	for (int p = 0; p < nic_count; p++)
		if (app_runs_on(&app_ptp, p))
			prom_port_sample(o, "ptp_servo_state", p, NULL, NULL, ptp_ports[p].sstate);
	prom_family(o, "ptp_offset_seconds", "gauge", "offset from the master of the last Sync (slave and uncalibrated ports)");
	for (int p = 0; p < nic_count; p++)
		if (app_runs_on(&app_ptp, p) && ptp_following(&ptp_ports[p]))
			prom_sample_text(o, "ptp_offset_seconds", "port", nics[p]->name, NULL, NULL,
					 prom_seconds(num, ptp_ports[p].last_offset));
	prom_family(o, "ptp_frequency_ppb", "gauge", "the servo's frequency adjustment of the port's clock, ppb");
	for (int p = 0; p < nic_count; p++)
		if (app_runs_on(&app_ptp, p) && ptp_following(&ptp_ports[p]))
			prom_sample_text(o, "ptp_frequency_ppb", "port", nics[p]->name, NULL, NULL,
					 prom_int(num, (int64_t)ptp_ports[p].last_freq));
	prom_family(o, "ptp_path_delay_seconds", "gauge", "mean path delay to the master (median filter, end to end)");
	for (int p = 0; p < nic_count; p++)
		if (app_runs_on(&app_ptp, p) && ptp_following(&ptp_ports[p]) && ptp_ports[p].have_delay)
			prom_sample_text(o, "ptp_path_delay_seconds", "port", nics[p]->name, NULL, NULL,
					 prom_seconds(num, ptp_ports[p].path_delay));
	prom_family(o, "ptp_neighbor_delay_seconds", "gauge", "meanLinkDelay to the link's neighbour (delay_mechanism=P2P, median filter)");
	for (int p = 0; p < nic_count; p++)
		if (app_runs_on(&app_ptp, p) && ptp_ports[p].have_peer_delay)
			prom_sample_text(o, "ptp_neighbor_delay_seconds", "port", nics[p]->name, NULL, NULL,
					 prom_seconds(num, ptp_ports[p].peer_delay));
}

static void ptp_counters(struct prom *o)
{
	prom_family(o, "ptp_received_total", "counter", "PTP frames used, by message type; with UDPv4 also ARP and ICMP echo requests to the port's address, answered");
	for (int p = 0; p < nic_count; p++)
		for (int i = 0; i < PC_FIRST_DROP && app_runs_on(&app_ptp, p); i++)
			prom_port_sample(o, "ptp_received_total", p, "message", ptp_rx_names[i], ptp_ports[p].rx_count[i]);
	prom_family(o, "ptp_dropped_total", "counter", "frames the ptp app received and did not use, by reason");
	for (int p = 0; p < nic_count; p++)
		for (int i = PC_FIRST_DROP; i < PC_N && app_runs_on(&app_ptp, p); i++)
			prom_port_sample(o, "ptp_dropped_total", p, "reason", ptp_rx_names[i], ptp_ports[p].rx_count[i]);
	prom_family(o, "ptp_events_total", "counter", "PTP messages sent, timestamps and clock steps, by event");
	for (int p = 0; p < nic_count; p++)
		for (int i = 0; i < PE_N && app_runs_on(&app_ptp, p); i++)
			prom_port_sample(o, "ptp_events_total", p, "event", ptp_ev_names[i], ptp_ports[p].ev[i]);
}

void ptp_metrics(struct prom *o)
{
	ptp_gauges(o);
	ptp_counters(o);
}

