/*
 * The ordinary clock's port: state machine (9.2), foreign masters and the
 * state decision (9.3, dataset comparison in net/ptp.c), the E2E exchange
 * (11.3) and the servo, with ptp4l's log lines.
 *
 * Slave: t1 = Follow_Up preciseOriginTimestamp + Sync and Follow_Up
 * corrections, t2 = Sync receive time; t3 = Delay_Req send time, t4 =
 * Delay_Resp receiveTimestamp - its correction. path delay = median of
 * ((t2 - t1) + (t4 - t3)) / 2 over the last 10, offset = t2 - t1 - delay.
 */
#include <stdio.h>
#include <string.h>
#include "apps/ptp/ptp.h"
#include "kernel/time.h"

#define FOREIGN_THRESHOLD 2	/* Announces within 4 intervals to qualify (9.3.2.4.4) */
#define FOREIGN_WINDOW 4

const char *const ptp_state_names[PS_N] = {
#define PTP_STATE_NAME(n) #n,
	PTP_STATES(PTP_STATE_NAME)
};

uint64_t ptp_interval_ns(int log2s)
{
	return log2s >= 0 ? 1000000000ull << log2s : 1000000000ull >> -log2s;
}

#define TS_SEC_MAX (1ull << 32)	/* timestamps before 2106: ns fit 2^62 with any correction */
#define SAMPLE_MAX (1ll << 62)	/* |offset| and |delay| samples used: differences of two fit */

/* A timestamp the arithmetic below may use (5.3.3: ns < 10^9). */
static int ts_ok(struct ptp_ts t)
{
	return t.sec < TS_SEC_MAX && t.ns < 1000000000u;
}

/* a - b - c into *out; 0, or -1 if it overflows or is beyond SAMPLE_MAX. */
static int sample(int64_t a, int64_t b, int64_t c, int64_t *out)
{
	int64_t x;
	if (__builtin_sub_overflow(a, b, &x) || __builtin_sub_overflow(x, c, out))
		return -1;
	return *out > -SAMPLE_MAX && *out < SAMPLE_MAX ? 0 : -1;
}

/* A logMessageInterval from the wire, clamped to PTP_LOG_MIN..PTP_LOG_MAX. */
static int8_t wire_log(int8_t v)
{
	return v < PTP_LOG_MIN ? PTP_LOG_MIN : v > PTP_LOG_MAX ? PTP_LOG_MAX : v;
}

void ptp_fmt_id(char *buf, size_t len, const uint8_t id[8], int port)
{
	int n = snprintf(buf, len, "%02x%02x%02x.%02x%02x.%02x%02x%02x", id[0], id[1], id[2], id[3], id[4],
			 id[5], id[6], id[7]);
	if (port >= 0 && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "-%d", port);
}

/* A console line's start, as ptp4l's: "ptp[seconds.ms since boot]: port0: ". */
static void stamp(const struct ptp_port *pp)
{
	uint64_t t = now_ns();
	printf("ptp[%lu.%03lu]: %s: ", t / 1000000000u, t / 1000000u % 1000, pp->nic->name);
}

void ptp_port_say(const struct ptp_port *pp, const char *what)
{
	stamp(pp);
	printf("%s\n", what);
}

static void say(const struct ptp_port *pp, const char *fmt, const char *a, const char *b)
{
	stamp(pp);
	printf(fmt, a, b);
	printf("\n");
}

void ptp_own_dataset(const struct ptp_port *pp, struct ptp_dataset *d)
{
	memset(d, 0, sizeof(*d));
	d->priority1 = (uint8_t)ptp_conf.priority1;
	d->priority2 = (uint8_t)ptp_conf.priority2;
	d->quality.clock_class = ptp_conf.role == ROLE_SLAVE ? 255 : (uint8_t)ptp_conf.clock_class;
	d->quality.clock_accuracy = 0xfe;	/* unknown */
	d->quality.offset_scaled_log_variance = 0xffff;
	memcpy(d->gm_id, pp->id.clock_id, 8);
	d->sender = pp->id;
	d->receiver = pp->id;
}

