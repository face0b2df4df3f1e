/*
 * pktgen's app entry and shell, after Linux's /proc/net/pktgen:
 *   pktgen                      status per port and core
 *   pktgen start|stop [port]    start/stop sending (every pktgen port, or one)
 *   pktgen set <knob> <value>   as writing "knob value" to /proc/net/pktgen/ethX
 *   pktgen lat [port]           latency histogram of the probes received
 *   pktgen clear                zero the TX and RX counters
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "apps/app.h"
#include "apps/pktgen/pktgen.h"
#include "kernel/cpu.h"
#include "kernel/mem.h"
#include "kernel/shell.h"
#include "kernel/time.h"

static int pg_init(void)
{
	pg.burst = nic_cfg.burst;
	size_t tx = (size_t)nic_count * sizeof(*pg_tx), rx = (size_t)nic_count * sizeof(*pg_rx);
	uint8_t *m = dma_alloc(tx + rx, 64);
	if (!m) {
		printf("pktgen: no memory for the ports' TX and RX state (%lu bytes)\n", (unsigned long)(tx + rx));
		return -1;
	}
	pg_tx = (struct pg_tx *)m;
	pg_rx = (struct pg_rx *)(m + tx);
	if (pg_tx_init())
		return -1;
	pg_check(-1);
	printf("pktgen: on");
	for (int p = 0; p < nic_count; p++)
		if (app_runs_on(&app_pktgen, p))
			printf(" %s (%s)", nics[p]->name, pg_tx[p].hw ? "NIC timestamps" : "TSC timestamps");
	printf("; `pktgen start` sends\n");
	return 0;
}

static void pg_app_rx(struct nic *nic, int q, struct pkt **pkts, int n)
{
	pg_rx_burst(nic, q, pkts, n);
}

static void pg_report(int json);

/* `port config` (run/portcmd.c, other cores parked): a port given to
 * pktgen gets its TX pools (kept when it is taken off again); a port taken
 * off stops sending (its Result line) and ends an RFC 2544 run. The TX
 * and RX counters stay. */
static int pg_place(int port, int on)
{
	pg_home_changed();
	if (on)
		return pg_tx_port_init(port);
	if (rfc2544_stop())
		printf("pktgen: rfc2544 ended: %s left pktgen\n", nics[port]->name);
	pg_stop(port, 1);
	return 0;
}

APP(pktgen, .name = "pktgen", .help = "traffic generator and loss/latency meter (Linux pktgen's knobs)",
    .init = pg_init, .rx = pg_app_rx, .idle = pg_idle, .report = pg_report, .metrics = pg_metrics,
    .tx_per_core = pg_tx_per_core, .runtime = 1, .place = pg_place);

/* Frames/s and Mb/s on the wire (frame + 24 B) since port p started. */
static void tx_rate(int p, uint64_t *pps, uint64_t *kbps)
{
	struct pg_tx_sum s;
	pg_tx_sum(p, &s);
	uint64_t end = pg_running(p) || !s.stop_tsc ? rdtsc() : s.stop_tsc;
	uint64_t us = tsc_to_ns(end - pg_tx[p].start_tsc) / 1000, n = s.run_sent;
	uint64_t bits = (s.run_bytes + n * PG_WIRE_EXTRA) * 8;
	*pps = us ? n * 1000000 / us : 0;
	*kbps = us ? bits * 1000 / us : 0;
}

void pg_result(int port, const char *why)
{
	struct pg_tx_sum s;
	if (pg_quiet)
		return;
	pg_tx_sum(port, &s);
	uint64_t us = tsc_to_ns(s.stop_tsc - pg_tx[port].start_tsc) / 1000, n = s.run_sent;
	uint64_t bytes = s.run_bytes, wire = bytes + n * PG_WIRE_EXTRA;
	uint64_t pps = us ? n * 1000000 / us : 0, bps = us ? bytes * 8 * 1000000 / us : 0;
	uint64_t wire_kbps = us ? wire * 8 * 1000 / us : 0;
	printf("pktgen: %s: %s, %llu frames sent in %llu us: %llu pps %llu Mb/sec (%llu bps: frame bytes without "
	       "FCS, as Linux pktgen's Result; %llu.%03llu Mb/s on the wire, +24 B a frame) ring_full %llu "
	       "alloc_failed %llu\n",
	       nics[port]->name, why, (unsigned long long)n, (unsigned long long)us, (unsigned long long)pps,
	       (unsigned long long)(bps / 1000000), (unsigned long long)bps, (unsigned long long)(wire_kbps / 1000),
	       (unsigned long long)(wire_kbps % 1000), (unsigned long long)s.run_ring_full,
	       (unsigned long long)s.run_alloc_failed);
}

