/* Unit tests for fwd's transparent clock (apps/fwd/tc.c, included for its
 * counters): the correctionField of each message it touches, exact; the
 * UDP checksum against a full recomputation; every refusal counted and
 * the frame left as it came. The port clocks are stand-ins: a software
 * stamp is the TSC plus 100 ns per call (so a frame's egress stamp is 100
 * ns after its ingress one), a hardware stamp maps to the egress clock
 * as ns + conv_offset; the egress port stamps in hardware when out_hw,
 * its ring grants a TX stamp request while grant is set, and the stamp
 * of request tx_seq_in is tx_ns once in. A software stamp of the ingress
 * clock (p2p's Pdelay) reads IN_AHEAD more than the egress clock's. p2p:
 * the ptp app's peer delay (pdelay.c) sends through a stub ptp_send that
 * keeps the messages and stamps an event message send_ts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "apps/fwd/tc.c"

uint64_t fuzz_tsc = 1000000;
int ncpus = 1;
static const uint8_t mac_of_port0[6] = { 2, 0, 0, 0, 0, 0x10 };
#define IN_AHEAD 1000000000ll
static int64_t sw_calls, conv_offset, tx_ns, send_ts;
static int forwarded;
static struct ptp_msg sent[8];
static int nsent;
struct ptp_conf ptp_conf = { .transport = PTP_L2, .log_min_pdelay_req = 0 };
static int out_hw, grant, flagged, bursts, room = 1000;
static uint32_t tx_seq_in;
static struct phc clk_in, clk_out;

static int tx_burst(struct nic *nic, int q, struct pkt **pkts, int n)
{
	(void)nic, (void)q;
	bursts++;
	n = n < room ? n : room;
	for (int i = 0; i < n; i++) {
		forwarded++;
		flagged += !!(pkts[i]->flags & PKT_TX_TSTAMP);
		if ((pkts[i]->flags & PKT_TX_TSTAMP) && grant)
			clk_out.tx.seq++;
	}
	return n;
}
static const struct nic_ops ops = { .tx_burst = tx_burst };
static struct nic nic_in = { .port = 0, .name = "port0" }, nic_out = { .port = 1, .name = "port1", .ops = &ops };
struct nic *nics[NIC_MAX_PORTS] = { &nic_in, &nic_out };
int nic_count = 2;

struct phc *phc_of(struct nic *nic)
{
	return nic == &nic_in ? &clk_in : &clk_out;
}
int phc_is_hw(const struct phc *c)
{
	return c == &clk_out && out_hw;
}
static int each_event;	/* phc_rx_each_event of both ports */
int phc_rx_each_event(const struct phc *c)
{
	(void)c;
	return each_event;
}
int phc_tx_tstamp(struct phc *c, uint32_t seq, int64_t *ns)
{
	assert_ptr_equal(c, &clk_out);
	if (!tx_seq_in || seq != tx_seq_in)
		return 0;
	*ns = tx_ns;
	return 1;
}
void phc_hwtstamp(struct phc *c, int rx_msg, int tx, int udp)
{
	(void)c, (void)rx_msg, (void)tx, (void)udp;
}
int64_t phc_sw_stamp(struct phc *c, uint64_t t)
{
	return (int64_t)t + 100 * ++sw_calls + (c == &clk_in ? IN_AHEAD : 0);
}
static uint64_t clock_ns = 5000000000ull;
uint64_t now_ns(void)
{
	return clock_ns += 1000;
}
void pkt_free(struct pkt *p)
{
	p->len = 0;
}
void ptp_port_init(struct ptp_port *pp, struct nic *nic)
{
	memset(pp, 0, sizeof(*pp));
	pp->nic = nic;
	pp->clk = phc_of(nic);
	ptp_clock_id_from_mac(pp->id.clock_id, mac_of_port0);
	pp->id.port = 1;
}
static struct nic *send_nic;	/* the NIC of the last ptp_send */
int ptp_send(struct ptp_port *pp, struct ptp_msg *m, uint32_t *txseq, int64_t *sw_ts)
{
	send_nic = pp->nic;
	assert_true(pp->nic == &nic_in || pp->nic->port >= NIC_MAX_PORTS);	/* port0, or a sub-interface of it */
	assert_true(nsent < 8);
	sent[nsent++] = *m;
	if (txseq) {
		*txseq = 0;
		*sw_ts = send_ts;
	}
	return 0;
}
int64_t phc_convert(struct phc *from, int64_t ns, struct phc *to)
{
	assert_ptr_equal(from, &clk_in);
	assert_ptr_equal(to, &clk_out);
	return ns + conv_offset;
}
int nic_mc_add(struct nic *nic, const uint8_t mc[6])
{
	(void)nic, (void)mc;
	return 0;
}

static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };

/* A frame of msg_type from clock 02..01 port 1, sequenceId seq, with
 * flags and correctionField corr (ns * 2^16), over transport t (from
 * 10.0.0.1 or 2001:db8::1). */
static struct pkt *frame(uint8_t *buf, enum ptp_transport t, uint8_t type, uint16_t seq, uint16_t flags, int64_t corr)
{
	static struct pkt p;
	struct ptp_msg m = { .msg_type = type, .version = 2, .flags = flags, .correction = corr, .seq = seq,
			     .source = { { 2, 0, 0, 0xff, 0xfe, 0, 0, 1 }, 1 } };
	memset(buf, 0, 256);
	size_t hl = ptp_frame_hlen(t), ml = ptp_build(buf + hl, 256 - hl, &m);
	assert_true(ml > 0);
	static const uint8_t src4[4] = { 10, 0, 0, 1 }, src6[16] = { 0x20, 1, 0xd, 0xb8, [15] = 1 };
	p = (struct pkt){ .data = buf, .len = (uint16_t)ptp_frame_build(buf, t, mac, t == PTP_UDP6 ? src6 : src4, type, ml) };
	return &p;
}

static int64_t correction(const struct pkt *p, enum ptp_transport t)
{
	return (int64_t)get64(p->data + ptp_frame_hlen(t) + 8);
}

static const struct tc_port *counts(void)
{
	return &tc_ports[0][0];
}

static int setup(void **state)
{
	(void)state;
	memset(tc_ports, 0, sizeof(tc_ports));
	sw_calls = conv_offset = tx_ns = 0;
	out_hw = grant = flagged = forwarded = nsent = bursts = 0;
	room = 1000;
	send_ts = 0;
	fwd_ptp_tc = FWD_TC_E2E;
	tx_seq_in = 0;
	clk_out.tx.seq = 0;
	memset(tc_dreqs, 0, sizeof(tc_dreqs));
	memset(tc_dreq_next, 0, sizeof(tc_dreq_next));
	memset(fwd_tc_by_bit, 0, sizeof(fwd_tc_by_bit));
	memset(fwd_tc_tstamped_seen, 0, sizeof(fwd_tc_tstamped_seen));
	memset(fwd_tc_follow_ups_due, 0, sizeof(fwd_tc_follow_ups_due));
	memset(fwd_tc_delay_resps_due, 0, sizeof(fwd_tc_delay_resps_due));
	memset(nic_in.q, 0, sizeof(nic_in.q));
	memset(nic_out.q, 0, sizeof(nic_out.q));
	each_event = 0;
	memset(tc_pd, 0, sizeof(tc_pd));
	memset(tc_pd_port, 0, sizeof(tc_pd_port));
	ptp_conf.transport = PTP_L2;
	return 0;
}

static void run(struct pkt *p)
{
	int n = 1;
	assert_int_equal(fwd_tc_tx(&nic_in, &nic_out, 0, &p, &n), 1);
	assert_int_equal(n, 1);
}

/* A p2p burst of one frame: returns 1 if forwarded, 0 if it ended at the port. */
static int run_p2p(struct pkt *p)
{
	int n = 1, sent_n = fwd_tc_tx(&nic_in, &nic_out, 0, &p, &n);
	assert_int_equal(sent_n, n);
	return n;
}

/* A two-step Sync is left as it came; its residence (100 ns) goes into
 * its Follow_Up; a second Follow_Up with that sequenceId finds no Sync. */
