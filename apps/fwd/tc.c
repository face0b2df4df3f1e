/*
 * fwd's transparent clock on the L2 pairs: ptp_tc=e2e end-to-end (IEEE
 * 1588-2008 10.2, 11.5.2, 11.5.3), ptp_tc=p2p peer-to-peer (10.3, 11.5.4);
 * e2e also on the router's ports and VLAN sub-interfaces (below).
 * For each PTP event message forwarded (L2, UDP/IPv4 or UDP/IPv6, framed as
 * net/ptp.h parses them, untagged or behind one 802.1Q tag) the residence
 * time, egress less ingress time in the egress port's clock, is added to
 * the correctionField (ns * 2^16):
 * - a one-step Sync (twoStepFlag clear) and a Delay_Req: in the message
 *   itself, before it is sent (11.5.2.1, 11.5.3.1);
 * - a two-step Sync: kept by (sourcePortIdentity, sequenceId, domain) and
 *   added to its Follow_Up when that passes (11.5.2.2).
 * The master copies a Delay_Req's correctionField into its Delay_Resp
 * (11.3.2), which carries the Delay_Req's residence back to the slave.
 * Where the Delay_Req's egress port stamps in hardware, the Delay_Req is
 * also sent with a TX stamp request, and its wait in the TX ring (the
 * stamp less the TSC time already in its correctionField) is added to the
 * Delay_Resp that answers it when that passes back through the port
 * (11.5.3.2, the two-step TC's Delay_Resp), matched by
 * requestingPortIdentity, sequenceId and domain.
 * A UDP checksum (when not 0) is updated with the field (RFC 1624): IPv4's
 * kept rather than zeroed (Annex D.3 allows either), IPv6's as it must be
 * (Annex E.3; RFC 8200 8.1, never 0).
 *
 * Routed (ptp_tc=e2e, fwd_tc_route): a PTP/UDP event message the router
 * forwards (IPv4 or IPv6, unicast: the router forwards no multicast) is
 * corrected as above as tx.c sends its batch out of the link, ingress and
 * egress being the links' ports (a VLAN sub-interface's frames are
 * corrected untagged, before vlan.c tags them). Egress time: the TSC just
 * before the batch goes to the TX ring, for every message (no TX stamp
 * requests on routed ports: their batches mix frames of several ports and
 * cores). Software ingress time: the TSC at the start of the burst
 * (fwd_l3_rx). ptp_tc=p2p: each routed link (a port with an address, a
 * VLAN sub-interface) runs the peer delay below on a ptp_port of its own,
 * sending from the link's address (UDPv4: its IPv4 one; UDPv6: its
 * link-local one, RFC 6724 rule 2 for ff02::6b; a link without one runs
 * none, said at boot): the Pdelay messages sent to the link's Pdelay
 * group (fwd_tc_route_local: 01-80-C2-00-00-0E, 224.0.0.107, ff02::6b,
 * whichever transport) end there, counted `local`, never routed; a routed
 * Sync or Follow_Up gets the residence plus its ingress link's delay. A
 * Pdelay message routed through (unicast to a host beyond) is not the
 * link's: forwarded untouched.
 *
 * p2p: each port measures the delay of its link to its neighbour with the
 * ptp app's peer delay mechanism (apps/ptp/pdelay.c, 11.4: Pdelay_Req
 * sent, the neighbour's answered) on a ptp_port of its own, software
 * stamps, network_transport and logMinPdelayReqInterval from the ptp
 * knobs. Pdelay messages end at the port, never forwarded (counted
 * `local` by fwd). A Sync (or its Follow_Up) gets the residence plus the
 * ingress port's link delay (11.5.4); Delay_Req passes unchanged. The
 * residence is scaled by the ingress port's neighborRateRatio (pdelay.c,
 * 802.1AS-2011 10.2.5.7), as a time-aware relay scales its residence
 * by its rateRatio: the neighbour's clock taken as the grandmaster's
 * rate where nothing says otherwise. An L2 Follow_Up with the 802.1AS
 * follow-up information TLV (gPTP) gets, as the relay's MD sync send
 * state machine sets its Follow_Up (11.2, 11.4.4.3): rateRatio = its
 * cumulativeScaledRateOffset's ratio times the neighborRateRatio,
 * correctionField += rateRatio * residence + the link delay (measured in
 * the neighbour's time base) times the cumulative ratio, and rateRatio
 * written back into the TLV. The port clocks' rates against each other
 * (the residence is read in the egress port's clock, the ratio measured
 * against the ingress port's) are taken as equal: ppm of microseconds. The
 * port's Pdelay exchanges run on the core owning its queue 0 (the one
 * that receives them: multicast, no RSS).
 *
 * Ingress time: the ingress port's hardware RX stamp when the frame has
 * one (igb; QEMU's model stamps one message type: Sync), mapped into the
 * egress port's clock through the TSC (phc_convert); else the TSC when
 * the burst reached the TC. Egress time of a two-step Sync: the egress
 * port's hardware TX stamp (its real departure, the wait in the TX ring
 * included) where the port stamps, one Sync at a time (the NIC holds one
 * stamp); it is read when the Follow_Up passes (a Follow_Up in the same
 * burst as its Sync, as a master sends them, goes after the frames before
 * it are sent and the stamp is in, up to TC_TX_WAIT_NS). Else, and for
 * a one-step Sync and a Delay_Req (their correction must be in the frame
 * before it leaves), the TSC just before the burst goes to the TX ring:
 * the wait in the ring is not in it (for the Delay_Req, its Delay_Resp
 * gets it, above). A TX stamp asked for and not had falls back to the TSC
 * (a Delay_Resp: nothing more added), counted tx_tstamp_missing.
 *
 * Cost to other frames: none while ptp_tc=off (fwd tests the knob once per
 * burst). On, an L2 port whose NIC stamps every PTP event message itself
 * and marks it in its descriptor (phc_rx_each_event: the I350/I210, time
 * in the buffer) is decided per burst, e2e only (fwd_tc_burst, tc.h): the
 * burst goes through this file's loop if the driver counted a stamped
 * frame in it (the queue's rx_tstamped moved: counted in the driver's
 * branch for stamped frames, which other frames never take), or while a
 * general message the TC needs is due on the port: a two-step Sync's
 * Follow_Up (per core: the Sync's entry here), a Delay_Resp whose
 * Delay_Req went out of the port with a TX stamp request (tc_dreqs), each
 * until it passes or TC_DUE_NS (1 s) after its event message, then given
 * up (no_follow_up, no_delay_resp). Any other burst goes to tx_burst as
 * with the knob off: no instruction per frame. Everywhere else (ports
 * whose NIC misses event messages behind a latch or stamps none, p2p,
 * whose unstamped Pdelay_Resp_Follow_Up must end at the port, and the
 * routed links, which use software ingress times) fwd_tc_maybe (tc.h)
 * reads each frame's EtherType and, for an untagged IPv4 one with a
 * 20-byte header, its destination port, inline: an L2 burst without a
 * frame that may be PTP goes to tx_burst, a routed frame without one
 * skips fwd_tc_route. The others go through this file's loop, which looks
 * again (maybe_ptp, with the lengths) and parses. docs/apps/fwd.md, "The
 * TC's cost to other frames", has the table by NIC family.
 */
