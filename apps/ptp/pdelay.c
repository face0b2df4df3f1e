/*
 * The peer delay mechanism (IEEE 1588-2008 11.4), as ptp4l's
 * delay_mechanism P2P: every port, whatever its state, measures the link
 * to its neighbour with Pdelay_Req (t1 sent, two-step) and answers the
 * neighbour's with Pdelay_Resp (t2, the request's receipt) and
 * Pdelay_Resp_Follow_Up (t3, the response's departure); the requester
 * takes t4 at the response's receipt:
 *   meanLinkDelay = (r * (t4 - t1) - (t3 + corrections - t2)) / 2
 * (11.4.3; 802.1AS-2011 11.2.15.2.4, in the neighbour's time base) through
 * the same moving median as the end-to-end path delay, r the
 * neighborRateRatio (802.1AS 10.2.5.7, 11.2.15.2.3): the rate of the
 * neighbour's clock over ours, (t3c - t3c') / (t4 - t4') over
 * PTP_NRR_SPAN exchanges (ptp4l does the same in every P2P mode); a
 * window off 1 by more than PTP_NRR_MAX_PPM (two clocks within 802.1AS
 * B.1.1's +-100 ppm) is counted and the last ratio kept. A slave's
 * offset uses it in place of the path delay. Pdelay messages go to
 * 01:80:C2:00:00:0E (224.0.0.107 over UDPv4, ff02::6b over UDPv6), net/ptp.c's framing.
 */
#include <string.h>
#include "apps/ptp/ptp.h"
#include "kernel/time.h"

static uint64_t interval(int log2s)
{
	return log2s >= 0 ? 1000000000ull << log2s : 1000000000ull >> -log2s;
}

/* Responder: Pdelay_Resp (t2 in it, 11.4.3 c two-step), its TX stamp is
 * t3 for the Follow_Up sent once the stamp is in (pdelay_tick). */
static void answer(struct ptp_port *pp, const struct ptp_msg *req, int64_t t2)
{
	struct ptp_msg r;
	int64_t sw = 0;
	uint32_t txseq = 0;
	memset(&r, 0, sizeof(r));
	r.msg_type = PTP_PDELAY_RESP;
	r.domain = (uint8_t)ptp_conf.domain;
	r.flags = PTP_FLAG_TWO_STEP;
	r.source = pp->id;
	r.seq = req->seq;
	r.log_interval = 0x7f;
	r.ts = ptp_ts_from_ns(t2);
	r.requesting = req->source;
	if (pp->presp_pending) {	/* the last one's stamp never came: its Follow_Up is given up */
		pp->ev[PE_tx_tstamp_missing]++;
		pp->presp_pending = 0;
	}
	if (ptp_send(pp, &r, &txseq, &sw))
		return;
	pp->ev[PE_tx_pdelay_resp]++;
	pp->presp_seq = req->seq;
	pp->presp_req = req->source;
	pp->presp_corr = req->correction;
	pp->presp_txseq = txseq;
	pp->presp_t3 = sw;
	pp->presp_pending = 1;
}

static void send_resp_fup(struct ptp_port *pp, int64_t t3)
{
	struct ptp_msg f;
	memset(&f, 0, sizeof(f));
	f.msg_type = PTP_PDELAY_RESP_FOLLOW_UP;
	f.domain = (uint8_t)ptp_conf.domain;
	f.correction = pp->presp_corr;	/* the request's, returned (11.4.3 c 8) */
	f.source = pp->id;
	f.seq = pp->presp_seq;
	f.log_interval = 0x7f;
	f.ts = ptp_ts_from_ns(t3);
	f.requesting = pp->presp_req;
	pp->presp_pending = 0;
	if (!ptp_send(pp, &f, 0, 0))
		pp->ev[PE_tx_pdelay_resp_follow_up]++;
}

/* A completed exchange's t3c and t4 for the neighborRateRatio. */
static void rate_ratio(struct ptp_port *pp)
{
	if (!pp->nrr_n++) {
		pp->nrr_t3c = pp->pd.t3c;
		pp->nrr_t4 = pp->pd.t4;
		return;
	}
	if (pp->nrr_n <= PTP_NRR_SPAN)
		return;
	int64_t d3 = pp->pd.t3c - pp->nrr_t3c, d4 = pp->pd.t4 - pp->nrr_t4;
	pp->nrr_t3c = pp->pd.t3c;
	pp->nrr_t4 = pp->pd.t4;
	pp->nrr_n = 1;
	int64_t room = d4 / 1000000 * PTP_NRR_MAX_PPM;	/* timestamps < 2^32 s: no overflow */
	if (d4 <= 0 || d3 - d4 > room || d4 - d3 > room) {
		pp->ev[PE_rate_ratio_out_of_range]++;
		return;
	}
	pp->nrr = (int64_t)((double)(d3 - d4) / (double)d4 * 0x1p41);	/* |nrr| < 2^41 / 5000 */
	pp->have_nrr = 1;
}

/* All four times in: a meanLinkDelay sample. */
static void pdelay_done(struct ptp_port *pp)
{
	if (!pp->pd.have_t1 || !pp->pd.have_resp || !pp->pd.have_fup)
		return;
	pp->pd.state = 0;
	rate_ratio(pp);
	int64_t turn, resp;
	if (__builtin_sub_overflow(pp->pd.t4, pp->pd.t1, &turn) || turn > INT64_MAX / 2 || turn < INT64_MIN / 2 ||
	    __builtin_sub_overflow(pp->pd.t3c, pp->pd.t2, &resp) ||
	    __builtin_sub_overflow(ptp_rate_apply(turn, pp->nrr), resp, &turn)) {
		pp->ev[PE_sample_out_of_range]++;
		return;
	}
	pp->peer_delay = ptp_servo_delay_add(&pp->pdf, turn / 2);
	pp->have_peer_delay = 1;
	pp->multiple_peers = 0;
	pp->ev[PE_pdelay_samples]++;
}