static void test_two_step_sync(void **state)
{
	(void)state;
	uint8_t buf[256], before[256];
	struct pkt *p = frame(buf, PTP_L2, PTP_SYNC, 7, PTP_FLAG_TWO_STEP, 5 << 16);
	memcpy(before, buf, sizeof(buf));
	run(p);
	assert_memory_equal(buf, before, sizeof(buf));
	run(frame(buf, PTP_L2, PTP_FOLLOW_UP, 7, 0, 3 << 16));
	assert_int_equal(correction(p, PTP_L2), (3 + 100) << 16);
	assert_int_equal(counts()->count[TC_follow_up], 1);
	assert_int_equal(counts()->count[TC_residence_ns], 100);
	assert_int_equal(counts()->count[TC_rx_swtstamp], 1);
	run(frame(buf, PTP_L2, PTP_FOLLOW_UP, 7, 0, 0));
	assert_int_equal(correction(p, PTP_L2), 0);
	assert_int_equal(counts()->count[TC_no_sync], 1);
	run(frame(buf, PTP_L2, PTP_FOLLOW_UP, 8, 0, 0));	/* another sequenceId */
	assert_int_equal(counts()->count[TC_no_sync], 2);
	assert_int_equal(counts()->count[TC_tx_swtstamp], 1);
	assert_int_equal(flagged, 0);	/* the egress port does not stamp */
}

/* Egress port stamping: of a burst's two two-step Syncs the first goes
 * with a TX stamp request; its Follow_Up gets the TX stamp less the
 * mapped RX stamp; the second's, whose request the ring did not take,
 * the TSC residence; a stamp not in by the Follow_Up falls back to the
 * TSC, counted tx_tstamp_missing. */
static void test_two_step_sync_hw_tx(void **state)
{
	(void)state;
	uint8_t b1[256], b2[256], buf[256];
	struct pkt s1 = *frame(b1, PTP_L2, PTP_SYNC, 10, PTP_FLAG_TWO_STEP, 0);
	struct pkt s2 = *frame(b2, PTP_L2, PTP_SYNC, 11, PTP_FLAG_TWO_STEP, 0), *pk[2] = { &s1, &s2 };
	out_hw = grant = 1;
	conv_offset = 500;
	s1.flags = PKT_RX_TSTAMP;
	s1.tstamp = 990000;
	int n = 2;
	assert_int_equal(fwd_tc_tx(&nic_in, &nic_out, 0, pk, &n), 2);
	assert_int_equal(flagged, 1);
	assert_true(pk[0]->flags & PKT_TX_TSTAMP);
	assert_false(pk[1]->flags & PKT_TX_TSTAMP);
	tx_seq_in = 1;
	tx_ns = 995000;	/* departure in the egress clock */
	struct pkt *p = frame(buf, PTP_L2, PTP_FOLLOW_UP, 10, 0, 0);
	run(p);
	assert_int_equal(correction(p, PTP_L2), (int64_t)(995000 - 990500) << 16);
	assert_int_equal(counts()->count[TC_tx_hwtstamp], 1);
	run(p = frame(buf, PTP_L2, PTP_FOLLOW_UP, 11, 0, 0));
	/* TSC residence: ingress the second software stamp, egress the third */
	assert_int_equal(correction(p, PTP_L2), 100ll << 16);
	assert_int_equal(counts()->count[TC_tx_swtstamp], 1);
	assert_int_equal(counts()->count[TC_tx_tstamp_missing], 0);
	/* a granted request whose stamp is not in at the Follow_Up */
	run(frame(buf, PTP_L2, PTP_SYNC, 12, PTP_FLAG_TWO_STEP, 0));
	assert_int_equal(clk_out.tx.seq, 2);
	run(p = frame(buf, PTP_L2, PTP_FOLLOW_UP, 12, 0, 0));
	assert_int_equal(correction(p, PTP_L2), 100ll << 16);
	assert_int_equal(counts()->count[TC_tx_tstamp_missing], 1);
	assert_int_equal(counts()->count[TC_tx_swtstamp], 2);
	assert_int_equal(counts()->count[TC_follow_up], 3);
	/* the ring refuses the request (the NIC's one stamp is busy): TSC, not missing */
	grant = 0;
	run(frame(buf, PTP_L2, PTP_SYNC, 13, PTP_FLAG_TWO_STEP, 0));
	run(p = frame(buf, PTP_L2, PTP_FOLLOW_UP, 13, 0, 0));
	assert_int_equal(counts()->count[TC_tx_tstamp_missing], 1);
	assert_int_equal(counts()->count[TC_tx_swtstamp], 3);
	assert_int_equal(counts()->count[TC_tx_hwtstamp], 1);
}

/* A Sync and its Follow_Up in one burst (as a master sends them): the
 * Sync (and what came before it) is sent first, then the Follow_Up gets
 * the Sync's TX stamp; a Sync after it in the burst may ask again. */
static void test_sync_follow_up_one_burst(void **state)
{
	(void)state;
	uint8_t b0[256], b1[256], b2[256], b3[256];
	struct pkt a = *frame(b0, PTP_L2, PTP_ANNOUNCE, 1, 0, 0);
	struct pkt s1 = *frame(b1, PTP_L2, PTP_SYNC, 20, PTP_FLAG_TWO_STEP, 0);
	struct pkt f1 = *frame(b2, PTP_L2, PTP_FOLLOW_UP, 20, 0, 0);
	struct pkt s2 = *frame(b3, PTP_L2, PTP_SYNC, 21, PTP_FLAG_TWO_STEP, 0), *pk[4] = { &a, &s1, &f1, &s2 };
	out_hw = grant = 1;
	s1.flags = PKT_RX_TSTAMP;
	s1.tstamp = 990000;
	tx_seq_in = 1;
	tx_ns = 993000;
	int n = 4;
	assert_int_equal(fwd_tc_tx(&nic_in, &nic_out, 0, pk, &n), 4);
	assert_int_equal(n, 4);
	assert_int_equal(bursts, 2);	/* Announce and Sync; then Follow_Up and the next Sync */
	assert_ptr_equal(pk[2], &f1);
	assert_int_equal(get64(b2 + ETH_HLEN + 8), 3000ll << 16);
	assert_int_equal(counts()->count[TC_tx_hwtstamp], 1);
	assert_int_equal(flagged, 2);
	assert_int_equal(clk_out.tx.seq, 2);
	assert_int_equal(tc_ports[0][0].sync[1].txseq, 2);	/* the second Sync's request */
	/* the ring takes nothing: the send before the Follow_Up stops the
	 * burst, every frame left in order for the caller to drop */
	room = 0;
	s1.flags = 0;
	pk[0] = &a, pk[1] = &s1, pk[2] = &f1, pk[3] = &s2;
	put16(b1 + ETH_HLEN + 30, 22), put16(b2 + ETH_HLEN + 30, 22);	/* sequenceId */
	n = 4;
	assert_int_equal(fwd_tc_tx(&nic_in, &nic_out, 0, pk, &n), 0);
	assert_int_equal(n, 4);
	assert_ptr_equal(pk[0], &a);
	assert_ptr_equal(pk[2], &f1);
	assert_ptr_equal(pk[3], &s2);
	assert_int_equal(bursts, 3);
	assert_int_equal(counts()->count[TC_follow_up], 1);
}

/* One-step Sync: corrected in place from the hardware ingress stamp,
 * mapped to the egress clock. */
static void test_one_step_sync_hw(void **state)
{
	(void)state;
	uint8_t buf[256];
	struct pkt *p = frame(buf, PTP_L2, PTP_SYNC, 1, 0, 0);
	p->flags = PKT_RX_TSTAMP;
	p->tstamp = 999000;
	conv_offset = 500;	/* the ingress clock reads 500 ns behind the egress one */
	run(p);
	/* egress: TSC 1000000 + 100 (first stamp); ingress 999000 + 500 */
	assert_int_equal(correction(p, PTP_L2), (int64_t)(1000100 - 999500) << 16);
	assert_int_equal(counts()->count[TC_sync], 1);
	assert_int_equal(counts()->count[TC_rx_hwtstamp], 1);
	assert_int_equal(counts()->residence_max, 600);
}

