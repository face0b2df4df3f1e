/* The per-core poll loop: run to completion, one loop per core (core 0 for
 * now), owning its queues and counters. */
#ifndef LCORE_H
#define LCORE_H
#include <stdint.h>

/* softnet_stat-style counters and CPU accounting of one core. */
struct lcore {
	int id;
	uint64_t processed;	/* packets handed to the app */
	uint64_t dropped;	/* packets the app dropped (it counts them here too) */
	uint64_t time_squeeze;	/* NAPI rounds that ran out of napi_weight with work left */
	uint64_t halted_cycles;	/* TSC cycles spent in hlt */
	uint64_t start_tsc;
};
extern struct lcore lcores[1];

/* Run the selected app on every queue of every port, forever. */
void lcore_run(void) __attribute__((noreturn));
#endif
