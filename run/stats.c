/* Console statistics: sampling and formatting; see stats.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "run/stats.h"

void stats_sample_port(struct stats_port *p, const struct nic *nic)
{
	const uint64_t *s = nic->stats;
	memcpy(p->name, nic->name, sizeof(p->name));
	p->mtu = nic->mtu;
	p->rx_ok = nic_stat_now(nic, NS_rx_delivered);
	p->rx_err = s[NS_rx_errors];
	p->rx_runts = s[NS_rx_short_length_errors];
	p->rx_drp = s[NS_rx_missed_errors] + s[NS_rx_fifo_errors] + nic_stat_now(nic, NS_rx_drop_oversize) +
		    nic_stat_now(nic, NS_rx_drop_desc_error) + nic_stat_now(nic, NS_alloc_rx_buff_failed) +
		    s[NS_rx_drop_reset];
	p->rx_ovr = s[NS_rx_no_buffer_count] + s[NS_rx_over_errors];
	p->tx_ok = s[NS_tx_packets];
	p->tx_err = s[NS_tx_errors];
	p->tx_drp = s[NS_tx_dropped];
	p->tx_ovr = nic_stat_now(nic, NS_tx_ring_full);
	p->nqueues = nic->nqueues;
	for (int q = 0; q < nic->nqueues; q++) {
		p->q[q] = nic->q[q];
		p->itr_setting[q] = nic->itr[q].setting;
	}
}

void stats_sample_core(struct stats_core *c, const struct lcore *lc)
{
	*c = (struct stats_core){ .id = lc->id, .processed = lc->processed, .dropped = app_drops[lc->id].n,
				  .time_squeeze = lc->time_squeeze, .halted_cycles = lc->halted_cycles,
				  .busy_poll = lc->busy_poll };
}

/* Output buffer that only ever holds whole lines. */
struct out {
	char *buf;
	size_t len, used, line;	/* bytes: size, written, start of the current line */
	int full;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	if (o->full)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->len - o->used) {
		o->full = 1;
		o->used = o->line;
		o->buf[o->used] = 0;
		return;
	}
	o->used += (size_t)n;
}

static void endline(struct out *o)
{
	put(o, "\n");
	o->line = o->used;
}

/* a * b / c rounded, for c > 0, saturating at UINT64_MAX; long division
 * because the kernel links no libgcc (no 128-bit divide). */
static uint64_t muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t ab;
	if (!__builtin_mul_overflow(a, b, &ab) && ab <= UINT64_MAX - c / 2)
		return (ab + c / 2) / c;	/* one divide: the report's usual case */
	unsigned __int128 n = (unsigned __int128)a * b + c / 2;
	uint64_t q = 0, r = 0;
	for (int i = 127; i >= 0; i--) {
		uint64_t carry = r >> 63;
		r = r << 1 | (uint64_t)(n >> i & 1);
		if (carry || r >= c) {
			r -= c;
			if (i >= 64)
				return UINT64_MAX;
			q |= 1ull << i;
		}
	}
	return q;
}

/* d events over cycles at hz, per second. */
static uint64_t per_s(uint64_t d, uint64_t cycles, uint64_t hz)
{
	return cycles ? muldiv(d, hz, cycles) : 0;
}

/* n / d in hundredths, for d > 0. */
static uint64_t hundredths(uint64_t n, uint64_t d)
{
	return muldiv(n, 100, d);
}

/* Rates of one queue over a period. */
struct qrate {
	uint64_t rx_pps, rx_bps, tx_pps, tx_bps, irqs_per_s, polls_per_s;
	uint64_t irqs, polls, poll_pkts;	/* deltas */
	uint64_t rx_pkts;			/* delta */
};

static struct qrate queue_rate(const struct nic_qstats *a, const struct nic_qstats *b, uint64_t cycles,
			       uint64_t hz)
{
	struct qrate r = {
		.rx_pkts = b->rx_packets - a->rx_packets,
		.irqs = b->irqs - a->irqs,
		.polls = b->polls - a->polls,
		.poll_pkts = b->poll_pkts - a->poll_pkts,
	};
	r.rx_pps = per_s(r.rx_pkts, cycles, hz);
	r.rx_bps = per_s((b->rx_bytes - a->rx_bytes) * 8, cycles, hz);
	r.tx_pps = per_s(b->tx_packets - a->tx_packets, cycles, hz);
	r.tx_bps = per_s((b->tx_bytes - a->tx_bytes) * 8, cycles, hz);
	r.irqs_per_s = per_s(r.irqs, cycles, hz);
	r.polls_per_s = per_s(r.polls, cycles, hz);
	return r;
}

/* "12.50" or "-" (table) / "null" (JSON) when d is 0. */
static void put_ratio(struct out *o, int width, uint64_t n, uint64_t d, const char *none)
{
	if (!d) {
		put(o, "%*s", width, none);
		return;
	}
	uint64_t h = hundredths(n, d);
	char num[32];
	snprintf(num, sizeof(num), "%lu.%02lu", (unsigned long)(h / 100), (unsigned long)(h % 100));
	put(o, "%*s", width, num);
}

