/* Port clocks and timestamps; see phc.h. */
#include <stdio.h>
#include "drivers/net/phc.h"
#include "kernel/cpu.h"
#include "kernel/knobs.h"
#include "kernel/time.h"
#include "net/ptp.h"

struct phc phcs[NIC_MAX_PORTS];

int64_t phc_tx_timeout_ms = 10;
static const struct knob_range tx_timeout_range[] = { { 1, 60000 } };
KNOB(tx_timestamp_timeout, .name = "tx_timestamp_timeout", .type = KNOB_INT, .ranges = tx_timeout_range,
     .nranges = 1, .ival = &phc_tx_timeout_ms,
     .help = "ms a hardware TX timestamp may take before it is given up (tx_hwtstamp_timeouts); default 10");

static int64_t hwtstamp_knob;
static const struct knob_range bool_range[] = { { 0, 1 } };
KNOB(hwtstamp, .name = "hwtstamp", .type = KNOB_INT, .ranges = bool_range, .nranges = 1, .ival = &hwtstamp_knob,
     .help = "1: RX (PTPv2 event messages) and TX timestamping on at boot on every port with a hardware "
	     "clock, whatever app runs there (as hwstamp_ctl -t 1 -r 12); default 0");

int64_t phc_pps_knob;
KNOB(ptp_pps, .name = "ptp_pps", .type = KNOB_INT, .ranges = bool_range, .nranges = 1, .ival = &phc_pps_knob,
     .help = "1: a pulse per second on SDP0 of every I350/I210/I211 port, rising at each whole second of the port's "
	     "clock (a 1 Hz square wave: target time 0 toggles the pin every 500 ms; `phc_ctl <port> pins`); default 0");
int64_t phc_extts_knob = -1;
static const struct knob_range extts_range[] = { { -1, 3 } };
KNOB(ptp_extts, .name = "ptp_extts", .type = KNOB_INT, .ranges = extts_range, .nranges = 1, .ival = &phc_extts_knob,
     .help = "SDP pin (0-3) whose rising edges each I350/I210/I211 port's clock stamps (auxiliary time stamp 0, "
	     "counted and shown by `phc_ctl <port> pins`; not SDP0 with ptp_pps=1); -1 none; default -1");

#define XT_READS 4
#define XT_MAX_AGE_NS 10000000	/* software stamps on a hardware clock re-cross after 10 ms */

static double nominal_ns_per_tsc(void)
{
	return 1e9 / (double)tsc.hz;
}

/* One core at a time per clock: the queue's owner (timestamps, the app)
 * and core 0 (housekeeping) both use it. Taken only on PTP work. */