/* The UDP datagram at udp behind the IPv4 header ip: its pseudo-header
 * (RFC 768) into pseudo, its checksum made right; returns its length. */
static uint16_t udp_csum_set(const uint8_t *ip, uint8_t *udp, uint8_t pseudo[12])
{
	uint16_t ulen = get16(udp + 4);
	memcpy(pseudo, ip + 12, 8);
	pseudo[8] = 0;
	pseudo[9] = 17;
	put16(pseudo + 10, ulen);
	put16(udp + 6, inet_csum_fold(inet_sum(pseudo, 12) + inet_sum(udp, ulen)));
	return ulen;
}

/* An 802.1Q tag with VID 100 put after the frame's addresses. */
static void tag100(uint8_t *buf, struct pkt *p)
{
	memmove(buf + 16, buf + 12, p->len - 12);
	put16(buf + 12, 0x8100);
	put16(buf + 14, 100);
	p->len += 4;
}

/* Delay_Req over UDP/IPv4: corrected in place, the UDP checksum equal to
 * a full recomputation (RFC 768 pseudo-header). */
static void test_delay_req_udp_checksum(void **state)
{
	(void)state;
	uint8_t buf[256];
	struct pkt *p = frame(buf, PTP_UDP4, PTP_DELAY_REQ, 3, 0, -(1ll << 20));
	uint8_t *ip = buf + ETH_HLEN, *udp = ip + IPV4_HLEN;
	uint8_t pseudo[12];
	uint16_t ulen = udp_csum_set(ip, udp, pseudo);
	run(p);
	assert_int_equal(correction(p, PTP_UDP4), -(1ll << 20) + (100ll << 16));
	assert_int_equal(counts()->count[TC_delay_req], 1);
	assert_int_equal(inet_csum_fold(inet_sum(pseudo, 12) + inet_sum(udp, ulen)), 0);
	/* a UDP checksum of 0 (none) stays 0 */
	p = frame(buf, PTP_UDP4, PTP_DELAY_REQ, 4, 0, 0);
	run(p);
	assert_int_equal(get16(udp + 6), 0);
	assert_int_equal(counts()->count[TC_delay_req], 2);
}

/* A Delay_Resp from the master (02..02) answering Delay_Req seq of clock
 * 02..01 port 1, correctionField corr, L2. */
static struct pkt *delay_resp_frame(uint8_t *buf, uint16_t seq, int64_t corr)
{
	static struct pkt p;
	struct ptp_msg m = { .msg_type = PTP_DELAY_RESP, .version = 2, .correction = corr, .seq = seq,
			     .source = { { 2, 0, 0, 0xff, 0xfe, 0, 0, 2 }, 1 },
			     .requesting = { { 2, 0, 0, 0xff, 0xfe, 0, 0, 1 }, 1 } };
	memset(buf, 0, 256);
	size_t hl = ptp_frame_hlen(PTP_L2), ml = ptp_build(buf + hl, 256 - hl, &m);
	assert_true(ml > 0);
	p = (struct pkt){ .data = buf, .len = (uint16_t)ptp_frame_build(buf, PTP_L2, mac, 0, PTP_DELAY_RESP, ml) };
	return &p;
}

/* A Delay_Resp back through the pair (port1 in, port0 out). */
static void run_back(struct pkt *p)
{
	int n = 1;
	assert_int_equal(fwd_tc_tx(&nic_out, &nic_in, 0, &p, &n), 1);
	assert_int_equal(n, 1);
}

/* E2E, the Delay_Req's egress port stamping in hardware: the Delay_Req is
 * corrected in place to the TSC before the ring (100 ns) and sent with a
 * TX stamp request; its Delay_Resp coming back gets the wait in the ring
 * (the TX stamp, 3000 ns after the TSC egress time); a Delay_Resp to
 * another request, or one whose stamp never came, passes unchanged
 * (the latter counted tx_tstamp_missing). Without a hardware clock
 * nothing is asked. */
static void test_delay_req_hw_tx_into_delay_resp(void **state)
{
	(void)state;
	uint8_t buf[256], before[256];
	nic_in.ops = &ops;
	out_hw = grant = 1;
	struct pkt *p = frame(buf, PTP_L2, PTP_DELAY_REQ, 7, 0, 0);
	run(p);
	assert_int_equal(correction(p, PTP_L2), 100ll << 16);
	assert_int_equal(flagged, 1);
	assert_int_equal(tc_dreqs[1][0].txseq, 1);
	tx_seq_in = 1;
	tx_ns = (int64_t)fuzz_tsc + 200 + 3000;	/* the TSC egress time was fuzz_tsc + 200 */
	run_back(p = delay_resp_frame(buf, 7, 100ll << 16));
	assert_int_equal(correction(p, PTP_L2), 3100ll << 16);
	const struct tc_port *back = &tc_ports[0][1];
	assert_int_equal(back->count[TC_delay_resp], 1);
	assert_int_equal(back->count[TC_tx_hwtstamp], 1);
	assert_int_equal(back->residence_max, 3100);	/* the Delay_Req's whole residence */
	assert_int_equal(back->count[TC_residence_ns], 0);
	p = delay_resp_frame(buf, 8, 0);			/* no such Delay_Req */
	memcpy(before, buf, sizeof(buf));
	run_back(p);
	assert_memory_equal(buf, before, sizeof(buf));
	run(frame(buf, PTP_L2, PTP_DELAY_REQ, 9, 0, 0));	/* its stamp never comes */
	assert_int_equal(tc_dreqs[1][1].txseq, 2);
	run_back(p = delay_resp_frame(buf, 9, 100ll << 16));
	assert_int_equal(correction(p, PTP_L2), 100ll << 16);
	assert_int_equal(back->count[TC_tx_tstamp_missing], 1);
	assert_int_equal(back->count[TC_delay_resp], 1);
	out_hw = 0;
	run(frame(buf, PTP_L2, PTP_DELAY_REQ, 10, 0, 0));
	assert_int_equal(flagged, 2);
	assert_int_equal(counts()->count[TC_delay_req], 3);
	nic_in.ops = 0;
}

/* A frame behind one 802.1Q tag (a VLAN carried through the pair): the
 * UDP Delay_Req and the L2 Sync found past the tag and corrected there,
 * the UDP checksum right; a second tag (QinQ) is not looked into. */
static void test_vlan_tagged(void **state)
{
	(void)state;
	uint8_t buf[256];
	struct pkt *p = frame(buf, PTP_UDP4, PTP_DELAY_REQ, 3, 0, 0);
	tag100(buf, p);
	uint8_t *ip = buf + ETH_HLEN + 4, *udp = ip + IPV4_HLEN;
	uint8_t pseudo[12];
	uint16_t ulen = udp_csum_set(ip, udp, pseudo);
	run(p);
	assert_int_equal(get64(udp + 8 + 8), 100ll << 16);	/* the message after the 8-byte UDP header */
	assert_int_equal(inet_csum_fold(inet_sum(pseudo, 12) + inet_sum(udp, ulen)), 0);
	p = frame(buf, PTP_L2, PTP_SYNC, 4, 0, 0);
	tag100(buf, p);
	run(p);
	assert_int_equal(get64(buf + ETH_HLEN + 4 + 8), 100ll << 16);
	assert_int_equal(counts()->count[TC_delay_req] + counts()->count[TC_sync], 2);
	p = frame(buf, PTP_L2, PTP_SYNC, 5, 0, 0);	/* two tags: passed as it came */
	memmove(buf + 20, buf + 12, p->len - 12);
	put16(buf + 12, 0x88a8), put16(buf + 16, 0x8100);
	p->len += 8;
	run(p);
	assert_int_equal(get64(buf + ETH_HLEN + 8 + 8), 0);
	assert_int_equal(counts()->count[TC_delay_req] + counts()->count[TC_sync], 2);
}

/* fwd_tc_maybe, the inline test fwd runs on every frame before the TC:
 * 1 for every frame the TC parses (L2, UDP/IPv4 to 319 and 320, UDP/IPv6,
 * tagged), 0 for an untagged IPv4 frame to another port, whatever its
 * protocol (a TCP segment to 320 is 1: tc.c's maybe_ptp refuses it);
 * fwd_tc_burst_maybe: 1 when one frame of the burst is. */
