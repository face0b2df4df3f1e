/*
 * The poll loop's NAPI calls (napi.h describes them), inline: they run
 * around every round of a scheduled queue (run/lcore.c), and their bodies
 * are a few loads and stores each.
 */
#ifndef NAPI_POLL_H
#define NAPI_POLL_H
#include "drivers/net/nic.h"
#include "kernel/time.h"

/* napi_begin past a quiet interval: evaluate, and set a new rate (napi.c). */
void napi_itr_eval(struct nic *nic, int q);

/* A steady queue's interval of at most ITR_QUIET_BYTES each way: take the
 * counters and return 1 (nothing else changes, see napi_itr_update). */
static inline int napi_itr_quiet(struct nic_itr *it, const struct nic_qstats *s)
{
	/* Lowest latency moves only on bytes / packets > 8000 or on more than
	 * 512 bytes in under 5 packets (itr_class): neither here. A counter
	 * that went back (clear stats) fails the test. */
	if (!it->steady || s->rx_bytes - it->rx_bytes > ITR_QUIET_BYTES ||
	    s->tx_bytes - it->tx_bytes > ITR_QUIET_BYTES)
		return 0;
	/* rx_pkts, rx_bytes, tx_pkts, tx_bytes = the four counters, in two
	 * 16-byte moves (the layouts match: asserted below). */
	__builtin_memcpy(&it->rx_pkts, &s->rx_packets, 4 * sizeof(uint64_t));
	return 1;
}
_Static_assert(__builtin_offsetof(struct nic_itr, tx_bytes) - __builtin_offsetof(struct nic_itr, rx_pkts) == 24 &&
		       __builtin_offsetof(struct nic_itr, rx_bytes) - __builtin_offsetof(struct nic_itr, rx_pkts) == 8 &&
		       __builtin_offsetof(struct nic_itr, tx_pkts) - __builtin_offsetof(struct nic_itr, rx_pkts) == 16,
	       "nic_itr's four counters in nic_qstats' order");
_Static_assert(__builtin_offsetof(struct nic_qstats, tx_bytes) - __builtin_offsetof(struct nic_qstats, rx_packets) == 24 &&
		       __builtin_offsetof(struct nic_qstats, rx_bytes) - __builtin_offsetof(struct nic_qstats, rx_packets) == 8 &&
		       __builtin_offsetof(struct nic_qstats, tx_packets) - __builtin_offsetof(struct nic_qstats, rx_packets) == 16,
	       "nic_qstats' four counters together");

/* Before polling a scheduled queue, at TSC now: dynamic ITR (settings 1
 * and 3) from the queue's counters since the last evaluation, if one
 * interrupt interval at the current rate has passed since it. Linux
 * (e1000e_poll, igb_ring_irq_enable) evaluates once per interrupt, and
 * ITR lets no two interrupts come closer than that interval: the classes'
 * byte and packet thresholds are for intervals that long. A poll loop
 * that turns faster (NAPI rounds of a few frames) would otherwise pay the
 * evaluation each round and classify intervals shorter than Linux's. */
static inline void napi_begin(struct nic *nic, int q, uint64_t now)
{
	struct nic_itr *it = &nic->itr[q];
	if (now < it->next_tsc)
		return;
	if (!napi_itr_quiet(it, &nic->q[q]) && (it->setting == 1 || it->setting == 3))
		napi_itr_eval(nic, q);
	it->next_tsc = now + (it->current ? tsc.hz / it->current : 0);
}

/* Unschedule and unmask queue q; a frame that already waits keeps it
 * scheduled and masked (poll=napi) or raises its interrupt (poll=irq).
 * Returns 1 if the queue is still scheduled. */
static inline int napi_rearm(struct nic *nic, int q)
{
	nic->sched[q] = 0;
	if (!nic->ops->irq_enable(nic, q))
		return 0;
	if (nic->cfg.poll != POLL_NAPI) {
		nic->ops->irq_raise(nic, q);
		return 0;
	}
	nic->ops->irq_disable(nic, q);
	nic->sched[q] = 1;
	return 1;
}

/* After polling a scheduled queue: done packets from a budget of weight.
 * poll=napi: a full round stays scheduled; a short one unmasks the queue
 * and stays scheduled (masked again) only if a frame already waits.
 * poll=irq: always unmasks, and re-raises the interrupt if a frame waits,
 * so that every pass starts from an interrupt that ITR paces. Returns 1
 * if the queue is still scheduled. */
static inline int napi_complete(struct nic *nic, int q, int done, int weight)
{
	if (done == weight && nic->cfg.poll == POLL_NAPI)
		return 1;	/* more next round, still masked */
	return napi_rearm(nic, q);
}
#endif
