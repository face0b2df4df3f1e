/*
 * RFC 2544 ("Benchmarking Methodology for Network Interconnect Devices")
 * from pktgen's own ports: a device under test (DUT) sits between port tx
 * and port rx, and `pktgen rfc2544` runs, per frame size (section 9),
 *   throughput  26.1: binary search for the highest rate with no loss
 *               (or at most loss_ok, reported: RFC 2544 has none);
 *   latency     26.2: pktgen's probes at the throughput rate;
 *   loss        26.3: frame loss rate from 100 % of the ceiling down in
 *               10 % steps, until two successive trials lose nothing;
 *   b2b         26.4: the longest burst at the highest rate the TX ring
 *               takes with no loss, found b2b_trials times, averaged.
 * Every trial is section 23's: learning frames both ways (the DUT learns
 * the ports' MACs; pktgen answers ARP and ND for a router), rest_ms of
 * rest, the trial, drain_ms for residual frames, then the count. Lost =
 * sent - distinct frames received (duplicates are not received frames;
 * reordered ones are, RFC 2544 asks only whether a frame arrived).
 *
 * The run is a state machine advanced from pktgen's idle hook on pktgen's
 * core; it drives the ordinary sender (pg_start with pg's knobs set for
 * the trial, the user's restored at the end) and reads the receiver's
 * stream counters. Results: one line per trial and per result, text or
 * JSON lines (tools/statplot.py rfc2544 draws them), tables at the end,
 * and /metrics.
 */
#include <stdio.h>
#include <string.h>
#include "apps/app.h"
#include "apps/pktgen/pktgen.h"
#include "kernel/cpu.h"
#include "kernel/fmt.h"
#include "kernel/time.h"
#include "net/addr.h"
#include "net/prom.h"

#define RFC_SIZES	PG_SWEEP_MAX
#define RFC_STEPS	10	/* frame loss: 100 %, 90 % ... 10 % */
#define RFC_CREDIT_MS	10	/* the sender's catch-up after a stall: 10 ms of frames, not pktgen's 100 */
#define RFC_RETRIES	2	/* throughput trials run again when the sender fell behind */

enum { T_TPUT, T_LAT, T_LOSS, T_B2B, T_COUNT };
static const char *const test_name[T_COUNT] = { "throughput", "latency", "loss", "b2b" };

/* What `pktgen rfc2544` asked for. */
struct rfc_args {
	unsigned tests;				/* 1 << T_* */
	int tx, rx, bidir, json, nsizes;
	uint16_t sizes[RFC_SIZES];		/* frame bytes with FCS; 0: the IMIX */
	uint64_t trial_ms, res_cp;		/* resolution: hundredths of a % of the ceiling */
	uint64_t loss_ok_mp;			/* loss accepted: thousandths of a % */
	uint64_t max_ratep, max_rate;		/* ceiling: frames/s, or Mb/s on the wire; 0: the link */
	uint64_t rest_ms, drain_ms, learn, lat_trials, b2b_trials, b2b_max;
	int back;				/* port rx sends to back_mac, addresses swapped (a router's way back) */
	uint8_t back_mac[6];
};

/* Results per frame size. */
struct rfc_row {
	uint64_t ceil_pps;
	int done[T_COUNT];
	uint64_t tput_pps, tput_offered, tput_trials;
	int tput_limited;			/* the sender, not the DUT, ended the search */
	uint64_t lat_n, lat_min, lat_mean, lat_p50, lat_p99, lat_max, lat_hw;
	int nloss;
	uint64_t loss_mp[RFC_STEPS], loss_offered[RFC_STEPS];	/* per step 100 %, 90 % ... */
	uint64_t b2b_sum, b2b_min, b2b_max, b2b_n;
};

/* One trial's count, both directions summed with bidir. */
struct trial {
	uint64_t sent, received, lost, dup, reord, offered_pps, loss_mp;
	int pass, cut, behind;
};

enum { P_LEARN = 1, P_REST, P_SEND, P_DRAIN };

/* The arguments of the next run: the last run's (the console's line is
 * short), RFC 2544's defaults at first. */
static struct rfc_args pending = { .tx = -1, .rx = -1, .trial_ms = 60000, .res_cp = 10, .rest_ms = 5000,
				   .drain_ms = 2000, .learn = 16, .lat_trials = 20, .b2b_trials = 50, .nsizes = 7,
				   .sizes = { 64, 128, 256, 512, 1024, 1280, 1518 } };
static struct {
	struct rfc_args a;
	int on, phase, test, row, cut;
	uint64_t until, start_tsc, trials;
	uint64_t lo, hi, cur, res;		/* search: frames/s, or frames (b2b) */
	uint64_t rep, step, clean;		/* repetitions; loss step (10 = 100 %); loss-free steps in a row */
	int retry;				/* throughput: runs of this trial the sender fell behind in */
	struct pg_config saved;
	struct rfc_row rows[RFC_SIZES];
} run;

static const int32_t imix_simple[][2] = { { 64, 7 }, { 594, 4 }, { 1518, 1 } };

/* ---- arguments ---- */

/* s as a decimal number with up to dec digits after the point, times
 * 10^dec, into *out; -1 if it is not one. */