static void test_maybe(void **state)
{
	(void)state;
	uint8_t b[4][256];
	struct pkt p[4], *burst[4] = { &p[0], &p[1], &p[2], &p[3] };
	static const enum ptp_transport tr[] = { PTP_L2, PTP_UDP4, PTP_UDP6 };
	static const uint8_t types[] = { PTP_SYNC, PTP_DELAY_REQ, PTP_FOLLOW_UP, PTP_DELAY_RESP };
	for (int t = 0; t < 3; t++)
		for (int k = 0; k < 4; k++) {
			p[0] = *frame(b[0], tr[t], types[k], 1, 0, 0);
			assert_true(maybe_ptp(&p[0]));
			assert_int_equal(fwd_tc_maybe(&p[0]), 1);
			tag100(b[0], &p[0]);
			assert_int_equal(fwd_tc_maybe(&p[0]), 1);
		}
	for (int i = 0; i < 4; i++) {
		p[i] = *frame(b[i], PTP_UDP4, PTP_SYNC, 1, 0, 0);
		put16(b[i] + ETH_HLEN + IPV4_HLEN + 2, (uint16_t)(9 + i));	/* UDP destination port */
		assert_int_equal(fwd_tc_maybe(&p[i]), 0);
		assert_false(maybe_ptp(&p[i]));
	}
	assert_int_equal(fwd_tc_burst_maybe(burst, 4), 0);
	put16(b[3] + ETH_HLEN + IPV4_HLEN + 2, PTP_GENERAL_PORT);
	assert_int_equal(fwd_tc_burst_maybe(burst, 4), 1);
	assert_int_equal(fwd_tc_burst_maybe(burst, 3), 0);
	b[3][ETH_HLEN + 9] = 6;	/* TCP to 320: passed to tc.c, which takes it for no PTP */
	assert_int_equal(fwd_tc_maybe(&p[3]), 1);
	assert_false(maybe_ptp(&p[3]));
	b[2][ETH_HLEN] = 0x46;	/* IHL 6: IPv4 options, passed to tc.c */
	assert_int_equal(fwd_tc_maybe(&p[2]), 1);
	assert_false(maybe_ptp(&p[2]));
	put16(b[1] + 12, 0x0806);	/* ARP */
	assert_int_equal(fwd_tc_maybe(&p[1]), 1);
	assert_false(maybe_ptp(&p[1]));
	assert_int_equal(fwd_tc_burst_maybe(burst, 1), 0);
}

/* fwd_tc_burst on ports whose NIC stamps each PTP event message (e2e):
 * a burst goes to the TC when the queue's rx_tstamped moved (a stamped
 * frame in it), or while a Follow_Up or Delay_Resp is due on the port;
 * else not, whatever it holds (the NIC marked no event message in it).
 * p2p, or a port that cannot stamp each: the per-frame test. */
static void test_by_bit(void **state)
{
	(void)state;
	uint8_t b[2][256];
	struct pkt u = *frame(b[0], PTP_UDP4, PTP_SYNC, 1, 0, 0), *pu = &u, *p;
	put16(b[0] + ETH_HLEN + IPV4_HLEN + 2, 9);	/* UDP to port 9 */
	fwd_tc_port_init(&nic_in);
	assert_int_equal(fwd_tc_by_bit[0], 0);	/* the clock cannot stamp each */
	assert_int_equal(fwd_tc_burst(&nic_in, 0, &pu, 1), 0);
	p = frame(b[1], PTP_L2, PTP_FOLLOW_UP, 7, 0, 0);
	assert_int_equal(fwd_tc_burst(&nic_in, 0, &p, 1), 1);	/* tested: may be PTP */
	static const struct phc_ops i210 = { .name = "I210 SYSTIM" };
	clk_in.ops = clk_out.ops = &i210;
	each_event = 1;
	fwd_ptp_tc = FWD_TC_P2P;
	fwd_tc_port_init(&nic_in);
	assert_int_equal(fwd_tc_by_bit[0], 0);	/* p2p: Pdelay_Resp_Follow_Up, unstamped, ends at the port */
	fwd_ptp_tc = FWD_TC_E2E;
	memset(tc_pd, 0, sizeof(tc_pd));
	fwd_tc_port_init(&nic_in);
	fwd_tc_port_init(&nic_out);
	assert_int_equal(fwd_tc_by_bit[0], 1);
	assert_int_equal(fwd_tc_burst(&nic_in, 0, &p, 1), 0);	/* a Follow_Up, none due: not looked at */
	nic_in.q[1].rx_tstamped++;	/* another queue's stamped frame */
	assert_int_equal(fwd_tc_burst(&nic_in, 0, &pu, 1), 0);
	nic_in.q[0].rx_tstamped++;
	p = frame(b[1], PTP_L2, PTP_SYNC, 7, PTP_FLAG_TWO_STEP, 0);
	assert_int_equal(fwd_tc_burst(&nic_in, 0, &p, 1), 1);
	run(p);
	assert_int_equal(fwd_tc_follow_ups_due[0][0], 1);
	assert_int_equal(fwd_tc_burst(&nic_in, 0, &pu, 1), 1);	/* its Follow_Up is due */
	run(p = frame(b[1], PTP_L2, PTP_FOLLOW_UP, 7, 0, 0));
	assert_int_equal(correction(p, PTP_L2), 100ll << 16);
	assert_int_equal(fwd_tc_follow_ups_due[0][0], 0);
	assert_int_equal(fwd_tc_burst(&nic_in, 0, &pu, 1), 0);
	/* a Delay_Req out of port1 with a TX stamp request: its Delay_Resp is due there */
	nic_in.ops = &ops;
	out_hw = grant = 1;
	run(frame(b[1], PTP_L2, PTP_DELAY_REQ, 8, 0, 0));
	assert_int_equal(fwd_tc_delay_resps_due[1], 1);
	assert_int_equal(fwd_tc_burst(&nic_out, 0, &pu, 1), 1);
	assert_int_equal(fwd_tc_burst(&nic_in, 0, &pu, 1), 0);
	tx_seq_in = 1;
	tx_ns = tc_dreqs[1][0].egress + 3000;	/* 3 us in the ring */
	run_back(p = delay_resp_frame(b[1], 8, 0));
	assert_int_equal(correction(p, PTP_L2), 3000ll << 16);
	assert_int_equal(fwd_tc_delay_resps_due[1], 0);
	assert_int_equal(fwd_tc_burst(&nic_out, 0, &pu, 1), 0);
	run_back(p = delay_resp_frame(b[1], 8, 0));	/* again: its Delay_Req's wait went into the first */
	assert_int_equal(correction(p, PTP_L2), 0);
	assert_int_equal(tc_ports[0][1].count[TC_delay_resp], 1);
	nic_in.ops = 0;
	clk_in.ops = clk_out.ops = 0;
}

/* A Follow_Up or Delay_Resp not come within TC_DUE_NS is given up: the
 * wait ends (counted no_follow_up, no_delay_resp) and the late message
 * finds nothing; a Sync replacing one still due counts it too. */
