/* trafgen: the host traffic tool of linerate. It sends test frames into
 * QEMU's NIC backends (or a tap/veth device), receives them back, and
 * reports counts, rates, loss, reordering, duplicates and latency, as a
 * table and as one `RESULT {json}` line. Usage: `trafgen --help`.
 *
 * One thread, one poll loop over non-blocking sockets: each turn reads
 * every port, writes what the stream port still holds, then sends a burst
 * of frames as the count, duration, rate and window allow; with nothing to
 * do it sleeps in ppoll until a socket is ready or the next deadline.
 * A run is one step per size (stream ids --stream, --stream+1, ...); recv
 * mode is one step that takes every stream it sees.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "pcap.h"
#include "run.h"

#define NS_PER_S 1000000000ull
#define RX_ROUNDS 8                  /* batches read per port per loop turn */
#define WINDOW_STALL_NS 100000000ull /* a full window quiet this long is written off */
#define LAT_VALID (UINT64_C(1) << 47)/* larger differences: a timestamp from elsewhere */

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * NS_PER_S + (uint64_t)t.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static void capture(struct run *r, const uint8_t *f, size_t len)
{
	if (r->pcap)
		pcap_write(r->pcap, now_ns() + (uint64_t)r->wall_offset, f, len);
}

static struct stream *new_stream(struct run *r, uint16_t id, unsigned size, bool ours)
{
	struct stream *s = calloc(1, sizeof(*s));

	if (!s || seq_init(&s->seq) < 0) {
		fprintf(stderr, "trafgen: out of memory\n");
		exit(1);
	}
	s->id = id;
	s->size = size;
	s->ours = ours;
	r->stream[r->nstreams++] = s;
	return s;
}

/* The stream a frame of ours with this id belongs to; recv mode adds new
 * ones while there is room. NULL: count the frame as 'other'. */
static struct stream *find_stream(struct run *r, uint16_t id, size_t len)
{
	for (int i = r->nstreams - 1; i >= 0; i--)
		if (r->stream[i]->id == id)
			return r->stream[i];
	if (r->cfg->mode != MODE_RECV || r->nstreams == MAX_STREAMS)
		return NULL;
	return new_stream(r, id, (unsigned)len + FRAME_FCS, false);
}

static void account(struct run *r, const struct tg_hdr *h, size_t len)
{
	struct stream *s = find_stream(r, h->stream, len);
	/* The clock is read once the batch is in hand, never before the read:
	 * a frame stamped in between would look younger than it is. */
	if (!r->rx_now)
		r->rx_now = now_ns();
	uint64_t lat = (r->rx_now - h->ts) & TG_TS_MASK;

	if (!s) {
		r->other++;
		return;
	}
	seq_add(&s->seq, h->seq);
	s->received++;
	s->bytes += len + FRAME_FCS;
	if (!s->rx_first)
		s->rx_first = r->rx_now;
	s->rx_last = r->last_rx = r->rx_now;
	r->received++;
	if (lat < LAT_VALID)
		lat_add(&s->lat, lat);
}

static bool in_range(const struct range *g, uint64_t v)
{
	return v >= g->lo && v - g->lo < g->n;
}

/* Whether the address t (frame_parse's target, of the family ip6 says)
 * is one of the run's source or destination addresses. */
static bool ours(const struct flow_spec *f, bool ip6, const uint8_t t[16])
{
	static const uint8_t zero[12];
	uint32_t lo = (uint32_t)t[12] << 24 | (uint32_t)t[13] << 16 | (uint32_t)t[14] << 8 | t[15];

	if (ip6 != f->ip6)
		return false;
	return (memcmp(t, ip6 ? f->src_ip6 : zero, 12) == 0 && in_range(&f->src_ip, lo)) ||
	       (memcmp(t, ip6 ? f->dst_ip6 : zero, 12) == 0 && in_range(&f->dst_ip, lo));
}

/* Answers an ARP request or Neighbor Solicitation (kind) for one of our
 * addresses with the MAC of the port asked. */
static void answer(struct run *r, struct port *p, const uint8_t *req, enum frame_kind kind,
		   const uint8_t target[16])
{
	const struct flow_spec *f = &r->cfg->flow;
	uint8_t reply[128], *frames[1] = { reply };
	uint64_t mac = p == &r->port[0] ? f->src_mac.lo : r->cfg->rx_mac;
	size_t len;

	if (!ours(f, kind == FRAME_ND_SOLICIT, target))
		return;
	len = kind == FRAME_ND_SOLICIT ? nd_advert_build(reply, req, mac) :
					 arp_reply_build(reply, req, mac);
	if (port_send(p, frames, &len, 1) == 1) {
		r->arp_replies++;
		capture(r, reply, len);
	}
}