static const char *state(int p)
{
	return pg_running(p) ? "running" : pg_tx[p].start_tsc ? "stopped" : "idle";
}

static void print_tx(int p, int json)
{
	const struct pg_tx *t = pg_lead(p);
	struct pg_tx_sum s;
	uint64_t pps, kbps;
	unsigned size = t->size ? t->size : (unsigned)(pg.nsweep ? pg.sweep[0] : pg.pkt_size);
	pg_tx_sum(p, &s);
	tx_rate(p, &pps, &kbps);
	if (json)
		printf("{\"stats\":\"pktgen\",\"kind\":\"tx\",\"t_ms\":%llu,\"port\":\"%s\",\"state\":\"%s\","
		       "\"step\":%d,\"steps\":%d,\"pkt_size\":%u,\"sent\":%llu,\"built\":%llu,\"probes\":%llu,"
		       "\"ring_full\":%llu,\"alloc_failed\":%llu,\"clamped\":%llu,\"tx_pps\":%llu,\"tx_kbps\":%llu}\n",
		       (unsigned long long)(now_ns() / 1000000), nics[p]->name, state(p), t->step + 1, pg.nsweep ? pg.nsweep : 1, size,
		       (unsigned long long)s.sent, (unsigned long long)s.built, (unsigned long long)s.probes,
		       (unsigned long long)s.ring_full, (unsigned long long)s.alloc_failed,
		       (unsigned long long)s.clamped, (unsigned long long)pps, (unsigned long long)kbps);
	else
		printf("pktgen %s: %s step %d/%d pkt_size %u sent %llu built %llu probes %llu ring_full %llu "
		       "alloc_failed %llu clamped %llu; since start %llu pps %llu.%03llu Mb/s on the wire\n",
		       nics[p]->name, state(p), t->step + 1, pg.nsweep ? pg.nsweep : 1, size,
		       (unsigned long long)s.sent, (unsigned long long)s.built, (unsigned long long)s.probes,
		       (unsigned long long)s.ring_full, (unsigned long long)s.alloc_failed,
		       (unsigned long long)s.clamped, (unsigned long long)pps, (unsigned long long)(kbps / 1000),
		       (unsigned long long)(kbps % 1000));
	if (!json && s.sent_q[0] != s.sent) {	/* queue_map or several cores: sent per TX queue */
		printf("pktgen %s tx queues:", nics[p]->name);
		for (int q = 0; q < nics[p]->nqueues; q++)
			printf(" q%d %llu", q, (unsigned long long)s.sent_q[q]);
		printf("\n");
	}
}

/* Which clock timed a port's probes: both NIC stamps, the TSC, or some each. */
static const char *lat_clock(const struct pg_rx *r)
{
	return r->lat_hw && r->lat_sw ? "nic+tsc" : r->lat_hw ? "nic" : "tsc";
}

static void print_lat(int p, int json, int buckets)
{
	const struct hist *h = &pg_rx[p].lat;
	static const unsigned q[] = { 5000, 9000, 9900, 9990 };
	uint64_t v[4];
	for (int i = 0; i < 4; i++)
		v[i] = pg_hist_quantile(h, q[i]);
	printf(json ? "{\"stats\":\"pktgen\",\"kind\":\"lat\",\"port\":\"%s\",\"clock\":\"%s\",\"nic_stamped\":%llu,"
		      "\"n\":%llu,\"min_ns\":%llu,\"mean_ns\":%llu,\"p50_ns\":%llu,\"p90_ns\":%llu,\"p99_ns\":%llu,"
		      "\"p999_ns\":%llu,\"max_ns\":%llu"
		    : "pktgen %s latency (clock %s, %llu NIC-stamped): n %llu min %llu mean %llu p50 %llu p90 %llu "
		      "p99 %llu p99.9 %llu max %llu ns\n",
	       nics[p]->name, lat_clock(&pg_rx[p]), (unsigned long long)pg_rx[p].lat_hw, (unsigned long long)h->n, (unsigned long long)h->min,
	       (unsigned long long)(h->n ? h->sum / h->n : 0), (unsigned long long)v[0], (unsigned long long)v[1],
	       (unsigned long long)v[2], (unsigned long long)v[3], (unsigned long long)h->max);
	if (json)
		printf(",\"buckets\":[");
	for (unsigned i = 0, first = 1; (json || buckets) && i < HIST_BUCKETS; i++) {
		if (!h->bucket[i])
			continue;
		printf(json ? "%s[%llu,%llu,%llu]" : "%s  %llu-%llu ns: %llu\n", json && !first ? "," : "",
		       (unsigned long long)pg_hist_lo(i), (unsigned long long)pg_hist_hi(i),
		       (unsigned long long)h->bucket[i]);
		first = 0;
	}
	if (json)
		printf("]}\n");
}