static void test_due_given_up(void **state)
{
	(void)state;
	uint8_t buf[256];
	struct pkt *p;
	nic_in.ops = &ops;
	out_hw = grant = 1;
	run(frame(buf, PTP_L2, PTP_SYNC, 1, PTP_FLAG_TWO_STEP, 0));
	run(frame(buf, PTP_L2, PTP_DELAY_REQ, 2, 0, 0));
	assert_int_equal(fwd_tc_follow_ups_due[0][0], 1);
	assert_int_equal(fwd_tc_delay_resps_due[1], 1);
	clock_ns += TC_DUE_NS / 2;
	run(frame(buf, PTP_L2, PTP_ANNOUNCE, 3, 0, 0));
	assert_int_equal(fwd_tc_follow_ups_due[0][0], 1);	/* not yet */
	clock_ns += TC_DUE_NS / 2;
	run(frame(buf, PTP_L2, PTP_ANNOUNCE, 3, 0, 0));
	assert_int_equal(fwd_tc_follow_ups_due[0][0], 0);
	assert_int_equal(counts()->count[TC_no_follow_up], 1);
	assert_int_equal(fwd_tc_delay_resps_due[1], 1);	/* port1's: given up by a burst in on port1 */
	run_back(frame(buf, PTP_L2, PTP_ANNOUNCE, 4, 0, 0));
	assert_int_equal(fwd_tc_delay_resps_due[1], 0);
	assert_int_equal(tc_ports[0][1].count[TC_no_delay_resp], 1);
	run(p = frame(buf, PTP_L2, PTP_FOLLOW_UP, 1, 0, 0));
	assert_int_equal(correction(p, PTP_L2), 0);
	assert_int_equal(counts()->count[TC_no_sync], 1);
	tx_seq_in = 1;
	run_back(p = delay_resp_frame(buf, 2, 0));
	assert_int_equal(correction(p, PTP_L2), 0);
	assert_int_equal(tc_ports[0][1].count[TC_delay_resp], 0);
	for (uint16_t s = 10; s < 10 + TC_SYNCS + 1; s++)	/* one more than the table holds */
		run(frame(buf, PTP_L2, PTP_SYNC, s, PTP_FLAG_TWO_STEP, 0));
	assert_int_equal(counts()->count[TC_no_follow_up], 2);
	assert_int_equal(fwd_tc_follow_ups_due[0][0], TC_SYNCS);
	nic_in.ops = 0;
}

/* Refusals: the frame as it came, one named counter each. */
static void test_refused(void **state)
{
	(void)state;
	uint8_t buf[256], before[256];
	struct pkt *p = frame(buf, PTP_L2, PTP_DELAY_REQ, 1, 0, INT64_MAX - (50 << 16));
	memcpy(before, buf, sizeof(buf));
	run(p);
	assert_memory_equal(buf, before, sizeof(buf));
	assert_int_equal(counts()->count[TC_overflow], 1);
	p = frame(buf, PTP_L2, PTP_SYNC, 2, 0, 0);
	p->flags = PKT_RX_TSTAMP;
	p->tstamp = 2000000;	/* after the egress time */
	memcpy(before, buf, sizeof(buf));
	run(p);
	assert_memory_equal(buf, before, sizeof(buf));
	assert_int_equal(counts()->count[TC_negative_residence], 1);
	p = frame(buf, PTP_L2, PTP_SYNC, 3, 0, 0);
	buf[ETH_HLEN + 1] = 1;	/* versionPTP 1 */
	memcpy(before, buf, sizeof(buf));
	run(p);
	assert_memory_equal(buf, before, sizeof(buf));
	assert_int_equal(counts()->count[TC_bad_ptp], 1);
	/* not PTP, and PTP messages a TC passes unchanged: nothing counted;
	 * the signaling message is one it does not parse (its body a Sync's) */
	p = frame(buf, PTP_L2, PTP_ANNOUNCE, 4, 0, 0);
	run(p);
	p = frame(buf, PTP_L2, PTP_SYNC, 6, 0, 0);
	buf[ETH_HLEN] = (uint8_t)((buf[ETH_HLEN] & 0xf0) | PTP_SIGNALING);
	memcpy(before, buf, sizeof(buf));
	run(p);
	assert_memory_equal(buf, before, sizeof(buf));
	p = frame(buf, PTP_L2, PTP_SYNC, 5, 0, 0);
	put16(buf + 12, 0x88b5);
	run(p);
	assert_int_equal(counts()->count[TC_sync] + counts()->count[TC_delay_req] + counts()->count[TC_follow_up], 0);
	assert_int_equal(counts()->count[TC_bad_ptp], 1);
	assert_int_equal(counts()->count[TC_rx_swtstamp] + counts()->count[TC_rx_hwtstamp], 2);
	assert_int_equal(forwarded, 6);
}

/* ptp_tc=p2p: port0 answers its neighbour's Pdelay_Req (Pdelay_Resp with
 * t2, then at the tick its Follow_Up), measures the link with its own
 * Pdelay_Req (t1 .. t4: 4000 ns), forwards none of the Pdelay messages;
 * a one-step Sync then gets residence + 4000 ns, a two-step Sync's
 * Follow_Up too; a Delay_Req passes unchanged; a Pdelay_Resp to nobody's
 * request is refused and counted. */
static void test_p2p(void **state)
{
	(void)state;
	uint8_t buf[256];
	fwd_ptp_tc = FWD_TC_P2P;
	fwd_tc_port_init(&nic_in);
	struct ptp_port *pp = &tc_pd[0];
	/* the neighbour's Pdelay_Req: answered, t2 its software receipt in port0's clock */
	assert_int_equal(run_p2p(frame(buf, PTP_L2, PTP_PDELAY_REQ, 40, 0, 0)), 0);
	assert_int_equal(nsent, 1);
	assert_int_equal(sent[0].msg_type, PTP_PDELAY_RESP);
	assert_int_equal(sent[0].seq, 40);
	assert_int_equal(ptp_ts_to_ns(sent[0].ts), 1000000 + 100 + IN_AHEAD);
	assert_int_equal(sent[0].requesting.port, 1);
	assert_int_equal(sent[0].requesting.clock_id[7], 1);
	/* the tick: the answer's Follow_Up (t3), and our own Pdelay_Req (t1) */
	send_ts = 1000000 + IN_AHEAD - 10000;	/* t1: 10000 ns before the Resp below arrives */
	assert_int_equal(fwd_tc_idle(), 1);
	assert_int_equal(nsent, 3);
	assert_int_equal(sent[1].msg_type, PTP_PDELAY_RESP_FOLLOW_UP);
	assert_int_equal(sent[2].msg_type, PTP_PDELAY_REQ);
	/* the neighbour's answer: t2 5000, t3 7000 (its Follow_Up): 2000 ns of turnaround */
	struct pkt *p = frame(buf, PTP_L2, PTP_PDELAY_RESP, sent[2].seq, PTP_FLAG_TWO_STEP, 0);
	struct ptp_msg m;
	m = (struct ptp_msg){ .msg_type = PTP_PDELAY_RESP, .version = 2, .flags = PTP_FLAG_TWO_STEP, .seq = sent[2].seq,
			      .source = { { 2, 0, 0, 0xff, 0xfe, 0, 0, 1 }, 1 }, .requesting = pp->id,
			      .ts = ptp_ts_from_ns(5000) };
	size_t hl = ptp_frame_hlen(PTP_L2);
	p->len = (uint16_t)ptp_frame_build(buf, PTP_L2, mac, 0, m.msg_type, ptp_build(buf + hl, 256 - hl, &m));
	sw_calls = 0;	/* t4: 1000000 + 100 + IN_AHEAD */
	assert_int_equal(run_p2p(p), 0);
	m.msg_type = PTP_PDELAY_RESP_FOLLOW_UP;
	m.flags = 0;
	m.ts = ptp_ts_from_ns(7000);
	p->len = (uint16_t)ptp_frame_build(buf, PTP_L2, mac, 0, m.msg_type, ptp_build(buf + hl, 256 - hl, &m));
	assert_int_equal(run_p2p(p), 0);
	/* ((t4 - t1) - (t3 - t2)) / 2 = (10100 - 2000) / 2 */
	assert_true(pp->have_peer_delay);
	assert_int_equal(pp->peer_delay, 4050);
	assert_int_equal(counts()->count[TC_pdelay], 3);
	assert_int_equal(forwarded, 0);
	/* a Pdelay_Resp to a request that is over: refused, not forwarded */
	assert_int_equal(run_p2p(frame(buf, PTP_L2, PTP_PDELAY_RESP, 99, 0, 0)), 0);
	assert_int_equal(counts()->count[TC_pdelay_refused], 1);
	/* one-step Sync: residence (100 ns, software stamps) + the link */
	sw_calls = 0;
	p = frame(buf, PTP_L2, PTP_SYNC, 50, 0, 0);
	assert_int_equal(run_p2p(p), 1);
	assert_int_equal(correction(p, PTP_L2), (100ll + 4050) << 16);
	assert_int_equal(counts()->count[TC_residence_ns], 100);
	/* two-step: the same into the Follow_Up */
	run(frame(buf, PTP_L2, PTP_SYNC, 51, PTP_FLAG_TWO_STEP, 0));
	run(p = frame(buf, PTP_L2, PTP_FOLLOW_UP, 51, 0, 1 << 16));
	assert_int_equal(correction(p, PTP_L2), (1 + 100ll + 4050) << 16);
	/* Delay_Req: a P2P TC leaves it as it came */
	run(p = frame(buf, PTP_L2, PTP_DELAY_REQ, 52, 0, 0));
	assert_int_equal(correction(p, PTP_L2), 0);
	assert_int_equal(counts()->count[TC_delay_req], 0);
	assert_int_equal(counts()->count[TC_sync] + counts()->count[TC_follow_up], 2);
	assert_int_equal(counts()->count[TC_no_peer_delay], 0);
	assert_int_equal(forwarded, 4);
}