static int parse_dec(const char *s, int dec, uint64_t *out)
{
	uint64_t v = 0;
	int frac = -1, any = 0;
	for (; *s; s++) {
		if (*s == '.' && frac < 0) {
			frac = 0;
			continue;
		}
		if (*s < '0' || *s > '9' || frac == dec || v > UINT64_MAX / 100)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
		frac += frac >= 0;
		any = 1;
	}
	for (int i = frac < 0 ? 0 : frac; i < dec; i++)
		v *= 10;
	*out = v;
	return any ? 0 : -1;
}

static int parse_sizes(const char *v, struct rfc_args *a)
{
	a->nsizes = 0;
	for (const char *s = v;; s++) {
		char word[8];
		size_t w = strcspn(s, ",");
		uint64_t x = 0;
		if (a->nsizes == RFC_SIZES || w >= sizeof(word))
			return -1;
		memcpy(word, s, w);
		word[w] = 0;
		if (strcmp(word, "imix") && (parse_u64(word, &x) || x < PG_MIN_SIZE + 4 || x > 1518))
			return -1;
		a->sizes[a->nsizes++] = (uint16_t)x;
		s += w;
		if (!*s)
			return 0;
	}
}

static int port_of(const char *v)
{
	struct nic *nic = nic_find(v);
	return nic && app_runs_on(&app_pktgen, nic->port) ? nic->port : -1;
}

static const char usage_text[] =
	"usage: pktgen rfc2544 [throughput|latency|loss|b2b|all|set] tx=PORT rx=PORT [sizes=64,128,...,1518|imix] "
	"[trial_s=60] [resolution=0.1] [loss_ok=0] [max_ratep=FPS | max_rate=MBPS] [rest_ms=5000] "
	"[drain_ms=2000] [learn=16] [lat_trials=20] [b2b_trials=50] [b2b_max=FRAMES] [bidir=0|1] "
	"[back_mac=MAC|off] [format=text|json]\n"
	"  arguments stay for the next run (set: keep them, run nothing); sizes: 64-1518 bytes with the FCS (RFC 2544 9.1's by default), imix: the IMIX of `pktgen set imix` "
	"(simple 7:4:1 when off); trial_s: 0.1-3600 s; resolution: 0.01-50 %% of the ceiling; loss_ok: 0-100 %% "
	"of frames; max_ratep (frames/s, k/M suffixes) or max_rate (Mb/s on the wire): the ceiling, else the "
	"link's rate; max_rate: 1-400000 Mb/s; back_mac: what rx sends to (its learning frames, bidir's way back) "
	"with the source and destination addresses swapped, for a router (off: dst_mac, as tx); latency runs the "
	"throughput search first\n";

/* One key=value argument into a; 0, or -1 after saying what is wrong. */
static int parse_arg(struct rfc_args *a, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char key[16];
	uint64_t x = 0;
	size_t n = eq ? (size_t)(eq - arg) : 0;
	int bad = 0;
	if (!eq || n >= sizeof(key)) {
		printf("pktgen rfc2544: '%.40s' is not a test name or KEY=VALUE\n%s", arg, usage_text);
		return -1;
	}
	memcpy(key, arg, n);
	key[n] = 0;
	const char *v = eq + 1;
	if (!strcmp(key, "tx") || !strcmp(key, "rx")) {
		int p = port_of(v);
		bad = p < 0;
		*(!strcmp(key, "tx") ? &a->tx : &a->rx) = p;
	} else if (!strcmp(key, "sizes")) {
		bad = parse_sizes(v, a);
	} else if (!strcmp(key, "trial_s")) {
		bad = parse_dec(v, 3, &a->trial_ms) || a->trial_ms < 100 || a->trial_ms > 3600000;
	} else if (!strcmp(key, "resolution")) {
		bad = parse_dec(v, 2, &a->res_cp) || a->res_cp < 1 || a->res_cp > 5000;
	} else if (!strcmp(key, "loss_ok")) {
		bad = parse_dec(v, 3, &a->loss_ok_mp) || a->loss_ok_mp > 100000;
	} else if (!strcmp(key, "max_ratep")) {
		bad = parse_u64_si(v, &a->max_ratep) || !a->max_ratep || a->max_ratep > 1000000000;
		a->max_rate = 0;
	} else if (!strcmp(key, "max_rate")) {
		bad = parse_u64(v, &a->max_rate) || !a->max_rate || a->max_rate > 400000;
		a->max_ratep = 0;
	} else if (!strcmp(key, "back_mac")) {
		a->back = strcmp(v, "off") != 0;
		bad = a->back && mac_parse(v, a->back_mac);
	} else if (!strcmp(key, "format")) {
		bad = strcmp(v, "text") && strcmp(v, "json");
		a->json = !strcmp(v, "json");
	} else {
		static const struct { const char *k; uint64_t lo, hi; size_t off; } num[] = {
			{ "rest_ms", 0, 3600000, offsetof(struct rfc_args, rest_ms) },
			{ "drain_ms", 0, 60000, offsetof(struct rfc_args, drain_ms) },
			{ "learn", 0, 1000, offsetof(struct rfc_args, learn) },
			{ "lat_trials", 1, 1000, offsetof(struct rfc_args, lat_trials) },
			{ "b2b_trials", 1, 1000, offsetof(struct rfc_args, b2b_trials) },
			{ "b2b_max", 1, 1ull << 32, offsetof(struct rfc_args, b2b_max) },
			{ "bidir", 0, 1, (size_t)-1 },
		};
		size_t i = 0;
		while (i < sizeof(num) / sizeof(num[0]) && strcmp(key, num[i].k))
			i++;
		if (i == sizeof(num) / sizeof(num[0])) {
			printf("pktgen rfc2544: unknown argument '%s'\n%s", key, usage_text);
			return -1;
		}
		bad = parse_u64_si(v, &x) || x < num[i].lo || x > num[i].hi;
		if (num[i].off == (size_t)-1)
			a->bidir = (int)x;
		else
			*(uint64_t *)((char *)a + num[i].off) = x;
	}
	if (bad)
		printf("pktgen rfc2544: bad value '%.40s' for %s\n%s", v, key, usage_text);
	return bad ? -1 : 0;
}

