/* Unit tests for fwd's transparent clock (apps/fwd/tc.c, included for its
 * counters): the correctionField of each message it touches, exact; the
 * UDP checksum against a full recomputation; every refusal counted and
 * the frame left as it came. The port clocks are stand-ins: a software
 * stamp is the TSC plus 100 ns per call (so a frame's egress stamp is 100
 * ns after its ingress one), a hardware stamp maps to the egress clock
 * as ns + conv_offset; the egress port stamps in hardware when out_hw,
 * its ring grants a TX stamp request while grant is set, and the stamp
 * of request tx_seq_in is tx_ns once in. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "apps/fwd/tc.c"

uint64_t fuzz_tsc = 1000000;
int ncpus = 1;
static int64_t sw_calls, conv_offset, tx_ns;
static int out_hw, grant, flagged;
static uint32_t tx_seq_in;
static struct phc clk_in, clk_out;

static int tx_burst(struct nic *nic, int q, struct pkt **pkts, int n)
{
	(void)nic, (void)q;
	for (int i = 0; i < n; i++) {
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
	assert_ptr_equal(c, &clk_out);	/* residence is taken in the egress clock */
	return (int64_t)t + 100 * ++sw_calls;
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
 * flags and correctionField corr (ns * 2^16), over transport t. */
static struct pkt *frame(uint8_t *buf, enum ptp_transport t, uint8_t type, uint16_t seq, uint16_t flags, int64_t corr)
{
	static struct pkt p;
	struct ptp_msg m = { .msg_type = type, .version = 2, .flags = flags, .correction = corr, .seq = seq,
			     .source = { { 2, 0, 0, 0xff, 0xfe, 0, 0, 1 }, 1 } };
	memset(buf, 0, 256);
	size_t hl = ptp_frame_hlen(t), ml = ptp_build(buf + hl, 256 - hl, &m);
	assert_true(ml > 0);
	p = (struct pkt){ .data = buf, .len = (uint16_t)ptp_frame_build(buf, t, mac, 0x0a000001, type, ml) };
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
	out_hw = grant = flagged = 0;
	tx_seq_in = 0;
	clk_out.tx.seq = 0;
	return 0;
}

static void run(struct pkt *p)
{
	assert_int_equal(fwd_tc_tx(&nic_in, &nic_out, 0, &p, 1), 1);
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
	assert_int_equal(fwd_tc_tx(&nic_in, &nic_out, 0, pk, 2), 2);
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

/* Delay_Req over UDP/IPv4: corrected in place, the UDP checksum equal to
 * a full recomputation (RFC 768 pseudo-header). */
static void test_delay_req_udp_checksum(void **state)
{
	(void)state;
	uint8_t buf[256];
	struct pkt *p = frame(buf, PTP_UDP4, PTP_DELAY_REQ, 3, 0, -(1ll << 20));
	uint8_t *ip = buf + ETH_HLEN, *udp = ip + IPV4_HLEN;
	uint16_t ulen = get16(udp + 4);
	uint8_t pseudo[12];
	memcpy(pseudo, ip + 12, 8);
	pseudo[8] = 0;
	pseudo[9] = 17;
	put16(pseudo + 10, ulen);
	put16(udp + 6, inet_csum_fold(inet_sum(pseudo, 12) + inet_sum(udp, ulen)));
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
	/* not PTP, and PTP messages a TC passes unchanged: nothing counted */
	p = frame(buf, PTP_L2, PTP_ANNOUNCE, 4, 0, 0);
	run(p);
	p = frame(buf, PTP_L2, PTP_SYNC, 5, 0, 0);
	put16(buf + 12, 0x88b5);
	run(p);
	assert_int_equal(counts()->count[TC_sync] + counts()->count[TC_delay_req] + counts()->count[TC_follow_up], 0);
	assert_int_equal(counts()->count[TC_bad_ptp], 1);
	assert_int_equal(counts()->count[TC_rx_swtstamp] + counts()->count[TC_rx_hwtstamp], 2);
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
	assert_non_null(strstr(page, "linerate_fwd_ptp_tc_residence_ns_total{port=\"port0\"} 100\n"));
	assert_non_null(strstr(page, "linerate_fwd_ptp_tc_residence_max_ns{port=\"port0\"} 100\n"));
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
		cmocka_unit_test_setup(test_one_step_sync_hw, setup),
		cmocka_unit_test_setup(test_delay_req_udp_checksum, setup),
		cmocka_unit_test_setup(test_refused, setup),
		cmocka_unit_test_setup(test_metrics, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
