/* Apps: what the poll loop does with received packets. Each app registers
 * itself with APP() and is placed on ports with the app= knob, one app per
 * port (app=fwd,fwd,ptp,sink; a single name means every port). */
#ifndef APP_H
#define APP_H
#include "drivers/net/nic.h"
#include "kernel/linkset.h"
#include "kernel/smp.h"

struct prom;

struct app {
	const char *name;
	const char *help;
	/* After the drivers probed, once if the app runs on any port: set up;
	 * 0, or -1 after printing why. */
	int (*init)(void);
	/* A burst of n packets received on queue q of nic, a port the app runs
	 * on; the app owns them. */
	void (*rx)(struct nic *nic, int q, struct pkt **pkts, int n);
	/* Called from the poll loop between bursts (may be NULL): timers and
	 * TX-only work such as pktgen's. Returns packets it handled, for CPU
	 * accounting (a core with work does not halt). */
	int (*idle)(void);
	/* After each periodic statistics report (may be NULL): the app's own
	 * lines; json 1: one JSON object per line, {"stats":"<app name>",...}.
	 * Text leaves out the counters that are 0 (app_counter); the app's
	 * shell command prints them all. */
	void (*report)(int json);
	/* May be NULL: the app's families of /metrics (net/prom.h), written
	 * beside its counters; called while the app runs. */
	void (*metrics)(struct prom *o);
	/* May be NULL: the port the app claims whatever app= says (its own
	 * knob, as mgmt=portN), or -1. A claimed port past the last one is
	 * named on the console at boot as ignored. */
	int (*claim)(void);
	/* May be NULL: the app then runs on one core (all its ports and queues,
	 * rx and idle, on the same core). Otherwise the app is safe on several
	 * cores at once and this returns a key per port: ports with equal keys
	 * send through each other's TX queues, so queue q of all of them is
	 * polled by one core (run/place.c). idle then runs on every core that
	 * polls one of the app's queues, and must touch only that core's state. */
	int (*domain)(int port);
	/* May be NULL (no port): 1 if every core that sends out of port uses
	 * its own TX queue of it, the one numbered as the core (DPDK l3fwd's
	 * model: no lock, nqueues >= cores). domain then keeps the port a
	 * domain of its own, so its RX queues may go to any core
	 * (lcore_map=), and core c reclaims TX queue c (run/place.c). An app
	 * on one core (no domain: pktgen) keeps its RX there, and its idle
	 * hook also runs on each core that owns one of the port's TX queues. */
	int (*tx_per_core)(int port);
	/* Knobs besides its own the app reads (APP_USES_*): a port's ipN= on a
	 * port whose app does not read it, or route= with no such app on any
	 * port, is named on the console at boot as ignored. */
	unsigned uses;
	/* 1: the app may be placed on a port at run time (`port config portN
	 * app NAME`, run/portcmd.c): its init may run then, and what it keeps
	 * per port besides its counters is set up and ended by place, or
	 * re-read by ports_changed. */
	int runtime;
	/* May be NULL (runtime apps): why the app is placed at boot only, for
	 * the refusal of `port config`. */
	const char *boot_only;
	/* May be NULL: after a run-time placement (other cores parked), re-read
	 * app_runs_on for every port. */
	void (*ports_changed)(void);
	/* May be NULL: a run-time placement (other cores parked, the port
	 * stopped). on 1: port is given to the app, which already runs (its
	 * init set up the ports it had): set up what the app keeps for it
	 * (pools, a netif); 0, or -1 after printing why (the port is not
	 * given). on 0: port is taken off the app: end what the app does
	 * there (sending, connections, buffers held), keep its counters;
	 * returns 0. */
	int (*place)(int port, int on);
};
#define APP_USES_IP	1u	/* ipN=: the port's address */
#define APP_USES_ROUTES	2u	/* route= */

#define APP(id_, ...) \
	const struct app app_##id_ \
	LINKSET_ENTRY __attribute__((section(".apps"))) = { __VA_ARGS__ }

extern const struct app __apps_start[], __apps_end[];

/* Frames dropped after the driver delivered them, per core: softnet_stat's
 * "dropped" (the apps' named drops, and frames of a port whose app did not
 * start). Each core writes only its own line (app_count_drops); the report
 * reads them without locks. */
struct app_drops {
	uint64_t n;
} __attribute__((aligned(64)));
extern struct app_drops app_drops[MAX_CPUS];
static inline void app_count_drops(uint64_t n)
{
	app_drops[cpu_id_fast()].n += n;
}

/* The app placed on port p (0..NIC_MAX_PORTS-1): the one that claims it,
 * else app='s; never NULL. */
const struct app *app_of_port(int port);
/* 1 if app a runs on port p, a port that exists (p < nic_count). */
int app_runs_on(const struct app *a, int port);
/* Start every app placed on an existing port (init, once each). An app whose
 * init fails is taken off its ports, which then drop what they receive
 * (counted in the port's rx_port_stopped). Returns the number of apps that
 * failed. Prints the placement, and the ipN=/route= knobs no app reads. */
int apps_start(void);
/* The app registered under name, or NULL. */
const struct app *app_by_name(const char *name);
/* Place app a on port at run time (a->runtime; the caller parked the other
 * cores): starts a when it is not running yet or gives it the port (place
 * 1), then takes the port off the app it had (place 0) and calls every
 * running app's ports_changed. A routed port (ipN= with fwd, before or
 * after) is refused. 0, or -1 with why in err (the placement unchanged). */
int app_place(int port, const struct app *a, char *err, size_t len);
/* How an app prints its counters: text without the zeros (the periodic
 * report), text with every counter (the app's shell command), or JSON
 * (every key, always). */
enum app_show { APP_SHOW_NONZERO, APP_SHOW_ALL, APP_SHOW_JSON };
/* One counter of an app's report line: " name value" as text, or
 * ",\"name\":value" as JSON; with suffix (may be NULL) the name is
 * name_suffix. APP_SHOW_NONZERO prints nothing for v == 0. */
void app_counter(enum app_show show, const char *name, const char *suffix, uint64_t v);
/* The core polling a one-core app's ports (its first port's owner; the
 * caller's core when it runs on none). */
int app_core(const struct app *a);
/* A shell request to an app that runs on one core (no domain hook): its
 * TX state and pool are that core's alone, so the shell hands the work
 * over instead of doing it. run(what, port) does it on the app's core. */
struct app_mailbox {
	const struct app *app;
	int (*run)(int what, int port);
	volatile int what, port, err, done;
};
/* Run request what (> 0) for port (-1: all the app's ports) on the app's
 * core: at once when that is the caller's, else through the mailbox,
 * waiting up to 2 s (TSC) for the app's idle hook to take it. Returns
 * run's result, or -1 after saying the core has not taken it yet (it
 * will, when it polls again). */
int app_request(struct app_mailbox *m, int what, int port);
/* On the app's core (its idle hook): run a pending request. */
void app_mailbox_poll(struct app_mailbox *m);
/* The apps running (started and on an existing port), NULL-terminated. */
extern const struct app *apps_running[NIC_MAX_PORTS + 1];
#endif
