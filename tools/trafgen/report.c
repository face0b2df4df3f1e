/* trafgen's report: a table for people and one `RESULT {json}` line for
 * programs, per stream (row) and in total. Rates are taken over each
 * stream's own span: sending from its first frame to its end, receiving
 * from the start of sending (recv mode: the first frame) to the last frame.
 */
#include <stdio.h>
#include <string.h>

#include "run.h"

/* One row of the report, or the totals. */
struct summary {
	bool has_sent, has_expected;
	uint64_t sent, expected, received, lost, reordered, duplicates, bytes;
	double tx_s, rx_s;        /* time spans the rates are taken over, s */
	double tx_bits;           /* bits offered, wire convention */
	const struct lat_hist *lat;
};

static void summarize(const struct run *r, const struct stream *s, struct summary *m)
{
	enum mode mode = r->cfg->mode;
	uint64_t unique = s->seq.unique;
	uint64_t rx_from = s->ours ? s->tx_start : s->rx_first;

	memset(m, 0, sizeof(*m));
	m->has_sent = s->ours;
	m->sent = s->queued;
	m->has_expected = mode != MODE_SEND;
	m->expected = mode == MODE_BOTH ? s->queued : s->seq.next;
	m->lost = m->expected > unique ? m->expected - unique : 0;
	m->received = s->received;
	m->reordered = s->seq.reordered;
	m->duplicates = s->seq.duplicates;
	m->bytes = s->bytes;
	m->tx_s = s->ours ? (double)(s->tx_end - s->tx_start) / 1e9 : 0;
	m->tx_bits = (double)s->queued * (s->size + FRAME_WIRE_EXTRA) * 8;
	m->rx_s = s->received ? (double)(s->rx_last - rx_from) / 1e9 : 0;
	m->lat = &s->lat;
}

static void add_summary(struct summary *t, const struct summary *m)
{
	t->has_sent |= m->has_sent;
	t->has_expected |= m->has_expected;
	t->sent += m->sent;
	t->expected += m->expected;
	t->received += m->received;
	t->lost += m->lost;
	t->reordered += m->reordered;
	t->duplicates += m->duplicates;
	t->bytes += m->bytes;
	t->tx_s += m->tx_s;
	t->tx_bits += m->tx_bits;
	t->rx_s += m->rx_s;
}

static double per_s(double x, double s)
{
	return s > 0 ? x / s : 0;
}

static double rx_bps(const struct summary *m)
{
	return per_s((double)(m->bytes + m->received * FRAME_WIRE_EXTRA) * 8, m->rx_s);
}

static void json_u64(const char *key, bool valid, uint64_t v)
{
	if (valid)
		printf(",\"%s\":%llu", key, (unsigned long long)v);
	else
		printf(",\"%s\":null", key);
}

