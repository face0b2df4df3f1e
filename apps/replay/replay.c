/*
 * replay: send the frames of a pcap or pcapng file out of a port, as
 * tcpreplay does: with the file's own gaps (over replay_speed), at
 * replay_pps or replay_mbps, or as fast as the TX ring takes them,
 * replay_loop times. The file is the boot module (GRUB's module2, QEMU's
 * -initrd), checked whole at boot (net/pcapfile.c) and read in place.
 * Frames longer than the port's MTU allows are counted (skipped_mtu) and
 * left out; shorter than NIC_TX_MIN_LEN are padded with zeros as Linux
 * pads them. What the port receives is counted and dropped. Runs from the
 * poll loop's idle hook on queue 0 of each of its ports, on one core, which
 * stays awake (does not halt) while a run goes on.
 * Shell: `replay`, `replay start [port]`, `replay stop [port]`.
 */
#include <stdio.h>
#include <string.h>
#include "apps/replay/replay.h"
#include "kernel/cpu.h"
#include "kernel/mem.h"
#include "kernel/shell.h"
#include "kernel/time.h"

extern const struct app app_replay;
static struct pcapfile file;
static struct replay_port rp[NIC_MAX_PORTS];

static int replay_init(void)
{
	char err[160];
	if (!mem.module_len) {
		printf("replay: no pcap file: boot it as a module (GRUB: module2 /replay.pcap; QEMU: -initrd replay.pcap)\n");
		return -1;
	}
	if (pcapfile_open(&file, (const void *)mem.module_base, mem.module_len, err, sizeof(err))) {
		printf("replay: the module (%lu bytes) refused: %s\n", mem.module_len, err);
		return -1;
	}
	uint64_t span = file.last_ns > file.first_ns ? file.last_ns - file.first_ns : 0;
	printf("replay: %s of %lu frames, %lu bytes, longest %u, over %lu.%06lu s\n", file.ng ? "pcapng" : "pcap",
	       file.frames, file.bytes, file.max_len, span / 1000000000, span / 1000 % 1000000);
	for (int p = 0; p < nic_count; p++) {
		if (!app_runs_on(&app_replay, p))
			continue;
		/* the ring's worth, a burst pending, slack */
		uint32_t n = (uint32_t)nics[p]->txd + REPLAY_BURST + 8;
		if (!(rp[p].pool = pktpool_create("replay", n, PKT_SLOT))) {
			printf("replay: %s: no memory for %u TX buffers\n", nics[p]->name, n);
			return -1;
		}
	}
	return 0;
}

/* a * b / c without overflow where c * b and the result fit in 64 bits. */
static uint64_t muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	return a / c * b + a % c * b / c;
}

/* TSC cycles of ns nanoseconds times num / den. */
static uint64_t cycles(uint64_t ns, uint64_t num, uint64_t den)
{
	return muldiv(muldiv(ns, num, den), tsc.hz, 1000000000u);
}

/* When r is due: the pace's schedule from the run's start. */
static uint64_t due_of(struct replay_port *t, const struct pcapfile_rec *r)
{
	switch (t->pace) {
	case REPLAY_PPS:
		return t->t0 + cycles(t->scheduled, 1000000000u, (uint64_t)replay_cfg.pps);
	case REPLAY_MBPS:
		return t->t0 + cycles(t->bits, 1000u, (uint64_t)replay_cfg.mbps);
	case REPLAY_TOPSPEED:
		return 0;
	}
	if (r->ns > t->file_clock)	/* a frame older than the one before: no gap */
		t->file_clock = r->ns;
	return t->t0 + cycles(t->file_clock - t->file_t0, 1000, (uint64_t)replay_cfg.speed_milli);
}

/* Frames longer than this are left out: the MTU, the Ethernet header and
 * an 802.1Q tag if the frame has one. */
static uint32_t max_frame(const struct nic *nic, const struct pcapfile_rec *r)
{
	uint32_t tag = r->caplen >= 14 && r->data[12] == 0x81 && r->data[13] == 0x00 ? 4 : 0;
	uint32_t m = nic->mtu + 14 + tag;
	return m < PKT_BUF_SIZE ? m : PKT_BUF_SIZE;
}

/* The run is over: say so. */
static void finish(struct replay_port *t, struct nic *nic)
{
	t->running = 0;
	uint64_t ns = tsc_to_ns(t->last_tsc - t->start_tsc);
	printf("replay: %s: done: %lu frames, %lu bytes in %lu.%06lu s, %lu loops, skipped_mtu %lu\n", nic->name,
	       t->packets, t->bytes, ns / 1000000000, ns / 1000 % 1000000, t->loops, t->skipped_mtu);
}

/* The next frame of the file into t->next, a new pass at the end of one;
 * 0 when the run has sent its passes. */
