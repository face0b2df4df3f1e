/*
 * NAPI scheduling and interrupt moderation of every queue (poll=napi|irq):
 * the one owner of both. A queue's path from interrupt to poll:
 *  1. its vector fires: napi_queue_irq, the handler every driver installs,
 *     masks the queue (irq_disable, unless the vector did: nic->irq_automask),
 *     marks it scheduled (nic->sched[q]) and
 *     counts a wake for its owning core (napi_wakes), waking that core when
 *     the interrupt reached another one;
 *  2. the owner's poll loop (run/lcore.c) sees it scheduled: napi_begin
 *     re-evaluates the dynamic ITR from the queue's counters since the last
 *     evaluation (nic->q[q], which rx_burst and tx_burst count anyway), at
 *     most once per interrupt interval at the current rate (Linux
 *     evaluates once per interrupt, which ITR spaces that far apart), then
 *     the loop polls rx_burst rounds of up to napi_weight packets;
 *  3. napi_complete: a full round leaves the queue scheduled; a short one
 *     unmasks it, and irq_enable reports a frame that arrived meanwhile
 *     (as Unikraft's uk_netdev_rxq_intr_enable), which keeps the queue
 *     scheduled instead of costing another rx_burst.
 * Drivers only touch registers (irq_enable/disable/raise, rx_pending,
 * set_itr). Sources: Linux NAPI (napi_schedule, napi_complete_done) and
 * e1000e's e1000_update_itr/e1000_set_itr and InterruptThrottleRate.
 */
#ifndef NAPI_H
#define NAPI_H
#include <stdint.h>
#include "kernel/smp.h"

struct nic;
struct nic_qstats;
struct trapframe;

/* Per-queue interrupt moderation state (Linux e1000e's dynamic ITR). */
struct nic_itr {
	uint32_t setting;	/* InterruptThrottleRate knob: 0, 1, 3, 4 or ints/s */
	uint32_t current;	/* ints/s written to the hardware */
	uint8_t rx_class, tx_class;	/* lowest/low/bulk latency */
	/* Both classes lowest latency and current at that class's rate: an
	 * interval of at most ITR_QUIET_BYTES each way changes nothing. */
	uint8_t steady;
	/* The queue's counters (nic->q[q]) when the ITR was last evaluated. */
	uint64_t rx_pkts, rx_bytes, tx_pkts, tx_bytes;
	/* TSC before which napi_begin does not evaluate again: one interval
	 * at the current rate after the last evaluation (napi_poll.h). */
	uint64_t next_tsc;
};

/* Interrupts that scheduled a queue of each core, one counter per core:
 * the poll loop halts only while its own count stays what it saw before
 * its last look at the queues (no wake is lost between look and hlt). */
struct napi_wake {
	volatile uint32_t n;
} __attribute__((aligned(64)));
extern struct napi_wake napi_wakes[MAX_CPUS];

/* The vector handler of queue q of nic (arg from napi_queue_arg). */
void napi_queue_irq(struct trapframe *tf, void *arg);
/* The arg napi_queue_irq expects for queue q of nic; fixed once the port
 * has its number. */
void *napi_queue_arg(struct nic *nic, int q);
/* The poll loop takes queue q of nic (poll=napi|irq): unmask it; a frame
 * already waiting schedules it. Returns 1 if it is scheduled. */
int napi_start(struct nic *nic, int q);
/* Around each round of a scheduled queue: napi_begin (dynamic ITR) and
 * napi_complete (unmask, or stay scheduled), inline in napi_poll.h. */
/*
 * Dynamic ITR (e1000_update_itr/e1000_set_itr): classify the traffic in
 * the counter deltas since the last call and return the new rate in
 * ints/s for setting 1 (dynamic) or 3 (conservative); other settings
 * return current. Counters that went back (clear stats) count from 0.
 * A steady queue whose interval moved at most ITR_QUIET_BYTES each way
 * (request-response traffic) only takes the new counter values: in the
 * lowest latency class such an interval keeps the class, so the rate too.
 */
#define ITR_QUIET_BYTES 512
uint32_t napi_itr_update(struct nic_itr *it, const struct nic_qstats *s);
/* Start every queue of nic over in the InterruptThrottleRate mode (boot,
 * reset, `set InterruptThrottleRate`): dynamic modes start at 20000 ints/s
 * in the low-latency class as Linux does, mode 4 at 8000. */
void napi_itr_init(struct nic *nic);
/* Simplified mode (setting 4): 2000-8000 ints/s from the RX/TX byte balance. */
uint32_t napi_itr_simplified(uint64_t rx_bytes, uint64_t tx_bytes);
/* Once a second from the driver's watchdog: simplified mode's new rate
 * for every queue from the port's bytes since the last call. */
void napi_watchdog(struct nic *nic);
#endif