static void on_frame(void *ctx, struct port *p, const uint8_t *f, size_t len)
{
	struct run *r = ctx;
	struct tg_hdr h;
	uint8_t target[16];
	enum frame_kind kind;

	/* recv --count N: what comes after the N-th frame in the same batch
	 * is left unseen, as if it had come after the stop. */
	if (r->cfg->mode == MODE_RECV && r->cfg->count && r->received >= r->cfg->count)
		return;
	capture(r, f, len);
	kind = frame_parse(f, len, &h, target);
	switch (kind) {
	case FRAME_OURS:
		account(r, &h, len);
		break;
	case FRAME_BAD:
		r->bad++;
		break;
	case FRAME_ARP_REQUEST:
	case FRAME_ND_SOLICIT:
		r->other++;
		if (r->cfg->arp_reply)
			answer(r, p, f, kind, target);
		break;
	case FRAME_OTHER:
		r->other++;
		break;
	}
}

/* Reads what every port holds (a bounded number of batches). Returns the
 * frames read, or -1 on error. */
static int receive(struct run *r)
{
	int total = 0, n;

	for (int i = 0; i < r->cfg->nports; i++) {
		for (int round = 0; round < RX_ROUNDS; round++) {
			r->now = now_ns();
			r->rx_now = 0;
			n = port_recv(&r->port[i], on_frame, r);
			if (n < 0)
				return -1;
			if (n == 0)
				break;
			total += n;
		}
	}
	return total;
}

/* Writes what the stream ports hold. *pending: whether port 0 still holds
 * some. Returns 0, or -1 on error. */
static int flush(struct run *r, int *pending)
{
	for (int i = r->cfg->nports - 1; i >= 0; i--) {
		*pending = port_flush(&r->port[i]);
		if (*pending < 0)
			return -1;
	}
	return 0;
}

/* How many frames of s may go now (at most BURST); lowers *until to when
 * more may, if rate or window is what holds them back. */
static uint64_t tx_allowed(struct run *r, struct stream *s, double pps, uint64_t t0,
			   uint64_t *until)
{
	const struct config *c = r->cfg;
	uint64_t n = BURST;

	if (c->count)
		n = min_u64(n, c->count - s->queued);
	if (pps > 0) {
		/* Frame k is due at t0 + k / pps. */
		uint64_t due = (uint64_t)((double)(r->now - t0) * pps / 1e9) + 1;

		if (due <= s->queued) {
			*until = min_u64(*until, t0 + (uint64_t)ceil((double)s->queued * 1e9 / pps));
			return 0;
		}
		n = min_u64(n, due - s->queued);
	}
	if (c->mode == MODE_BOTH && c->window) {
		int64_t inflight = (int64_t)(s->queued - s->seq.unique - s->written_off);
		uint64_t stall = max_u64(s->rx_last, r->last_tx) + WINDOW_STALL_NS;

		if (inflight < 0)
			inflight = 0;
		if ((uint64_t)inflight >= c->window) {
			if (r->now < stall) {
				*until = min_u64(*until, stall);
				return 0;
			}
			s->written_off += (uint64_t)inflight;
			inflight = 0;
		}
		n = min_u64(n, c->window - (uint64_t)inflight);
	}
	return n;
}

/* Builds and hands n frames of s to port 0. Returns the number taken, or
 * -1 on error. */
static int send_burst(struct run *r, struct stream *s, uint64_t n)
{
	uint8_t *frames[BURST];
	size_t lens[BURST];
	uint64_t ts = now_ns();
	int k;

	for (uint64_t i = 0; i < n; i++) {
		frames[i] = r->frame[i];
		lens[i] = frame_build(frames[i], &r->cfg->flow, s->size, s->id, s->queued + i, ts);
	}
	k = port_send(&r->port[0], frames, lens, (int)n);
	for (int i = 0; i < k; i++)
		capture(r, frames[i], lens[i]);
	if (k > 0) {
		s->queued += (uint64_t)k;
		r->last_tx = r->now;
	}
	return k;
}

/* Sleeps until a port is readable (port 0 writable, if want_out) or until
 * `until` (ns). */
static void wait_events(struct run *r, uint64_t until, bool want_out)
{
	struct pollfd fds[MAX_PORTS];
	uint64_t d = until > r->now ? until - r->now : 0;
	struct timespec t = { (time_t)(d / NS_PER_S), (long)(d % NS_PER_S) };

	for (int i = 0; i < r->cfg->nports; i++) {
		fds[i].fd = r->port[i].fd;
		fds[i].events = POLLIN | (i == 0 && want_out ? POLLOUT : 0);
	}
	ppoll(fds, (nfds_t)r->cfg->nports, &t, NULL);
}

/* Whether a step that no longer sends is over; sets r->stop if so. s is
 * NULL in recv mode; t0 is the step's start, send_end when sending ended. */