static void lock(struct phc *c)
{
	while (__atomic_exchange_n(&c->lock, 1, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
}

static void unlock(struct phc *c)
{
	__atomic_store_n(&c->lock, 0, __ATOMIC_RELEASE);
}

int64_t phc_from_tsc(const struct phc *c, uint64_t t)
{
	if (!c->ops)
		return c->sw_base_ns + (int64_t)((double)(int64_t)(t - c->sw_base_tsc) * c->ns_per_tsc);
	return c->xt.ns + (int64_t)((double)(int64_t)(t - c->xt.tsc) * c->ns_per_tsc);
}

uint64_t phc_to_tsc(const struct phc *c, int64_t ns)
{
	if (!c->ops)
		return c->sw_base_tsc + (uint64_t)(int64_t)((double)(ns - c->sw_base_ns) / c->ns_per_tsc);
	return c->xt.tsc + (uint64_t)(int64_t)((double)(ns - c->xt.ns) / c->ns_per_tsc);
}

/* The narrowest of XT_READS SYSTIM reads between TSC reads. */
static void cross(struct phc *c)
{
	if (!c->ops) {
		uint64_t t = rdtsc();
		c->xt = (struct phc_xtstamp){ t, phc_from_tsc(c, t), 0 };
		return;
	}
	struct phc_xtstamp best = { 0, 0, ~0ull };
	for (int i = 0; i < XT_READS; i++) {
		uint64_t t0 = rdtsc();
		uint64_t cyc = c->ops->read_systim(c->nic);
		uint64_t t1 = rdtsc();
		if (t1 - t0 < best.window)
			best = (struct phc_xtstamp){ t0 + (t1 - t0) / 2, systim_tc_read(&c->tc, cyc), t1 - t0 };
	}
	c->xt = best;
}

struct phc *phc_of(struct nic *nic)
{
	struct phc *c = &phcs[nic->port];
	if (!c->nic) {
		c->nic = nic;
		c->sw_base_tsc = rdtsc();
		c->ns_per_tsc = nominal_ns_per_tsc();
		c->tx.timeout_ns = (uint64_t)phc_tx_timeout_ms * 1000000u;
		c->extts_pin = -1;
		cross(c);
	}
	return c;
}

int phc_is_hw(const struct phc *c)
{
	return c->ops != 0;
}

int phc_rx_each_event(const struct phc *c)
{
	return c->ops && c->ops->rx_each_event && c->rx_on && c->udp_on;
}

static void pins_apply(struct phc *c);

void phc_register(struct nic *nic, const struct phc_ops *ops)
{
	struct phc *c = phc_of(nic);
	lock(c);
	if (c->ops) {
		/* After a reset SYSTIM starts over: the clock goes on from the
		 * time the TSC says, with the adjustment and set-up in force. */
		int64_t now = phc_from_tsc(c, rdtsc());
		c->ops = ops;	/* ixgbe: another link speed, another increment */
		ops->set_freq(nic, c->ppb);
		systim_tc_init(&c->tc, ops->shift, ops->bits, ops->read_systim(nic), now);
		ops->hwtstamp_set(nic, c->rx_on ? c->rx_msg : -1, c->tx_on, c->udp_on);
		c->tx.state = HWTS_TX_IDLE;
	} else {
		c->ops = ops;
		ops->set_freq(nic, 0);
		systim_tc_init(&c->tc, ops->shift, ops->bits, ops->read_systim(nic), 0);
		ops->hwtstamp_set(nic, -1, 0, 0);
	}
	cross(c);
	pins_apply(c);
	unlock(c);
}

static int64_t gettime(struct phc *c)
{
	if (c->ops)
		return systim_tc_read(&c->tc, c->ops->read_systim(c->nic));
	return phc_from_tsc(c, rdtsc());
}

int64_t phc_gettime(struct phc *c)
{
	lock(c);
	int64_t t = gettime(c);
	unlock(c);
	return t;
}

void phc_cross(struct phc *c)
{
	lock(c);
	cross(c);
	unlock(c);
}

int64_t phc_sw_stamp(struct phc *c, uint64_t t)
{
	lock(c);
	if (c->ops && tsc_to_ns(rdtsc() - c->xt.tsc) > XT_MAX_AGE_NS)
		cross(c);
	int64_t ns = phc_from_tsc(c, t);
	unlock(c);
	return ns;
}

int64_t phc_convert(struct phc *from, int64_t ns, struct phc *to)
{
	if (from == to)
		return ns;
	lock(from);
	if (from->ops && tsc_to_ns(rdtsc() - from->xt.tsc) > XT_MAX_AGE_NS)
		cross(from);
	uint64_t t = phc_to_tsc(from, ns);
	unlock(from);
	return phc_sw_stamp(to, t);
}

/* Re-base the software clock at now so that a rate change applies from here. */
static void sw_rebase(struct phc *c)
{
	uint64_t t = rdtsc();
	c->sw_base_ns = phc_from_tsc(c, t);
	c->sw_base_tsc = t;
}

/*
 * TIMINCA write with SYSTIM read on both sides. The count may not move by
 * more than the TSC says elapsed: QEMU 10's igb adds about 2^60 units
 * (2^41 ns) to SYSTIM when INCVALUE decreases, and up to seconds when it
 * increases, growing with uptime (seen on 10.0.2: its re-basing of timadj
 * lacks the 16 ns period factor); such a jump is taken out of the time
 * counter, so the clock stays continuous, and timestamps latched before
 * it still convert through the old base. Silicon never jumps.
 */
static void set_freq_continuous(struct phc *c, int64_t ppb)
{
	uint64_t t0 = rdtsc();
	uint64_t raw = c->ops->read_systim(c->nic);
	int64_t before = systim_tc_read(&c->tc, raw);
	c->ops->set_freq(c->nic, ppb);
	uint64_t after = c->ops->read_systim(c->nic);
	int64_t elapsed = (int64_t)tsc_to_ns(rdtsc() - t0);
	int64_t moved = systim_tc_cyc2ns(&c->tc, after) - before;
	if (moved - elapsed > 1000 + elapsed / 100) {
		systim_tc_jump(&c->tc, raw, after, before + elapsed);
		c->timinca_jumps++;
	}
}

void phc_adjfreq(struct phc *c, int64_t ppb)
{
	int64_t max = c->ops ? c->ops->max_adj : 500000000;
	if (ppb > max)
		ppb = max;
	if (ppb < -max)
		ppb = -max;
	lock(c);
	if (c->ops)
		set_freq_continuous(c, ppb);
	else
		sw_rebase(c);
	c->ns_per_tsc *= (1e9 + (double)ppb) / (1e9 + (double)c->ppb);
	c->ppb = ppb;
	cross(c);
	unlock(c);
}

static void adjtime(struct phc *c, int64_t delta)
{
	if (c->ops)
		systim_tc_adjust(&c->tc, delta);
	else
		c->sw_base_ns += delta;
	c->xt.ns += delta;
}

static void pps_arm(struct phc *c);

void phc_adjtime(struct phc *c, int64_t delta)
{
	lock(c);
	adjtime(c, delta);
	if (c->pps_on)
		pps_arm(c);
	unlock(c);
}

void phc_settime(struct phc *c, int64_t ns)
{
	lock(c);
	adjtime(c, ns - gettime(c));
	if (c->pps_on)
		pps_arm(c);
	unlock(c);
}

void phc_hwtstamp(struct phc *c, int rx_msg, int tx, int udp)
{
	if (!c->ops || (c->rx_on == (rx_msg >= 0) && c->rx_msg == rx_msg && c->tx_on == tx && c->udp_on == udp))
		return;	/* unchanged: a frame latched now keeps its timestamp */
	lock(c);
	c->rx_on = rx_msg >= 0;
	c->rx_msg = rx_msg;
	c->tx_on = tx;
	c->udp_on = udp;
	c->tx.timeout_ns = (uint64_t)phc_tx_timeout_ms * 1000000u;
	c->ops->hwtstamp_set(c->nic, rx_msg, tx, udp);
	unlock(c);
}

/* How far the latch's attributes name the PTP message in p (L2, UDPv4 or UDPv6):
 * HWTS_ATTR_ALL, _SEQ or 0 (hwts_rx_attr_match). A frame whose message is
 * not found there (a VLAN tag, say) keeps the stamp the descriptor's TS
 * bit gave it. */
static int latched_for(const struct pkt *p, const uint32_t attr[2])
{
	struct ptp_frame f;
	if (ptp_frame_parse(p->data, p->len, PTP_L2, &f) != PTP_FRAME_OK &&
	    ptp_frame_parse(p->data, p->len, PTP_UDP4, &f) != PTP_FRAME_OK &&
	    ptp_frame_parse(p->data, p->len, PTP_UDP6, &f) != PTP_FRAME_OK)
		return HWTS_ATTR_ALL;
	return hwts_rx_attr_match(f.msg, f.len, attr[0], attr[1]);
}

/* Fail-soft until the 82576/82574 RXSATRL layout is seen on silicon
 * (silicon review 2026-12-02 N6): a latch whose sequenceId is the frame's
 * keeps its stamp, the source ID that differs counted in
 * rx_hwtstamp_source_mismatch; another sequenceId is another frame's
 * stamp (rx_hwtstamp_mismatch). */
void phc_rx_hwtstamp(struct nic *nic, struct pkt *p)
{
	struct phc *c = &phcs[nic->port];
	if (!c->ops)
		return;
	lock(c);
	if (c->ops->rx_latched(nic)) {
		uint32_t attr[2];
		uint64_t cyc = c->ops->rx_read(nic, attr);
		c->rx.frames++;
		int match = latched_for(p, attr);
		if (match) {
			p->tstamp = (uint64_t)systim_tc_cyc2ns(&c->tc, cyc);
			p->flags |= PKT_RX_TSTAMP;
		}
		if (match == HWTS_ATTR_SEQ)
			nic->qsw[p->queue][NS_rx_hwtstamp_source_mismatch]++;
		else if (!match)
			nic->qsw[p->queue][NS_rx_hwtstamp_mismatch]++;
	}
	unlock(c);
}

void phc_rx_buf_tstamp(struct nic *nic, struct pkt *p, uint64_t raw)
{
	struct phc *c = &phcs[nic->port];
	if (!c->ops || !c->ops->rx_buf_cycles)
		return;
	lock(c);
	p->tstamp = (uint64_t)systim_tc_cyc2ns(&c->tc, c->ops->rx_buf_cycles(raw));
	p->flags |= PKT_RX_TSTAMP;
	unlock(c);
}

/*
 * The TX slot's timeouts and late latches into the port's counters. They
 * are found by tx_poll on whichever core holds the clock's lock: the
 * queue's owner (phc_tx_request) or the app waiting for a stamp
 * (phc_tx_tstamp; pktgen's RX side may run on another core than the
 * sending queue). So they are kind sw (nic->stats), written only here,
 * under the lock; never a queue's fast-path counters, which have one
 * writer, the queue's owner (tx_hwtstamp_skipped is counted there, in
 * phc_tx_request only).
 */
static void sync_tx_counters(struct phc *c)
{
	uint64_t *st = c->nic->stats;
	st[NS_tx_hwtstamp_timeouts] += c->tx.timeouts - c->cnt_timeouts;
	st[NS_tx_hwtstamp_stale] += c->tx.stale - c->cnt_stale;
	c->cnt_timeouts = c->tx.timeouts;
	c->cnt_stale = c->tx.stale;
}

/* Timeouts and late latches of the TX slot. */
static void tx_poll(struct phc *c)
{
	struct nic *nic = c->nic;
	int done = c->tx.state != HWTS_TX_IDLE && c->ops->tx_desc_done(nic, c->tx_q, c->tx_desc);
	switch (hwts_tx_poll(&c->tx, now_ns(), c->ops->tx_latched(nic), done)) {
	case HWTS_READ:
		hwts_tx_done(&c->tx, c->ops->tx_read(nic));
		break;
	case HWTS_CLEAR:
		c->ops->tx_read(nic);
		break;
	default:
		break;
	}
}

int phc_tx_request(struct nic *nic, int q, uint32_t desc)
{
	struct phc *c = &phcs[nic->port];
	if (!c->ops || !c->tx_on) {
		nic->qsw[q][NS_tx_hwtstamp_skipped]++;
		return 0;
	}
	lock(c);
	tx_poll(c);
	int clear;
	enum hwts_action a = hwts_tx_request(&c->tx, now_ns(), c->ops->tx_latched(nic), &clear);
	if (clear)
		c->ops->tx_read(nic);
	if (a == HWTS_GRANT) {
		c->tx_q = q;
		c->tx_desc = desc;
	} else {
		nic->qsw[q][NS_tx_hwtstamp_skipped]++;	/* this core owns queue q */
	}
	sync_tx_counters(c);
	unlock(c);
	return a == HWTS_GRANT;
}

/* phc_tx_tstamp and phc_tx_tstamp_peek: take the stamp, or only read it. */
static int tx_tstamp(struct phc *c, uint32_t seq, int64_t *ns, int take)
{
	if (!c->ops || !c->tx_on)
		return -1;
	lock(c);
	tx_poll(c);
	sync_tx_counters(c);
	uint64_t cyc;
	int r = seq == c->tx.seq && c->tx.state == HWTS_TX_INFLIGHT ? 0 : -1;
	if (take ? hwts_tx_take(&c->tx, seq, &cyc) : hwts_tx_peek(&c->tx, seq, &cyc)) {
		*ns = systim_tc_cyc2ns(&c->tc, cyc);
		r = 1;
	}
	unlock(c);
	return r;
}

int phc_tx_tstamp(struct phc *c, uint32_t seq, int64_t *ns)
{
	return tx_tstamp(c, seq, ns, 1);
}

int phc_tx_tstamp_peek(struct phc *c, uint32_t seq, int64_t *ns)
{
	return tx_tstamp(c, seq, ns, 0);
}

/* Core 0, once a second: the count's wrap, the cross-timestamp and the
 * RX latch lock-up where frames take their stamps from the registers (not
 * on the I350/I210, whose stamps come in the buffer and whose latch no
 * frame reads: Linux igb_ptp_rx_hang runs on the 82576 only; silicon
 * review 2026-12-02 N8). The TX slot is left to the queue's owner (its
 * next request or poll times it out). */
void phc_housekeeping(struct nic *nic)
{
	struct phc *c = &phcs[nic->port];
	if (!c->ops)
		return;
	lock(c);
	cross(c);
	int release = c->rx_on && !c->ops->rx_buf_cycles && hwts_rx_check(&c->rx, c->ops->rx_latched(nic));
	uint32_t attr[2];
	if (release)
		c->ops->rx_read(nic, attr);
	unlock(c);
	if (release) {
		nic->stats[NS_rx_hwtstamp_cleared]++;
		printf("%s: RX timestamp latched with no frame for it; released (rx_hwtstamp_cleared %lu)\n",
		       nic->name, c->rx.cleared);
	}
}

void phc_report(void)
{
	int hw = 0;
	for (int i = 0; i < nic_count && hwtstamp_knob; i++)
		if (phc_of(nics[i])->ops)
			phc_hwtstamp(phc_of(nics[i]), 0 /* Sync */, 1, 1);
	printf("ptp: hardware timestamps on");
	for (int i = 0; i < nic_count; i++)
		if (phc_of(nics[i])->ops) {
			printf(" %s (%s %s, PHC %d)", nics[i]->name, nics[i]->driver, phc_of(nics[i])->ops->name, i);
			hw++;
		}
	printf("%s%s; software timestamps on", hw ? "" : " no port", hw && hwtstamp_knob ? ", on from boot (hwtstamp=1)" : "");
	int sw = 0;
	for (int i = 0; i < nic_count; i++)
		if (!phc_of(nics[i])->ops) {
			printf(" %s (%s)", nics[i]->name, nics[i]->driver);
			sw++;
		}
	printf("%s\n", sw ? "" : " no port");
	for (int i = 0; i < nic_count; i++)
		phc_pins_report(phc_of(nics[i]));
}

void phc_ethtool_T(struct nic *nic)
{
	struct phc *c = phc_of(nic);
	printf("Time stamping parameters for %s:\nCapabilities:\n", nic->name);
	if (c->ops)
		printf("\thardware-transmit\n");
	printf("\tsoftware-transmit\n");
	if (c->ops)
		printf("\thardware-receive\n");
	printf("\tsoftware-receive\n\tsoftware-system-clock\n");
	if (c->ops)
		printf("\thardware-raw-clock\n");
	if (!c->ops) {
		printf("PTP Hardware Clock: none (software clock: TSC, adjfreq %ld ppb)\n", c->ppb);
		printf("Hardware Transmit Timestamp Modes: none\nHardware Receive Filter Modes: none\n");
		return;
	}
	printf("PTP Hardware Clock: %d (%s, adjfreq %ld ppb, max %ld; %lu SYSTIM jumps at TIMINCA writes absorbed)\n",
	       nic->port, c->ops->name, c->ppb, c->ops->max_adj, c->timinca_jumps);
	printf("Hardware Transmit Timestamp Modes:\n\toff\n\ton\n");
	printf("Hardware Receive Filter Modes:\n%s", c->ops->rx_filters);
	printf("In use: tx %s, rx %s", c->tx_on ? "on" : "off", c->rx_on ? "ptpv2-event" : "none");
	if (c->rx_on)
		printf(" (message type %d first%s)", c->rx_msg, c->udp_on ? ", L2 and UDP/IPv4" : ", L2");
	printf("\n");
}

/*
 * The pins (I350/I210 datasheets, "Time Sync Related Auxiliary Elements":
 * target time, auxiliary time stamp, SDP assignment; Linux
 * igb_ptp_feature_enable_82580 and igb_perout: the target-time output,
 * the level read to keep rising edges at whole seconds; igb_pin_extts).
 * The PPS is a level that target time 0 toggles every half second, armed
 * again for the next half second after each toggle (TSICR.TT0, polled
 * every 10 ms): the clock is SYSTIM plus a software offset here, so each
 * target is the SYSTIM count at which the clock reads the half second
 * (systim_tc_ns2cyc), set again after every step of the offset. Linux's
 * I210 FREQOUT square wave is not used: whether its edges follow its
 * start time or SYSTIM's own second boundaries (Linux takes only
 * half-periods that divide a second) is not settled here, and with a
 * software offset the two differ.
 */
#define PPS_HALF_NS	500000000
#define PPS_MARGIN_NS	2000000		/* a target is armed at least this far ahead */

static int pins_active;

int phc_has_pins(const struct phc *c)
{
	return c->ops && c->ops->pins_poll;
}

/* floor(a / b) for b > 0. */
static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b < 0);
}