/* Our data frames received per size (bytes with the FCS). */
static void print_sizes(int p, int json)
{
	const struct pg_rx *r = &pg_rx[p];
	printf(json ? "{\"stats\":\"pktgen\",\"kind\":\"sizes\",\"port\":\"%s\",\"sizes_full\":%llu,\"sizes\":["
		    : "pktgen %s rx sizes (bytes with FCS: frames; sizes_full %llu):", nics[p]->name,
	       (unsigned long long)r->sizes_full);
	for (int i = 0; i < PG_RX_SIZES && r->sizes[i].len; i++)
		printf(json ? "%s[%u,%llu]" : "%s %u: %llu", i && json ? "," : "", r->sizes[i].len,
		       (unsigned long long)r->sizes[i].frames);
	printf(json ? "]}\n" : "\n");
}

static void print_rx(int p, int json)
{
	const struct pg_rx *r = &pg_rx[p];
	printf(json ? "{\"stats\":\"pktgen\",\"kind\":\"rx\",\"port\":\"%s\",\"rx\":%llu,\"ours\":%llu,"
		      "\"bad\":%llu,\"arp\":%llu,\"nd\":%llu,\"other\":%llu,\"streams_full\":%llu,\"vlan_full\":%llu}\n"
		    : "pktgen %s rx: %llu frames: ours %llu bad %llu arp %llu nd %llu other %llu streams_full %llu "
		      "vlan_full %llu\n",
	       nics[p]->name, (unsigned long long)r->rx, (unsigned long long)r->ours, (unsigned long long)r->bad,
	       (unsigned long long)r->arp, (unsigned long long)r->nd, (unsigned long long)r->other, (unsigned long long)r->streams_full,
	       (unsigned long long)r->vlans.full);
	if (!json) {
		char prefix[32];
		snprintf(prefix, sizeof(prefix), "pktgen %s rx", nics[p]->name);
		vlan_table_print(&r->vlans, prefix);
	}
	if (r->sizes[1].len)	/* more than one size: IMIX or a sweep */
		print_sizes(p, json);
	for (int i = 0; json && i < r->vlans.n; i++) {	/* QinQ: svlan the outer tag, as Linux pktgen's */
		const struct vlan_count *e = &r->vlans.e[i];
		int qinq = e->inner != VLAN_NONE;
		printf("{\"stats\":\"pktgen\",\"kind\":\"vlan\",\"port\":\"%s\",\"svlan\":%d,\"vlan\":%u,"
		       "\"frames\":%llu,\"bytes\":%llu}\n", nics[p]->name, qinq ? e->outer : -1, qinq ? e->inner : e->outer,
		       (unsigned long long)e->frames, (unsigned long long)e->bytes);
	}
	for (int i = 0; i < PG_STREAMS && r->streams[i].used; i++) {
		const struct pg_stream *s = &r->streams[i];
		printf(json ? "{\"stats\":\"pktgen\",\"kind\":\"stream\",\"port\":\"%s\",\"stream\":%u,"
			      "\"received\":%llu,\"lost\":%llu,\"reordered\":%llu,\"duplicates\":%llu,\"bytes\":%llu}\n"
			    : "pktgen %s stream 0x%04x: received %llu lost %llu reordered %llu duplicates %llu "
			      "bytes %llu\n",
		       nics[p]->name, s->id, (unsigned long long)s->received, (unsigned long long)pg_stream_lost(s),
		       (unsigned long long)s->reordered, (unsigned long long)s->duplicates,
		       (unsigned long long)s->bytes);
	}
	if (r->lat.n)
		print_lat(p, json, 0);
}

/* A port pktgen runs on, or ran on before a run-time switch (its pools
 * stay): its counters are shown. */
static int shown(int p)
{
	return app_runs_on(&app_pktgen, p) || (pg_tx && pg_tx[p].pool);
}

static void print_all(int json, int all)
{
	uint64_t sent = 0, pps_sum = 0;
	for (int p = 0; p < nic_count; p++) {
		if (!shown(p))
			continue;
		if (all || pg_tx[p].start_tsc) {
			uint64_t pps, kbps;
			print_tx(p, json);
			tx_rate(p, &pps, &kbps);
			sent += pg_tx_field(p, offsetof(struct pg_tx, sent));
			pps_sum += pg_running(p) ? pps : 0;
		}
		if (all || pg_rx[p].rx)
			print_rx(p, json);
	}
	if (json)
		printf("{\"stats\":\"pktgen\",\"kind\":\"core\",\"core\":%d,\"sent\":%llu,\"tx_pps\":%llu}\n",
		       app_core(&app_pktgen), (unsigned long long)sent, (unsigned long long)pps_sum);
	else
		printf("pktgen core%d: sent %llu, sending now at %llu pps\n", app_core(&app_pktgen), (unsigned long long)sent,
		       (unsigned long long)pps_sum);
}