int ptp_following(const struct ptp_port *pp)
{
	return pp->state == PS_UNCALIBRATED || pp->state == PS_SLAVE;
}

/* RX timestamping follows the state: a master needs Delay_Req (P2P:
 * Pdelay_Req) times, a slave Sync times (QEMU's igb stamps one message
 * type; the others take software stamps). */
static void set_hwtstamp(struct ptp_port *pp)
{
	if (!pp->hw)
		return;
	int rx = pp->state != PS_MASTER ? PTP_SYNC : ptp_conf.delay_mechanism == DM_P2P ? PTP_PDELAY_REQ : PTP_DELAY_REQ;
	phc_hwtstamp(pp->clk, rx, 1, ptp_conf.transport != PTP_L2);
}

void ptp_port_to_state(struct ptp_port *pp, enum port_state s, const char *event)
{
	if (pp->state == s)
		return;
	stamp(pp);
	printf("port %d: %s to %s on %s\n", pp->id.port, ptp_state_names[pp->state], ptp_state_names[s], event);
	pp->state = s;
	pp->state_since = now_ns();
	pp->sync_valid = 0;
	pp->dreq_state = 0;
	pp->fup_pending = 0;
	if (s != PS_UNCALIBRATED && s != PS_SLAVE) {	/* no master followed: no servo readings */
		pp->sstate = SERVO_UNLOCKED;
		pp->last_offset = 0;
		pp->last_freq = 0;
		pp->path_delay = 0;
		pp->have_delay = 0;
	}
	if (s == PS_MASTER) {
		uint64_t now = now_ns();
		pp->next_announce = now;
		pp->next_sync = now;
		pp->parent = -1;
	}
	set_hwtstamp(pp);
}

void ptp_port_init(struct ptp_port *pp, struct nic *nic)
{
	memset(pp, 0, sizeof(*pp));
	pp->nic = nic;
	pp->clk = phc_of(nic);
	pp->hw = phc_is_hw(pp->clk) && ptp_conf.time_stamping == 0;
	ptp_clock_id_from_mac(pp->id.clock_id, nic->mac);
	pp->id.port = 1;
	pp->parent = -1;
	pp->state = PS_INITIALIZING;
	pp->log_min_delay_req = (int8_t)ptp_conf.log_min_delay_req;
	ptp_servo_init(&pp->servo, !pp->hw, 0, 0);
	pp->next_summary = now_ns() + ptp_interval_ns((int)ptp_conf.summary_interval);
}

/* Foreign master record for an Announce's sender; NULL if the table is full. */
static struct foreign *foreign_of(struct ptp_port *pp, const struct ptp_port_id *id)
{
	struct foreign *free = 0;
	for (int i = 0; i < FOREIGN_MAX; i++) {
		struct foreign *f = &pp->foreign[i];
		if (f->used && !memcmp(&f->id, id, sizeof(*id)))
			return f;
		if (!f->used && !free)
			free = f;
	}
	if (free) {
		char b[32];
		memset(free, 0, sizeof(*free));
		free->used = 1;
		free->id = *id;
		ptp_fmt_id(b, sizeof(b), id->clock_id, id->port);
		say(pp, "new foreign master %s%s", b, "");
	}
	return free;
}

/* Qualified (two Announces within four intervals) and not timed out. */
static int foreign_ok(const struct foreign *f, uint64_t now)
{
	uint64_t iv = ptp_interval_ns(f->log_interval);
	if (!f->used || !f->last_ns[1])
		return 0;
	if (now - f->last_ns[0] > (uint64_t)ptp_conf.announce_receipt_timeout * iv)
		return 0;
	return f->last_ns[0] - f->last_ns[1] <= FOREIGN_WINDOW * iv;
}

int ptp_port_erbest(struct ptp_port *pp, uint64_t now)
{
	int best = -1;
	for (int i = 0; i < FOREIGN_MAX; i++) {
		struct foreign *f = &pp->foreign[i];
		if (f->used && !foreign_ok(f, now) && now - f->last_ns[0] > 4 * FOREIGN_WINDOW * ptp_interval_ns(f->log_interval))
			f->used = 0;	/* long gone */
		if (foreign_ok(f, now) && (best < 0 || ptp_dataset_cmp(&f->ds, &pp->foreign[best].ds) > 0))
			best = i;
	}
	return best;
}