/* The ports and their links: two different pktgen ports, both up. */
static int check_ports(const struct rfc_args *a)
{
	if (a->tx < 0 || a->rx < 0) {
		printf("pktgen rfc2544: tx= and rx= name two ports running pktgen (the DUT between them)\n%s",
		       usage_text);
		return -1;
	}
	if (a->tx == a->rx) {
		printf("pktgen rfc2544: tx and rx are the same port (%s): the DUT sits between two ports\n",
		       nics[a->tx]->name);
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		const struct nic *nic = nics[i ? a->rx : a->tx];
		if (nic->link_up != 1) {
			printf("pktgen rfc2544: %s's link is down: no trial can run (`link %s` says when it is up)\n",
			       nic->name, nic->name);
			return -1;
		}
	}
	if (!a->max_ratep && !a->max_rate && !nics[a->tx]->speed) {
		printf("pktgen rfc2544: %s does not say its speed: give the ceiling, max_ratep= or max_rate=\n",
		       nics[a->tx]->name);
		return -1;
	}
	return 0;
}

int rfc2544_busy(void)
{
	if (!run.on)
		return 0;
	printf("pktgen: rfc2544 is running (`pktgen stop` ends it)\n");
	return 1;
}

int rfc2544_cmd(int argc, char **argv)
{
	struct rfc_args a = pending;
	int i = 2, set = argc > 2 && !strcmp(argv[2], "set");
	a.tests = 0;
	if (set) {
		for (i = 3; i < argc; i++)
			if (parse_arg(&a, argv[i]))
				return -1;
		pending = a;
		printf("rfc2544: arguments kept for the next run\n");
		return 0;
	}
	if (argc > 2 && !strchr(argv[2], '=')) {
		for (int t = 0; t < T_COUNT; t++)
			if (!strcmp(argv[2], test_name[t]))
				a.tests = 1u << t;
		if (!strcmp(argv[2], "all"))
			a.tests = (1u << T_COUNT) - 1;
		if (!a.tests) {
			printf("pktgen rfc2544: unknown test '%.40s'\n%s", argv[2], usage_text);
			return -1;
		}
		i = 3;
	}
	if (!a.tests)
		a.tests = (1u << T_COUNT) - 1;
	if (a.tests & 1u << T_LAT)	/* latency is measured at the throughput rate */
		a.tests |= 1u << T_TPUT;
	for (; i < argc; i++)
		if (parse_arg(&a, argv[i]))
			return -1;
	if (argc == 2) {
		printf("%s", usage_text);
		return -1;
	}
	if (rfc2544_busy() || check_ports(&a))
		return -1;
	for (int p = 0; p < nic_count; p++)
		if (pg_running(p)) {
			printf("pktgen rfc2544: %s is sending: pktgen stop first\n", nics[p]->name);
			return -1;
		}
	pending = a;
	return pg_request(PG_REQ_RFC2544, -1);
}

/* ---- trials ---- */

static uint64_t now_ms(void)
{
	return tsc_to_ns(rdtsc()) / 1000000;
}

/* Frame bytes with FCS of row r (an IMIX's mean: the rate counts it;
 * the simple IMIX when the imix knob is off). */
static uint32_t row_size(int r)
{
	if (run.a.sizes[r])
		return run.a.sizes[r];
	uint64_t bytes = 0, frames = 0;
	for (int i = 0; i < run.saved.nimix; i++) {
		bytes += (uint64_t)(run.saved.imix_size[i] + 4) * run.saved.imix_weight[i];
		frames += run.saved.imix_weight[i];
	}
	for (int i = 0; !frames && i < 3; i++) {
		bytes += (uint64_t)imix_simple[i][0] * (uint64_t)imix_simple[i][1];
		frames += (uint64_t)imix_simple[i][1];
	}
	return (uint32_t)(bytes / frames);
}

static void size_label(char *buf, size_t len, int r, int json)
{
	snprintf(buf, len, run.a.sizes[r] ? "%u" : json ? "\"imix\"" : "imix", run.a.sizes[r]);
}

/* pg's knobs for a trial of row r: the user's, one size (or the IMIX),
 * count frames at pps (0: as fast as the ring takes them), probes at lat_rate. */