static int fetch(struct replay_port *t, struct nic *nic)
{
	while (!t->last_pass_done) {
		if (!pcapfile_next(&file, &t->cur, &t->next)) {
			t->loops++;	/* the last pass, or one that had nothing to send (every frame past the MTU) */
			t->last_pass_done = (replay_cfg.loop && t->loops >= (uint64_t)replay_cfg.loop) || !t->scheduled;
			if (t->last_pass_done)
				return 0;
			pcapfile_rewind(&file, &t->cur);
			if (t->pace == REPLAY_TIMED) {	/* the pass starts after the last frame */
				t->t0 = t->next_due;
				t->file_t0 = t->file_clock = file.first_ns;
			}
			continue;
		}
		if (t->next.caplen > max_frame(nic, &t->next)) {
			t->skipped_mtu++;
			continue;
		}
		t->next_due = due_of(t, &t->next);
		t->scheduled++;
		t->bits += (uint64_t)t->next.caplen * 8;
		return t->have_next = 1;
	}
	return 0;
}

/* A buffer holding r, rewritten as the knobs say; NULL when the pool is empty. */
static struct pkt *build(struct replay_port *t, const struct pcapfile_rec *r)
{
	struct pkt *p = pkt_alloc_inline(t->pool);
	if (!p)
		return NULL;
	uint32_t len = r->caplen < NIC_TX_MIN_LEN ? NIC_TX_MIN_LEN : r->caplen;
	memcpy(p->data, r->data, r->caplen);
	memset(p->data + r->caplen, 0, len - r->caplen);
	if (replay_cfg.set_dmac && len >= 6)
		memcpy(p->data, replay_cfg.dmac, 6);
	if (replay_cfg.set_smac && len >= 12)
		memcpy(p->data + 6, replay_cfg.smac, 6);
	if (replay_cfg.pnat.n ? ipmap_pnat(&replay_cfg.pnat, p->data, r->caplen)
			      : (replay_cfg.srcipmap.n || replay_cfg.dstipmap.n) &&
				ipmap_rewrite(&replay_cfg.srcipmap, &replay_cfg.dstipmap, p->data, r->caplen))
		t->rewritten++;
	p->len = (uint16_t)len;
	return p;
}

/* One round on port p: build the frames now due, hand them to the ring. */
static int send_due(struct replay_port *t, struct nic *nic)
{
	uint64_t now = rdtsc();
	if (!t->t0)	/* the schedule starts at the first round, not at the command (its console output) */
		t->t0 = t->start_tsc = t->last_tsc = now;
	while (t->npend < REPLAY_BURST && (t->have_next || fetch(t, nic)) && t->next_due <= now) {
		struct pkt *p = build(t, &t->next);
		if (!p)
			break;
		t->pend_due[t->npend] = t->next_due;
		t->pend[t->npend++] = p;
		t->have_next = 0;
	}
	if (!t->npend) {
		if (!t->have_next)
			finish(t, nic);
		return 0;
	}
	int k = nic->ops->tx_burst(nic, 0, t->pend, t->npend);
	now = rdtsc();
	for (int i = 0; i < k; i++) {
		uint64_t late = t->pend_due[i] && now > t->pend_due[i] ? now - t->pend_due[i] : 0;
		t->late_sum += late;
		if (late > t->late_max)
			t->late_max = late;
		t->bytes += t->pend[i]->len;
	}
	t->packets += (uint64_t)k;
	if (k < t->npend)
		t->ring_full++;
	t->npend -= k;
	memmove(t->pend, t->pend + k, sizeof(t->pend[0]) * (size_t)t->npend);
	memmove(t->pend_due, t->pend_due + k, sizeof(t->pend_due[0]) * (size_t)t->npend);
	if (k)
		t->last_tsc = now;
	return k;
}

/* Start (or restart) port p's run from the first frame, counters zeroed. */
static int start(int p)
{
	struct replay_port *t = &rp[p];
	int pace = replay_pace();
	if (pace < 0 || replay_maps() < 0)
		return -1;
	if (nics[p]->link_up != 1) {
		printf("replay: %s: link down, not started (`link %s` says when it is up)\n", nics[p]->name,
		       nics[p]->name);
		return -1;
	}
	pkt_free_bulk(t->pend, t->npend);
	struct pktpool *pool = t->pool;
	memset(t, 0, sizeof(*t));
	t->pool = pool;
	t->pace = pace;
	pcapfile_rewind(&file, &t->cur);
	t->file_t0 = t->file_clock = file.first_ns;
	t->running = 1;
	char pace_s[48];
	replay_pace_str(pace_s, sizeof(pace_s));
	printf("replay: %s: started: %lu frames, %s, loop %lld\n", nics[p]->name, file.frames, pace_s,
	       (long long)replay_cfg.loop);
	return 0;
}