/* CPU% in hundredths over cycles, clamped to 0..100%. */
static uint64_t cpu_hundredths(uint64_t halted, uint64_t cycles)
{
	if (!cycles)
		return 0;
	uint64_t busy = halted < cycles ? cycles - halted : 0;
	return muldiv(busy, 10000, cycles);
}

/* Under the netstat table, once: RX-ERR that is only runts is QEMU's padding
 * on QEMU's models (docs/qemu-nics.md), not a broken NIC (see stats.h). */
static void note_runts(struct out *o, const struct stats_snap *a, const struct stats_snap *b, int first, int last)
{
	for (int i = first; i <= last; i++) {
		const struct stats_port *p = &b->port[i];
		if (!p->rx_err || p->rx_err != p->rx_runts || a->port[i].rx_err)
			continue;
		put(o, "%s: RX-ERR %lu are all runts (rx_short_length_errors): QEMU's e1000e\n"
		    "  and igb pad them to 60 B, deliver them (in RX-OK too) and count them;\n"
		    "  silicon drops them; see docs/stats.md", p->name, p->rx_err);
		endline(o);
	}
}

static void table_ports(struct out *o, const struct stats_snap *a, const struct stats_snap *b, int first,
			int last)
{
	put(o, "%-5s %5s %12s %6s %6s %6s %12s %6s %6s %6s", "Iface", "MTU", "RX-OK", "RX-ERR",
	    "RX-DRP", "RX-OVR", "TX-OK", "TX-ERR", "TX-DRP", "TX-OVR");
	endline(o);
	for (int i = first; i <= last; i++) {
		const struct stats_port *p = &b->port[i];
		put(o, "%-5s %5u %12lu %6lu %6lu %6lu %12lu %6lu %6lu %6lu", p->name, p->mtu, p->rx_ok,
		    p->rx_err, p->rx_drp, p->rx_ovr, p->tx_ok, p->tx_err, p->tx_drp, p->tx_ovr);
		endline(o);
	}
	note_runts(o, a, b, first, last);
}

static void table_queues(struct out *o, const struct stats_snap *a, const struct stats_snap *b,
			 uint64_t hz, int first, int last)
{
	uint64_t cycles = b->tsc - a->tsc;
	/* bps (L2): frame bytes without the FCS, as the driver counts them */
	put(o, "%-5s %2s %7s %10s %7s %10s %6s %7s %7s %8s", "Iface", "Q", "rx_pps", "rx_bps(L2)", "tx_pps",
	    "tx_bps(L2)", "irq/s", "pkt/irq", "poll/s", "pkt/poll");
	endline(o);
	for (int i = first; i <= last; i++)
		for (int q = 0; q < b->port[i].nqueues; q++) {
			struct qrate r = queue_rate(&a->port[i].q[q], &b->port[i].q[q], cycles, hz);
			put(o, "%-5s %2d %7lu %10lu %7lu %10lu %6lu", b->port[i].name, q, r.rx_pps, r.rx_bps,
			    r.tx_pps, r.tx_bps, r.irqs_per_s);
			put_ratio(o, 8, r.rx_pkts, r.irqs, "-");
			put(o, " %7lu", r.polls_per_s);
			put_ratio(o, 9, r.poll_pkts, r.polls, "-");
			endline(o);
		}
}

static void table_cores(struct out *o, const struct stats_snap *a, const struct stats_snap *b)
{
	uint64_t cycles = b->tsc - a->tsc;
	put(o, "%-4s %6s %12s %12s %12s", "Core", "CPU%", "processed", "dropped", "time_squeeze");
	endline(o);
	for (int i = 0; i < b->ncores; i++) {
		const struct stats_core *c = &b->core[i];
		uint64_t pct = cpu_hundredths(c->halted_cycles - a->core[i].halted_cycles, cycles);
		char cpu[48] = "busy";	/* busy polling: 100 %, whatever the load (poll=napi measures) */
		if (!c->busy_poll)
			snprintf(cpu, sizeof(cpu), "%lu.%02lu", pct / 100, pct % 100);
		put(o, "%-4d %6s %12lu %12lu %12lu", c->id, cpu, c->processed, c->dropped, c->time_squeeze);
		endline(o);
	}
}