/* The Pdelay message p, received on routed link 0 (port0), taken by it
 * (fwd_tc_route_local): never forwarded. */
static int routed_local(struct pkt *p)
{
	return fwd_tc_route_local(0, &nic_in, p, fuzz_tsc);
}

/* One p2p exchange of port0 (an L2 pair's, or routed link 0) with its
 * neighbour: port0's Pdelay_Req sent at t1 (its tick, a second on), the
 * neighbour's two-step answer received at t4 = t1 + turn, with t2 and
 * t3 = t2 + 2000 in its clock. */
static void exchange_on(uint8_t *buf, int64_t t1, int64_t turn, int64_t t2, int routed)
{
	struct ptp_port *pp = &tc_pd[0];
	nsent = 0;
	clock_ns += 2000000000ull;
	send_ts = t1;
	assert_int_equal(fwd_tc_idle(), 1);
	assert_int_equal(sent[nsent - 1].msg_type, PTP_PDELAY_REQ);
	struct ptp_msg m = { .msg_type = PTP_PDELAY_RESP, .version = 2, .flags = PTP_FLAG_TWO_STEP,
			     .seq = sent[nsent - 1].seq, .source = { { 2, 0, 0, 0xff, 0xfe, 0, 0, 1 }, 1 },
			     .requesting = pp->id, .ts = ptp_ts_from_ns(t2) };
	size_t hl = ptp_frame_hlen(PTP_L2);
	struct pkt *p = frame(buf, PTP_L2, PTP_SYNC, 0, 0, 0);
	p->len = (uint16_t)ptp_frame_build(buf, PTP_L2, mac, 0, m.msg_type, ptp_build(buf + hl, 256 - hl, &m));
	sw_calls = 0;
	fuzz_tsc = (uint64_t)(t1 + turn - 100 - IN_AHEAD);	/* t4: its one software stamp */
	assert_int_equal(routed ? !routed_local(p) : run_p2p(p), 0);
	m.msg_type = PTP_PDELAY_RESP_FOLLOW_UP;
	m.flags = 0;
	m.ts = ptp_ts_from_ns(t2 + 2000);
	p->len = (uint16_t)ptp_frame_build(buf, PTP_L2, mac, 0, m.msg_type, ptp_build(buf + hl, 256 - hl, &m));
	assert_int_equal(routed ? !routed_local(p) : run_p2p(p), 0);
}

static void exchange(uint8_t *buf, int64_t t1, int64_t turn, int64_t t2)
{
	exchange_on(buf, t1, turn, t2, 0);
}

/* A Sync (flags) whose hardware RX stamp is 10 ms before its egress. */
static struct pkt *sync_10ms(uint8_t *buf, uint16_t seq, uint16_t flags)
{
	struct pkt *p = frame(buf, PTP_L2, PTP_SYNC, seq, flags, 0);
	sw_calls = 0;
	p->flags = PKT_RX_TSTAMP;
	p->tstamp = fuzz_tsc + 100 - 10000000;
	return p;
}

/* ptp_tc=p2p, the neighborRateRatio (802.1AS 10.2.5.7): the neighbour's
 * clock 100 ppm fast (its t2 1,000,100,000 ns apart, ours 10^9) gives,
 * after PTP_NRR_SPAN exchanges, 2^41 * 10^-4 = 219902325 (rounded down);
 * the link delay (t4 - t1 = 1 ms, t3 - t2 = 2 us) becomes
 * (1000099 - 2000) / 2 once the median holds scaled samples only; a
 * one-step Sync's 10 ms residence becomes 10000999 ns plus the link; an
 * 802.1AS Follow_Up with cumulativeScaledRateOffset -2^41 / 20000 (-50
 * ppm) gets rateRatio 109940167 (~ +50 ppm) in its TLV and residence
 * times it plus the link times the cumulative ratio: 10000499 + 499024;
 * a window 300 ppm off is counted and the ratio kept. The numbers are
 * Python's (ns + ns * off >> 41). */
static void test_p2p_rate_ratio(void **state)
{
	(void)state;
	uint8_t buf[256];
	fwd_ptp_tc = FWD_TC_P2P;
	fwd_tc_port_init(&nic_in);
	struct ptp_port *pp = &tc_pd[0];
	const int64_t t0 = IN_AHEAD + 1000000;
	int k = 0;
	for (; k < PTP_NRR_SPAN; k++)
		exchange(buf, t0 + k * 1000000000ll, 1000000, 5000 + k * 1000100000ll);
	assert_false(pp->have_nrr);
	assert_int_equal(pp->peer_delay, (1000000 - 2000) / 2);
	for (; k <= 3 * PTP_NRR_SPAN; k++)
		exchange(buf, t0 + k * 1000000000ll, 1000000, 5000 + k * 1000100000ll);
	assert_true(pp->have_nrr);
	assert_int_equal(pp->nrr, 219902325);
	assert_int_equal(pp->peer_delay, 499049);
	assert_int_equal(pp->ev[PE_pdelay_samples], 3 * PTP_NRR_SPAN + 1);
	/* one-step Sync */
	struct pkt *p = sync_10ms(buf, 60, 0);
	assert_int_equal(run_p2p(p), 1);
	assert_int_equal(correction(p, PTP_L2), (10000999ll + 499049) << 16);
	/* two-step Sync, its gPTP Follow_Up */
	run(sync_10ms(buf, 61, PTP_FLAG_TWO_STEP));
	p = frame(buf, PTP_L2, PTP_FOLLOW_UP, 61, 0, 0);
	size_t hl = ptp_frame_hlen(PTP_L2), ml = get16(buf + hl + 2);
	assert_int_equal(ptp_follow_up_rate_offset(buf + hl, ml), -1);
	assert_int_equal(ptp_put_follow_up_info(buf + hl, 256 - hl, &ml, 0), 0);
	int at = ptp_follow_up_rate_offset(buf + hl, ml);
	assert_int_equal(at, 54);
	put32(buf + hl + at, (uint32_t)-109951162);
	p->len = (uint16_t)ptp_frame_build(buf, PTP_L2, mac, 0, PTP_FOLLOW_UP, ml);
	run(p);
	assert_int_equal(correction(p, PTP_L2), (10000499ll + 499024) << 16);
	assert_int_equal((int32_t)get32(buf + hl + at), 109940167);
	assert_int_equal(counts()->count[TC_follow_up], 1);
	assert_int_equal(counts()->count[TC_follow_up_info], 1);
	/* the neighbour 300 ppm fast over the next window: refused */
	int64_t t2 = 5000 + k * 1000100000ll;
	for (int j = 1; j <= PTP_NRR_SPAN; j++)
		exchange(buf, t0 + (k - 1 + j) * 1000000000ll, 1000000, t2 - 1000100000ll + j * 1000300000ll);
	assert_int_equal(pp->ev[PE_rate_ratio_out_of_range], 1);
	assert_int_equal(pp->nrr, 219902325);
}

/* The UDP checksum of the UDPv6 datagram of frame buf recomputed whole
 * (RFC 8200 8.1): 1 if the one it carries equals it. */