static void pg_report(int json)
{
	print_all(json, 0);
}

/* The pktgen port named by argv[i], all of them (-1) when absent, or -2. */
static int port_arg(int argc, char **argv, int i)
{
	if (argc <= i)
		return -1;
	struct nic *nic = nic_find(argv[i]);
	if (nic && app_runs_on(&app_pktgen, nic->port))
		return nic->port;
	printf("pktgen: '%s' is not a port running pktgen (ports:", argv[i]);
	for (int p = 0; p < nic_count; p++)
		if (app_runs_on(&app_pktgen, p))
			printf(" %s", nics[p]->name);
	printf(")\n");
	return -2;
}

/* What the shell asks of pktgen's ports, done on pktgen's core (the one
 * polling its queues: its TX state and pool are that core's alone). */
static int do_request(int what, int port)
{
	int err = 0;
	if (what == PG_REQ_RFC2544)
		return rfc2544_begin();
	if (what == PG_REQ_STOP && rfc2544_stop())
		return 0;
	if ((what == PG_REQ_START || what == PG_REQ_CLEAR) && rfc2544_busy())
		return -1;
	if (what == PG_REQ_START && pg_check(-1))
		return -1;
	for (int p = 0; p < nic_count; p++) {
		if (!app_runs_on(&app_pktgen, p) || (port >= 0 && p != port))
			continue;
		if (what == PG_REQ_START) {
			err |= pg_start(p);
		} else if (what == PG_REQ_STOP) {
			pg_stop(p, 0);
		} else if (what == PG_REQ_RATE) {
			pg_rate_update(p);
		} else {
			pg_tx_clear(p);
			memset(&pg_rx[p], 0, sizeof(pg_rx[p]));
		}
	}
	return err ? -1 : 0;
}

static struct app_mailbox mailbox = { .app = &app_pktgen, .run = do_request };

void pg_requests(void)
{
	app_mailbox_poll(&mailbox);
}

int pg_request(int what, int port)
{
	return app_request(&mailbox, what, port);
}

static int usage(void)
{
	printf("usage: pktgen | pktgen start [port] | pktgen stop [port] | pktgen set <knob> <value> | "
	       "pktgen lat [port] | pktgen clear | pktgen rfc2544 ...\n  knobs: %s\n", pg_knob_names);
	return -1;
}

/* 1 if some port runs pktgen, else 0 after saying so. */
static int runs_somewhere(void)
{
	for (int p = 0; p < nic_count; p++)
		if (app_runs_on(&app_pktgen, p))
			return 1;
	printf("pktgen: the app runs on no port (app=pktgen)\n");
	return 0;
}

static int cmd_pktgen(int argc, char **argv)
{
	if (argc == 1) {
		for (int p = 0; p < nic_count; p++)
			if (shown(p)) {
				print_all(0, 1);
				return 0;
			}
		runs_somewhere();	/* says it runs on no port */
		return -1;
	}
	const char *c = argv[1];
	if (!strcmp(c, "rfc2544"))
		return runs_somewhere() ? rfc2544_cmd(argc, argv) : -1;
	if (!strcmp(c, "set") && argc == 4)
		return pg_set(argv[2], argv[3]);
	if (!strcmp(c, "clear") && argc == 2)
		return pg_request(PG_REQ_CLEAR, -1);
	int port = (!strcmp(c, "start") || !strcmp(c, "stop") || !strcmp(c, "lat")) && argc <= 3 ? port_arg(argc, argv, 2)
												: -3;
	if (port == -3)
		return usage();
	if (port == -2)
		return -1;
	if (!runs_somewhere())
		return -1;
	if (!strcmp(c, "lat")) {
		for (int p = 0; p < nic_count; p++)
			if (app_runs_on(&app_pktgen, p) && (port < 0 || p == port))
				print_lat(p, 0, 1);
		return 0;
	}
	return pg_request(!strcmp(c, "start") ? PG_REQ_START : PG_REQ_STOP, port);
}
SHELL_CMD(pktgen, "pktgen", "pktgen [start|stop [port] | set <knob> <value> | lat [port] | clear | rfc2544 ...]",
	  "traffic generator: status, start/stop, knobs, latency histogram. start says where frames go; stop and "
	  "the end say Linux pktgen's Result (Mb/sec of frame bytes without FCS, as Linux); the status's Mb/s "
	  "is on the wire (+24 B a frame: FCS, preamble, gap). rfc2544 runs RFC 2544's throughput, latency, "
	  "frame loss and back-to-back tests through a device between two ports (`pktgen rfc2544` lists its "
	  "arguments; stop ends it)", cmd_pktgen);
