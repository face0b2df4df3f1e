/*
 * The clock over app=ptp's ports. On one port it is an ordinary clock; on
 * two or more one boundary clock (IEEE 1588-2008 10.1, ptp4l with several
 * interfaces): one clockIdentity (the first port's MAC, 7.5.2.2.2), the
 * ports numbered 1..N, the state decision (9.3.3) over all of them with one
 * parent, the parent's grandmaster announced on the master ports with
 * stepsRemoved + 1 (port.c send_announce), and the slave port's time
 * served on the master ports.
 *
 * The ports' clocks are not steered together: the slave port's servo
 * steers its own clock, the other ports' clocks run free, and what a
 * master port sends (Sync and Follow_Up origin, Delay_Resp receive time,
 * Announce origin) is its stamp converted to the slave port's clock through
 * both clocks' TSC cross-timestamps (phc_convert). The error this adds is
 * the two cross-timestamps' windows plus each clock's drift from its rate
 * since its last cross-timestamp (re-taken after 10 ms). The same model
 * gives the 802.1AS Follow_Up's cumulativeScaledRateOffset on the master
 * ports (ptp_clock_rate_offset).
 */
#include <stdio.h>
#include <string.h>
#include "apps/ptp/ptp.h"

struct ptp_clock ptp_clock;

void ptp_clock_add(struct ptp_port *pp)
{
	if (ptp_clock.nports) {
		memcpy(pp->id.clock_id, ptp_clock.port[0]->id.clock_id, 8);
		pp->id.port = (uint16_t)(ptp_clock.nports + 1);
	}
	ptp_clock.port[ptp_clock.nports++] = pp;
}

struct ptp_port *ptp_clock_slave(void)
{
	for (int k = 0; k < ptp_clock.nports; k++)
		if (ptp_following(ptp_clock.port[k]) && ptp_clock.port[k]->parent >= 0)
			return ptp_clock.port[k];
	return 0;
}

const struct foreign *ptp_clock_parent(void)
{
	struct ptp_port *s = ptp_clock_slave();
	return s ? &s->foreign[s->parent] : 0;
}

int64_t ptp_clock_ns(struct ptp_port *pp, int64_t ns)
{
	struct ptp_port *tb = ptp_clock_slave();
	if (!tb)
		tb = ptp_clock.port[0];
	return phc_convert(pp->clk, ns, tb->clk);
}

int32_t ptp_clock_rate_offset(const struct ptp_port *pp)
{
	const struct ptp_port *s = ptp_clock_slave();
	if (!s)
		return 0;
	/* s's clock's rate over pp's, less 1, in 2^-41 (|ppb| < 10^9: no overflow) */
	int64_t clk = (int64_t)((double)(s->clk->ppb - pp->clk->ppb) / (1e9 + (double)pp->clk->ppb) * 0x1p41);
	int64_t r = ptp_rate_compose(ptp_rate_compose(s->up_rate_offset, s->nrr), clk);
	return r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : (int32_t)r;
}

static uint64_t announce_timeout(void)
{
	return (uint64_t)ptp_conf.announce_receipt_timeout * ptp_interval_ns((int)ptp_conf.log_announce);
}

/* 1 while pp hears a lower-numbered port of this clock announce (9.5.2.3):
 * that port serves the segment, pp is PASSIVE. */
static int own_passive(const struct ptp_port *pp, uint64_t now)
{
	return pp->own_port && pp->own_port < pp->id.port && now - pp->own_ns <= announce_timeout();
}

void ptp_clock_own_announce(struct ptp_port *pp, const struct ptp_msg *m, uint64_t now)
{
	pp->rx_count[PC_announce_own_clock]++;
	if (pp->own_port != m->source.port || now - pp->own_ns > announce_timeout()) {
		char b[64];
		snprintf(b, sizeof(b), "received announce from own clock port %d", m->source.port);
		ptp_port_say(pp, b);
	}
	pp->own_port = m->source.port;
	pp->own_ns = now;
	ptp_clock_decide(now);
}