static int udp6_csum_ok(uint8_t *buf)
{
	struct ipv6_hdr *ip = (struct ipv6_hdr *)(buf + ETH_HLEN);
	uint8_t *udp = buf + ETH_HLEN + IPV6_HLEN;
	uint16_t ulen = get16(udp + 4), had = get16(udp + 6);
	put16(udp + 6, 0);
	uint16_t c = ipv6_l4_csum(ip, 17, udp, ulen);
	put16(udp + 6, had);
	return had == (c ? c : 0xffff);
}

/* UDP/IPv6 on an L2 pair: a Delay_Req corrected in place with its UDP
 * checksum right (the message 62 bytes in, the 2-byte trailer after); a
 * UDPv6 datagram to another port, and one with a wrong checksum
 * (bad_ptp), forwarded unchanged. */
static void test_udp6(void **state)
{
	(void)state;
	uint8_t buf[256], before[256];
	struct pkt *p = frame(buf, PTP_UDP6, PTP_DELAY_REQ, 3, 0, 7ll << 16);
	assert_true(udp6_csum_ok(buf));
	run(p);
	assert_int_equal(correction(p, PTP_UDP6), (7 + 100) << 16);
	assert_true(udp6_csum_ok(buf));
	assert_int_equal(counts()->count[TC_delay_req], 1);
	p = frame(buf, PTP_UDP6, PTP_DELAY_REQ, 4, 0, 0);
	put16(buf + ETH_HLEN + IPV6_HLEN + 2, 5000);	/* another destination port */
	memcpy(before, buf, sizeof(buf));
	run(p);
	assert_memory_equal(buf, before, sizeof(buf));
	p = frame(buf, PTP_UDP6, PTP_DELAY_REQ, 5, 0, 0);
	buf[ETH_HLEN + IPV6_HLEN + 6] ^= 1;
	memcpy(before, buf, sizeof(buf));
	run(p);
	assert_memory_equal(buf, before, sizeof(buf));
	assert_int_equal(counts()->count[TC_bad_ptp], 1);
	assert_int_equal(counts()->count[TC_delay_req], 1);
	assert_int_equal(forwarded, 3);
}

/* Routed (fwd_tc_route, as tx.c calls it per frame before the batch is
 * sent): a UDP/IPv4 Delay_Req and a one-step Sync corrected in place by
 * their residence (ingress the burst's TSC, egress the TSC now: 100 ns
 * here), the UDP checksum kept right; a two-step Sync over UDP/IPv6 asks
 * no TX stamp even where the egress port stamps (routed batches never
 * do), its TSC residence going into its Follow_Up, IPv6's checksum
 * right; an ingress hardware stamp is mapped as on a pair; frames that
 * are not PTP are not touched and nothing is sent (tx.c sends). */
static void test_routed(void **state)
{
	(void)state;
	uint8_t buf[256], before[256], pseudo[12];
	out_hw = grant = 1;
	struct pkt *p = frame(buf, PTP_UDP4, PTP_DELAY_REQ, 1, 0, 3ll << 16);
	uint8_t *ip = buf + ETH_HLEN, *udp = ip + IPV4_HLEN;
	uint16_t ulen = udp_csum_set(ip, udp, pseudo);
	fwd_tc_route(0, &nic_in, &nic_out, p, fuzz_tsc);
	assert_int_equal(correction(p, PTP_UDP4), (3 + 100) << 16);
	assert_int_equal(inet_csum_fold(inet_sum(pseudo, 12) + inet_sum(udp, ulen)), 0);
	p = frame(buf, PTP_UDP4, PTP_SYNC, 2, 0, 0);
	p->flags = PKT_RX_TSTAMP;
	p->tstamp = 4000;
	conv_offset = fuzz_tsc - 4000 - 50;	/* 50 ns before the burst's TSC; egress its third stamp: +300 */
	udp_csum_set(ip, udp, pseudo);
	fwd_tc_route(0, &nic_in, &nic_out, p, fuzz_tsc);
	assert_int_equal(correction(p, PTP_UDP4), 350ll << 16);
	assert_int_equal(inet_csum_fold(inet_sum(pseudo, 12) + inet_sum(udp, ulen)), 0);
	assert_int_equal(counts()->count[TC_sync], 1);
	assert_int_equal(counts()->count[TC_rx_hwtstamp], 1);
	p = frame(buf, PTP_UDP6, PTP_SYNC, 3, PTP_FLAG_TWO_STEP, 0);
	memcpy(before, buf, sizeof(buf));
	fwd_tc_route(0, &nic_in, &nic_out, p, fuzz_tsc);
	assert_memory_equal(buf, before, sizeof(buf));
	assert_false(p->flags & PKT_TX_TSTAMP);
	p = frame(buf, PTP_UDP6, PTP_FOLLOW_UP, 3, 0, 1ll << 16);
	fwd_tc_route(0, &nic_in, &nic_out, p, fuzz_tsc);
	assert_int_equal(correction(p, PTP_UDP6), (1 + 100) << 16);
	assert_true(udp6_csum_ok(buf));
	p = frame(buf, PTP_UDP4, PTP_DELAY_REQ, 4, 0, 0);
	buf[ETH_HLEN + 9] = 6;	/* TCP to port 319 */
	memcpy(before, buf, sizeof(buf));
	fwd_tc_route(0, &nic_in, &nic_out, p, fuzz_tsc);
	assert_memory_equal(buf, before, sizeof(buf));
	assert_int_equal(counts()->count[TC_delay_req], 1);
	assert_int_equal(counts()->count[TC_follow_up], 1);
	assert_int_equal(counts()->count[TC_tx_swtstamp], 3);
	assert_int_equal(counts()->count[TC_tx_hwtstamp], 0);
	assert_int_equal(counts()->count[TC_rx_swtstamp], 2);
	assert_int_equal(counts()->residence_max, 350);
	assert_int_equal(flagged + forwarded + bursts, 0);
}

/* Routed ptp_tc=p2p over UDPv4: link 0 (port0, 10.0.0.254) answers a
 * Pdelay_Req sent to 224.0.0.107, and one over L2 and over UDPv6 (each
 * to its transport's Pdelay group), from its address; a Pdelay_Req to
 * another MAC (unicast: routed through) and a Sync are not the link's;
 * link 0 measures its link (4050 ns, as test_p2p) with its own
 * Pdelay_Req. A routed one-step Sync over UDPv4 gets residence + 4050 ns
 * (its checksum right), a two-step one over UDPv6 the same in its
 * Follow_Up; a routed Delay_Req and a routed Pdelay_Req (unicast, to a
 * host beyond) pass unchanged. A VLAN sub-interface without an IPv4
 * address runs no peer delay: its Pdelay messages end counted
 * pdelay_unserved, nothing sent, and a Sync in on it gets its residence
 * alone (no_peer_delay); one with an address answers through its own NIC
 * (which tags), from its address, its exchanges run by port0's core. */
