/* The app= knob: places one of the apps registered with APP() on each port,
 * and starts the ones in use. */
#include <stdio.h>
#include <string.h>
#include "apps/app.h"
#include "kernel/config.h"
#include "kernel/knobs.h"
#include "kernel/cpu.h"
#include "kernel/time.h"

static const struct app *placed[NIC_MAX_PORTS];	/* NULL: the default, sink */
static int nplaced;				/* values given; 1 = every port */
static const struct app *placed_now[NIC_MAX_PORTS];	/* run-time placements, over app= */
const struct app *apps_running[NIC_MAX_PORTS + 1];
struct app_drops app_drops[MAX_CPUS];

static const struct app *app_find(const char *name, size_t len)
{
	for (const struct app *a = __apps_start; a < __apps_end; a++)
		if (strlen(a->name) == len && !strncmp(a->name, name, len))
			return a;
	return 0;
}

/* app=NAME[,NAME...]: one name per port from port0, or one for all. */
static int parse_app(const char *v, char *err, size_t len)
{
	const struct app *list[NIC_MAX_PORTS];
	int n = 0;
	for (const char *s = v;; s++) {
		size_t w = strcspn(s, ",");
		if (n == NIC_MAX_PORTS) {
			snprintf(err, len, "more than %d apps", NIC_MAX_PORTS);
			return -1;
		}
		if (!(list[n] = app_find(s, w))) {
			snprintf(err, len, "no app '%.*s'", (int)w, s);
			return -1;
		}
		n++;
		s += w;
		if (!*s)
			break;
	}
	memcpy(placed, list, sizeof(list[0]) * (size_t)n);
	nplaced = n;
	return 0;
}
static void show_app(char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (int p = 0; p < (nplaced > 1 ? nplaced : 1) && used < len; p++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", p ? "," : "", app_of_port(p)->name);
}
KNOB(app, .name = "app", .type = KNOB_FUNC, .parse = parse_app, .show = show_app,
     .accepted = "NAME or NAME,NAME,... (one per port from port0; NAME sink|fwd|rr|ptp|pktgen|mgmt)",
     .help = "what each port does with received packets: one app for every port, or a list by port "
	     "(ports past the list run sink; mgmt= overrides its port); default sink");

static const struct app *default_app(void)
{
	return app_find("sink", 4);
}

const struct app *app_of_port(int port)
{
	for (const struct app *a = __apps_start; a < __apps_end; a++)
		if (a->claim && a->claim() == port)
			return a;
	if (placed_now[port])
		return placed_now[port];
	if (nplaced == 1)
		return placed[0];
	if (port < nplaced && placed[port])
		return placed[port];
	return default_app();
}

int app_runs_on(const struct app *a, int port)
{
	if (port < 0 || port >= nic_count)
		return 0;
	for (int i = 0; apps_running[i]; i++)
		if (apps_running[i] == a)
			return app_of_port(port) == a;
	return 0;
}

static int in_use(const struct app *a)
{
	for (int p = 0; p < nic_count; p++)
		if (app_of_port(p) == a)
			return 1;
	return 0;
}

/* Knob name has a value (ipN=, route=: empty when not given). */
static int given(const char *name)
{
	char v[64];	/* route= shows nothing in less than 41 bytes */
	const struct knob *k = knob_find(__knobs_start, KNOBS_COUNT, name);
	if (!k)
		return 0;
	knob_value(k, v, sizeof(v));
	return v[0] != 0;
}

/* The apps that read knobs flag, as "fwd, rr" into buf. */
static const char *users(unsigned flag, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (const struct app *a = __apps_start; a < __apps_end && used < len; a++)
		if (a->uses & flag)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", a->name);
	return buf;
}

/* ipN= and route= that nothing will read: not an error (the boot goes
 * on), but never silent. */
static void warn_ignored(void)
{
	char name[8], who[64];
	for (int p = 0; p < NIC_MAX_PORTS; p++) {
		snprintf(name, sizeof(name), "ip%d", p);
		if (!given(name))
			continue;
		if (p >= nic_count)
			printf("cmdline: %s= ignored: there is no port%d\n", name, p);
		else if (!(app_of_port(p)->uses & APP_USES_IP))
			printf("cmdline: %s= ignored: port%d runs %s, which does not use an address (%s do)\n",
			       name, p, app_of_port(p)->name, users(APP_USES_IP, who, sizeof(who)));
	}
	if (!given("route"))
		return;
	for (int p = 0; p < nic_count; p++)
		if (app_of_port(p)->uses & APP_USES_ROUTES)
			return;
	printf("cmdline: route= ignored: no port runs an app that routes (%s)\n",
	       users(APP_USES_ROUTES, who, sizeof(who)));
}

int apps_start(void)
{
	int n = 0, failed = 0;
	for (const struct app *a = __apps_start; a < __apps_end; a++)
		if (a->claim && a->claim() >= nic_count)
			printf("cmdline: %s=port%d ignored: there is no port%d\n", a->name, a->claim(), a->claim());
	for (const struct app *a = __apps_start; a < __apps_end; a++) {
		if (!in_use(a))
			continue;
		apps_running[n++] = a;	/* init may ask app_runs_on */
		apps_running[n] = 0;
		if (a->init()) {
			printf("app %s: could not start; its ports drop what they receive\n", a->name);
			apps_running[--n] = 0;
			failed++;
		}
	}
	printf("apps:");
	for (int p = 0; p < nic_count; p++)
		printf(" %s=%s", nics[p]->name, app_runs_on(app_of_port(p), p) ? app_of_port(p)->name : "none");
	printf("%s\n", nic_count ? "" : " no ports");
	warn_ignored();
	return failed;
}

const struct app *app_by_name(const char *name)
{
	return app_find(name, strlen(name));
}

static int running(const struct app *a)
{
	for (int i = 0; apps_running[i]; i++)
		if (apps_running[i] == a)
			return 1;
	return 0;
}

int app_place(int port, const struct app *a, char *err, size_t len)
{
	char name[8];
	const struct app *was_app = app_of_port(port);
	if (was_app == a)
		return 0;
	snprintf(name, sizeof(name), "ip%d", port);
	if (((a->uses | was_app->uses) & APP_USES_ROUTES) && given(name)) {
		snprintf(err, len, "%s has %s=: a routed port's app is placed at boot (app=)", nics[port]->name, name);
		return -1;
	}
	const struct app *was = placed_now[port];
	placed_now[port] = a;
	if (!running(a)) {
		int n = 0;
		while (apps_running[n])
			n++;
		apps_running[n] = a;	/* init may ask app_runs_on */
		if (a->init()) {
			apps_running[n] = 0;
			placed_now[port] = was;
			snprintf(err, len, "app %s could not start", a->name);
			return -1;
		}
	} else if (a->place && a->place(port, 1)) {
		placed_now[port] = was;
		snprintf(err, len, "%s not given to %s", nics[port]->name, a->name);
		return -1;
	}
	if (was_app->place && running(was_app))
		was_app->place(port, 0);
	for (int i = 0; apps_running[i]; i++)
		if (apps_running[i]->ports_changed)
			apps_running[i]->ports_changed();
	return 0;
}

void app_counter(enum app_show show, const char *name, const char *suffix, uint64_t v)
{
	if (show == APP_SHOW_NONZERO && !v)
		return;
	printf(show == APP_SHOW_JSON ? ",\"%s%s%s\":%lu" : " %s%s%s %lu", name, suffix ? "_" : "",
	       suffix ? suffix : "", v);
}

int app_core(const struct app *a)
{
	for (int p = 0; p < nic_count; p++)
		if (app_runs_on(a, p))
			return nics[p]->owner[0];
	return cpu_id();
}

void app_mailbox_poll(struct app_mailbox *m)
{
	if (!m->what)
		return;
	m->err = m->run(m->what, m->port);
	m->what = 0;
	__sync_synchronize();
	m->done = 1;
}

int app_request(struct app_mailbox *m, int what, int port)
{
	int core = app_core(m->app);
	if (core == cpu_id())
		return m->run(what, port);
	m->done = 0;
	m->port = port;
	__sync_synchronize();
	m->what = what;
	for (uint64_t end = rdtsc() + 2 * tsc.hz; !m->done && rdtsc() < end;)
		cpu_relax();
	if (!m->done) {
		printf("%s: core %d has not taken the request in 2 s; it will when it polls again\n", m->app->name,
		       core);
		return -1;
	}
	return m->err;
}