void ptp_port_follow(struct ptp_port *pp, int best)
{
	char b[32];
	pp->parent = best;
	ptp_fmt_id(b, sizeof(b), pp->foreign[best].ds.gm_id, -1);
	say(pp, "selected best master clock %s%s", b, "");
	pp->sync_valid = 0;
	pp->dreq_state = 0;
	pp->have_delay = 0;
	pp->have_pair = 0;
	ptp_servo_delay_reset(&pp->df);
	ptp_servo_reset(&pp->servo);
	pp->next_delay_req = now_ns();
	if (pp->state == PS_UNCALIBRATED || pp->state == PS_SLAVE)
		return;
	ptp_port_to_state(pp, PS_UNCALIBRATED, "RS_SLAVE");
}

static int from_parent(const struct ptp_port *pp, const struct ptp_msg *m)
{
	return pp->parent >= 0 && !memcmp(&pp->foreign[pp->parent].id, &m->source, sizeof(m->source));
}

static void count(struct ptp_port *pp, enum ptp_rx_count c)
{
	pp->rx_count[c]++;
}

static void rx_announce(struct ptp_port *pp, const struct ptp_msg *m, uint64_t now)
{
	if (m->announce.steps_removed >= 255) {
		count(pp, PC_steps_removed_255);
		return;
	}
	struct foreign *f = foreign_of(pp, &m->source);
	if (!f) {
		count(pp, PC_foreign_table_full);
		return;
	}
	f->last_ns[1] = f->last_ns[0];
	f->last_ns[0] = now;
	f->log_interval = wire_log(m->log_interval);
	f->utc_offset = m->announce.utc_offset;
	f->time_source = m->announce.time_source;
	f->time_flags = m->flags & PTP_FLAGS_TIME_PROPERTIES;
	ptp_dataset_of(&f->ds, m, &pp->id);
	ptp_clock_decide(now);
	int idx = (int)(f - pp->foreign);
	count(pp, ptp_conf.role != ROLE_MASTER && idx == pp->parent ? PC_announce : PC_other_master);
}

/* Summary every summary_interval (ptp4l's clock_stats_update). */
static void summary(struct ptp_port *pp, uint64_t now)
{
	if (now < pp->next_summary)
		return;
	pp->next_summary = now + ptp_interval_ns((int)ptp_conf.summary_interval);
	struct series_result o, f, d;
	if (ptp_servo_series_result(&pp->s_offset, &o) || ptp_servo_series_result(&pp->s_freq, &f))
		return;
	stamp(pp);
	printf("rms %4ld max %4ld freq %+6ld +/- %3ld", (int64_t)(o.rms + 0.5), (int64_t)(o.max_abs + 0.5),
	       (int64_t)f.mean, (int64_t)(f.stddev + 0.5));
	if (!ptp_servo_series_result(&pp->s_delay, &d))
		printf(" delay %5ld +/- %3ld", (int64_t)(d.mean + 0.5), (int64_t)(d.stddev + 0.5));
	printf("\n");
	ptp_servo_series_reset(&pp->s_offset);
	ptp_servo_series_reset(&pp->s_freq);
	ptp_servo_series_reset(&pp->s_delay);
}