static void json_num(const char *key, bool valid, double v)
{
	if (valid)
		printf(",\"%s\":%.1f", key, v);
	else
		printf(",\"%s\":null", key);
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static const double quantiles[] = { 0.5, 0.9, 0.99, 0.999 };
static const char *const quantile_keys[] = { "lat_p50_ns", "lat_p90_ns", "lat_p99_ns", "lat_p999_ns" };

/* The fields of a summary, each preceded by a comma. */
static void json_summary(const struct summary *m)
{
	const struct lat_hist *h = m->lat;

	json_u64("sent", m->has_sent, m->sent);
	json_u64("expected", m->has_expected, m->expected);
	json_u64("received", true, m->received);
	json_u64("lost", m->has_expected, m->lost);
	json_u64("reordered", true, m->reordered);
	json_u64("duplicates", true, m->duplicates);
	json_u64("bytes", true, m->bytes);
	json_num("tx_pps", m->has_sent, per_s((double)m->sent, m->tx_s));
	json_num("tx_bps", m->has_sent, per_s(m->tx_bits, m->tx_s));
	json_num("pps", true, per_s((double)m->received, m->rx_s));
	json_num("bps", true, rx_bps(m));
	json_u64("lat_min_ns", h->n, h->min);
	json_u64("lat_mean_ns", h->n, h->n ? h->sum / h->n : 0);
	for (int i = 0; i < 4; i++)
		json_u64(quantile_keys[i], h->n, lat_quantile(h, quantiles[i]));
	json_u64("lat_max_ns", h->n, h->max);
}

static void print_json(const struct run *r, const struct summary *total, double elapsed,
		       uint64_t drops)
{
	const struct config *c = r->cfg;
	struct summary m;

	printf("RESULT {\"mode\":\"%s\",\"ports\":[", mode_names[c->mode]);
	for (int i = 0; i < c->nports; i++) {
		if (i)
			putchar(',');
		json_str(c->port[i].text);
	}
	printf("],\"stop\":\"%s\",\"elapsed_s\":%.3f", r->stop, elapsed);
	json_summary(total);
	printf(",\"other\":%llu,\"bad\":%llu,\"arp_replies\":%llu,\"sock_drops\":%llu,\"rows\":[",
	       (unsigned long long)r->other, (unsigned long long)r->bad,
	       (unsigned long long)r->arp_replies, (unsigned long long)drops);
	for (int i = 0; i < r->nstreams; i++) {
		summarize(r, r->stream[i], &m);
		printf("%s{\"stream\":%u,\"size\":%u,\"stop\":\"%s\"", i ? "," : "",
		       r->stream[i]->id, r->stream[i]->size,
		       r->stream[i]->stop ? r->stream[i]->stop : r->stop);
		json_summary(&m);
		putchar('}');
	}
	printf("]}\n");
}

static void cell_u64(bool valid, uint64_t v, int width)
{
	if (valid)
		printf(" %*llu", width, (unsigned long long)v);
	else
		printf(" %*s", width, "-");
}

static void cell_num(bool valid, double v, int width)
{
	if (valid)
		printf(" %*.2f", width, v);
	else
		printf(" %*s", width, "-");
}

static void table_row(const char *label, const struct summary *m)
{
	const struct lat_hist *h = m->lat;

	printf("%6s", label);
	cell_u64(m->has_sent, m->sent, 10);
	cell_u64(true, m->received, 10);
	cell_u64(m->has_expected, m->lost, 8);
	cell_u64(true, m->reordered, 7);
	cell_u64(true, m->duplicates, 6);
	cell_num(m->has_sent, per_s((double)m->sent, m->tx_s) / 1e3, 9);
	cell_num(true, per_s((double)m->received, m->rx_s) / 1e3, 9);
	cell_num(true, rx_bps(m) / 1e6, 11);
	for (int i = 0; i < 4; i++)
		cell_num(h->n, (double)lat_quantile(h, quantiles[i]) / 1e3, 9);
	cell_num(h->n, (double)h->max / 1e3, 9);
	putchar('\n');
}

static void print_table(const struct run *r, const struct summary *total, double elapsed,
			uint64_t drops)
{
	const struct config *c = r->cfg;
	struct summary m;
	char label[16];

	printf("trafgen %s: ", mode_names[c->mode]);
	for (int i = 0; i < c->nports; i++)
		printf("%s%s", i ? ", " : "", c->port[i].text);
	if (c->mode != MODE_RECV) {
		if (c->rate_unit == RATE_MAX)
			printf("; rate max");
		else
			printf("; rate %g %s", c->rate, c->rate_unit == RATE_PPS ? "pps" : "bps");
		if (c->mode == MODE_BOTH)
			printf(", window %u", c->window);
	}
	/* Mbps (L1): the frame with its FCS + 20 B preamble, SFD and gap */
	printf("\n%6s %10s %10s %8s %7s %6s %9s %9s %11s %9s %9s %9s %9s %9s\n", "size", "sent",
	       "received", "lost", "reord", "dup", "tx kpps", "rx kpps", "rx Mbps(L1)", "p50 us",
	       "p90 us", "p99 us", "p99.9 us", "max us");
	for (int i = 0; i < r->nstreams; i++) {
		summarize(r, r->stream[i], &m);
		snprintf(label, sizeof(label), "%u", r->stream[i]->size);
		table_row(label, &m);
	}
	if (r->nstreams > 1)
		table_row("total", total);
	printf("other frames %llu (ARP replies sent %llu), bad %llu, socket drops %llu; "
	       "stopped: %s after %.3f s\n",
	       (unsigned long long)r->other, (unsigned long long)r->arp_replies,
	       (unsigned long long)r->bad, (unsigned long long)drops, r->stop, elapsed);
}

void report(struct run *r)
{
	static struct lat_hist lat;   /* all streams */
	struct summary total = { .lat = &lat }, m;
	double elapsed = (double)(r->now - r->start) / 1e9;   /* r->now: when it stopped */
	uint64_t drops = 0;

	for (int i = 0; i < r->cfg->nports; i++) {
		port_update_drops(&r->port[i]);
		drops += r->port[i].sock_drops;
	}
	for (int i = 0; i < r->nstreams; i++) {
		summarize(r, r->stream[i], &m);
		add_summary(&total, &m);
		lat_merge(&lat, &r->stream[i]->lat);
	}
	if (!r->cfg->quiet)
		print_table(r, &total, elapsed, drops);
	print_json(r, &total, elapsed, drops);
	fflush(stdout);
}

