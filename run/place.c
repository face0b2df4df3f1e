/*
 * Which core polls which queue (run/lcore.h, lcore_place).
 *
 * Ports are grouped into domains: ports whose frames may leave through
 * each other (an app's domain hook says which, e.g. an L2 pair, or every
 * L3 port of the router), so that a TX queue is only ever written by one
 * core. An app without a domain hook runs on one core: all its ports and
 * queues form one domain of width 1. Otherwise a domain is as wide as its
 * ports' queue count (1 if they differ), and queue q of every port of the
 * domain goes to the same core. Domains are laid out in port order over
 * the cores: domain d, queue q -> core (base(d) + q) mod cores, where
 * base(d) is the width of the domains before it. So by default pair i runs
 * on core i mod N (seed 2: eth0/eth1 on CPU0, eth2/eth3 on CPU1), and with
 * queues=Q each queue of a port gets its own core. lcore_map= overrides
 * single queues; a map that would put one domain's queue q on two cores is
 * refused and the default kept.
 *
 * A port whose app sends per core (app tx_per_core, e.g. fwd's routed
 * ports with queues= at least the core count) is a domain of its own:
 * core c sends on its TX queue c whichever core polls the RX queues, so
 * lcore_map= may place its queues anywhere, and core c reclaims TX queue
 * c (nic->tx_owner).
 */
#include <stdio.h>
#include <string.h>
#include "apps/app.h"
#include "drivers/net/nic.h"
#include "kernel/knobs.h"
#include "run/lcore.h"

static int64_t cores_knob;
static const struct knob_range cores_range[] = { { 0, MAX_CPUS } };
KNOB(cores, .name = "cores", .type = KNOB_INT, .ranges = cores_range, .nranges = 1, .ival = &cores_knob,
     .help = "cores to start and poll with, the BSP included; 0 = every core the MADT lists; default 0");

struct map_entry {
	int8_t port, queue, core;	/* queue -1: every queue of the port */
};
static struct map_entry map[LCORE_MAX_QUEUES];
static int nmap;

/* lcore_map=P[.Q]:C[,P[.Q]:C...] */
static int parse_map(const char *v, char *err, size_t len)
{
	struct map_entry m[LCORE_MAX_QUEUES];
	int n = 0;
	for (const char *s = v; *s; n++) {
		int p, q = -1, c, used = 0;
		if (n == LCORE_MAX_QUEUES) {
			snprintf(err, len, "more than %d entries", LCORE_MAX_QUEUES);
			return -1;
		}
		if (sscanf(s, "%d.%d:%d%n", &p, &q, &c, &used) != 3 &&
		    (q = -1, sscanf(s, "%d:%d%n", &p, &c, &used) != 2)) {
			snprintf(err, len, "bad entry at '%s'", s);
			return -1;
		}
		if (p < 0 || p >= NIC_MAX_PORTS || q < -1 || q >= NIC_MAX_QUEUES || c < 0 || c >= MAX_CPUS ||
		    (s[used] && s[used] != ',')) {
			snprintf(err, len, "bad entry at '%s' (port 0-7, queue 0-7, core 0-7)", s);
			return -1;
		}
		if (s[used] == ',' && !s[used + 1]) {
			snprintf(err, len, "a ',' ends the list");
			return -1;
		}
		for (int i = 0; i < n; i++)
			if (m[i].port == p && (m[i].queue == q || m[i].queue < 0 || q < 0)) {
				snprintf(err, len, "port%d%s is given twice", p, q < 0 && m[i].queue < 0 ? "" : " (or one of its queues)");
				return -1;
			}
		m[n] = (struct map_entry){ (int8_t)p, (int8_t)q, (int8_t)c };
		s += used + (s[used] == ',');
	}
	memcpy(map, m, sizeof(m[0]) * (size_t)n);
	nmap = n;
	return 0;
}
static void show_map(char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (int i = 0; i < nmap && used < len; i++)
		used += (size_t)(map[i].queue < 0 ?
			snprintf(buf + used, len - used, "%s%d:%d", i ? "," : "", map[i].port, map[i].core) :
			snprintf(buf + used, len - used, "%s%d.%d:%d", i ? "," : "", map[i].port, map[i].queue,
				 map[i].core));
	if (!nmap)
		snprintf(buf, len, "default");
}
KNOB(lcore_map, .name = "lcore_map", .type = KNOB_FUNC, .parse = parse_map, .show = show_map,
     .accepted = "PORT[.QUEUE]:CORE[,...], e.g. 0:0,1:0,2:1,3:1 or 0.1:1",
     .help = "which core polls which port (or queue); default: port pairs and queues spread over cores");

/* Domain key of port p: the app's hook, or its first port. */
static int domain_key(int p)
{
	const struct app *a = app_of_port(p);
	if (!app_runs_on(a, p))
		return p;
	if (a->domain)
		return a->domain(p);
	for (int i = 0; i < nic_count; i++)
		if (app_of_port(i) == a)
			return i;
	return p;
}

static int single_core(int p)
{
	const struct app *a = app_of_port(p);
	return app_runs_on(a, p) && !a->domain;
}