/* One offset sample into the servo (ptp4l clock_synchronize). */
static void synchronize(struct ptp_port *pp, int64_t t1c, int64_t t2)
{
	pp->pair_t1c = t1c;
	pp->pair_t2 = t2;
	pp->have_pair = 1;
	int64_t offset;
	if (ptp_conf.delay_mechanism == DM_P2P) {	/* the link's delay (11.4), not the path's */
		pp->path_delay = pp->peer_delay;
		pp->have_delay = pp->have_peer_delay;
	}
	if (!pp->have_delay)
		return;
	if (sample(t2, t1c, pp->path_delay, &offset)) {
		pp->ev[PE_sample_out_of_range]++;
		return;
	}
	enum servo_state st;
	int8_t li = pp->sync_log_interval;
	ptp_servo_sync_interval(&pp->servo, li >= 0 ? (double)(1 << li) : 1.0 / (1 << -li));
	double adj = ptp_servo_sample(&pp->servo, offset, (uint64_t)t2, &st);
	pp->sstate = st;
	pp->last_offset = offset;
	pp->last_freq = adj;
	stamp(pp);
	printf("master offset %10ld s%d freq %+7ld path delay %9ld\n", offset, st,
	       (int64_t)(adj < 0 ? adj - 0.5 : adj + 0.5), pp->path_delay);
	switch (st) {
	case SERVO_JUMP:
		phc_adjfreq(pp->clk, (int64_t)-adj);
		phc_adjtime(pp->clk, -offset);
		pp->ev[PE_steps]++;
		pp->dreq_state = 0;	/* its t3 was taken before the step */
		pp->sync_valid = 0;
		pp->have_pair = 0;
		break;
	case SERVO_LOCKED:
		phc_adjfreq(pp->clk, (int64_t)-adj);
		ptp_servo_series_add(&pp->s_offset, (double)offset);
		ptp_servo_series_add(&pp->s_freq, adj);
		ptp_servo_series_add(&pp->s_delay, (double)pp->path_delay);
		if (pp->state == PS_UNCALIBRATED)
			ptp_port_to_state(pp, PS_SLAVE, "MASTER_CLOCK_SELECTED");
		break;
	default:
		break;
	}
}

static void rx_sync(struct ptp_port *pp, const struct ptp_msg *m, int64_t ts)
{
	if (!(m->flags & PTP_FLAG_TWO_STEP) && !ts_ok(m->ts)) {
		count(pp, PC_bad_timestamp);
		return;
	}
	pp->sync_valid = 1;
	pp->sync_seq = m->seq;
	pp->t2 = ts;
	pp->sync_corr = m->correction >> 16;
	pp->sync_log_interval = wire_log(m->log_interval);
	count(pp, PC_sync);
	if (!(m->flags & PTP_FLAG_TWO_STEP)) {	/* one-step: the origin is in the Sync */
		synchronize(pp, ptp_ts_to_ns(m->ts) + pp->sync_corr, pp->t2);
	}
}

static void rx_follow_up(struct ptp_port *pp, const struct ptp_msg *m)
{
	if (!pp->sync_valid || m->seq != pp->sync_seq) {
		count(pp, PC_no_matching_sync);
		return;
	}
	pp->sync_valid = 0;
	if (!ts_ok(m->ts)) {
		count(pp, PC_bad_timestamp);
		return;
	}
	count(pp, PC_follow_up);
	pp->up_rate_offset = m->rate_offset;
	synchronize(pp, ptp_ts_to_ns(m->ts) + pp->sync_corr + (m->correction >> 16), pp->t2);
}

/* Both halves of the Delay_Req exchange in: a path delay sample. */
static void delay_done(struct ptp_port *pp)
{
	if (!pp->have_t3 || !pp->have_t4)
		return;
	pp->dreq_state = 0;
	int64_t ms, sm;
	if (sample(pp->t2c, pp->t1c, 0, &ms) || sample(pp->t4c, pp->t3, 0, &sm)) {
		pp->ev[PE_sample_out_of_range]++;
		return;
	}
	int64_t d = ms / 2 + sm / 2;
	pp->path_delay = ptp_servo_delay_add(&pp->df, d);
	pp->have_delay = 1;
}

static void rx_delay_resp(struct ptp_port *pp, const struct ptp_msg *m)
{
	if (pp->dreq_state != 1 || m->seq != pp->dreq_seq ||
	    memcmp(&m->requesting, &pp->id, sizeof(pp->id))) {
		count(pp, PC_not_our_request);
		return;
	}
	if (!ts_ok(m->ts)) {
		count(pp, PC_bad_timestamp);
		return;
	}
	count(pp, PC_delay_resp);
	pp->t4c = ptp_ts_to_ns(m->ts) - (m->correction >> 16);
	pp->have_t4 = 1;
	pp->log_min_delay_req = wire_log(m->log_interval);
	delay_done(pp);
}

