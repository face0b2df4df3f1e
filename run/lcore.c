/*
 * The poll loop (DESIGN.md, execution model), one per core over the queues
 * run/place.c gave it. Per queue, by its port's poll=:
 *  busy  rx_burst forever, interrupts off;
 *  napi  the queue's interrupt masks it and schedules it; poll rounds of up
 *        to napi_weight packets; a short round unmasks and polls once more
 *        (a frame that slipped in between is not left behind); hlt when
 *        nothing is scheduled;
 *  irq   one pass of up to napi_weight packets per interrupt, then unmask.
 * CPU use is measured, not guessed: TSC cycles spent in hlt. Core 0 also
 * runs the shell, the once-a-second housekeeping and the statistics report.
 */
#include "apps/app.h"
#include "drivers/net/nic.h"
#include "kernel/cpu.h"
#include "run/lcore.h"
#include "kernel/shell.h"
#include "run/stats.h"
#include "kernel/time.h"

struct lcore lcores[MAX_CPUS];
int nlcores = 1;

/* Stop-the-world for a port reset or `clear stats` (nic_stop_others):
 * core 0 raises stop_req; every other core parks at the top of its loop
 * with interrupts off (so not even its interrupt handlers write a
 * counter), counts itself in parked and waits until stop_req falls. */
static volatile int stop_req, parked;

static void stop_others(int stop)
{
	if (!stop) {
		__atomic_store_n(&stop_req, 0, __ATOMIC_RELEASE);
		return;
	}
	__atomic_store_n(&parked, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&stop_req, 1, __ATOMIC_RELEASE);
	for (int c = 1; c < nlcores; c++)
		smp_wake(c);	/* out of hlt */
	while (__atomic_load_n(&parked, __ATOMIC_ACQUIRE) < nlcores - 1)
		cpu_relax();
}

static void park(void)
{
	irq_off();
	__atomic_add_fetch(&parked, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&stop_req, __ATOMIC_ACQUIRE))
		cpu_relax();
	irq_on();
}

/* The app of each port, or NULL when it did not start (frames dropped). */
static const struct app *port_app[NIC_MAX_PORTS];

static void deliver(struct lcore *lc, struct nic *nic, int q, struct pkt **pkts, int n)
{
	const struct app *app = port_app[nic->port];
	lc->processed += (uint64_t)n;
	if (app) {
		app->rx(nic, q, pkts, n);
	} else {
		app_drops[lc->id].n += (uint64_t)n;
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

/* NAPI round on a scheduled queue; returns packets handled. */
static int napi_poll(struct lcore *lc, struct nic *nic, int q)
{
	int weight = (int)nic->cfg.napi_weight;
	int done = poll_queue(lc, nic, q, weight);
	if (done == weight) {
		lc->time_squeeze++;
		return done;	/* still scheduled: more next round */
	}
	nic->sched[q] = 0;
	nic->ops->irq_enable(nic, q);
	int more = poll_queue(lc, nic, q, weight);
	if (more) {
		nic->ops->irq_disable(nic, q);
		nic->sched[q] = 1;
	}
	return done + more;
}

/* poll=irq: one pass of up to napi_weight per interrupt, then unmask. If
 * frames are left, raise the queue's interrupt again, so every pass starts
 * from an interrupt (and ITR paces them) and none waits for the next frame. */
static int irq_pass(struct lcore *lc, struct nic *nic, int q)
{
	int done = poll_queue(lc, nic, q, (int)nic->cfg.napi_weight);
	nic->sched[q] = 0;
	nic->ops->irq_enable(nic, q);
	if (nic->ops->rx_pending(nic, q))
		nic->ops->irq_raise(nic, q);
	return done;
}

/* Dynamic ITR re-evaluated at each interrupt-driven poll, from the traffic
 * since the last one (e1000e's e1000_set_itr at the start of its poll). */
static void itr_after_irq(struct nic *nic, int q)
{
	struct nic_itr *it = &nic->itr[q];
	uint32_t old = it->current;
	if (nic_itr_update(it) != old)
		nic->ops->set_itr(nic, q, it->current);
}

static void housekeeping(uint64_t *next_tsc)
{
	uint64_t now = rdtsc();
	if (now < *next_tsc)
		return;
	*next_tsc = now + tsc.hz;
	nic_housekeeping();
	stats_tick(now);
}

/* The apps whose idle hook this core runs: those with a queue here. */
static int idle_apps(const struct lcore *lc, const struct app **out)
{
	int n = 0;
	for (int i = 0; apps_running[i]; i++) {
		const struct app *a = apps_running[i];
		int mine = 0;
		for (int k = 0; k < lc->nq && !mine; k++)
			mine = port_app[lc->qs[k].nic->port] == a;
		if (mine && a->idle)
			out[n++] = a;
	}
	return n;
}

static int poll_all(struct lcore *lc, int *pending)
{
	int work = 0;
	for (int k = 0; k < lc->nq; k++) {
		struct nic *nic = lc->qs[k].nic;
		int q = lc->qs[k].q, mode = (int)nic->cfg.poll;
		if (mode == POLL_BUSY) {
			work += poll_queue(lc, nic, q, (int)nic_cfg.burst);
		} else if (nic->sched[q]) {
			itr_after_irq(nic, q);
			work += mode == POLL_NAPI ? napi_poll(lc, nic, q) : irq_pass(lc, nic, q);
			*pending |= nic->sched[q];
		}
	}
	return work;
}

void lcore_run(void)
{
	struct lcore *lc = this_lcore();
	const struct app *idle[NIC_MAX_PORTS];
	int bsp = lc->id == 0, busy = 0;
	uint64_t next_hk = rdtsc() + tsc.hz, next_shell = 0, next_clean = next_hk;

	int nidle = idle_apps(lc, idle);
	lc->start_tsc = rdtsc();
	for (int k = 0; k < lc->nq; k++) {
		struct nic *nic = lc->qs[k].nic;
		if (nic->cfg.poll == POLL_BUSY)
			busy = 1;	/* a busy-polled queue keeps the core awake */
		else
			nic->ops->irq_enable(nic, lc->qs[k].q);
	}
	irq_on();
	for (;;) {
		if (!bsp && stop_req)
			park();
		int pending = 0, work = poll_all(lc, &pending);
		for (int i = 0; i < nidle; i++)
			work += idle[i]->idle();
		uint64_t now = rdtsc();
		if (now >= next_clean) {
			for (int k = 0; k < lc->nq; k++)
				lc->qs[k].nic->ops->tx_clean(lc->qs[k].nic, lc->qs[k].q);
			next_clean = now + tsc.hz;
		}
		if (bsp && now >= next_shell) {
			for (int i = 0; i < nic_count; i++)
				if (nics[i]->other_pending)
					nics[i]->ops->watchdog(nics[i]);
			shell_poll();
			housekeeping(&next_hk);
			next_shell = now + tsc.hz / 1000;
		}
		if (!busy && !work && !pending) {
			uint64_t t0 = rdtsc();
			safe_halt();
			lc->halted_cycles += rdtsc() - t0;
			next_shell = 0;
		}
	}
}
