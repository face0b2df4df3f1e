/* fwd's transparent clock (IEEE 1588-2008 10.2, 10.3, 11.5): ptp_tc=e2e
 * or p2p on an L2 pair (e2e also on routed ports) adds each PTP event
 * message's residence time (p2p: a Sync's, plus the ingress link's delay)
 * to its correctionField (apps/fwd/tc.c). */
#ifndef FWD_TC_H
#define FWD_TC_H
#include <stdint.h>
#include "drivers/net/nic.h"

/* ptp_tc knob. */
enum { FWD_TC_OFF, FWD_TC_E2E, FWD_TC_P2P };
extern int64_t fwd_ptp_tc;

/* Join the PTP multicast groups (L2, UDP/IPv4 and UDP/IPv6; p2p: the
 * Pdelay ones too) on nic and turn its clock's hardware timestamps on (RX:
 * Sync; TX), if it has one, for the TC's ingress and egress times; p2p:
 * start the port's peer delay. */
void fwd_tc_port_init(struct nic *nic);
/* Send the burst pkts[0..*n) received on in out of out's TX queue q,
 * correcting the PTP event messages among it (Sync, Delay_Req in place; a
 * two-step Sync's residence into its Follow_Up, the Sync sent with a TX
 * stamp request where out stamps; a Follow_Up in the same burst as its
 * Sync waits for the frames before it to be sent). p2p: Pdelay messages
 * end here (freed, the port's peer delay). *n becomes the frames left, in
 * order, in pkts[]; returns how many of them, from the first, tx_burst
 * took (the caller frees the rest). Called in place of tx_burst only when
 * fwd_ptp_tc is on. */
int fwd_tc_tx(struct nic *in, struct nic *out, int q, struct pkt **pkts, int *n);
/* ptp_tc=e2e on a routed port: turn its clock's hardware timestamps on
 * (RX: Sync; TX), if it has one, for the TC's ingress times. */
void fwd_tc_route_init(struct nic *nic);
/* ptp_tc=e2e: routed frame p, received on port in (the port of a VLAN
 * sub-interface) in the burst that started at TSC rx_tsc, about to be sent
 * out of port out untagged: if a PTP event message (UDP/IPv4 or IPv6),
 * its residence added as fwd_tc_tx does, egress time the TSC now (a
 * two-step Sync's kept for its Follow_Up), the UDP checksum updated. */
void fwd_tc_route(struct nic *in, struct nic *out, struct pkt *p, uint64_t rx_tsc);
/* p2p: the Pdelay requests and pending answers of the ports whose TX queue
 * 0 this core sends on (fwd's idle hook); returns 1 if it did anything. */
int fwd_tc_idle(void);
/* `fwd` line of port's TC counters (p2p: its link delay and Pdelay
 * exchanges), if the TC is on. */
void fwd_tc_show(int port, const char *name);
/* fwd's /metrics families of the TC (if on) for the ports with run[p]:
 * fwd_ptp_tc_total{port,event} (the `fwd` line's counters),
 * fwd_ptp_tc_residence_seconds_total, fwd_ptp_tc_residence_max_seconds;
 * p2p: fwd_ptp_tc_peer_delay_seconds (Prometheus' base unit: promtool
 * refuses _ns). */
struct prom;
void fwd_tc_metrics(struct prom *o, const int run[]);
#endif