/* Master: answer a Delay_Req with its receive time (11.3.2). */
static void rx_delay_req(struct ptp_port *pp, const struct ptp_msg *m, int64_t ts)
{
	count(pp, PC_delay_req);
	struct ptp_msg r;
	memset(&r, 0, sizeof(r));
	r.msg_type = PTP_DELAY_RESP;
	r.domain = (uint8_t)ptp_conf.domain;
	r.correction = m->correction;
	r.source = pp->id;
	r.seq = m->seq;
	r.log_interval = (int8_t)ptp_conf.log_min_delay_req;
	r.ts = ptp_ts_from_ns(ptp_clock_ns(pp, ts));
	r.requesting = m->source;
	if (!ptp_send(pp, &r, 0, 0))
		pp->ev[PE_tx_delay_resp]++;
}

void ptp_port_rx(struct ptp_port *pp, const struct ptp_msg *m, int64_t ts)
{
	uint64_t now = now_ns();
	int slave = pp->state == PS_UNCALIBRATED || pp->state == PS_SLAVE;
	switch (m->msg_type) {
	case PTP_ANNOUNCE:
		rx_announce(pp, m, now);
		return;
	case PTP_PDELAY_REQ:
	case PTP_PDELAY_RESP:
	case PTP_PDELAY_RESP_FOLLOW_UP:
		count(pp, ptp_conf.delay_mechanism == DM_P2P ? ptp_pdelay_rx(pp, m, ts) : PC_wrong_delay_mechanism);
		return;
	case PTP_DELAY_REQ:
		if (ptp_conf.delay_mechanism == DM_P2P)
			count(pp, PC_wrong_delay_mechanism);
		else if (pp->state != PS_MASTER)
			count(pp, PC_wrong_state);
		else
			rx_delay_req(pp, m, ts);
		return;
	default:
		break;
	}
	if (!slave) {
		count(pp, PC_wrong_state);
		return;
	}
	if (!from_parent(pp, m)) {
		count(pp, PC_not_from_master);
		return;
	}
	if (m->msg_type == PTP_SYNC)
		rx_sync(pp, m, ts);
	else if (m->msg_type == PTP_FOLLOW_UP)
		rx_follow_up(pp, m);
	else
		rx_delay_resp(pp, m);
}

static void header(const struct ptp_port *pp, struct ptp_msg *m, uint8_t type, uint16_t seq, int8_t li)
{
	memset(m, 0, sizeof(*m));
	m->msg_type = type;
	m->domain = (uint8_t)ptp_conf.domain;
	m->source = pp->id;
	m->seq = seq;
	m->log_interval = li;
}

/* Announce: our own clock as grandmaster, or (a boundary clock's master
 * port) the parent's grandmaster and time properties, one step further
 * (9.5.3, 13.5). */
static void send_announce(struct ptp_port *pp)
{
	struct ptp_msg m;
	struct ptp_dataset own;
	const struct foreign *f = ptp_clock_parent();
	const struct ptp_dataset *gm = f ? &f->ds : &own;
	ptp_own_dataset(pp, &own);
	header(pp, &m, PTP_ANNOUNCE, pp->seq_announce++, (int8_t)ptp_conf.log_announce);
	m.flags = f ? f->time_flags : PTP_FLAG_PTP_TIMESCALE;
	m.announce.origin = ptp_ts_from_ns(ptp_clock_ns(pp, phc_gettime(pp->clk)));
	m.announce.utc_offset = f ? f->utc_offset : 37;
	m.announce.priority1 = gm->priority1;
	m.announce.quality = gm->quality;
	m.announce.priority2 = gm->priority2;
	memcpy(m.announce.gm_id, gm->gm_id, 8);
	m.announce.steps_removed = f ? (uint16_t)(gm->steps_removed + 1) : 0;
	m.announce.time_source = f ? f->time_source : 0xa0;	/* INTERNAL_OSCILLATOR */
	if (!ptp_send(pp, &m, 0, 0))
		pp->ev[PE_tx_announce]++;
}