static void stop(int p)
{
	struct replay_port *t = &rp[p];
	if (!t->running)
		return;
	pkt_free_bulk(t->pend, t->npend);
	t->npend = 0;
	finish(t, nics[p]);
}

enum { REQ_START = 1, REQ_STOP };
static int started_once[NIC_MAX_PORTS];

/* What the shell asked, for port (or all, -1), on the app's core. */
static int do_request(int what, int port)
{
	int err = 0;
	for (int p = 0; p < nic_count; p++) {
		if (!app_runs_on(&app_replay, p) || (port >= 0 && p != port))
			continue;
		if (what == REQ_START)
			err |= start(p);
		else
			stop(p);
		started_once[p] = 1;
	}
	return err ? -1 : 0;
}

static struct app_mailbox mailbox = { .app = &app_replay, .run = do_request };

static int replay_idle(void)
{
	app_mailbox_poll(&mailbox);
	int n = 0;
	for (int p = 0; p < nic_count; p++) {
		if (!app_runs_on(&app_replay, p))
			continue;
		if (!started_once[p] && replay_cfg.start == 0 && nics[p]->link_up == 1) {
			started_once[p] = 1;
			start(p);
		}
		if (rp[p].running)	/* awake while running: a halt would miss the next frame's time */
			n += send_due(&rp[p], nics[p]) + 1;
	}
	return n;
}

static void replay_rx(struct nic *nic, int q, struct pkt **pkts, int n)
{
	(void)q;
	rp[nic->port].rx_packets += (uint64_t)n;
	pkt_free_bulk(pkts, n);
}

/* Port p's counters. */
static void show_port(enum app_show show, int p)
{
	struct replay_port *t = &rp[p];
	uint64_t sent = t->packets ? t->packets : 1;
	if (show == APP_SHOW_JSON)
		printf("{\"stats\":\"replay\",\"port\":\"%s\",\"running\":%d", nics[p]->name, t->running);
	else
		printf("replay %s:%s", nics[p]->name, t->running ? " running" : "");
	app_counter(show, "packets", NULL, t->packets);
	app_counter(show, "bytes", NULL, t->bytes);
	app_counter(show, "loops", NULL, t->loops);
	app_counter(show, "skipped_mtu", NULL, t->skipped_mtu);
	app_counter(show, "rewritten", NULL, t->rewritten);
	app_counter(show, "ring_full", NULL, t->ring_full);
	app_counter(show, "late_max_ns", NULL, tsc_to_ns(t->late_max));
	app_counter(show, "late_avg_ns", NULL, tsc_to_ns(t->late_sum / sent));
	app_counter(show, "elapsed_ns", NULL, tsc_to_ns(t->last_tsc - t->start_tsc));
	app_counter(show, "rx_packets", NULL, t->rx_packets);
	printf(show == APP_SHOW_JSON ? "}\n" : "\n");
}

static void replay_report(int json)
{
	for (int p = 0; p < nic_count; p++)
		if (app_runs_on(&app_replay, p))
			show_port(json ? APP_SHOW_JSON : APP_SHOW_NONZERO, p);
}

APP(replay, .name = "replay", .help = "send a pcap/pcapng boot module's frames (tcpreplay)", .init = replay_init,
    .rx = replay_rx, .idle = replay_idle, .report = replay_report);

static int cmd_replay(int argc, char **argv)
{
	int on = 0;
	for (const struct app **a = apps_running; *a; a++)
		on |= *a == &app_replay;
	if (!on) {
		printf("replay: not running (app=replay, and a pcap module)\n");
		return -1;
	}
	int port = -1;
	if (argc == 3) {
		struct nic *nic = nic_find(argv[2]);
		if (!nic || !app_runs_on(&app_replay, nic->port)) {
			printf("replay: '%s' is not a port running replay\n", argv[2]);
			return -1;
		}
		port = nic->port;
	}
	if (argc == 1) {
		char pace[48];
		replay_pace_str(pace, sizeof(pace));
		printf("replay: %s, loop %lld; file: %lu frames, %lu bytes\n", pace, (long long)replay_cfg.loop,
		       file.frames, file.bytes);
		for (int p = 0; p < nic_count; p++)
			if (app_runs_on(&app_replay, p))
				show_port(APP_SHOW_ALL, p);
		return 0;
	}
	if (argc <= 3 && !strcmp(argv[1], "start"))
		return app_request(&mailbox, REQ_START, port);
	if (argc <= 3 && !strcmp(argv[1], "stop"))
		return app_request(&mailbox, REQ_STOP, port);
	printf("usage: replay | replay start [port] | replay stop [port]\n");
	return -1;
}
SHELL_CMD(replay, "replay", "replay | replay start [port] | replay stop [port]",
	  "send the pcap module's frames (knobs replay_*; `set` them, then start)", cmd_replay);