static void configure(int r, uint64_t count, uint64_t pps, int64_t lat_rate)
{
	pg = run.saved;
	pg.nsweep = 0;
	pg.clone_skb = 0;
	if (run.a.sizes[r]) {
		pg.nimix = 0;
		pg.pkt_size = run.a.sizes[r] - 4;
	} else if (!pg.nimix) {
		pg.nimix = 3;
		for (int i = 0; i < 3; i++) {
			pg.imix_size[i] = (uint16_t)(imix_simple[i][0] - 4);
			pg.imix_weight[i] = (uint16_t)imix_simple[i][1];
		}
	}
	pg.count = (int64_t)(count ? count : 1);
	pg.rate_kind = pps ? PG_RATE_PPS : PG_RATE_MAX;
	pg.ratep = (int64_t)pps;
	pg.lat_rate = lat_rate;
	pg.credit_ms = RFC_CREDIT_MS;
}

/* Start port p (and the other with both), or end the run saying why. */
static int start_ports(int both)
{
	int err = pg_start(run.a.tx);
	pg_tx[run.a.rx].back = run.a.back;
	memcpy(pg_tx[run.a.rx].back_mac, run.a.back_mac, 6);
	if (both && !err)
		err = pg_start(run.a.rx);
	if (err) {
		printf("rfc2544: a trial could not start (above): the run ends\n");
		rfc2544_stop();
	}
	return err;
}

/* Zero port p's receive counters (the latency histogram too unless keep_lat). */
static void rx_clear(int p, int keep_lat)
{
	struct pg_rx *r = &pg_rx[p];
	struct hist lat = r->lat;
	uint64_t hw = r->lat_hw, sw = r->lat_sw;
	memset(r, 0, sizeof(*r));
	if (keep_lat) {
		r->lat = lat;
		r->lat_hw = hw;
		r->lat_sw = sw;
	}
}

/* The trial's rate (frames/s) or burst (b2b: frames at the ring's rate). */
static void send_trial(void)
{
	int r = run.row;
	uint64_t frames = run.cur * run.a.trial_ms / 1000;
	int lat = run.test == T_LAT;
	rx_clear(run.a.rx, lat && run.rep);
	rx_clear(run.a.tx, 0);
	if (run.test == T_B2B)
		configure(r, run.cur, 0, 0);
	else
		configure(r, frames, run.cur, lat ? (run.saved.lat_rate ? run.saved.lat_rate : 100) : 0);
	if (start_ports(run.a.bidir))
		return;
	run.phase = P_SEND;
	run.cut = 0;
	run.until = now_ms() + 2 * run.a.trial_ms + 1000;	/* a generator that falls behind is cut here */
}

static void begin_trial(void)
{
	if (!run.a.learn) {
		run.phase = P_REST;
		run.until = now_ms() + run.a.rest_ms;
		return;
	}
	configure(run.row, run.a.learn, 1000, 0);	/* RFC 2544 23: learning frames, both ways */
	if (!start_ports(1))
		run.phase = P_LEARN;
}

/* Frames port src sent in the trial, and what port dst received of them. */
static void count_dir(int src, int dst, struct trial *c)
{
	const struct pg_tx *t = &pg_tx[src];
	uint64_t n = t->sent - t->sent_at_start, ns = tsc_to_ns(t->stop_tsc - t->start_tsc);
	c->sent += n;
	if (src == run.a.tx)
		c->offered_pps = ns ? n * 1000000000 / ns : 0;
	for (int i = 0; i < PG_STREAMS; i++) {
		const struct pg_stream *s = &pg_rx[dst].streams[i];
		if (s->used && s->id == t->stream) {
			c->received += s->unique;
			c->dup += s->duplicates;
			c->reord += s->reordered;
		}
	}
}

/* 1 when every frame of the trial arrived (the drain need not wait on). */
static int all_received(void)
{
	struct trial c;
	memset(&c, 0, sizeof(c));
	count_dir(run.a.tx, run.a.rx, &c);
	if (run.a.bidir)
		count_dir(run.a.rx, run.a.tx, &c);
	return c.received >= c.sent;
}

static void count_trial(struct trial *c)
{
	memset(c, 0, sizeof(*c));
	count_dir(run.a.tx, run.a.rx, c);
	if (run.a.bidir)
		count_dir(run.a.rx, run.a.tx, c);
	c->lost = c->sent > c->received ? c->sent - c->received : 0;
	c->loss_mp = c->sent ? c->lost * 100000 / c->sent : 0;
	c->pass = c->sent && c->lost * 100000 <= run.a.loss_ok_mp * c->sent;
	c->cut = run.cut;
	uint64_t slack = run.res / 2 > run.cur / 200 ? run.res / 2 : run.cur / 200;
	c->behind = run.test == T_TPUT && c->offered_pps + slack < run.cur;
}