static void json_ports(struct out *o, const struct stats_snap *a, const struct stats_snap *b,
		       uint64_t hz, int first, int last)
{
	uint64_t cycles = b->tsc - a->tsc;
	uint64_t dt_ms = hz ? muldiv(cycles, 1000, hz) : 0;
	for (int i = first; i <= last; i++) {
		const struct stats_port *p = &b->port[i];
		uint64_t rx_pkts = 0, rx_bytes = 0, tx_pkts = 0, tx_bytes = 0;
		for (int q = 0; q < p->nqueues; q++) {
			rx_pkts += p->q[q].rx_packets - a->port[i].q[q].rx_packets;
			rx_bytes += p->q[q].rx_bytes - a->port[i].q[q].rx_bytes;
			tx_pkts += p->q[q].tx_packets - a->port[i].q[q].tx_packets;
			tx_bytes += p->q[q].tx_bytes - a->port[i].q[q].tx_bytes;
		}
		put(o, "{\"stats\":\"port\",\"t_ms\":%lu,\"dt_ms\":%lu,\"port\":\"%s\",\"mtu\":%u,"
		    "\"rx_ok\":%lu,\"rx_err\":%lu,\"rx_drp\":%lu,\"rx_ovr\":%lu,"
		    "\"tx_ok\":%lu,\"tx_err\":%lu,\"tx_drp\":%lu,\"tx_ovr\":%lu,"
		    "\"rx_pps\":%lu,\"rx_bps\":%lu,\"tx_pps\":%lu,\"tx_bps\":%lu}",
		    b->uptime_ms, dt_ms, p->name, p->mtu, p->rx_ok, p->rx_err, p->rx_drp, p->rx_ovr,
		    p->tx_ok, p->tx_err, p->tx_drp, p->tx_ovr, per_s(rx_pkts, cycles, hz),
		    per_s(rx_bytes * 8, cycles, hz), per_s(tx_pkts, cycles, hz), per_s(tx_bytes * 8, cycles, hz));
		endline(o);
		for (int q = 0; q < p->nqueues; q++) {
			const struct nic_qstats *s = &p->q[q];
			struct qrate r = queue_rate(&a->port[i].q[q], s, cycles, hz);
			put(o, "{\"stats\":\"queue\",\"t_ms\":%lu,\"dt_ms\":%lu,\"port\":\"%s\",\"queue\":%d,"
			    "\"rx_packets\":%lu,\"rx_bytes\":%lu,\"tx_packets\":%lu,\"tx_bytes\":%lu,"
			    "\"irqs\":%lu,\"polls\":%lu,\"rx_pps\":%lu,\"rx_bps\":%lu,\"tx_pps\":%lu,"
			    "\"tx_bps\":%lu,\"irqs_per_s\":%lu,\"pkts_per_irq\":",
			    b->uptime_ms, dt_ms, p->name, q, s->rx_packets, s->rx_bytes, s->tx_packets,
			    s->tx_bytes, s->irqs, s->polls, r.rx_pps, r.rx_bps, r.tx_pps, r.tx_bps,
			    r.irqs_per_s);
			put_ratio(o, 0, r.rx_pkts, r.irqs, "null");
			put(o, ",\"polls_per_s\":%lu,\"pkts_per_poll\":", r.polls_per_s);
			put_ratio(o, 0, r.poll_pkts, r.polls, "null");
			put(o, ",\"itr_setting\":%u,\"itr_ints_per_s\":%lu}", p->itr_setting[q], s->itr);
			endline(o);
		}
	}
}

static void json_cores(struct out *o, const struct stats_snap *a, const struct stats_snap *b, uint64_t hz)
{
	uint64_t cycles = b->tsc - a->tsc;
	for (int i = 0; i < b->ncores; i++) {
		const struct stats_core *c = &b->core[i];
		uint64_t pct = cpu_hundredths(c->halted_cycles - a->core[i].halted_cycles, cycles);
		put(o, "{\"stats\":\"core\",\"t_ms\":%lu,\"dt_ms\":%lu,\"core\":%d,\"cpu_pct\":%lu.%02lu,"
		    "\"processed\":%lu,\"dropped\":%lu,\"time_squeeze\":%lu}",
		    b->uptime_ms, hz ? muldiv(cycles, 1000, hz) : 0, c->id, pct / 100, pct % 100, c->processed,
		    c->dropped, c->time_squeeze);
		endline(o);
	}
}

size_t stats_format(char *buf, size_t len, const struct stats_snap *a, const struct stats_snap *b,
		    uint64_t tsc_hz, enum stats_format fmt, int port)
{
	struct out o = { .buf = buf, .len = len };
	if (!len)
		return 0;
	buf[0] = 0;
	int first = port < 0 ? 0 : port, last = port < 0 ? b->nports - 1 : port;
	if (fmt == STATS_JSON) {
		json_ports(&o, a, b, tsc_hz, first, last);
		if (port < 0)
			json_cores(&o, a, b, tsc_hz);
		return o.used;
	}
	uint64_t cycles = b->tsc - a->tsc, dt_ms = tsc_hz ? muldiv(cycles, 1000, tsc_hz) : 0;
	put(&o, "stats at %lu.%03lu s, over %lu.%03lu s", b->uptime_ms / 1000, b->uptime_ms % 1000,
	    dt_ms / 1000, dt_ms % 1000);
	endline(&o);
	table_ports(&o, a, b, first, last);
	table_queues(&o, a, b, tsc_hz, first, last);
	if (port < 0)
		table_cores(&o, a, b);
	return o.used;
}