static void pps_program(struct phc *c)
{
	c->ops->pps_target(c->nic, systim_tc_ns2cyc(&c->tc, c->pps_next_ns));
}

/* The first toggle: the next half second at least PPS_MARGIN_NS ahead at
 * which a toggle of the level now rises at a whole second (k even) or
 * falls at a half (k odd). A target time reached before (a cause not yet
 * taken) is dropped: the level read now includes its toggle. */
static void pps_arm(struct phc *c)
{
	uint64_t aux;
	if (c->ops->pins_poll(c->nic, &aux) & PHC_PIN_AUTT0) {
		c->extts_events++;
		c->extts_last_ns = systim_tc_cyc2ns(&c->tc, aux);
	}
	int64_t k = floor_div(gettime(c) + PPS_MARGIN_NS, PPS_HALF_NS) + 1;
	if ((k & 1) != c->ops->pps_level(c->nic))
		k++;
	c->pps_next_ns = k * PPS_HALF_NS;
	pps_program(c);
}

/* The knobs, at every registration (a reset cleared the pins). */
static void pins_apply(struct phc *c)
{
	if (!phc_has_pins(c))
		return;
	c->pps_on = phc_pps_knob == 1;
	c->extts_pin = (int)phc_extts_knob;
	if (c->pps_on && c->extts_pin == 0)
		c->extts_pin = -1;
	if (c->extts_pin >= 0)
		c->ops->extts_set(c->nic, c->extts_pin);
	if (c->pps_on)
		pps_arm(c);
	if (c->pps_on || c->extts_pin >= 0)
		pins_active = 1;
}