#include <stdio.h>
#include <string.h>
#include "apps/fwd/counters.h"
#include "apps/fwd/tc.h"
#include "apps/ptp/ptp.h"
#include "drivers/net/phc.h"
#include "kernel/cpu.h"
#include "kernel/knobs.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "net/bytes.h"
#include "net/ipv4.h"
#include "net/ipv6.h"
#include "net/prom.h"
#include "net/ptp.h"
#include "net/vlan.h"

int64_t fwd_ptp_tc;
static const char *const tc_choices[] = { "off", "e2e", "p2p", 0 };
KNOB(ptp_tc, .name = "ptp_tc", .type = KNOB_ENUM, .choices = tc_choices, .ival = &fwd_ptp_tc,
     .help = "fwd L2 pairs: e2e makes each pair an end-to-end transparent clock (IEEE 1588 11.5: the "
	     "residence time of Sync and Delay_Req added to correctionField, a two-step Sync's to its "
	     "Follow_Up); p2p a peer-to-peer one (10.3: each port measures its link with Pdelay, not "
	     "forwarded; a Sync gets residence plus the ingress link's delay); routed ports and VLAN "
	     "sub-interfaces: both, on the PTP/UDP (IPv4, IPv6) event messages they forward, p2p's Pdelay "
	     "answered by each link; default off");

/* What the TC did with the PTP event messages and Follow_Ups it saw, per
 * ingress port, as the `fwd` command prints them. */
#define TC_COUNTS(X) \
	X(sync)			/* one-step Sync corrected in place */ \
	X(delay_req)		/* Delay_Req corrected in place */ \
	X(follow_up)		/* Follow_Up given its two-step Sync's residence time */ \
	X(follow_up_info)	/* p2p: of which with an 802.1AS TLV given the neighborRateRatio */ \
	X(delay_resp)		/* Delay_Resp given its Delay_Req's wait in the egress TX ring */ \
	X(no_sync)		/* Follow_Up whose Sync the TC did not see: forwarded unchanged */ \
	X(overflow)		/* the correctionField would overflow: forwarded unchanged */ \
	X(negative_residence)	/* egress before ingress (clock mapping): forwarded unchanged */ \
	X(bad_ptp)		/* PTP event message, Follow_Up or Delay_Resp the parser refuses: forwarded unchanged */ \
	X(rx_hwtstamp)		/* ingress time from the NIC's stamp */ \
	X(rx_swtstamp)		/* ingress time from the TSC at the burst */ \
	X(tx_hwtstamp)		/* egress time from the egress port's TX stamp (two-step Sync, Delay_Req) */ \
	X(tx_swtstamp)		/* egress time from the TSC before the TX ring */ \
	X(tx_tstamp_missing)	/* a TX stamp asked for that was not in at the Follow_Up or Delay_Resp: TSC used */ \
	X(pdelay)		/* p2p: Pdelay message answered or measured with, not forwarded */ \
	X(pdelay_refused)	/* p2p: Pdelay message the peer delay refused (pdelay.c's reasons), not forwarded */ \
	X(pdelay_unserved)	/* p2p routed: Pdelay message on a link whose peer delay does not run (no address \
				 * for network_transport) or taken by a core that does not send on its port's TX \
				 * queue 0: not answered, not forwarded */ \
	X(no_peer_delay)	/* p2p: Sync corrected by its residence alone: the link not measured yet */ \
	X(no_follow_up)		/* two-step Sync in on the port whose Follow_Up did not pass within TC_DUE_NS \
				 * (or TC_SYNCS later ones replaced it): given up */ \
	X(no_delay_resp)	/* Delay_Req sent out of the port with a TX stamp request whose Delay_Resp did \
				 * not pass back within TC_DUE_NS (or TC_DREQS later ones replaced it): given up */ \
	X(residence_ns)		/* sum of the residence times added */
