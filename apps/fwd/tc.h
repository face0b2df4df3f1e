/* fwd's transparent clock (IEEE 1588-2008 10.2, 10.3, 11.5): ptp_tc=e2e
 * or p2p on an L2 pair or the routed links adds each PTP event
 * message's residence time (p2p: a Sync's, plus the ingress link's delay)
 * to its correctionField (apps/fwd/tc.c). */
#ifndef FWD_TC_H
#define FWD_TC_H
#include <stdint.h>
#include <string.h>
#include "drivers/net/nic.h"
#include "kernel/smp.h"
#include "net/bytes.h"
#include "net/ptp.h"

/* ptp_tc knob. */
enum { FWD_TC_OFF, FWD_TC_E2E, FWD_TC_P2P };
extern int64_t fwd_ptp_tc;

/* Bytes 12-14 of an untagged IPv4 frame with a 20-byte header (EtherType
 * 0x0800, version 4, IHL 5) as a little-endian 32-bit load reads them,
 * the byte after (TOS) masked off. */
#define TC_IPV4_IHL5 0x450008u

/* 0 if frame p is no PTP message: an untagged IPv4 frame with a 20-byte
 * header whose destination port (the 16 bits 36 bytes in, UDP's or not)
 * is neither 319 nor 320; else 1, and the TC parses it (tc.c). It reads
 * 38 bytes whatever p->len, within the buffer (256 bytes or more): a stale
 * byte past a short frame can only make it 1. Inline: for such frames the
 * TC's whole cost, a load, a mask and a compare (and one more load and
 * two compares for IPv4). */
static inline int fwd_tc_maybe(const struct pkt *p)
{
	uint32_t w;
	uint16_t port;
	memcpy(&w, p->data + 12, sizeof(w));
	if ((w & 0xffffff) != TC_IPV4_IHL5)
		return 1;
	memcpy(&port, p->data + 36, sizeof(port));
	return port == hton16(PTP_EVENT_PORT) || port == hton16(PTP_GENERAL_PORT);
}

/* 1 if a frame of pkts[0..n) may be a PTP message (fwd_tc_maybe): else
 * the burst goes to tx_burst as with ptp_tc=off. One pass that only
 * reads, stopping at the first. */
static inline int fwd_tc_burst_maybe(struct pkt *const *pkts, int n)
{
	for (int i = 0; i < n; i++)
		if (fwd_tc_maybe(pkts[i]))
			return 1;
	return 0;
}

/* Per port, set by fwd_tc_port_init: 1 where the TC decides per burst
 * from the descriptors' timestamp bit (fwd_tc_burst): ptp_tc=e2e on an
 * L2 port whose clock stamps every PTP event message (phc_rx_each_event:
 * the I350/I210). Elsewhere each frame is tested (fwd_tc_burst_maybe). */
extern uint8_t fwd_tc_by_bit[NIC_MAX_PORTS];
/* rx_tstamped of each port's queues as fwd_tc_burst last read it. */
extern uint64_t fwd_tc_tstamped_seen[NIC_MAX_PORTS][NIC_MAX_QUEUES];
/* The general messages (no stamp) the TC waits for on a port: per core,
 * two-step Syncs in on the port kept for their Follow_Up; Delay_Reqs sent
 * out of the port with a TX stamp request, kept for their Delay_Resp.
 * Each until matched or given up (tc.c, TC_DUE_NS). */
extern uint32_t fwd_tc_follow_ups_due[MAX_CPUS][NIC_MAX_PORTS];
extern uint32_t fwd_tc_delay_resps_due[NIC_MAX_PORTS];

/* 1 if the burst pkts[0..n) from queue q of nic goes through the TC
 * (fwd_tc_tx), 0 if it goes to tx_burst as with ptp_tc=off. On a port
 * decided by the bit: the burst held a frame the NIC stamped, or a
 * Follow_Up or Delay_Resp is due there: a few loads per burst, none per
 * frame. Elsewhere fwd_tc_burst_maybe. */
static inline int fwd_tc_burst(struct nic *nic, int q, struct pkt *const *pkts, int n)
{
	int port = nic->port;
	if (!fwd_tc_by_bit[port])
		return fwd_tc_burst_maybe(pkts, n);
	uint64_t c = nic->q[q].rx_tstamped;
	if (c != fwd_tc_tstamped_seen[port][q]) {
		fwd_tc_tstamped_seen[port][q] = c;
		return 1;
	}
	return fwd_tc_follow_ups_due[cpu_id_fast()][port] ||
	       __atomic_load_n(&fwd_tc_delay_resps_due[port], __ATOMIC_RELAXED);
}

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
 * fwd_ptp_tc is on and fwd_tc_burst says the burst may hold PTP work. */
int fwd_tc_tx(struct nic *in, struct nic *out, int q, struct pkt **pkts, int *n);
/* ptp_tc= on routed link link (a port with an address, or a VLAN
 * sub-interface; its NIC lnic, on port): port's clock's hardware
 * timestamps on (RX: Sync; TX), if it has one, for the TC's ingress
 * times; p2p: the link's peer delay started, port joined to the Pdelay
 * groups, sending from ip4 (UDPv4, host order) or ll6 (UDPv6, the link's
 * link-local address); a link without the address its network_transport
 * needs (0, all zero) runs none, and the boot says so. */
void fwd_tc_route_init(int link, struct nic *lnic, struct nic *port, uint32_t ip4, const uint8_t ll6[16]);
/* ptp_tc=e2e|p2p: routed frame p, received on link (a port or a VLAN
 * sub-interface) of port in in the burst that started at TSC rx_tsc,
 * about to be sent out of port out untagged: if a PTP event message
 * (UDP/IPv4 or IPv6), its residence (p2p: plus the ingress link's delay)
 * added as fwd_tc_tx does, egress time the TSC now (a two-step Sync's
 * kept for its Follow_Up), the UDP checksum updated. */
void fwd_tc_route(int link, struct nic *in, struct nic *out, struct pkt *p, uint64_t rx_tsc);
/* ptp_tc=p2p: frame p received on routed link (of port in) at TSC
 * rx_tsc, untagged: 1 if it is a Pdelay message to the link's Pdelay
 * group (01-80-C2-00-00-0E, 224.0.0.107 or ff02::6b), taken by the link's
 * peer delay (answered, or measured with; pdelay_unserved where it runs
 * none or on another core) and freed: the caller counts it local. 0: the
 * router's as any frame. */
int fwd_tc_route_local(int link, struct nic *in, struct pkt *p, uint64_t rx_tsc);
/* p2p: the Pdelay requests and pending answers of the links whose port's
 * TX queue 0 this core sends on (fwd's idle hook); returns 1 if it did
 * anything. */
int fwd_tc_idle(void);
/* `fwd` line of link's TC counters (a port's: the messages that came in
 * on it and its sub-interfaces) and, p2p, its link delay and Pdelay
 * exchanges, if the TC is on. */
void fwd_tc_show(int link, const char *name);
/* fwd's /metrics families of the TC (if on) for the ports with run[p]:
 * fwd_ptp_tc_total{port,event} (the `fwd` line's counters),
 * fwd_ptp_tc_residence_seconds_total, fwd_ptp_tc_residence_max_seconds;
 * p2p: fwd_ptp_tc_peer_delay_seconds (Prometheus' base unit: promtool
 * refuses _ns). */
struct prom;
void fwd_tc_metrics(struct prom *o, const int run[]);
#endif