void phc_pins_report(struct phc *c)
{
	const char *name = c->nic->name;
	if (!phc_has_pins(c) && (phc_pps_knob == 1 || phc_extts_knob >= 0))
		printf("%s: ptp_pps/ptp_extts not set: its clock (%s) has no SDP pins here (I350, I210 and I211 only)\n",
		       name, c->ops ? c->ops->name : "software");
	else if (phc_pps_knob == 1 && phc_extts_knob == 0)
		printf("%s: ptp_extts=0 not set: SDP0 is ptp_pps's output (use SDP1-3)\n", name);
	else if (c->extts_pin >= 0)
		printf("%s: pins: pps %s, extts on SDP%d\n", name, c->pps_on ? "on SDP0" : "off", c->extts_pin);
	else if (c->pps_on)
		printf("%s: pins: pps on SDP0, extts off\n", name);
}

/* TT0: the toggle at pps_next_ns happened; arm the next one, half a
 * second on, or whole seconds later still if that is already past
 * (counted in pps_late), so the level keeps its phase. */
static void pps_toggled(struct phc *c)
{
	if (!(floor_div(c->pps_next_ns, PPS_HALF_NS) & 1))
		c->pps_edges++;
	int64_t next = c->pps_next_ns + PPS_HALF_NS, now = gettime(c);
	while (next < now + PPS_MARGIN_NS) {
		next += 2 * PPS_HALF_NS;
		c->pps_late++;
	}
	c->pps_next_ns = next;
	pps_program(c);
}