#define TC_ENUM(n) TC_##n,
enum tc_count { TC_COUNTS(TC_ENUM) TC_N };
#define TC_NAME(n) #n,
static const char *const tc_names[TC_N] = { TC_COUNTS(TC_NAME) };

#define TC_SYNCS 4	/* two-step Syncs waiting for their Follow_Up, per port */
#define TC_DUE_NS 1000000000ll	/* a Follow_Up or Delay_Resp later than this after its Sync or
				 * Delay_Req finds none (no_sync): the wait is given up */

uint8_t fwd_tc_by_bit[NIC_MAX_PORTS];
uint64_t fwd_tc_tstamped_seen[NIC_MAX_PORTS][NIC_MAX_QUEUES];
uint32_t fwd_tc_follow_ups_due[MAX_CPUS][NIC_MAX_PORTS];
uint32_t fwd_tc_delay_resps_due[NIC_MAX_PORTS];

struct tc_sync {
	int used;
	uint8_t domain;
	uint16_t seq;
	struct ptp_port_id src;
	int64_t t_in;		/* ingress time, ns of the egress port's clock */
	int64_t residence;	/* ns, to the TSC before the TX ring */
	int64_t link;		/* p2p: the ingress link's delay, ns */
	int64_t nrr;		/* p2p: the ingress port's neighborRateRatio, (ratio - 1) * 2^41 */
	uint32_t txseq;		/* the egress port's TX stamp request (phc_tx_seq), 0 none */
	uint64_t at;		/* now_ns() when kept */
};

/* One core's state of one ingress port (a master's Sync and Follow_Up
 * reach the same queue: L2 has no RSS hash, UDP hashes the same
 * addresses). */
struct tc_port {
	uint64_t count[TC_N];
	uint64_t residence_max;	/* ns */
	struct tc_sync sync[TC_SYNCS];
	unsigned next;
	volatile uint32_t *tx_asked;	/* txseq of this burst's frame sent with PKT_TX_TSTAMP */
};
static struct tc_port tc_ports[MAX_CPUS][NIC_MAX_PORTS];

#define TC_DREQS 8	/* Delay_Reqs sent with a TX stamp request, per egress port */

/* A Delay_Req sent with a TX stamp request, until its Delay_Resp passes
 * back. Written by the core forwarding the Delay_Req, read by the one
 * forwarding the Delay_Resp: gen is odd while the entry is written. */
struct tc_dreq {
	volatile uint32_t gen;
	uint8_t domain;
	uint16_t seq;
	struct ptp_port_id src;
	int64_t egress;		/* the TSC egress time in its correctionField, ns of the port's clock */
	int64_t residence;	/* the residence in its correctionField, ns */
	volatile uint32_t txseq;	/* the port's TX stamp request, 0 none */
	uint64_t at;		/* now_ns() when kept */
	volatile uint32_t live;	/* gen while its Delay_Resp is due, 0 once it passed or was given up */
};
static struct tc_dreq tc_dreqs[NIC_MAX_PORTS][TC_DREQS];
static unsigned tc_dreq_next[NIC_MAX_PORTS];

/* p2p: each link's peer delay (its pd, peer_delay, ev[] fields), by link:
 * an L2 pair's port, a routed port or VLAN sub-interface; tc_pd_port: the
 * port whose TX queue 0 sends its messages. */
static struct ptp_port tc_pd[FWD_LINKS];
static struct nic *tc_pd_port[FWD_LINKS];

/* p2p: link (its NIC lnic, on port) starts its peer delay, its port
 * joined to the Pdelay groups (with promisc=0 they arrive only then,
 * Annex D, E, F). */
static struct ptp_port *pdelay_start(int link, struct nic *lnic, struct nic *port)
{
	struct ptp_port *pp = &tc_pd[link];
	nic_mc_add(port, ptp_l2_pdelay_mcast);
	nic_mc_add(port, ptp_ipv4_pdelay_mac);
	nic_mc_add(port, ptp_ipv6_pdelay_mac);
	ptp_port_init(pp, port);
	pp->nic = lnic;		/* a sub-interface's NIC tags what it sends */
	pp->hw = 0;		/* software stamps: the TX stamp is the Syncs' */
	tc_pd_port[link] = port;
	return pp;
}