static void print_trial(const struct trial *c)
{
	char sz[16];
	int json = run.a.json, b2b = run.test == T_B2B;
	size_label(sz, sizeof(sz), run.row, json);
	if (json)
		printf("{\"rfc2544\":\"trial\",\"test\":\"%s\",\"size\":%s,\"trial\":%llu,\"%s\":%llu,\"offered_pps\":%llu,"
		       "\"sent\":%llu,\"received\":%llu,\"lost\":%llu,\"loss_pct\":%llu.%03llu,\"duplicates\":%llu,"
		       "\"reordered\":%llu,\"cut\":%d,\"behind\":%d,\"pass\":%d}\n", test_name[run.test], sz,
		       (unsigned long long)run.trials,
		       b2b ? "burst" : "asked_pps", (unsigned long long)run.cur, (unsigned long long)c->offered_pps,
		       (unsigned long long)c->sent, (unsigned long long)c->received, (unsigned long long)c->lost,
		       (unsigned long long)(c->loss_mp / 1000), (unsigned long long)(c->loss_mp % 1000),
		       (unsigned long long)c->dup, (unsigned long long)c->reord, c->cut, c->behind, c->pass);
	else
		printf("rfc2544: %s %s B trial %llu: %s %llu%s, offered %llu fps: sent %llu received %llu lost %llu "
		       "(%llu.%03llu %%) duplicates %llu reordered %llu%s: %s\n", test_name[run.test], sz,
		       (unsigned long long)run.trials, b2b ? "burst of" : "asked", (unsigned long long)run.cur,
		       b2b ? " frames" : " fps", (unsigned long long)c->offered_pps, (unsigned long long)c->sent,
		       (unsigned long long)c->received, (unsigned long long)c->lost,
		       (unsigned long long)(c->loss_mp / 1000), (unsigned long long)(c->loss_mp % 1000),
		       (unsigned long long)c->dup, (unsigned long long)c->reord,
		       c->cut ? " (cut: the generator fell behind the asked rate)" : "",
		       c->behind && run.retry < RFC_RETRIES ? "offered below asked: run again" : c->pass ? "pass" : "loss");
}

/* ---- results ---- */

static void print_result(int r)
{
	const struct rfc_row *w = &run.rows[r];
	char sz[16];
	int json = run.a.json;
	uint32_t bytes = row_size(r);
	size_label(sz, sizeof(sz), r, json);
	switch (run.test) {
	case T_TPUT: {
		uint64_t kbps = w->tput_offered * (bytes + 20) * 8 / 1000;
		uint64_t cp = w->ceil_pps ? w->tput_pps * 10000 / w->ceil_pps : 0;
		printf(json ? "{\"rfc2544\":\"throughput\",\"size\":%s,\"ceiling_pps\":%llu,\"pps\":%llu,\"offered_pps\":%llu,"
			      "\"wire_kbps\":%llu,\"pct\":%llu.%02llu,\"trials\":%llu,\"trial_ms\":%llu,\"loss_ok_pct\":%llu.%03llu}\n"
			    : "rfc2544: throughput %s B: ceiling %llu fps, throughput %llu fps (%llu offered), %llu kb/s on the "
			      "wire, %llu.%02llu %% of the ceiling, %llu trials of %llu ms, loss accepted %llu.%03llu %%\n",
		       sz, (unsigned long long)w->ceil_pps, (unsigned long long)w->tput_pps,
		       (unsigned long long)w->tput_offered, (unsigned long long)kbps, (unsigned long long)(cp / 100),
		       (unsigned long long)(cp % 100), (unsigned long long)w->tput_trials,
		       (unsigned long long)run.a.trial_ms, (unsigned long long)(run.a.loss_ok_mp / 1000),
		       (unsigned long long)(run.a.loss_ok_mp % 1000));
		if (w->tput_limited)
			printf(json ? "{\"rfc2544\":\"note\",\"size\":%s,\"text\":\"the sender offered no more than %llu fps: "
				      "the search ended at the tester's limit, not the DUT's\"}\n"
				    : "rfc2544: throughput %s B: the sender offered no more than %llu fps: the search ended at "
				      "the tester's limit, not the DUT's\n", sz, (unsigned long long)w->tput_pps);
		if (!w->tput_pps)
			printf(json ? "{\"rfc2544\":\"note\",\"size\":%s,\"text\":\"throughput 0: every trial lost frames, "
				      "the lowest at %llu fps (resolution %llu fps)\"}\n"
				    : "rfc2544: throughput %s B is 0: every trial lost frames, the lowest at %llu fps "
				      "(resolution %llu fps): the DUT forwarded no trial without loss\n",
			       sz, (unsigned long long)run.hi, (unsigned long long)run.res);
		break;
	}
	case T_LAT:
		printf(json ? "{\"rfc2544\":\"latency\",\"size\":%s,\"pps\":%llu,\"clock\":\"%s\",\"n\":%llu,\"min_ns\":%llu,"
			      "\"mean_ns\":%llu,\"p50_ns\":%llu,\"p99_ns\":%llu,\"max_ns\":%llu,\"trials\":%llu}\n"
			    : "rfc2544: latency %s B at %llu fps (clock %s): %llu probes min %llu mean %llu p50 %llu "
			      "p99 %llu max %llu ns in %llu trials\n",
		       sz, (unsigned long long)w->tput_pps, w->lat_hw ? "nic" : "tsc", (unsigned long long)w->lat_n,
		       (unsigned long long)w->lat_min, (unsigned long long)w->lat_mean, (unsigned long long)w->lat_p50,
		       (unsigned long long)w->lat_p99, (unsigned long long)w->lat_max, (unsigned long long)run.a.lat_trials);
		break;
	case T_LOSS:
		for (int s = 0; s < w->nloss; s++)
			printf(json ? "{\"rfc2544\":\"loss\",\"size\":%s,\"load_pct\":%d,\"asked_pps\":%llu,"
				      "\"offered_pps\":%llu,\"loss_pct\":%llu.%03llu}\n"
				    : "rfc2544: frame loss %s B at %d %% (%llu fps asked, %llu offered): %llu.%03llu %% lost\n",
			       sz, 100 - 10 * s, (unsigned long long)(w->ceil_pps * (uint64_t)(10 - s) / 10),
			       (unsigned long long)w->loss_offered[s], (unsigned long long)(w->loss_mp[s] / 1000),
			       (unsigned long long)(w->loss_mp[s] % 1000));
		break;
	default:
		printf(json ? "{\"rfc2544\":\"b2b\",\"size\":%s,\"bursts\":%llu,\"mean_frames\":%llu,\"min_frames\":%llu,"
			      "\"max_frames\":%llu,\"b2b_max\":%llu}\n"
			    : "rfc2544: back-to-back %s B: %llu searches, mean %llu frames (min %llu, max %llu; longest "
			      "tried %llu)\n", sz, (unsigned long long)w->b2b_n,
		       (unsigned long long)(w->b2b_n ? w->b2b_sum / w->b2b_n : 0), (unsigned long long)w->b2b_min,
		       (unsigned long long)w->b2b_max, (unsigned long long)run.hi);
	}
}

