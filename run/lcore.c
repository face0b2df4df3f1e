/*
 * The poll loop (docs/design.md, execution model), one per core over the queues
 * run/place.c gave it. Per queue, by its port's poll=:
 *  busy  rx_burst forever, interrupts off;
 *  napi  the queue's interrupt masks it and schedules it; poll rounds of up
 *        to napi_weight packets; a short round unmasks it (a frame that
 *        slipped in meanwhile keeps it scheduled); hlt when nothing is
 *        scheduled;
 *  irq   one pass of up to napi_weight packets per interrupt, then unmask.
 * Scheduling and interrupt moderation: drivers/net/napi.h.
 * CPU use is measured, not guessed: TSC cycles spent in hlt. Core 0 also
 * runs the shell, the once-a-second housekeeping and the statistics report.
 */
#include <stdio.h>
#include "apps/app.h"
#include "drivers/net/napi_poll.h"
#include "drivers/net/nic.h"
#include "drivers/net/phc.h"
#include "drivers/watchdog/wdt.h"
#include "kernel/cpu.h"
#include "run/capturecmd.h"
#include "run/lcore.h"
#include "run/netconsole.h"
#include "kernel/shell.h"
#include "run/stats.h"
#include "kernel/time.h"

struct lcore lcores[MAX_CPUS];
int nlcores = 1;

/* Stop-the-world for a port reset or `clear stats` (nic_stop_others):
 * core 0 raises stop_req; every other core parks at the top of its loop
 * with interrupts off (so not even its interrupt handlers write a
 * counter), counts itself in parked and waits until stop_req falls.
 * Lowering stop_req waits for parked to be 0 again, so a stop right after
 * another (a reset, then `clear stats`) never counts a core that is still
 * in the first one. A core that has not parked after a second is named
 * on the console (it is stuck in its poll loop); the wait goes on, since
 * resetting a port under a core that still polls it is not safe. */
static volatile int stop_req, parked;

static void wait_parked(int want)
{
	uint64_t warn = rdtsc() + tsc.hz;
	while (__atomic_load_n(&parked, __ATOMIC_ACQUIRE) != want) {
		if (warn && rdtsc() > warn) {
			printf("smp: %d of %d other core(s) parked after 1 s; still waiting\n",
			       parked, nlcores - 1);
			warn = 0;
		}
		cpu_relax();
	}
}

static void stop_others(int stop)
{
	__atomic_store_n(&stop_req, stop, __ATOMIC_RELEASE);
	if (stop)
		for (int c = 1; c < nlcores; c++)
			smp_wake(c);	/* out of hlt */
	wait_parked(stop ? nlcores - 1 : 0);
}

static void park(void)
{
	irq_off();
	__atomic_add_fetch(&parked, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&stop_req, __ATOMIC_ACQUIRE))
		cpu_relax();
	__atomic_sub_fetch(&parked, 1, __ATOMIC_ACQ_REL);
	irq_on();
}

/* The app of each port, or NULL when it is stopped or its app did not
 * start (frames dropped, counted in the port's rx_port_stopped). */
static const struct app *port_app[NIC_MAX_PORTS];

static void deliver(struct lcore *lc, struct nic *nic, int q, struct pkt **pkts, int n)
{
	const struct app *app = port_app[nic->port];
	lc->processed += (uint64_t)n;
	if (netcon_arp_ports >> nic->port & 1)
		netcon_rx(nic, pkts, n);
	if (app) {
		app->rx(nic, q, pkts, n);
	} else {
		nic->qsw[q][NS_rx_port_stopped] += (uint64_t)n;
		pkt_free_bulk(pkts, n);
	}
}

void lcore_bind_apps(void)
{
	if (nlcores > 1)
		nic_stop_others = stop_others;
	for (int i = 0; i < nic_count; i++)
		port_app[i] = app_runs_on(app_of_port(i), i) ? app_of_port(i) : 0;
}

void lcore_set_port_app(int port, const struct app *a)
{
	__atomic_store_n(&port_app[port], a, __ATOMIC_RELEASE);
}

static volatile uint32_t apps_gen;	/* placements so far: idle_apps again when it moves */

void lcore_apps_changed(void)
{
	__atomic_add_fetch(&apps_gen, 1, __ATOMIC_RELEASE);
}

int lcore_of_queue(const struct nic *nic, int q)
{
	for (int c = 0; c < nlcores; c++)
		for (int k = 0; k < lcores[c].nq; k++)
			if (lcores[c].qs[k].nic == nic && lcores[c].qs[k].q == q)
				return c;
	return -1;
}

static int poll_queue(struct lcore *lc, struct nic *nic, int q, int max)
{
	struct pkt *pkts[NIC_BURST_MAX];
	int burst = (int)nic_cfg.burst, done = 0;
	while (done < max) {
		int want = max - done < burst ? max - done : burst;
		int n = nic->ops->rx_burst(nic, q, pkts, want);
		if (n)
			deliver(lc, nic, q, pkts, n);
		done += n;
		if (n < want)
			break;
	}
	return done;
}

/* Feed the hardware watchdog only if every core's loop turned since the
 * last look (drivers/watchdog/wdt.h): a wedged core lets it reset the box. */
static void watchdog_feed(void)
{
	static uint64_t seen[MAX_CPUS];
	int alive = 1;
	for (int i = 0; i < nlcores; i++) {
		uint64_t n = lcores[i].loops;
		alive &= n != seen[i];
		seen[i] = n;
	}
	if (alive)
		wdt_keepalive();
}

