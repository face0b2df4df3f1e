/*
 * fwd's end-to-end transparent clock (IEEE 1588-2008 10.2, 11.5.2,
 * 11.5.3), ptp_tc=e2e on the L2 pairs. For each PTP event message
 * forwarded (L2 or UDP/IPv4, framed as net/ptp.h parses them) the
 * residence time, egress less ingress time in the egress port's clock, is
 * added to the correctionField (ns * 2^16):
 * - a one-step Sync (twoStepFlag clear) and a Delay_Req: in the message
 *   itself, before it is sent (11.5.2.1, 11.5.3.1);
 * - a two-step Sync: kept by (sourcePortIdentity, sequenceId, domain) and
 *   added to its Follow_Up when that passes (11.5.2.2).
 * The master copies a Delay_Req's correctionField into its Delay_Resp
 * (11.3.2), which carries the Delay_Req's residence back to the slave.
 * A UDP checksum (when not 0) is updated with the field (RFC 1624).
 *
 * Ingress time: the ingress port's hardware RX stamp when the frame has
 * one (igb; QEMU's model stamps one message type: Sync), mapped into the
 * egress port's clock through the TSC (phc_convert); else the TSC when
 * the burst reached the TC. Egress time of a two-step Sync: the egress
 * port's hardware TX stamp (its real departure, the wait in the TX ring
 * included) where the port stamps, one Sync per burst (the NIC holds one
 * stamp at a time); it is read when the Follow_Up passes. Else, and for
 * a one-step Sync and a Delay_Req (their correction must be in the frame
 * before it leaves), the TSC just before the burst goes to the TX ring:
 * the wait in the ring is not in it. A TX stamp asked for and not had
 * falls back to the TSC, counted tx_tstamp_missing.
 *
 * Cost to other frames: none while ptp_tc=off (fwd tests the knob once per
 * burst); on, each frame's EtherType (IPv4: its UDP port) is read.
 */
#include <stdio.h>
#include <string.h>
#include "apps/fwd/tc.h"
#include "drivers/net/phc.h"
#include "kernel/cpu.h"
#include "kernel/knobs.h"
#include "kernel/smp.h"
#include "net/bytes.h"
#include "net/ipv4.h"
#include "net/prom.h"
#include "net/ptp.h"

int64_t fwd_ptp_tc;
static const char *const tc_choices[] = { "off", "e2e", 0 };
KNOB(ptp_tc, .name = "ptp_tc", .type = KNOB_ENUM, .choices = tc_choices, .ival = &fwd_ptp_tc,
     .help = "fwd L2 pairs: e2e makes each pair an end-to-end transparent clock (IEEE 1588 11.5: the "
	     "residence time of Sync and Delay_Req added to correctionField, a two-step Sync's to its "
	     "Follow_Up); default off");

/* What the TC did with the PTP event messages and Follow_Ups it saw, per
 * ingress port, as the `fwd` command prints them. */
#define TC_COUNTS(X) \
	X(sync)			/* one-step Sync corrected in place */ \
	X(delay_req)		/* Delay_Req corrected in place */ \
	X(follow_up)		/* Follow_Up given its two-step Sync's residence time */ \
	X(no_sync)		/* Follow_Up whose Sync the TC did not see: forwarded unchanged */ \
	X(overflow)		/* the correctionField would overflow: forwarded unchanged */ \
	X(negative_residence)	/* egress before ingress (clock mapping): forwarded unchanged */ \
	X(bad_ptp)		/* PTP frame the parser refuses: forwarded unchanged */ \
	X(rx_hwtstamp)		/* ingress time from the NIC's stamp */ \
	X(rx_swtstamp)		/* ingress time from the TSC at the burst */ \
	X(tx_hwtstamp)		/* egress time from the egress port's TX stamp (two-step Sync) */ \
	X(tx_swtstamp)		/* egress time from the TSC before the TX ring */ \
	X(tx_tstamp_missing)	/* a TX stamp asked for that was not in at the Follow_Up: TSC used */ \
	X(residence_ns)		/* sum of the residence times added */
#define TC_ENUM(n) TC_##n,
enum tc_count { TC_COUNTS(TC_ENUM) TC_N };
#define TC_NAME(n) #n,
static const char *const tc_names[TC_N] = { TC_COUNTS(TC_NAME) };

#define TC_SYNCS 4	/* two-step Syncs waiting for their Follow_Up, per port */

struct tc_sync {
	int used;
	uint8_t domain;
	uint16_t seq;
	struct ptp_port_id src;
	int64_t t_in;		/* ingress time, ns of the egress port's clock */
	int64_t residence;	/* ns, to the TSC before the TX ring */
	uint32_t txseq;		/* the egress port's TX stamp request (phc_tx_seq), 0 none */
};

/* One core's state of one ingress port (a master's Sync and Follow_Up
 * reach the same queue: L2 has no RSS hash, UDP hashes the same
 * addresses). */
struct tc_port {
	uint64_t count[TC_N];
	uint64_t residence_max;	/* ns */
	struct tc_sync sync[TC_SYNCS];
	unsigned next;
	struct tc_sync *tx_asked;	/* this burst's Sync sent with PKT_TX_TSTAMP */
};
static struct tc_port tc_ports[MAX_CPUS][NIC_MAX_PORTS];