/* Width of the domain with key k: its ports' queue count, or 1. */
static int domain_width(int k)
{
	int w = -1;
	for (int p = 0; p < nic_count; p++) {
		if (domain_key(p) != k)
			continue;
		if (single_core(p) || (w >= 0 && w != nics[p]->nqueues))
			return 1;
		w = nics[p]->nqueues;
	}
	return w < 1 ? 1 : w;
}

static void place_default(int n)
{
	int base = 0;
	for (int p = 0; p < nic_count; p++) {
		int k = domain_key(p), first = 1;
		for (int i = 0; i < p; i++)
			first &= domain_key(i) != k;
		if (!first)
			continue;
		int w = domain_width(k);
		for (int i = p; i < nic_count; i++)
			if (domain_key(i) == k)
				for (int q = 0; q < nics[i]->nqueues; q++)
					nics[i]->owner[q] = (base + (w == 1 ? 0 : q)) % n;
		base += w;
	}
}

/* Apply lcore_map=; returns 0, or -1 after printing why it was refused. */
static int place_map(int n)
{
	for (int i = 0; i < nmap; i++) {
		struct map_entry *m = &map[i];
		if (m->port >= nic_count) {
			printf("lcore_map: entry %d: there is no port%d (%d port(s))\n", i + 1, m->port, nic_count);
			return -1;
		}
		if (m->core >= n) {
			printf("lcore_map: entry %d: there is no core %d (%d core(s) run)\n", i + 1, m->core, n);
			return -1;
		}
		if (m->queue >= nics[m->port]->nqueues) {
			printf("lcore_map: entry %d: port%d has no queue %d (it has %d)\n", i + 1, m->port, m->queue,
			       nics[m->port]->nqueues);
			return -1;
		}
		for (int q = 0; q < nics[m->port]->nqueues; q++)
			if (m->queue < 0 || m->queue == q)
				nics[m->port]->owner[q] = m->core;
	}
	for (int a = 0; a < nic_count; a++)
		for (int b = a; b < nic_count; b++) {
			if (domain_key(a) != domain_key(b))
				continue;
			int w = domain_width(domain_key(a));
			for (int qa = 0; qa < nics[a]->nqueues; qa++)
				for (int qb = 0; qb < nics[b]->nqueues; qb++)
					if ((w == 1 || qa == qb) && nics[a]->owner[qa] != nics[b]->owner[qb]) {
						printf("lcore_map: port%d queue %d and port%d queue %d send through each "
						       "other's TX queues (app %s) and must share a core\n",
						       a, qa, b, qb, app_of_port(a)->name);
						return -1;
					}
		}
	return 0;
}

/* 1 if port p's app sends on it per core (app tx_per_core). */
static int tx_per_core(int p)
{
	const struct app *a = app_of_port(p);
	return app_runs_on(a, p) && a->tx_per_core && a->tx_per_core(p);
}

/* Every port's pools, and its queues' interrupts, follow the owners; a TX
 * queue is reclaimed by the core that sends on it. */
static void apply(void)
{
	for (int p = 0; p < nic_count; p++) {
		struct nic *nic = nics[p];
		int per_core = tx_per_core(p);
		for (int q = 0; q < nic->nqueues; q++) {
			struct lcore *lc = &lcores[nic->owner[q]];
			lc->qs[lc->nq++] = (struct lcore_queue){ nic, q };
			nic->tx_owner[q] = per_core && q < nlcores ? q : nic->owner[q];
			if (nic->owner[q] != nic->owner[0]) {
				nic->pool->shared = 1;
				nic->small_pool->shared = 1;
			}
			uint32_t id = cpus[nic->owner[q]].apic_id;
			if (nic->owner[q] && !nic->irq_shared && pci_irq_set_cpu(nic->pci, q, id) && id > 255 &&
			    nic->pci->int_mode == INT_MODE_MSIX)
				printf("%s: queue %d's interrupt stays on core 0, which wakes core%d: an MSI names APIC "
				       "IDs up to 255 without interrupt remapping, and core%d's is %u\n", nic->name, q,
				       nic->owner[q], nic->owner[q], id);
		}
	}
}

int lcore_start_cores(void)
{
	return smp_start((int)cores_knob);
}

void lcore_place(void)
{
	nlcores = ncpus;
	for (int i = 0; i < nlcores; i++)
		lcores[i].id = i;
	lcore_bind_apps();
	place_default(nlcores);
	if (nmap && place_map(nlcores)) {
		printf("lcore_map: refused; the default placement stays\n");
		nmap = 0;	/* show config says what is in force */
		place_default(nlcores);
	}
	apply();
	lcore_print();
}

void lcore_print(void)
{
	for (int c = 0; c < nlcores; c++) {
		printf("core%d:", c);
		for (int i = 0; i < lcores[c].nq; i++)
			printf(" %s/q%d", lcores[c].qs[i].nic->name, lcores[c].qs[i].q);
		printf("%s\n", lcores[c].nq ? "" : " no queues");
	}
}