static void test_routed_p2p(void **state)
{
	(void)state;
	uint8_t buf[256], before[256], pseudo[12];
	static const uint8_t none[16];
	static struct nic vlan = { .port = NIC_MAX_PORTS, .name = "port0.100" };
	fwd_ptp_tc = FWD_TC_P2P;
	ptp_conf.transport = PTP_UDP4;
	fwd_tc_route_init(0, &nic_in, &nic_in, 0x0a0000fe, none);
	fwd_tc_route_init(NIC_MAX_PORTS, &vlan, &nic_in, 0, none);
	struct ptp_port *pp = &tc_pd[0];
	assert_ptr_equal(pp->nic, &nic_in);
	assert_int_equal(pp->ip, 0x0a0000fe);
	assert_null(tc_pd[NIC_MAX_PORTS].nic);
	struct pkt *p = frame(buf, PTP_UDP4, PTP_PDELAY_REQ, 40, 0, 0);
	assert_int_equal(get32(buf + ETH_HLEN + 16), 0xe000006b);	/* 224.0.0.107 */
	assert_int_equal(routed_local(p), 1);
	assert_int_equal(p->len, 0);	/* freed */
	assert_int_equal(routed_local(frame(buf, PTP_L2, PTP_PDELAY_REQ, 41, 0, 0)), 1);
	assert_int_equal(routed_local(frame(buf, PTP_UDP6, PTP_PDELAY_REQ, 42, 0, 0)), 1);
	assert_int_equal(nsent, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(sent[i].msg_type, PTP_PDELAY_RESP);
		assert_int_equal(sent[i].seq, 40 + i);
	}
	p = frame(buf, PTP_UDP4, PTP_PDELAY_REQ, 43, 0, 0);
	memcpy(buf, mac_of_port0, 6);	/* unicast to the router's MAC: routed, not the link's */
	assert_int_equal(routed_local(p), 0);
	assert_int_equal(routed_local(frame(buf, PTP_UDP4, PTP_SYNC, 44, 0, 0)), 0);
	assert_int_equal(nsent, 3);
	assert_int_equal(counts()->count[TC_pdelay], 3);
	/* the link measured: port0's Pdelay_Req, the neighbour's answer */
	exchange_on(buf, 1000000 + IN_AHEAD - 10000, 10100, 5000, 1);
	assert_true(pp->have_peer_delay);
	assert_int_equal(pp->peer_delay, 4050);
	assert_int_equal(counts()->count[TC_pdelay], 5);
	/* routed Syncs: residence + the ingress link's delay */
	sw_calls = 0;
	p = frame(buf, PTP_UDP4, PTP_SYNC, 50, 0, 0);
	uint8_t *ip = buf + ETH_HLEN, *udp = ip + IPV4_HLEN;
	uint16_t ulen = udp_csum_set(ip, udp, pseudo);
	fwd_tc_route(0, &nic_in, &nic_out, p, fuzz_tsc);
	assert_int_equal(correction(p, PTP_UDP4), (100ll + 4050) << 16);
	assert_int_equal(inet_csum_fold(inet_sum(pseudo, 12) + inet_sum(udp, ulen)), 0);
	fwd_tc_route(0, &nic_in, &nic_out, frame(buf, PTP_UDP6, PTP_SYNC, 51, PTP_FLAG_TWO_STEP, 0), fuzz_tsc);
	p = frame(buf, PTP_UDP6, PTP_FOLLOW_UP, 51, 0, 1 << 16);
	fwd_tc_route(0, &nic_in, &nic_out, p, fuzz_tsc);
	assert_int_equal(correction(p, PTP_UDP6), (1 + 100ll + 4050) << 16);
	assert_true(udp6_csum_ok(buf));
	p = frame(buf, PTP_UDP4, PTP_DELAY_REQ, 52, 0, 0);
	memcpy(before, buf, sizeof(buf));
	fwd_tc_route(0, &nic_in, &nic_out, p, fuzz_tsc);
	assert_memory_equal(buf, before, sizeof(buf));
	p = frame(buf, PTP_UDP4, PTP_PDELAY_REQ, 53, 0, 0);
	memcpy(buf, mac_of_port0, 6);
	memcpy(before, buf, sizeof(buf));
	nsent = 0;
	fwd_tc_route(0, &nic_in, &nic_out, p, fuzz_tsc);
	assert_memory_equal(buf, before, sizeof(buf));
	assert_int_equal(nsent, 0);
	assert_int_equal(counts()->count[TC_sync], 1);
	assert_int_equal(counts()->count[TC_follow_up], 1);
	assert_int_equal(counts()->count[TC_delay_req], 0);
	assert_int_equal(counts()->count[TC_no_peer_delay], 0);
	/* the sub-interface without an address */
	assert_int_equal(fwd_tc_route_local(NIC_MAX_PORTS, &nic_in, frame(buf, PTP_UDP4, PTP_PDELAY_REQ, 60, 0, 0), fuzz_tsc), 1);
	assert_int_equal(counts()->count[TC_pdelay_unserved], 1);
	assert_int_equal(nsent, 0);
	sw_calls = 0;
	p = frame(buf, PTP_UDP4, PTP_SYNC, 61, 0, 0);
	fwd_tc_route(NIC_MAX_PORTS, &nic_in, &nic_out, p, fuzz_tsc);
	assert_int_equal(correction(p, PTP_UDP4), 100ll << 16);
	assert_int_equal(counts()->count[TC_no_peer_delay], 1);
	assert_int_equal(counts()->count[TC_pdelay], 5);
	assert_int_equal(counts()->count[TC_pdelay_refused], 0);
	/* a sub-interface with an address */
	static struct nic vlan2 = { .port = NIC_MAX_PORTS + 1, .name = "port0.200" };
	fwd_tc_route_init(NIC_MAX_PORTS + 1, &vlan2, &nic_in, 0x0a0001fe, none);
	assert_ptr_equal(tc_pd[NIC_MAX_PORTS + 1].nic, &vlan2);
	assert_ptr_equal(tc_pd_port[NIC_MAX_PORTS + 1], &nic_in);
	assert_int_equal(tc_pd[NIC_MAX_PORTS + 1].ip, 0x0a0001fe);
	assert_int_equal(fwd_tc_route_local(NIC_MAX_PORTS + 1, &nic_in, frame(buf, PTP_UDP4, PTP_PDELAY_REQ, 62, 0, 0),
					    fuzz_tsc), 1);
	assert_int_equal(nsent, 1);
	assert_int_equal(sent[0].msg_type, PTP_PDELAY_RESP);
	assert_ptr_equal(send_nic, &vlan2);
	assert_int_equal(counts()->count[TC_pdelay], 6);
	assert_int_equal(flagged + forwarded + bursts, 0);
}

/* /metrics: the `fwd` line's counters by event, the residence sum and
 * maximum, for the ports fwd runs on; nothing with ptp_tc=off. */
static void test_metrics(void **state)
{
	(void)state;
	uint8_t buf[256];
	char page[8192];
	run(frame(buf, PTP_L2, PTP_SYNC, 9, PTP_FLAG_TWO_STEP, 0));
	run(frame(buf, PTP_L2, PTP_FOLLOW_UP, 9, 0, 0));
	struct prom o = { .b = page, .len = sizeof(page) };
	fwd_ptp_tc = 1;
	fwd_tc_metrics(&o, (const int[]){ 1, 0 });
	page[o.used] = 0;
	assert_non_null(strstr(page, "linerate_fwd_ptp_tc_total{port=\"port0\",event=\"follow_up\"} 1\n"));
	assert_non_null(strstr(page, "linerate_fwd_ptp_tc_total{port=\"port0\",event=\"no_sync\"} 0\n"));
	assert_non_null(strstr(page, "linerate_fwd_ptp_tc_residence_seconds_total{port=\"port0\"} 0.000000100\n"));
	assert_non_null(strstr(page, "linerate_fwd_ptp_tc_residence_max_seconds{port=\"port0\"} 0.000000100\n"));
	assert_null(strstr(page, "port1"));
	assert_null(strstr(page, "residence_ns\""));	/* the sum is its own family */
	o = (struct prom){ .b = page, .len = sizeof(page) };
	fwd_ptp_tc = 0;
	fwd_tc_metrics(&o, (const int[]){ 1, 0 });
	assert_int_equal(o.used, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_two_step_sync, setup),
		cmocka_unit_test_setup(test_two_step_sync_hw_tx, setup),
		cmocka_unit_test_setup(test_sync_follow_up_one_burst, setup),
		cmocka_unit_test_setup(test_one_step_sync_hw, setup),
		cmocka_unit_test_setup(test_delay_req_udp_checksum, setup),
		cmocka_unit_test_setup(test_delay_req_hw_tx_into_delay_resp, setup),
		cmocka_unit_test_setup(test_vlan_tagged, setup),
		cmocka_unit_test_setup(test_refused, setup),
		cmocka_unit_test_setup(test_p2p, setup),
		cmocka_unit_test_setup(test_p2p_rate_ratio, setup),
		cmocka_unit_test_setup(test_metrics, setup),
		cmocka_unit_test_setup(test_udp6, setup),
		cmocka_unit_test_setup(test_routed, setup),
		cmocka_unit_test_setup(test_routed_p2p, setup),
		cmocka_unit_test_setup(test_maybe, setup),
		cmocka_unit_test_setup(test_by_bit, setup),
		cmocka_unit_test_setup(test_due_given_up, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