/* A port no longer following, with no master better than this clock:
 * LISTENING (slave-only), PASSIVE while a lower port of this clock
 * announces on its segment, else MASTER; a listening port that may be
 * master becomes one once announceReceiptTimeout has passed in it. */
static void no_better_master(struct ptp_port *pp, uint64_t now)
{
	pp->parent = -1;
	if (ptp_conf.role == ROLE_SLAVE) {
		if (ptp_following(pp) || pp->state == PS_PASSIVE)
			ptp_port_to_state(pp, PS_LISTENING, "ANNOUNCE_RECEIPT_TIMEOUT_EXPIRES");
		return;
	}
	if (own_passive(pp, now)) {
		ptp_port_to_state(pp, PS_PASSIVE, "RS_PASSIVE");
		return;
	}
	if (pp->state == PS_LISTENING && now - pp->state_since < announce_timeout())
		return;
	if (pp->state == PS_LISTENING && ptp_conf.role == ROLE_AUTO) {
		ptp_port_to_state(pp, PS_MASTER, "ANNOUNCE_RECEIPT_TIMEOUT_EXPIRES");
		ptp_port_say(pp, "assuming the grand master role");
		return;
	}
	ptp_port_to_state(pp, PS_MASTER, "ANNOUNCE_RECEIPT_TIMEOUT_EXPIRES");
}

/* Port pp of a clock that follows Ebest, held by another port: MASTER
 * (M3), or PASSIVE (P2) when its own Erbest is the same grandmaster only
 * worse by topology (ptp4l's A_BETTER_TOPO: a second path to it) or a
 * lower port of this clock announces on its segment (9.5.2.3). */
static void other_port(struct ptp_port *pp, const struct ptp_dataset *ebest, int erbest, uint64_t now)
{
	pp->parent = -1;
	if (ptp_conf.role == ROLE_SLAVE) {
		if (pp->state != PS_LISTENING)
			ptp_port_to_state(pp, PS_LISTENING, "RS_LISTENING");
		return;
	}
	if (own_passive(pp, now) || (erbest >= 0 && ptp_dataset_cmp(ebest, &pp->foreign[erbest].ds) == 1))
		ptp_port_to_state(pp, PS_PASSIVE, "RS_PASSIVE");
	else
		ptp_port_to_state(pp, PS_MASTER, "RS_MASTER");
}

void ptp_clock_decide(uint64_t now)
{
	int erbest[NIC_MAX_PORTS], eb = -1;
	for (int k = 0; k < ptp_clock.nports; k++) {
		struct ptp_port *pp = ptp_clock.port[k];
		erbest[k] = ptp_port_erbest(pp, now);
		if (erbest[k] >= 0 && (eb < 0 || ptp_dataset_cmp(&pp->foreign[erbest[k]].ds,
								&ptp_clock.port[eb]->foreign[erbest[eb]].ds) > 0))
			eb = k;
	}
	if (ptp_conf.role == ROLE_MASTER) {	/* masterOnly: never slave, master after the timeout */
		for (int k = 0; k < ptp_clock.nports; k++)
			no_better_master(ptp_clock.port[k], now);
		return;
	}
	struct ptp_dataset own;
	ptp_own_dataset(ptp_clock.port[0], &own);
	const struct ptp_dataset *ebest = eb >= 0 ? &ptp_clock.port[eb]->foreign[erbest[eb]].ds : 0;
	int follow = ebest && (ptp_conf.role == ROLE_SLAVE || ptp_dataset_cmp(ebest, &own) > 0);
	for (int k = 0; k < ptp_clock.nports; k++) {
		struct ptp_port *pp = ptp_clock.port[k];
		if (!follow)
			no_better_master(pp, now);
		else if (k == eb && (erbest[k] != pp->parent || !ptp_following(pp)))
			ptp_port_follow(pp, erbest[k]);
		else if (k != eb)
			other_port(pp, ebest, erbest[k], now);
	}
}