static bool step_over(struct run *r, const struct stream *s, uint64_t t0, uint64_t send_end,
		      uint64_t *until)
{
	const struct config *c = r->cfg;
	uint64_t tmo = (uint64_t)(c->timeout * 1e9), dur = (uint64_t)(c->duration * 1e9), end;

	if (c->mode == MODE_SEND) {
		r->stop = s->queued == c->count ? "count" : "duration";
		return s->tx_end != 0;
	}
	if (c->mode == MODE_BOTH) {
		end = max_u64(send_end, s->rx_last) + tmo;
		r->stop = s->seq.unique >= s->queued ? "complete" : "timeout";
		*until = min_u64(*until, end);
		return s->seq.unique >= s->queued || r->now >= end;
	}
	if (c->count && r->received >= c->count) {
		r->stop = "count";
		return true;
	}
	if (dur) {
		r->stop = "duration";
		*until = min_u64(*until, t0 + dur);
		if (r->now >= t0 + dur)
			return true;
	}
	if (r->last_rx) {
		r->stop = "timeout";
		*until = min_u64(*until, r->last_rx + tmo);
		return r->now >= r->last_rx + tmo;
	}
	return false;
}

/* One step: sends s (NULL in recv mode) and receives until the step is
 * over. Returns false when the whole run must stop (max-time, signal,
 * error). */
static bool run_step(struct run *r, struct stream *s)
{
	const struct config *c = r->cfg;
	double pps = s ? config_pps(c, s->size) : 0;
	uint64_t t0 = now_ns(), dur = (uint64_t)(c->duration * 1e9), send_end = 0, until, n;
	bool sending = s != NULL;
	int k, pending = 0;

	if (s)
		s->tx_start = t0;
	for (;;) {
		if (receive(r) < 0 || flush(r, &pending) < 0) {
			r->stop = "error";
			r->failed = true;
			return false;
		}
		k = 0;
		r->now = now_ns();
		until = r->deadline;
		if (interrupted || r->now >= r->deadline) {
			r->stop = interrupted ? "interrupted" : "max-time";
			return false;
		}
		if (sending && ((c->count && s->queued >= c->count) || (dur && r->now - t0 >= dur))) {
			sending = false;
			send_end = r->now;
		}
		if (sending) {
			if (dur)
				until = min_u64(until, t0 + dur);
			n = tx_allowed(r, s, pps, t0, &until);
			k = n ? send_burst(r, s, n) : 0;
			if (k < 0) {
				r->stop = "error";
				r->failed = true;
				return false;
			}
			pending |= n > 0 && k == 0;   /* the socket is full */
		} else {
			if (s && !s->tx_end && !pending)
				s->tx_end = r->now;
			if (step_over(r, s, t0, send_end, &until))
				return true;
		}
		if (k == 0)
			wait_events(r, until, pending);
	}
}

static void run_steps(struct run *r)
{
	const struct config *c = r->cfg;
	bool go = true;

	if (c->mode == MODE_RECV) {
		run_step(r, NULL);
		return;
	}
	for (int i = 0; i < c->nsizes && go; i++) {
		struct stream *s = new_stream(r, (uint16_t)(c->stream + i), c->size[i], true);

		go = run_step(r, s);
		s->stop = r->stop;
		s->queued -= port_discard_unsent(&r->port[0]);
		if (!s->tx_end)
			s->tx_end = r->now;
	}
}

int main(int argc, char **argv)
{
	static struct config cfg;
	static struct run run;
	struct run *r = &run;
	struct sigaction sa = { .sa_handler = on_signal };
	int rc = config_parse(&cfg, argc, argv), i;

	if (rc)
		return rc == 1 ? 0 : 2;
	r->cfg = &cfg;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	prctl(PR_SET_TIMERSLACK, 1UL);   /* ns: pace sends finely */
	/* Receiving ports first: on a QEMU hub, frames sent before the
	 * receiving stream is connected would be dropped. */
	for (i = cfg.nports - 1; i >= 0; i--)
		if (port_open(&r->port[i], &cfg.port[i]) < 0)
			return 1;
	if (cfg.pcap) {
		r->pcap = pcap_open(cfg.pcap);
		if (!r->pcap)
			return 1;
		r->wall_offset = (int64_t)(clock_ns(CLOCK_REALTIME) - now_ns());
	}
	r->start = now_ns();
	r->deadline = r->start + (uint64_t)(cfg.max_time * 1e9);
	run_steps(r);
	report(r);
	if (r->pcap && pcap_close(r->pcap, cfg.pcap) < 0)
		r->failed = true;
	for (i = 0; i < cfg.nports; i++)
		port_close(&r->port[i]);
	for (i = 0; i < r->nstreams; i++) {
		seq_free(&r->stream[i]->seq);
		free(r->stream[i]);
	}
	if (r->failed)
		return 1;
	return interrupted ? 130 : 0;
}