void fwd_tc_port_init(struct nic *nic)
{
	nic_mc_add(nic, ptp_l2_mcast);
	nic_mc_add(nic, ptp_ipv4_mcast_mac);
	nic_mc_add(nic, ptp_ipv6_mcast_mac);
	if (fwd_ptp_tc == FWD_TC_P2P)
		pdelay_start(nic->port, nic, nic);
	struct phc *c = phc_of(nic);
	if (phc_is_hw(c))
		phc_hwtstamp(c, PTP_SYNC, 1, 1);
	fwd_tc_by_bit[nic->port] = fwd_ptp_tc == FWD_TC_E2E && phc_rx_each_event(c);
	if (fwd_tc_by_bit[nic->port])
		printf("fwd: %s: transparent clock by the descriptors' timestamp bit (%s stamps each PTP event "
		       "message)\n", nic->name, c->ops->name);
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

/* Add ns to msg's correctionField (and its UDP checksum, if udp and not
 * 0). Returns 0, or -1 counted (overflow) and unchanged. */
static int put_correction(struct tc_port *t, uint8_t *msg, int udp, int64_t ns)
{
	int64_t sum;
	if (ns > INT64_MAX >> 16 || ns < -(INT64_MAX >> 16) ||
	    __builtin_add_overflow((int64_t)get64(msg + 8), ns * 65536, &sum)) {
		t->count[TC_overflow]++;
		return -1;
	}
	uint8_t old[8];
	memcpy(old, msg + 8, 8);
	put64(msg + 8, (uint64_t)sum);
	uint8_t *csum = msg - 2;	/* the UDP header's last field */
	if (udp && get16(csum)) {
		uint16_t hc = get16(csum);
		for (int i = 0; i < 8; i += 2)	/* the field starts 16 bytes into the UDP header: aligned */
			hc = inet_csum_update(hc, get16(old + i), get16(msg + 8 + i));
		put16(csum, hc ? hc : 0xffff);	/* RFC 768: a computed 0 is sent as all ones */
	}
	return 0;
}

/* Add res + link ns (residence, p2p link delay) to msg's correctionField,
 * the residence counted. Returns 0, or -1 counted (negative residence,
 * overflow) and unchanged. */
static int add_correction(struct tc_port *t, uint8_t *msg, int udp, int64_t res, int64_t link)
{
	int64_t add;
	if (res < 0) {
		t->count[TC_negative_residence]++;
		return -1;
	}
	if (__builtin_add_overflow(res, link, &add) || add < 0) {
		t->count[TC_overflow]++;
		return -1;
	}
	if (put_correction(t, msg, udp, add))
		return -1;
	t->count[TC_residence_ns] += (uint64_t)res;
	if ((uint64_t)res > t->residence_max)
		t->residence_max = (uint64_t)res;
	return 0;
}

/* Ingress time of p in out's clock, ns. */
static int64_t ingress(struct tc_port *t, struct phc *in, struct phc *out, const struct pkt *p, uint64_t rx_tsc)
{
	if (p->flags & PKT_RX_TSTAMP) {
		t->count[TC_rx_hwtstamp]++;
		return phc_convert(in, (int64_t)p->tstamp, out);
	}
	t->count[TC_rx_swtstamp]++;
	return phc_sw_stamp(out, rx_tsc);
}

/* p2p: the delay of ingress link link, ns (0 while unmeasured, counted). */
static int64_t link_delay(struct tc_port *t, int link)
{
	const struct ptp_port *pp = &tc_pd[link];
	if (pp->have_peer_delay)
		return pp->peer_delay;
	t->count[TC_no_peer_delay]++;
	return 0;
}

/* p2p: a Pdelay message received on link at rx_tsc, for its peer delay. */
static void tc_pdelay(struct tc_port *t, int link, const struct ptp_msg *m, uint64_t rx_tsc)
{
	struct ptp_port *pp = &tc_pd[link];
	enum ptp_rx_count c = ptp_pdelay_rx(pp, m, phc_sw_stamp(pp->clk, rx_tsc));
	t->count[c == PC_pdelay_req || c == PC_pdelay_resp || c == PC_pdelay_resp_follow_up ? TC_pdelay
												 : TC_pdelay_refused]++;
}

#define TC_TX_WAIT_NS 50000	/* longest wait for a Sync's TX stamp at its Follow_Up */

/* The TX stamp of request seq on out: 1 and *ns, waiting up to
 * TC_TX_WAIT_NS for it to latch (a Sync sent just before: its Follow_Up
 * came in the same burst); else 0 or -1 as phc_tx_tstamp. */
static int tx_stamp(struct phc *out, uint32_t seq, int64_t *ns)
{
	uint64_t until = now_ns() + TC_TX_WAIT_NS;
	int r;
	while ((r = phc_tx_tstamp(out, seq, ns)) == 0 && now_ns() < until)
		cpu_relax();
	return r;
}

/* The residence of two-step Sync s, at its Follow_Up: to its hardware TX
 * stamp on out if asked for and in, else to the TSC before the TX ring. */
static int64_t sync_residence(struct tc_port *t, struct phc *out, const struct tc_sync *s)
{
	int64_t ns;
	if (s->txseq && tx_stamp(out, s->txseq, &ns) == 1) {
		t->count[TC_tx_hwtstamp]++;
		return ns - s->t_in;
	}
	if (s->txseq)
		t->count[TC_tx_tstamp_missing]++;
	t->count[TC_tx_swtstamp]++;
	return s->residence;
}

static struct tc_sync *find_sync(struct tc_port *t, const struct ptp_msg *m)
{
	for (int i = 0; i < TC_SYNCS; i++) {
		struct tc_sync *s = &t->sync[i];
		if (s->used && s->seq == m->seq && s->domain == m->domain && s->src.port == m->source.port &&
		    !memcmp(s->src.clock_id, m->source.clock_id, 8))
			return s;
	}
	return 0;
}

/* Delay_Req m (in p, to go out of port) sent with a TX stamp request,
 * kept with the TSC egress time its correctionField has (egress). */
static void dreq_keep(struct tc_port *t, struct pkt *p, const struct ptp_msg *m, int port, int64_t egress,
		      int64_t residence)
{
	unsigned i = __atomic_fetch_add(&tc_dreq_next[port], 1, __ATOMIC_RELAXED) % TC_DREQS;
	struct tc_dreq *d = &tc_dreqs[port][i];
	__atomic_store_n(&d->gen, d->gen + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	d->domain = m->domain;
	d->seq = m->seq;
	d->src = m->source;
	d->egress = egress;
	d->residence = residence;
	d->txseq = 0;
	d->at = now_ns();
	uint32_t g = d->gen + 1;
	__atomic_store_n(&d->gen, g, __ATOMIC_RELEASE);
	if (!__atomic_exchange_n(&d->live, g, __ATOMIC_RELAXED))
		__atomic_fetch_add(&fwd_tc_delay_resps_due[port], 1, __ATOMIC_RELAXED);
	else	/* the one it replaced was still due */
		tc_ports[cpu_id_fast()][port].count[TC_no_delay_resp]++;
	p->flags |= PKT_TX_TSTAMP;
	t->tx_asked = &d->txseq;
}

/* Entry d of port, kept as generation g, no longer due (its Delay_Resp
 * passed, or given up): 1 if this call ended it. */
static int dreq_end(struct tc_dreq *d, int port, uint32_t g)
{
	if (!__atomic_compare_exchange_n(&d->live, &g, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return 0;
	__atomic_fetch_sub(&fwd_tc_delay_resps_due[port], 1, __ATOMIC_RELAXED);
	return 1;
}

/* Delay_Resp m came in on port: its Delay_Req's entry copied into *out
 * and ended (1), or 0 if none (not asked, overwritten, being written,
 * given up, or a Delay_Resp for it passed already). */
static int dreq_take(int port, const struct ptp_msg *m, struct tc_dreq *out)
{
	for (int i = 0; i < TC_DREQS; i++) {
		struct tc_dreq *d = &tc_dreqs[port][i];
		uint32_t g = __atomic_load_n(&d->gen, __ATOMIC_ACQUIRE);
		if (g & 1 || __atomic_load_n(&d->live, __ATOMIC_RELAXED) != g || d->seq != m->seq ||
		    d->domain != m->domain || d->src.port != m->requesting.port ||
		    memcmp(d->src.clock_id, m->requesting.clock_id, 8))
			continue;
		out->egress = d->egress;
		out->residence = d->residence;
		out->txseq = d->txseq;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&d->gen, __ATOMIC_RELAXED) != g || !dreq_end(d, port, g))
			continue;
		return 1;
	}
	return 0;
}

/* The two-step Syncs kept on this core for their Follow_Up, of port. */
static uint32_t *syncs_due(int port)
{
	return &fwd_tc_follow_ups_due[cpu_id_fast()][port];
}

/* The waits of port (t: its state on this core) older than TC_DUE_NS
 * given up, counted: its two-step Syncs' Follow_Ups on this core, the
 * Delay_Resps of the Delay_Reqs sent out of it. Called where any is due. */
static void tc_expire(struct tc_port *t, int port)
{
	uint64_t now = now_ns();
	for (int i = 0; i < TC_SYNCS && *syncs_due(port); i++) {
		struct tc_sync *s = &t->sync[i];
		if (s->used && now - s->at > TC_DUE_NS) {
			s->used = 0;
			--*syncs_due(port);
			t->count[TC_no_follow_up]++;
		}
	}
	for (int i = 0; i < TC_DREQS && __atomic_load_n(&fwd_tc_delay_resps_due[port], __ATOMIC_RELAXED); i++) {
		struct tc_dreq *d = &tc_dreqs[port][i];
		uint32_t g = __atomic_load_n(&d->live, __ATOMIC_RELAXED);
		if (g && now - d->at > TC_DUE_NS && dreq_end(d, port, g))
			t->count[TC_no_delay_resp]++;
	}
}

/* Where any wait of port is due, tc_expire. */
static inline void tc_expire_due(struct tc_port *t, int port)
{
	if (*syncs_due(port) || __atomic_load_n(&fwd_tc_delay_resps_due[port], __ATOMIC_RELAXED))
		tc_expire(t, port);
}

/* A Delay_Resp (E2E) into in's port: its Delay_Req's wait in the TX ring
 * (the hardware TX stamp less the TSC egress time, negative if the TSC's
 * mapping put that after the stamp) added, if that Delay_Req asked for a
 * stamp on this port. The Delay_Req's whole residence counts towards this
 * port's residence_max; residence_ns (and the mean) keep the corrections
 * made in place and in Follow_Ups. */
static void delay_resp(struct tc_port *t, struct nic *nin, struct phc *in, const struct ptp_msg *m, uint8_t *msg,
		       int udp)
{
	struct tc_dreq d;
	int64_t ns;
	if (!dreq_take(nin->port, m, &d) || !d.txseq)
		return;
	if (phc_tx_tstamp(in, d.txseq, &ns) != 1) {
		t->count[TC_tx_tstamp_missing]++;
		return;
	}
	t->count[TC_tx_hwtstamp]++;
	if (put_correction(t, msg, udp, ns - d.egress))
		return;
	t->count[TC_delay_resp]++;
	if (d.residence + ns - d.egress > (int64_t)t->residence_max)
		t->residence_max = (uint64_t)(d.residence + ns - d.egress);
}

/* Follow_Up msg (len bytes) of two-step Sync s, whose residence was res
 * ns: res scaled by the rate ratio and s's link delay added; an L2
 * one with the 802.1AS TLV (p2p) as the file's comment says, the TLV's
 * cumulativeScaledRateOffset (Integer32) kept within its range. */
static void follow_up(struct tc_port *t, uint8_t *msg, size_t len, int udp, int64_t res, const struct tc_sync *s)
{
	int at = fwd_ptp_tc == FWD_TC_P2P && !udp ? ptp_follow_up_rate_offset(msg, len) : -1;
	int64_t rate = s->nrr, link = s->link;
	if (at >= 0) {
		int64_t cum = (int32_t)get32(msg + at);
		rate = ptp_rate_compose(cum, s->nrr);
		rate = rate > INT32_MAX ? INT32_MAX : rate < INT32_MIN ? INT32_MIN : rate;
		link = ptp_rate_apply(link, cum);
	}
	if (add_correction(t, msg, udp, ptp_rate_apply(res, rate), link))
		return;
	t->count[TC_follow_up]++;
	if (at < 0)
		return;
	put32(msg + at, (uint32_t)(int32_t)rate);
	t->count[TC_follow_up_info]++;
}

/* Bytes of 802.1Q tag in front of p's EtherType: VLAN_HLEN for one C-tag
 * (a VLAN carried through the pair), else 0. The frame as net/ptp.c
 * parses it starts that far in (its MAC addresses are then not, which it
 * does not read). */
static inline unsigned tag_len(const struct pkt *p)
{
	return get16(p->data + 12) == ETHERTYPE_VLAN && p->len >= ETH_HLEN + VLAN_HLEN ? VLAN_HLEN : 0;
}

/* What tc_frame did with a frame. */
enum tc_verdict {
	TC_PASS,	/* corrected or not, it goes on */
	TC_END,		/* it ends here (p2p: a Pdelay message) */
	TC_FLUSH,	/* a Follow_Up whose Sync asked for a TX stamp in this burst, not
			 * yet sent: send the frames before it, then look again */
};

/* How tc_frame takes a frame. */
enum {
	TCF_TXSTAMP = 1,	/* out's TX stamps may be asked for (a two-step Sync's, a Delay_Req's) */
	TCF_ROUTED = 2,		/* routed: a Pdelay message here is not the link's (fwd_tc_route_local) */
};

/* One frame of the burst, in on link (an L2 pair's: its port) of port
 * nin: corrected (or not) in place, as how says. */
static enum tc_verdict tc_frame(struct tc_port *t, int link, struct nic *nin, struct nic *nout, struct phc *in,
				struct phc *out, struct pkt *p, uint64_t rx_tsc, unsigned how)
{
	uint8_t *d = p->data + tag_len(p);
	uint16_t type = get16(d + 12);
	if (type != PTP_ETHERTYPE && type != ETHERTYPE_IPV4 && type != ETHERTYPE_IPV6)
		return TC_PASS;
	struct ptp_frame f;
	enum ptp_transport tr = type == PTP_ETHERTYPE ? PTP_L2 : type == ETHERTYPE_IPV4 ? PTP_UDP4 : PTP_UDP6;
	enum ptp_frame_kind k = ptp_frame_parse(d, p->len - (size_t)(d - p->data), tr, &f);
	if (k == PTP_FRAME_NONE)
		return TC_PASS;
	/* Announce, Signaling (ptp4l's unicast negotiation), Management: not a TC's */
	if (k == PTP_FRAME_OK && f.len && (f.msg[0] & 0xf) >= PTP_ANNOUNCE && (f.msg[0] & 0xf) <= PTP_MANAGEMENT)
		return TC_PASS;
	struct ptp_msg m;
	if (k != PTP_FRAME_OK || ptp_parse(f.msg, f.len, &m) != PTP_OK) {
		t->count[TC_bad_ptp]++;
		return TC_PASS;
	}
	uint8_t *msg = d + (f.msg - d);
	int udp = tr != PTP_L2;
	if (fwd_ptp_tc == FWD_TC_P2P && ptp_is_pdelay(m.msg_type)) {
		if (how & TCF_ROUTED)
			return TC_PASS;
		tc_pdelay(t, link, &m, rx_tsc);
		return TC_END;
	}
	if (m.msg_type == PTP_FOLLOW_UP) {
		struct tc_sync *s = find_sync(t, &m);
		if (!s) {
			t->count[TC_no_sync]++;
			return TC_PASS;
		}
		if (&s->txseq == t->tx_asked)
			return TC_FLUSH;
		s->used = 0;
		--*syncs_due(nin->port);
		follow_up(t, msg, f.len, udp, sync_residence(t, out, s), s);
		return TC_PASS;
	}
	int p2p = fwd_ptp_tc == FWD_TC_P2P;
	if (m.msg_type == PTP_DELAY_RESP && !p2p) {
		delay_resp(t, nin, in, &m, msg, udp);
		return TC_PASS;
	}
	if (m.msg_type != PTP_SYNC && (m.msg_type != PTP_DELAY_REQ || p2p))
		return TC_PASS;
	int64_t t_in = ingress(t, in, out, p, rx_tsc);
	int64_t res = phc_sw_stamp(out, rdtsc()) - t_in;
	int64_t ld = p2p ? link_delay(t, link) : 0, nrr = p2p ? tc_pd[link].nrr : 0;
	if (m.msg_type == PTP_SYNC && (m.flags & PTP_FLAG_TWO_STEP)) {
		struct tc_sync *s = &t->sync[t->next++ % TC_SYNCS];
		if (s->used)	/* the one it replaces was still due */
			t->count[TC_no_follow_up]++;
		else
			++*syncs_due(nin->port);
		*s = (struct tc_sync){ 1, m.domain, m.seq, m.source, t_in, res, ld, nrr, 0, now_ns() };
		if ((how & TCF_TXSTAMP) && !t->tx_asked) {
			p->flags |= PKT_TX_TSTAMP;
			t->tx_asked = &s->txseq;
		}
		return TC_PASS;
	}
	t->count[TC_tx_swtstamp]++;
	if (add_correction(t, msg, udp, ptp_rate_apply(res, nrr), ld))
		return TC_PASS;
	t->count[m.msg_type == PTP_SYNC ? TC_sync : TC_delay_req]++;
	if (m.msg_type == PTP_DELAY_REQ && (how & TCF_TXSTAMP) && !t->tx_asked)
		dreq_keep(t, p, &m, nout->port, t_in + res, res);
	return TC_PASS;
}

/* 1 if p may be a PTP message: EtherType 0x88F7, or IPv4 or IPv6 UDP
 * (IPv6: UDP the first next header, as ptp4l sends) to port 319 or 320,
 * after one 802.1Q tag if it has one (tc_frame parses it whole). Inline,
 * so that the other frames cost a few loads and compares each. */
static inline int maybe_ptp(const struct pkt *p)
{
	unsigned o = tag_len(p), dport;
	const uint8_t *d = p->data + o;
	uint16_t type = get16(d + 12);
	if (type == PTP_ETHERTYPE)
		return 1;
	if (type == ETHERTYPE_IPV4 && d[ETH_HLEN + 9] == 17)
		dport = ETH_HLEN + (d[ETH_HLEN] & 0xfu) * 4 + 2;
	else if (type == ETHERTYPE_IPV6 && p->len >= o + ETH_HLEN + IPV6_HLEN && d[ETH_HLEN + 6] == 17)
		dport = ETH_HLEN + IPV6_HLEN + 2;
	else
		return 0;
	return p->len >= o + dport + 2 && (get16(d + dport) == PTP_EVENT_PORT || get16(d + dport) == PTP_GENERAL_PORT);
}

/* tx_burst of pkts[0..n) on out's queue q; the Sync among them that asked
 * for a TX stamp (t->tx_asked) learns its request number, and the next
 * may ask. */
static int tc_send(struct tc_port *t, struct nic *out, struct phc *co, int q, struct pkt **pkts, int n)
{
	uint32_t before = phc_tx_seq(co);
	int sent = n ? out->ops->tx_burst(out, q, pkts, n) : 0;
	/* The ring asks the clock for the flagged frame's stamp as it fills
	 * the descriptor: a new request number is its (this core alone sends
	 * the pair's PTP frames out of out). */
	if (t->tx_asked && phc_tx_seq(co) != before)
		__atomic_store_n(t->tx_asked, phc_tx_seq(co), __ATOMIC_RELEASE);
	t->tx_asked = 0;
	return sent;
}

int fwd_tc_tx(struct nic *in, struct nic *out, int q, struct pkt **pkts, int *n)
{
	uint64_t rx_tsc = rdtsc();
	struct tc_port *t = &tc_ports[cpu_id_fast()][in->port];
	struct phc *ci = phc_of(in), *co = phc_of(out);
	int k = 0, done = 0, sent = 0, i = 0;	/* pkts[0..k) kept, [0..done) sent */
	unsigned how = phc_is_hw(co) ? TCF_TXSTAMP : 0;
	t->tx_asked = 0;
	tc_expire_due(t, in->port);
	for (; i < *n; i++) {
		struct pkt *p = pkts[i];
		enum tc_verdict v = maybe_ptp(p) ? tc_frame(t, in->port, in, out, ci, co, p, rx_tsc, how) : TC_PASS;
		if (v == TC_FLUSH) {
			int m = tc_send(t, out, co, q, pkts + done, k - done);
			sent += m;
			if (m < k - done)
				break;	/* the ring is full: the rest is dropped by the caller */
			done = k;
			v = tc_frame(t, in->port, in, out, ci, co, p, rx_tsc, how);
		}
		if (v == TC_END)
			pkt_free(p);
		else
			pkts[k++] = p;
	}
	if (i < *n) {	/* after a short send: the frames not looked at, kept in order */
		memmove(pkts + k, pkts + i, (size_t)(*n - i) * sizeof(pkts[0]));
		*n = k + *n - i;
		return sent;
	}
	*n = k;
	return sent + tc_send(t, out, co, q, pkts + done, k - done);
}

void fwd_tc_route_init(int link, struct nic *lnic, struct nic *port, uint32_t ip4, const uint8_t ll6[16])
{
	static const uint8_t none[16];
	struct phc *c = phc_of(port);
	if (phc_is_hw(c))
		phc_hwtstamp(c, PTP_SYNC, 1, 1);
	if (fwd_ptp_tc != FWD_TC_P2P)
		return;
	if ((ptp_conf.transport == PTP_UDP4 && !ip4) || (ptp_conf.transport == PTP_UDP6 && !memcmp(ll6, none, 16))) {
		printf("fwd: %s: ptp_tc=p2p over %s needs the link's %s: no peer delay there (its Pdelay "
		       "messages are counted pdelay_unserved)\n", lnic->name,
		       ptp_conf.transport == PTP_UDP4 ? "UDPv4" : "UDPv6",
		       ptp_conf.transport == PTP_UDP4 ? "IPv4 address" : "IPv6 (an IPv6 address on it)");
		return;
	}
	struct ptp_port *pp = pdelay_start(link, lnic, port);
	pp->ip = ip4;
	memcpy(pp->ip6, ll6, 16);
}

void fwd_tc_route(int link, struct nic *in, struct nic *out, struct pkt *p, uint64_t rx_tsc)
{
	if (!maybe_ptp(p))
		return;
	struct tc_port *t = &tc_ports[cpu_id_fast()][in->port];
	t->tx_asked = 0;
	tc_expire_due(t, in->port);
	tc_frame(t, link, in, out, phc_of(in), phc_of(out), p, rx_tsc, TCF_ROUTED);
}

int fwd_tc_route_local(int link, struct nic *in, struct pkt *p, uint64_t rx_tsc)
{
	if (!maybe_ptp(p))
		return 0;
	uint16_t type = get16(p->data + 12);
	enum ptp_transport tr = type == PTP_ETHERTYPE ? PTP_L2 : type == ETHERTYPE_IPV4 ? PTP_UDP4 : PTP_UDP6;
	struct ptp_frame f;
	struct ptp_msg m;
	if (memcmp(p->data, ptp_mcast_mac(tr, 1), ETH_ALEN) || ptp_frame_parse(p->data, p->len, tr, &f) != PTP_FRAME_OK ||
	    ptp_parse(f.msg, f.len, &m) != PTP_OK || !ptp_is_pdelay(m.msg_type))
		return 0;
	struct tc_port *t = &tc_ports[cpu_id_fast()][in->port];
	if (tc_pd[link].nic && in->tx_owner[0] == cpu_id_fast())
		tc_pdelay(t, link, &m, rx_tsc);
	else
		t->count[TC_pdelay_unserved]++;
	pkt_free(p);
	return 1;
}

int fwd_tc_idle(void)
{
	int did = 0;
	uint64_t now = now_ns();
	for (int l = 0; l < FWD_LINKS; l++)
		if (tc_pd[l].nic && tc_pd_port[l]->tx_owner[0] == cpu_id_fast())
			did += ptp_pdelay_tick(&tc_pd[l], now);
	return did;
}

/* port's counters summed over the cores into sum; returns the largest
 * residence time, ns. */
static uint64_t tc_sum(int port, uint64_t sum[TC_N])
{
	uint64_t max = 0;
	memset(sum, 0, TC_N * sizeof(sum[0]));
	for (int c = 0; c < ncpus; c++) {
		const struct tc_port *t = &tc_ports[c][port];
		for (int i = 0; i < TC_N; i++)
			sum[i] += t->count[i];
		if (t->residence_max > max)
			max = t->residence_max;
	}
	return max;
}

void fwd_tc_show(int link, const char *name)
{
	const struct ptp_port *pp = &tc_pd[link];
	if (!fwd_ptp_tc || (link >= NIC_MAX_PORTS && !pp->nic))
		return;
	printf("fwd %s ptp_tc %s:", name, tc_choices[fwd_ptp_tc]);
	if (link < NIC_MAX_PORTS) {	/* a sub-interface's messages count on its port */
		uint64_t sum[TC_N], max = tc_sum(link, sum);
		for (int i = 0; i < TC_residence_ns; i++)
			printf(" %s %lu", tc_names[i], (unsigned long)sum[i]);
		uint64_t n = sum[TC_sync] + sum[TC_delay_req] + sum[TC_follow_up];
		printf(" residence_mean_ns %lu residence_max_ns %lu", (unsigned long)(n ? sum[TC_residence_ns] / n : 0),
		       (unsigned long)max);
	}
	if (fwd_ptp_tc == FWD_TC_P2P && pp->nic)
		printf(" peer_delay_ns %ld pdelay_samples %lu tx_pdelay_req %lu tx_pdelay_resp %lu"
		       " neighbor_rate_offset_ppb %ld rate_ratio_out_of_range %lu",
		       (long)pp->peer_delay, (unsigned long)pp->ev[PE_pdelay_samples],
		       (unsigned long)pp->ev[PE_tx_pdelay_req], (unsigned long)pp->ev[PE_tx_pdelay_resp],
		       (long)(pp->nrr * 1000000000 >> 41), (unsigned long)pp->ev[PE_rate_ratio_out_of_range]);
	printf("\n");
}

void fwd_tc_metrics(struct prom *o, const int run[])
{
	if (!fwd_ptp_tc)
		return;
	uint64_t sum[NIC_MAX_PORTS][TC_N], max[NIC_MAX_PORTS];
	for (int p = 0; p < nic_count; p++)
		if (run[p])
			max[p] = tc_sum(p, sum[p]);
	prom_family(o, "fwd_ptp_tc_total", "counter",
		    "transparent clock (ptp_tc=e2e|p2p): PTP messages corrected, left unchanged, by ingress stamp, by event");
	for (int p = 0; p < nic_count; p++)
		for (int i = 0; i < TC_residence_ns && run[p]; i++)
			prom_port_sample(o, "fwd_ptp_tc_total", p, "event", tc_names[i], sum[p][i]);
	char num[PROM_NUM_MAX];
	prom_family(o, "fwd_ptp_tc_residence_seconds_total", "counter", "transparent clock: residence time added");
	for (int p = 0; p < nic_count; p++)
		if (run[p])
			prom_sample_text(o, "fwd_ptp_tc_residence_seconds_total", "port", nics[p]->name, NULL, NULL,
					 prom_seconds(num, (int64_t)sum[p][TC_residence_ns]));
	prom_family(o, "fwd_ptp_tc_residence_max_seconds", "gauge", "transparent clock: largest residence time added");
	for (int p = 0; p < nic_count; p++)
		if (run[p])
			prom_sample_text(o, "fwd_ptp_tc_residence_max_seconds", "port", nics[p]->name, NULL, NULL,
					 prom_seconds(num, (int64_t)max[p]));
	if (fwd_ptp_tc != FWD_TC_P2P)
		return;
	prom_family(o, "fwd_ptp_tc_peer_delay_seconds", "gauge",
		    "transparent clock (ptp_tc=p2p): the port's link delay to its neighbour (meanLinkDelay)");
	for (int p = 0; p < nic_count; p++)
		if (run[p] && tc_pd[p].nic)
			prom_sample_text(o, "fwd_ptp_tc_peer_delay_seconds", "port", nics[p]->name, NULL, NULL,
					 prom_seconds(num, tc_pd[p].peer_delay));
}
