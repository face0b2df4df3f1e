/* The per-core poll loops: run to completion, one loop per core, each
 * owning its queues (every queue of every port is polled by exactly one
 * core) and its counters. */
#ifndef RUN_LCORE_H
#define RUN_LCORE_H
#include <stdint.h>
#include "kernel/smp.h"

struct app;
struct nic;

#define LCORE_MAX_QUEUES 128	/* NIC_MAX_PORTS * NIC_MAX_QUEUES */

/* One queue a core polls. */
struct lcore_queue {
	struct nic *nic;
	int q;
};

/* softnet_stat-style counters and CPU accounting of one core; written only
 * by that core, read by core 0's report without locks (64-bit counters). */
struct lcore {
	int id;
	int nq;
	struct lcore_queue qs[LCORE_MAX_QUEUES];
	uint64_t processed;	/* packets handed to the apps */
	uint64_t time_squeeze;	/* NAPI rounds that ran out of napi_weight with work left */
	uint64_t halted_cycles;	/* TSC cycles spent in hlt */
	int busy_poll;		/* 1: a queue is busy-polled, so the core never halts (CPU% is 100) */
	uint64_t start_tsc;
	volatile uint64_t loops;	/* turns of the poll loop: the watchdog's proof of life */
} __attribute__((aligned(64)));
extern struct lcore lcores[MAX_CPUS];
extern int nlcores;	/* cores with a poll loop (ncpus, or cores=) */

/* TSC cycles all cores have spent halted so far (their CPU% accounting). */
static inline uint64_t lcore_halted_cycles(void)
{
	uint64_t h = 0;
	for (int i = 0; i < nlcores; i++)
		h += lcores[i].halted_cycles;
	return h;
}

/* The calling core's lcore. */
static inline struct lcore *this_lcore(void)
{
	return &lcores[cpu_id()];
}

/* Start the application processors (cores= knob); returns cores running. */
int lcore_start_cores(void);
/* Give every queue of every port to a core (app domains, or lcore_map=),
 * send MSI-X vectors to their owners, mark pools used by two cores shared,
 * and print the placement. After apps_start. */
void lcore_place(void);
/* Note which app gets each port's frames (after apps_start) and, with more
 * than one core, hook nic_stop_others for port resets. */
void lcore_bind_apps(void);
/* Deliver port's frames to app a from now on; NULL: drop them, counted in
 * the port's rx_port_stopped (a stopped port: run/portcmd.c). */
void lcore_set_port_app(int port, const struct app *a);
/* After a run-time placement (other cores parked): each core re-reads
 * which apps' idle hooks it runs (those placed on one of its ports). */
void lcore_apps_changed(void);
/* The core that polls queue q of nic, or -1. */
int lcore_of_queue(const struct nic *nic, int q);
/* Print the placement (boot report and `show config`). */
void lcore_print(void);
/* Run this core's poll loop forever (core 0 also runs the shell and the
 * once-a-second housekeeping). */
void lcore_run(void) __attribute__((noreturn));
#endif