/* A Pdelay_Resp or its Follow_Up to our outstanding request, from the peer
 * that answered first: PC_N, or the counter it ends in. */
static enum ptp_rx_count ours(struct ptp_port *pp, const struct ptp_msg *m)
{
	if (!pp->pd.state || m->seq != pp->pd.seq || memcmp(&m->requesting, &pp->id, sizeof(pp->id)))
		return PC_not_our_request;
	if (m->msg_type == PTP_PDELAY_RESP && pp->pd.have_resp &&
	    memcmp(&m->source, &pp->pd.peer, sizeof(m->source))) {
		pp->pd.state = 0;	/* two answers: a link that is not point to point (802.1AS 11.2.2) */
		pp->multiple_peers = 1;
		return PC_multiple_peers;
	}
	if (m->msg_type == PTP_PDELAY_RESP_FOLLOW_UP &&
	    (!pp->pd.have_resp || memcmp(&m->source, &pp->pd.peer, sizeof(m->source))))
		return PC_not_our_request;
	return PC_N;
}

enum ptp_rx_count ptp_pdelay_rx(struct ptp_port *pp, const struct ptp_msg *m, int64_t ts)
{
	if (m->msg_type == PTP_PDELAY_REQ) {
		answer(pp, m, ts);
		return PC_pdelay_req;
	}
	enum ptp_rx_count c = ours(pp, m);
	if (c != PC_N)
		return c;
	if ((m->msg_type == PTP_PDELAY_RESP || m->msg_type == PTP_PDELAY_RESP_FOLLOW_UP) &&
	    (m->ts.ns >= 1000000000u || m->ts.sec >= 1ull << 32))
		return PC_bad_timestamp;
	if (m->msg_type == PTP_PDELAY_RESP) {
		pp->pd.peer = m->source;
		pp->pd.t2 = ptp_ts_to_ns(m->ts);
		pp->pd.t4 = ts;
		pp->pd.corr = m->correction >> 16;
		pp->pd.have_resp = 1;
		if (!(m->flags & PTP_FLAG_TWO_STEP)) {	/* one-step responder: t3 - t2 is in the correction */
			pp->pd.t3c = pp->pd.t2 + pp->pd.corr;
			pp->pd.have_fup = 1;
		}
		pdelay_done(pp);
		return PC_pdelay_resp;
	}
	pp->pd.t3c = ptp_ts_to_ns(m->ts) + pp->pd.corr + (m->correction >> 16);
	pp->pd.have_fup = 1;
	pdelay_done(pp);
	return PC_pdelay_resp_follow_up;
}

static void send_req(struct ptp_port *pp)
{
	struct ptp_msg m;
	int64_t sw = 0;
	uint32_t txseq = 0;
	memset(&m, 0, sizeof(m));
	m.msg_type = PTP_PDELAY_REQ;
	m.domain = (uint8_t)ptp_conf.domain;
	m.source = pp->id;
	m.seq = pp->seq_pdelay++;
	m.log_interval = (int8_t)ptp_conf.log_min_pdelay_req;
	if (ptp_send(pp, &m, &txseq, &sw))
		return;
	pp->ev[PE_tx_pdelay_req]++;
	memset(&pp->pd, 0, sizeof(pp->pd));
	pp->pd.state = 1;
	pp->pd.seq = m.seq;
	pp->pd.txseq = txseq;
	pp->pd.t1 = sw;
	pp->pd.have_t1 = !txseq;
}

/* One TX stamp a peer-delay exchange waits for (t1, or t3); 1 if it came. */
static int stamp_in(struct ptp_port *pp, uint32_t seq, int64_t *ns, int *pending)
{
	int r = phc_tx_tstamp(pp->clk, seq, ns);
	if (!r)
		return 0;
	if (r < 0) {
		pp->ev[PE_tx_tstamp_missing]++;
		*pending = 0;
		return 0;
	}
	pp->ev[PE_tx_hwtstamp]++;
	return 1;
}

int ptp_pdelay_tick(struct ptp_port *pp, uint64_t now)
{
	int did = 0;
	int64_t ns;
	if (pp->presp_pending && pp->presp_txseq && stamp_in(pp, pp->presp_txseq, &ns, &pp->presp_pending)) {
		send_resp_fup(pp, ns);
		did = 1;
	} else if (pp->presp_pending && !pp->presp_txseq) {
		send_resp_fup(pp, pp->presp_t3);
		did = 1;
	}
	if (pp->pd.state && !pp->pd.have_t1 && stamp_in(pp, pp->pd.txseq, &ns, &pp->pd.state)) {
		pp->pd.t1 = ns;
		pp->pd.have_t1 = 1;
		pdelay_done(pp);
		did = 1;
	}
	if (now >= pp->next_pdelay) {	/* an exchange still open is given up */
		pp->next_pdelay = now + interval((int)ptp_conf.log_min_pdelay_req);
		send_req(pp);
		did = 1;
	}
	return did;
}

int ptp_as_capable(const struct ptp_port *pp)
{
	if (ptp_conf.transport_specific != PTP_TS_8021AS)
		return 1;
	return pp->have_peer_delay && !pp->multiple_peers && pp->peer_delay <= ptp_conf.neighbor_prop_delay_thresh;
}