void fwd_tc_port_init(struct nic *nic)
{
	/* With promisc=0 the PTP groups arrive only once joined (Annex D, F). */
	nic_mc_add(nic, ptp_l2_mcast);
	nic_mc_add(nic, ptp_ipv4_mcast_mac);
	struct phc *c = phc_of(nic);
	if (phc_is_hw(c))
		phc_hwtstamp(c, PTP_SYNC, 1, 1);
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

/* Add res ns to msg's correctionField (and its UDP checksum, if udp and
 * not 0). Returns 0, or -1 counted (negative, overflow) and unchanged. */
static int add_correction(struct tc_port *t, uint8_t *msg, int udp, int64_t res)
{
	int64_t sum;
	if (res < 0) {
		t->count[TC_negative_residence]++;
		return -1;
	}
	if (res > INT64_MAX >> 16 || __builtin_add_overflow((int64_t)get64(msg + 8), res << 16, &sum)) {
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

/* The residence of two-step Sync s, at its Follow_Up: to its hardware TX
 * stamp on out if asked for and in, else to the TSC before the TX ring. */
static int64_t sync_residence(struct tc_port *t, struct phc *out, const struct tc_sync *s)
{
	int64_t ns;
	if (s->txseq && phc_tx_tstamp(out, s->txseq, &ns) == 1) {
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

static void tc_frame(struct tc_port *t, struct phc *in, struct phc *out, struct pkt *p, uint64_t rx_tsc)
{
	uint16_t type = get16(p->data + 12);
	if (type != PTP_ETHERTYPE && type != ETHERTYPE_IPV4)
		return;
	struct ptp_frame f;
	enum ptp_transport tr = type == PTP_ETHERTYPE ? PTP_L2 : PTP_UDP4;
	enum ptp_frame_kind k = ptp_frame_parse(p->data, p->len, tr, &f);
	if (k == PTP_FRAME_NONE)
		return;
	struct ptp_msg m;
	if (k != PTP_FRAME_OK || ptp_parse(f.msg, f.len, &m) != PTP_OK) {
		t->count[TC_bad_ptp]++;
		return;
	}
	uint8_t *msg = p->data + (f.msg - p->data);
	int udp = tr == PTP_UDP4;
	if (m.msg_type == PTP_FOLLOW_UP) {
		struct tc_sync *s = find_sync(t, &m);
		if (!s) {
			t->count[TC_no_sync]++;
			return;
		}
		s->used = 0;
		if (!add_correction(t, msg, udp, sync_residence(t, out, s)))
			t->count[TC_follow_up]++;
		return;
	}
	if (m.msg_type != PTP_SYNC && m.msg_type != PTP_DELAY_REQ)
		return;
	int64_t t_in = ingress(t, in, out, p, rx_tsc);
	int64_t res = phc_sw_stamp(out, rdtsc()) - t_in;
	if (m.msg_type == PTP_SYNC && (m.flags & PTP_FLAG_TWO_STEP)) {
		struct tc_sync *s = &t->sync[t->next++ % TC_SYNCS];
		*s = (struct tc_sync){ 1, m.domain, m.seq, m.source, t_in, res, 0 };
		if (phc_is_hw(out) && !t->tx_asked) {
			p->flags |= PKT_TX_TSTAMP;
			t->tx_asked = s;
		}
		return;
	}
	t->count[TC_tx_swtstamp]++;
	if (!add_correction(t, msg, udp, res))
		t->count[m.msg_type == PTP_SYNC ? TC_sync : TC_delay_req]++;
}

int fwd_tc_tx(struct nic *in, struct nic *out, int q, struct pkt **pkts, int n)
{
	uint64_t rx_tsc = rdtsc();
	struct tc_port *t = &tc_ports[cpu_id_fast()][in->port];
	struct phc *ci = phc_of(in), *co = phc_of(out);
	t->tx_asked = 0;
	for (int i = 0; i < n; i++)
		tc_frame(t, ci, co, pkts[i], rx_tsc);
	uint32_t before = phc_tx_seq(co);
	int sent = out->ops->tx_burst(out, q, pkts, n);
	/* The ring asks the clock for the flagged frame's stamp as it fills
	 * the descriptor: a new request number is its (this core alone sends
	 * the pair's PTP frames out of out). */
	if (t->tx_asked && phc_tx_seq(co) != before)
		t->tx_asked->txseq = phc_tx_seq(co);
	return sent;
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

void fwd_tc_show(int port, const char *name)
{
	if (!fwd_ptp_tc)
		return;
	uint64_t sum[TC_N], max = tc_sum(port, sum);
	printf("fwd %s ptp_tc e2e:", name);
	for (int i = 0; i < TC_residence_ns; i++)
		printf(" %s %lu", tc_names[i], (unsigned long)sum[i]);
	uint64_t n = sum[TC_sync] + sum[TC_delay_req] + sum[TC_follow_up];
	printf(" residence_mean_ns %lu residence_max_ns %lu\n", (unsigned long)(n ? sum[TC_residence_ns] / n : 0),
	       (unsigned long)max);
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
		    "transparent clock (ptp_tc=e2e): PTP messages corrected, left unchanged, by ingress stamp, by event");
	for (int p = 0; p < nic_count; p++)
		for (int i = 0; i < TC_residence_ns && run[p]; i++)
			prom_port_sample(o, "fwd_ptp_tc_total", p, "event", tc_names[i], sum[p][i]);
	prom_family(o, "fwd_ptp_tc_residence_ns_total", "counter", "transparent clock: residence time added, ns");
	for (int p = 0; p < nic_count; p++)
		if (run[p])
			prom_port_sample(o, "fwd_ptp_tc_residence_ns_total", p, NULL, NULL, sum[p][TC_residence_ns]);
	prom_family(o, "fwd_ptp_tc_residence_max_ns", "gauge", "transparent clock: largest residence time added, ns");
	for (int p = 0; p < nic_count; p++)
		if (run[p])
			prom_port_sample(o, "fwd_ptp_tc_residence_max_ns", p, NULL, NULL, max[p]);
}