/* The tables of every test run, text (RFC 2544 section 26's reporting). */
static void print_tables(void)
{
	char sz[16];
	const struct rfc_args *a = &run.a;
	printf("rfc2544: %s -> %s%s, trial %llu.%03llu s%s\n", nics[a->tx]->name, nics[a->rx]->name,
	       a->bidir ? " and back (bidirectional)" : "", (unsigned long long)(a->trial_ms / 1000),
	       (unsigned long long)(a->trial_ms % 1000), a->trial_ms < 60000 ? " (shorter than RFC 2544's 60 s)" : "");
	if (a->tests & 1u << T_TPUT) {
		printf("throughput (26.1), resolution %llu.%02llu %% of the ceiling, loss accepted %llu.%03llu %%\n"
		       "  frame B  ceiling fps  throughput fps  offered fps  %% of ceiling\n",
		       (unsigned long long)(a->res_cp / 100), (unsigned long long)(a->res_cp % 100),
		       (unsigned long long)(a->loss_ok_mp / 1000), (unsigned long long)(a->loss_ok_mp % 1000));
		for (int r = 0; r < a->nsizes && run.rows[r].done[T_TPUT]; r++) {
			const struct rfc_row *w = &run.rows[r];
			uint64_t cp = w->tput_pps * 10000 / w->ceil_pps;
			size_label(sz, sizeof(sz), r, 0);
			printf("  %7s  %11llu  %14llu  %11llu  %9llu.%02llu\n", sz, (unsigned long long)w->ceil_pps,
			       (unsigned long long)w->tput_pps, (unsigned long long)w->tput_offered,
			       (unsigned long long)(cp / 100), (unsigned long long)(cp % 100));
		}
	}
	if (a->tests & 1u << T_LAT) {
		printf("latency (26.2) at the throughput rate, ns\n  frame B  fps         probes  min       mean      p50       p99       max\n");
		for (int r = 0; r < a->nsizes && run.rows[r].done[T_LAT]; r++) {
			const struct rfc_row *w = &run.rows[r];
			size_label(sz, sizeof(sz), r, 0);
			printf("  %7s  %-10llu  %-6llu  %-8llu  %-8llu  %-8llu  %-8llu  %llu\n", sz,
			       (unsigned long long)w->tput_pps, (unsigned long long)w->lat_n, (unsigned long long)w->lat_min,
			       (unsigned long long)w->lat_mean, (unsigned long long)w->lat_p50,
			       (unsigned long long)w->lat_p99, (unsigned long long)w->lat_max);
		}
	}
	if (a->tests & 1u << T_LOSS) {
		printf("frame loss (26.3), %% lost at %% of the ceiling (- : not run, two loss-free steps before)\n  frame B");
		for (int s = 0; s < RFC_STEPS; s++)
			printf("  %6d%%", 100 - 10 * s);
		printf("\n");
		for (int r = 0; r < a->nsizes && run.rows[r].done[T_LOSS]; r++) {
			size_label(sz, sizeof(sz), r, 0);
			printf("  %7s", sz);
			for (int s = 0; s < RFC_STEPS; s++)
				if (s < run.rows[r].nloss)
					printf("  %3llu.%03llu", (unsigned long long)(run.rows[r].loss_mp[s] / 1000),
					       (unsigned long long)(run.rows[r].loss_mp[s] % 1000));
				else
					printf("  %7s", "-");
			printf("\n");
		}
	}
	if (a->tests & 1u << T_B2B) {
		printf("back-to-back (26.4), frames a burst at the ring's rate holds without loss\n"
		       "  frame B  searches  mean      min       max\n");
		for (int r = 0; r < a->nsizes && run.rows[r].done[T_B2B]; r++) {
			const struct rfc_row *w = &run.rows[r];
			size_label(sz, sizeof(sz), r, 0);
			printf("  %7s  %-8llu  %-8llu  %-8llu  %llu\n", sz, (unsigned long long)w->b2b_n,
			       (unsigned long long)(w->b2b_n ? w->b2b_sum / w->b2b_n : 0), (unsigned long long)w->b2b_min,
			       (unsigned long long)w->b2b_max);
		}
	}
}

/* ---- the run ---- */

static uint64_t ceiling(int r)
{
	uint64_t bits = (uint64_t)(row_size(r) + 20) * 8;	/* + preamble, SFD and gap */
	if (run.a.max_ratep)
		return run.a.max_ratep;
	return (run.a.max_rate ? run.a.max_rate : nics[run.a.tx]->speed) * 1000000 / bits;
}

