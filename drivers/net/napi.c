/* NAPI scheduling and interrupt moderation; see napi.h. */
#include "drivers/net/napi.h"
#include "drivers/net/napi_poll.h"
#include "drivers/net/nic.h"
#include "kernel/smp.h"

struct napi_wake napi_wakes[MAX_CPUS];

/* Queue interrupt arguments: one per (port, queue), so a handler needs no
 * lookup. */
static struct nic_qarg { struct nic *nic; int q; } qargs[NIC_MAX_PORTS][NIC_MAX_QUEUES];

void *napi_queue_arg(struct nic *nic, int q)
{
	qargs[nic->port][q] = (struct nic_qarg){ nic, q };
	return &qargs[nic->port][q];
}

/* Mark queue q scheduled (masked) and tell its owner. */
static void schedule(struct nic *nic, int q)
{
	nic->sched[q] = 1;
	int owner = nic->owner[q];
	napi_wakes[owner].n++;
	if (owner != cpu_id())	/* MSI or INTx reach the BSP only: wake the owner */
		smp_wake(owner);
}

void napi_queue_irq(struct trapframe *tf, void *arg)
{
	(void)tf;
	struct nic_qarg *a = arg;
	struct nic *nic = a->nic;
	int q = a->q;
	/* Nothing to do: QEMU's duplicate MSI-X message, or frames a poll
	 * already took. Unmasking undoes any auto-mask, and reports a frame
	 * that came in meanwhile. */
	if (nic->sched[q] || (!nic->ops->rx_pending(nic, q) && !nic->ops->irq_enable(nic, q))) {
		nic->q[q].irqs_spurious++;
		return;
	}
	nic->q[q].irqs++;
	if (!nic->irq_automask)
		nic->ops->irq_disable(nic, q);
	schedule(nic, q);
}

void napi_itr_eval(struct nic *nic, int q)
{
	struct nic_itr *it = &nic->itr[q];
	uint32_t old = it->current;
	if (napi_itr_update(it, &nic->q[q]) != old)
		nic->ops->set_itr(nic, q, it->current);
}

int napi_start(struct nic *nic, int q)
{
	return napi_rearm(nic, q);
}

enum { LOWEST_LATENCY, LOW_LATENCY, BULK_LATENCY };

/* Linux e1000e e1000_update_itr: the traffic class from one interval. */
static uint8_t itr_class(uint8_t cls, uint64_t packets, uint64_t bytes)
{
	if (!packets)
		return cls;
	switch (cls) {
	case LOWEST_LATENCY:
		if (bytes / packets > 8000)
			return BULK_LATENCY;
		if (packets < 5 && bytes > 512)
			return LOW_LATENCY;
		return cls;
	case LOW_LATENCY:
		if (bytes > 10000) {
			if (bytes / packets > 8000 || packets < 10 || bytes / packets > 1200)
				return BULK_LATENCY;
			if (packets > 35)
				return LOWEST_LATENCY;
		} else if (bytes / packets > 2000) {
			return BULK_LATENCY;
		} else if (packets <= 2 && bytes < 512) {
			return LOWEST_LATENCY;
		}
		return cls;
	default:
		if (bytes > 25000) {
			if (packets > 35)
				return LOW_LATENCY;
		} else if (bytes < 6000) {
			return LOW_LATENCY;
		}
		return cls;
	}
}

/* cur - *last, and *last = cur; a counter that went back (zeroed by
 * `clear stats`) counts from 0. */
static uint64_t delta(uint64_t cur, uint64_t *last)
{
	uint64_t d = cur >= *last ? cur - *last : cur;
	*last = cur;
	return d;
}

uint32_t napi_itr_update(struct nic_itr *it, const struct nic_qstats *s)
{
	static const uint32_t rate[] = { 70000, 20000, 4000 };
	if (napi_itr_quiet(it, s))
		return it->current;
	if (it->setting != 1 && it->setting != 3)
		return it->current;
	uint64_t rx_pkts = delta(s->rx_packets, &it->rx_pkts), rx_bytes = delta(s->rx_bytes, &it->rx_bytes);
	uint64_t tx_pkts = delta(s->tx_packets, &it->tx_pkts), tx_bytes = delta(s->tx_bytes, &it->tx_bytes);
	it->rx_class = itr_class(it->rx_class, rx_pkts, rx_bytes);
	it->tx_class = itr_class(it->tx_class, tx_pkts, tx_bytes);
	uint8_t cls = it->rx_class > it->tx_class ? it->rx_class : it->tx_class;
	if (it->setting == 3 && cls == LOWEST_LATENCY)	/* conservative: no lowest_latency */
		cls = LOW_LATENCY;
	uint32_t want = rate[cls];
	/* Rising rates go up in steps, biasing towards bulk (e1000_set_itr). */
	it->steady = it->rx_class == LOWEST_LATENCY && it->tx_class == LOWEST_LATENCY && want == it->current;
	if (want > it->current) {
		uint32_t step = it->current + (want >> 2);
		want = step < want ? step : want;
	}
	it->current = want;
	return want;
}

void napi_itr_init(struct nic *nic)
{
	uint32_t s = (uint32_t)nic->cfg.itr;
	for (int q = 0; q < nic->nqueues; q++) {
		const struct nic_qstats *c = &nic->q[q];
		nic->itr[q] = (struct nic_itr){ .setting = s, .rx_class = LOW_LATENCY, .tx_class = LOW_LATENCY,
						.rx_pkts = c->rx_packets, .rx_bytes = c->rx_bytes,
						.tx_pkts = c->tx_packets, .tx_bytes = c->tx_bytes };
		nic->itr[q].current = s == 0 ? 0 : s == 4 ? 8000 : s < 100 ? 20000 : s;
		nic->ops->set_itr(nic, q, nic->itr[q].current);
	}
}

uint32_t napi_itr_simplified(uint64_t rx_bytes, uint64_t tx_bytes)
{
	uint64_t goc = (rx_bytes + tx_bytes) / 10000;
	uint64_t dif = (rx_bytes > tx_bytes ? rx_bytes - tx_bytes : tx_bytes - rx_bytes) / 10000;
	return goc ? (uint32_t)(dif * 6000 / goc + 2000) : 8000;
}

void napi_watchdog(struct nic *nic)
{
	if (nic->itr[0].setting != 4)
		return;
	uint64_t rx = 0, tx = 0;
	for (int q = 0; q < nic->nqueues; q++) {
		rx += delta(nic->q[q].rx_bytes, &nic->itr[q].rx_bytes);
		tx += delta(nic->q[q].tx_bytes, &nic->itr[q].tx_bytes);
	}
	uint32_t r = napi_itr_simplified(rx, tx);
	for (int q = 0; q < nic->nqueues; q++)
		nic->ops->set_itr(nic, q, r);
}