void phc_pins_poll_port(struct phc *c)
{
	if (!phc_has_pins(c) || (!c->pps_on && c->extts_pin < 0))
		return;
	lock(c);
	uint64_t aux;
	uint32_t causes = c->ops->pins_poll(c->nic, &aux);
	if (causes & PHC_PIN_AUTT0) {
		c->extts_events++;
		c->extts_last_ns = systim_tc_cyc2ns(&c->tc, aux);
	}
	if ((causes & PHC_PIN_TT0) && c->pps_on)
		pps_toggled(c);
	unlock(c);
}

void phc_pins_poll(uint64_t now)
{
	static uint64_t next;
	if (!pins_active || now < next)
		return;
	next = now + tsc.hz / 100;
	for (int i = 0; i < nic_count; i++)
		phc_pins_poll_port(&phcs[i]);
}

/* Clock time as seconds.nanoseconds. */
static void print_time(int64_t t)
{
	uint64_t a = t < 0 ? (uint64_t)-t : (uint64_t)t;
	printf("%s%lu.%09lu", t < 0 ? "-" : "", a / 1000000000u, a % 1000000000u);
}

void phc_pins_show(struct phc *c)
{
	const char *name = c->nic->name;
	if (!phc_has_pins(c)) {
		printf("%s: no pins (%s clock; SDP pins on the I350, I210 and I211 only)\n", name,
		       c->ops ? c->ops->name : "software");
		return;
	}
	if (c->pps_on) {
		printf("%s: pin SDP0 pps output (target time 0): %lu rising edges, %lu seconds skipped (re-armed late), "
		       "next toggle at ", name, c->pps_edges, c->pps_late);
		print_time(c->pps_next_ns);
		printf("\n");
	} else {
		printf("%s: pin SDP0 pps output: off (ptp_pps=1)\n", name);
	}
	if (c->extts_pin < 0) {
		printf("%s: extts input: off (ptp_extts=PIN)\n", name);
		return;
	}
	printf("%s: pin SDP%d extts input (auxiliary time stamp 0): %lu events\n", name, c->extts_pin,
	       c->extts_events);
	if (c->extts_events) {
		printf("%s: extts index 0 at ", name);
		print_time(c->extts_last_ns);
		printf("\n");
	}
}