static uint64_t resolution(uint64_t top)
{
	uint64_t r = top * run.a.res_cp / 10000;
	return r ? r : 1;
}

static void end_run(const char *why)
{
	pg = run.saved;
	pg_tx[run.a.rx].back = 0;
	pg_quiet = 0;
	run.on = 0;
	print_tables();
	printf(run.a.json ? "{\"rfc2544\":\"done\",\"why\":\"%s\",\"trials\":%llu,\"s\":%llu}\n"
			  : "rfc2544: %s: %llu trials in %llu s\n", why, (unsigned long long)run.trials,
	       (unsigned long long)(tsc_to_ns(rdtsc() - run.start_tsc) / 1000000000));
}

/* Set up test run.test for row run.row; 0, or -1 when there is nothing
 * to run (said). */
static int begin_test(void)
{
	struct rfc_row *w = &run.rows[run.row];
	w->ceil_pps = ceiling(run.row);
	run.rep = 0;
	switch (run.test) {
	case T_TPUT:
		run.lo = 0;
		run.hi = run.cur = w->ceil_pps;
		run.res = resolution(w->ceil_pps);
		break;
	case T_LAT:
		if (!w->tput_pps) {
			printf("rfc2544: latency not measured at this size: its throughput is 0\n");
			return -1;
		}
		run.cur = w->tput_pps;
		break;
	case T_LOSS:
		run.step = 10;
		run.clean = 0;
		run.cur = w->ceil_pps;
		break;
	default:
		run.lo = 0;
		run.hi = run.cur = run.a.b2b_max ? run.a.b2b_max : 2 * w->ceil_pps;	/* 2 s at the ceiling */
		run.res = resolution(run.hi);
		w->b2b_min = UINT64_MAX;
	}
	return 0;
}

/* The next (test, size) to run after the current one, and its first trial. */
static void next(void)
{
	for (;;) {
		if (++run.row >= run.a.nsizes) {
			run.row = 0;
			while (++run.test < T_COUNT && !(run.a.tests & 1u << run.test))
				;
			if (run.test == T_COUNT) {
				end_run("done");
				return;
			}
		}
		if (!begin_test())
			break;
		run.rows[run.row].done[run.test] = 1;	/* reported as not run */
	}
	begin_trial();
}

/* The end of a test at this size: its result. */
static void finish(void)
{
	run.rows[run.row].done[run.test] = 1;
	print_result(run.row);
	next();
}

/* A binary search's step after a trial at `at` (the rate it offered, or
 * the burst): 1 when it is over. A loss below a rate that passed (a DUT
 * that is not monotonic, or a sender that stalled) ends the search at the
 * rate that passed. */
static int search(int pass, uint64_t at)
{
	if (pass)
		run.lo = at > run.lo ? at : run.lo;
	else
		run.hi = at > run.lo ? at : run.lo;
	if (run.hi - run.lo <= run.res)
		return 1;
	run.cur = (run.lo + run.hi) / 2;
	return 0;
}

static void evaluate(void)
{
	struct trial c;
	struct rfc_row *w = &run.rows[run.row];
	run.trials++;
	count_trial(&c);
	print_trial(&c);
	switch (run.test) {
	case T_TPUT:
		w->tput_trials++;
		if (c.behind && run.retry++ < RFC_RETRIES)
			break;	/* the trial did not offer its rate: again */
		run.retry = 0;
		/* RFC 2544's throughput is a rate offered: the search moves on
		 * the offered rate (the asked one when it offered more) */
		uint64_t at = c.offered_pps < run.cur ? c.offered_pps : run.cur;
		if (c.pass && at >= w->tput_pps) {
			w->tput_pps = at;
			w->tput_offered = c.offered_pps;
		}
		if (c.pass && c.behind && at <= run.lo) {	/* no higher rate can be offered */
			w->tput_limited = 1;
			finish();
			return;
		}
		if (search(c.pass, at)) {
			finish();
			return;
		}
		break;
	case T_LAT:
		if (++run.rep == run.a.lat_trials) {
			const struct pg_rx *r = &pg_rx[run.a.rx];
			w->lat_n = r->lat.n;
			w->lat_min = r->lat.min;
			w->lat_max = r->lat.max;
			w->lat_mean = r->lat.n ? r->lat.sum / r->lat.n : 0;
			w->lat_p50 = pg_hist_quantile(&r->lat, 5000);
			w->lat_p99 = pg_hist_quantile(&r->lat, 9900);
			w->lat_hw = r->lat_hw;
			finish();
			return;
		}
		break;
	case T_LOSS:
		w->loss_mp[w->nloss] = c.loss_mp;
		w->loss_offered[w->nloss++] = c.offered_pps;
		run.clean = c.lost ? 0 : run.clean + 1;
		if (--run.step == 0 || run.clean == 2) {	/* 26.3: until two successive trials lose nothing */
			finish();
			return;
		}
		run.cur = w->ceil_pps * run.step / 10;
		break;
	default:
		if (search(c.pass, run.cur)) {
			w->b2b_sum += run.lo;
			w->b2b_n++;
			w->b2b_min = run.lo < w->b2b_min ? run.lo : w->b2b_min;
			w->b2b_max = run.lo > w->b2b_max ? run.lo : w->b2b_max;
			if (++run.rep == run.a.b2b_trials) {
				finish();
				return;
			}
			run.lo = 0;
			run.hi = run.cur = run.a.b2b_max ? run.a.b2b_max : 2 * w->ceil_pps;
		}
	}
	begin_trial();
}

