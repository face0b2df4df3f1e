/* fwd's end-to-end transparent clock (IEEE 1588-2008 10.2, 11.5): ptp_tc=e2e
 * on an L2 pair adds each PTP event message's residence time to its
 * correctionField (apps/fwd/tc.c). */
#ifndef FWD_TC_H
#define FWD_TC_H
#include <stdint.h>
#include "drivers/net/nic.h"

/* ptp_tc knob: 0 off, 1 e2e. */
extern int64_t fwd_ptp_tc;

/* Join the PTP multicast groups (L2 and UDP/IPv4, E2E) on nic and turn
 * its clock's hardware timestamps on (RX: Sync; TX), if it has one, for
 * the TC's ingress and egress times. */
void fwd_tc_port_init(struct nic *nic);
/* Send the burst pkts[0..n) received on in out of out's TX queue q,
 * correcting the PTP event messages among it (Sync, Delay_Req in place; a
 * two-step Sync's residence into its Follow_Up, the Sync sent with a TX
 * stamp request where out stamps); returns what tx_burst took. Called in
 * place of tx_burst only when fwd_ptp_tc is on. */
int fwd_tc_tx(struct nic *in, struct nic *out, int q, struct pkt **pkts, int n);
/* `fwd` line of port's TC counters, if the TC is on. */
void fwd_tc_show(int port, const char *name);
/* fwd's /metrics families of the TC (if on) for the ports with run[p]:
 * fwd_ptp_tc_total{port,event} (the `fwd` line's counters),
 * fwd_ptp_tc_residence_ns_total, fwd_ptp_tc_residence_max_ns. */
struct prom;
void fwd_tc_metrics(struct prom *o, const int run[]);
#endif