static void housekeeping(uint64_t *next_tsc)
{
	uint64_t now = rdtsc();
	phc_pins_poll(now);
	if (now < *next_tsc)
		return;
	*next_tsc = now + tsc.hz;
	watchdog_feed();
	nic_housekeeping();
	stats_cpu_sample();
	stats_tick(now);
}

/* The apps whose idle hook this core runs: those placed on a port with a
 * queue here (started or stopped: a stopped port's app still sends and
 * keeps its timers), or that send per core on a port with a TX queue this
 * core owns (tx_per_core: pktgen on a core that polls none of its queues). */
static int idle_apps(const struct lcore *lc, const struct app **out)
{
	int n = 0;
	for (int i = 0; apps_running[i]; i++) {
		const struct app *a = apps_running[i];
		int mine = 0;
		for (int k = 0; k < lc->nq && !mine; k++)
			mine = app_runs_on(a, lc->qs[k].nic->port);
		for (int p = 0; p < nic_count && !mine && a->tx_per_core; p++)
			for (int q = 0; q < nics[p]->nqueues && app_runs_on(a, p); q++)
				mine |= nics[p]->tx_owner[q] == lc->id && a->tx_per_core(p);
		if (mine && a->idle)
			out[n++] = a;
	}
	return n;
}

/* One look at every queue of the core, starting at TSC now: busy ones
 * polled for a burst, scheduled ones for a NAPI round (drivers/net/napi.h).
 * Returns packets handled; *pending is set when a queue stays scheduled. */
static int poll_all(struct lcore *lc, int *pending, uint64_t now)
{
	int work = 0;
	for (int k = 0; k < lc->nq; k++) {
		struct nic *nic = lc->qs[k].nic;
		int q = lc->qs[k].q;
		if (nic->cfg.poll == POLL_BUSY) {
			work += poll_queue(lc, nic, q, (int)nic_cfg.burst);
		} else if (nic->sched[q]) {
			int weight = (int)nic->cfg.napi_weight;
			napi_begin(nic, q, now);
			int done = poll_queue(lc, nic, q, weight);
			if (done == weight)	/* napi: another round; irq: another interrupt */
				lc->time_squeeze++;
			*pending |= napi_complete(nic, q, done, weight);
			work += done;
		}
	}
	return work;
}

/* Reclaim the TX queues this core sends on (nic->tx_owner). */
static void tx_clean_mine(const struct lcore *lc)
{
	for (int p = 0; p < nic_count; p++)
		for (int q = 0; q < nics[p]->nqueues; q++)
			if (nics[p]->tx_owner[q] == lc->id)
				nics[p]->ops->tx_clean(nics[p], q);
}

/* hlt from TSC t0 (read by the caller just before) until an interrupt
 * schedules one of this core's queues (its napi_wakes count moves away
 * from seen), a port reset wants the core parked, or until (TSC) passes:
 * other interrupts (QEMU's duplicate MSI-X messages, the timer) halt again
 * at once. Interrupts are off from each check to its hlt (sti; hlt), so no
 * wake is lost in between. Returns the TSC it woke at. */
static uint64_t halt(struct lcore *lc, uint32_t seen, uint64_t t0, uint64_t until)
{
	volatile uint32_t *wakes = &napi_wakes[lc->id].n;
	uint64_t t = t0;
	while (*wakes == seen && !stop_req && t < until) {
		irq_off();
		if (*wakes == seen && !stop_req)
			safe_halt();
		else
			irq_on();
		t = rdtsc();
	}
	lc->halted_cycles += t - t0;
	return t;
}

void lcore_run(void)
{
	struct lcore *lc = this_lcore();
	const struct app *idle[NIC_MAX_PORTS];
	int bsp = lc->id == 0, busy = 0;
	uint64_t ms = tsc.hz / 1000;
	uint64_t now = rdtsc(), next_hk = now + tsc.hz, next_shell = 0, next_clean = next_hk;

	uint32_t gen = apps_gen;
	int nidle = idle_apps(lc, idle);
	lc->start_tsc = rdtsc();
	for (int k = 0; k < lc->nq; k++) {
		struct nic *nic = lc->qs[k].nic;
		if (nic->cfg.poll == POLL_BUSY)
			busy = lc->busy_poll = 1;	/* a busy-polled queue keeps the core awake */
		else
			napi_start(nic, lc->qs[k].q);
	}
	irq_on();
	for (;;) {
		if (!bsp && stop_req)
			park();
		lc->loops++;
		if (__builtin_expect(gen != apps_gen, 0)) {
			gen = apps_gen;
			nidle = idle_apps(lc, idle);
		}
		uint32_t seen = napi_wakes[lc->id].n;
		int pending = 0, idle_work = 0;
		poll_all(lc, &pending, now);	/* now: the TSC the last round ended at */
		for (int i = 0; i < nidle; i++)
			idle_work += idle[i]->idle();
		if (netcon_cores >> lc->id & 1)
			idle_work += netcon_poll(lc->id);
		now = rdtsc();
		if (now >= next_clean) {
			tx_clean_mine(lc);
			next_clean = now + tsc.hz;
			now = rdtsc();	/* halt's start: this was work */
		}
		if (bsp && now >= next_shell) {
			for (int i = 0; i < nic_count; i++)
				if (nics[i]->other_pending)
					nics[i]->ops->watchdog(nics[i]);
			shell_poll();
			capture_console_poll();
			housekeeping(&next_hk);
			next_shell = now + ms;
			now = rdtsc();
		}
		/* NAPI work done and nothing left scheduled: halt right away. */
		if (!busy && !pending && !idle_work)
			now = halt(lc, seen, now, bsp ? next_shell : now + ms);
	}
}