int rfc2544_begin(void)
{
	if (rfc2544_busy())
		return -1;
	memset(&run, 0, sizeof(run));
	run.a = pending;
	run.saved = pg;
	run.on = 1;
	run.start_tsc = rdtsc();
	pg_quiet = 1;
	if (run.a.json)
		printf("{\"rfc2544\":\"start\",\"tx\":\"%s\",\"rx\":\"%s\",\"bidir\":%d,\"trial_ms\":%llu}\n",
		       nics[run.a.tx]->name, nics[run.a.rx]->name, run.a.bidir, (unsigned long long)run.a.trial_ms);
	else
		printf("rfc2544: %s -> %s%s: trials of %llu ms%s; pktgen stop ends the run\n", nics[run.a.tx]->name,
		       nics[run.a.rx]->name, run.a.bidir ? " and back" : "", (unsigned long long)run.a.trial_ms,
		       run.a.trial_ms < 60000 ? " (RFC 2544 asks 60 s)" : "");
	run.test = -1;			/* next() moves on to the first test's first size */
	run.row = run.a.nsizes - 1;
	next();
	return 0;
}

int rfc2544_poll(void)
{
	if (!run.on)
		return 0;
	const struct pg_tx *t = &pg_tx[run.a.tx], *u = &pg_tx[run.a.rx];
	uint64_t now = now_ms();
	switch (run.phase) {
	case P_LEARN:
		if (!t->running && !u->running) {
			run.phase = P_REST;
			run.until = now + run.a.rest_ms;
		}
		break;
	case P_REST:
		if (now >= run.until)
			send_trial();
		break;
	case P_SEND:
		if (now >= run.until) {
			run.cut = 1;
			pg_stop(run.a.tx, 0);
			pg_stop(run.a.rx, 0);
		}
		if (!t->running && !u->running) {
			run.phase = P_DRAIN;
			run.until = now + run.a.drain_ms;
		}
		break;
	default:
		if (now >= run.until || all_received())
			evaluate();
	}
	return 1;
}

int rfc2544_stop(void)
{
	if (!run.on)
		return 0;
	pg_stop(run.a.tx, 0);
	pg_stop(run.a.rx, 0);
	printf(run.a.json ? "{\"rfc2544\":\"stopped\",\"test\":\"%s\",\"trial\":%llu}\n"
			  : "rfc2544: stopped during the %s test's trial %llu (not counted); results so far:\n",
	       test_name[run.test], (unsigned long long)run.trials + 1);
	end_run("stopped");
	return 1;
}

/* ---- /metrics ---- */

void rfc2544_metrics(struct prom *o)
{
	char sz[16], num[PROM_NUM_MAX];
	if (!run.start_tsc)	/* no run yet */
		return;
	prom_family(o, "pktgen_rfc2544_running", "gauge", "1 while pktgen rfc2544 runs");
	prom_sample(o, "pktgen_rfc2544_running", NULL, NULL, NULL, NULL, (uint64_t)run.on);
	prom_family(o, "pktgen_rfc2544_trials_total", "counter", "RFC 2544 trials counted");
	prom_sample(o, "pktgen_rfc2544_trials_total", NULL, NULL, NULL, NULL, run.trials);
	prom_family(o, "pktgen_rfc2544_trial_rate", "gauge", "the current trial's asked frames/s (b2b: burst frames)");
	prom_sample(o, "pktgen_rfc2544_trial_rate", "test", run.on ? test_name[run.test] : "none", NULL, NULL,
		    run.on ? run.cur : 0);
	prom_family(o, "pktgen_rfc2544_throughput_fps", "gauge", "RFC 2544 26.1 throughput per frame size, frames/s");
	prom_family(o, "pktgen_rfc2544_latency_seconds", "gauge", "RFC 2544 26.2 latency at the throughput rate");
	prom_family(o, "pktgen_rfc2544_back_to_back_frames", "gauge", "RFC 2544 26.4 mean back-to-back burst");
	for (int r = 0; r < run.a.nsizes; r++) {
		const struct rfc_row *w = &run.rows[r];
		size_label(sz, sizeof(sz), r, 0);
		if (w->done[T_TPUT])
			prom_sample(o, "pktgen_rfc2544_throughput_fps", "size", sz, NULL, NULL, w->tput_pps);
		if (w->done[T_LAT] && w->lat_n) {
			prom_sample_text(o, "pktgen_rfc2544_latency_seconds", "size", sz, "stat", "min",
					 prom_seconds(num, (int64_t)w->lat_min));
			prom_sample_text(o, "pktgen_rfc2544_latency_seconds", "size", sz, "stat", "mean",
					 prom_seconds(num, (int64_t)w->lat_mean));
			prom_sample_text(o, "pktgen_rfc2544_latency_seconds", "size", sz, "stat", "max",
					 prom_seconds(num, (int64_t)w->lat_max));
		}
		if (w->done[T_B2B] && w->b2b_n)
			prom_sample(o, "pktgen_rfc2544_back_to_back_frames", "size", sz, NULL, NULL, w->b2b_sum / w->b2b_n);
	}
}