static void send_follow_up(struct ptp_port *pp, int64_t t1)
{
	struct ptp_msg m;
	header(pp, &m, PTP_FOLLOW_UP, pp->fup_seq, (int8_t)ptp_conf.log_sync);
	m.ts = ptp_ts_from_ns(ptp_clock_ns(pp, t1));
	if (!ptp_send(pp, &m, 0, 0))
		pp->ev[PE_tx_follow_up]++;
}

static void send_sync(struct ptp_port *pp)
{
	struct ptp_msg m;
	int64_t sw = 0;
	uint32_t txseq = 0;
	header(pp, &m, PTP_SYNC, pp->seq_sync++, (int8_t)ptp_conf.log_sync);
	m.flags = PTP_FLAG_TWO_STEP;
	m.ts = ptp_ts_from_ns(ptp_clock_ns(pp, phc_gettime(pp->clk)));
	if (ptp_send(pp, &m, &txseq, &sw))
		return;
	pp->ev[PE_tx_sync]++;
	pp->fup_seq = m.seq;
	if (!txseq) {
		send_follow_up(pp, sw);
		return;
	}
	pp->fup_pending = 1;
	pp->fup_txseq = txseq;
}

static void send_delay_req(struct ptp_port *pp)
{
	struct ptp_msg m;
	int64_t sw = 0;
	uint32_t txseq = 0;
	header(pp, &m, PTP_DELAY_REQ, pp->seq_delay_req++, 0x7f);
	if (ptp_send(pp, &m, &txseq, &sw))
		return;
	pp->ev[PE_tx_delay_req]++;
	pp->dreq_state = 1;
	pp->dreq_seq = m.seq;
	pp->dreq_txseq = txseq;
	pp->t1c = pp->pair_t1c;
	pp->t2c = pp->pair_t2;
	pp->have_t4 = 0;
	pp->have_t3 = !txseq;
	pp->t3 = sw;
}

/* Poll the hardware TX timestamp a Follow_Up or delay sample waits for. */
static int tx_stamps(struct ptp_port *pp)
{
	int64_t ns;
	int r;
	if (pp->fup_pending && (r = phc_tx_tstamp(pp->clk, pp->fup_txseq, &ns))) {
		pp->fup_pending = 0;
		if (r < 0) {
			pp->ev[PE_tx_tstamp_missing]++;
			return 1;
		}
		pp->ev[PE_tx_hwtstamp]++;
		send_follow_up(pp, ns);
		return 1;
	}
	if (pp->dreq_state == 1 && !pp->have_t3 && (r = phc_tx_tstamp(pp->clk, pp->dreq_txseq, &ns))) {
		if (r < 0) {
			pp->ev[PE_tx_tstamp_missing]++;
			pp->dreq_state = 0;
			return 1;
		}
		pp->ev[PE_tx_hwtstamp]++;
		pp->t3 = ns;
		pp->have_t3 = 1;
		delay_done(pp);
		return 1;
	}
	return 0;
}

int ptp_port_tick(struct ptp_port *pp, uint64_t now)
{
	int did = tx_stamps(pp);
	if (ptp_conf.delay_mechanism == DM_P2P)
		did |= ptp_pdelay_tick(pp, now);
	if (pp->state == PS_MASTER && ptp_as_capable(pp)) {
		if (now >= pp->next_announce) {
			pp->next_announce = now + ptp_interval_ns((int)ptp_conf.log_announce);
			send_announce(pp);
			ptp_clock_decide(now);
			did = 1;
		}
		if (now >= pp->next_sync && !pp->fup_pending) {
			pp->next_sync = now + ptp_interval_ns((int)ptp_conf.log_sync);
			send_sync(pp);
			did = 1;
		}
		return did;
	}
	if (ptp_following(pp) && ptp_conf.delay_mechanism == DM_E2E && now >= pp->next_delay_req) {
		pp->next_delay_req = now + ptp_interval_ns(pp->log_min_delay_req);
		if (pp->have_pair) {	/* a Delay_Req still unanswered is given up */
			send_delay_req(pp);
			did = 1;
		}
	}
	if (now >= pp->next_announce) {	/* state decision once per announce interval */
		pp->next_announce = now + ptp_interval_ns((int)ptp_conf.log_announce);
		ptp_clock_decide(now);
	}
	summary(pp, now);
	return did;
}
