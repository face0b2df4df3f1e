/*
 * GET /capture?port=0&dir=rx|tx|both&count=N&seconds=S&snaplen=L&filter=BPF
 * on the management port: a capture (drivers/net/capture.h) streamed as
 * pcapng (net/pcapng.h) for `curl -N ... | tshark -r -` or
 * `wireshark -k -i <(curl -sN ...)`. http.c owns the connection; this file
 * the query, the capture and the blocks.
 */
#include <stdio.h>
#include <string.h>
#include "apps/mgmt/mgmt.h"
#include "drivers/net/capture.h"
#include "drivers/net/nic.h"
#include "drivers/net/phc.h"
#include "kernel/cpu.h"
#include "kernel/fmt.h"
#include "kernel/time.h"
#include "net/bpf.h"
#include "net/pcapng.h"

#define SECONDS_MAX 3600
#define ISB_ROOM 128	/* bytes pcapng_isb takes, and more */

static struct {
	int on;
	int header_done;	/* SHB and IDB written */
	struct nic *nic;
	uint64_t count;		/* frames to send; 0: no limit */
	uint64_t sent;
	uint64_t end_ns;	/* now_ns() at which it ends */
	uint32_t snaplen;
	uint64_t missed0;	/* the port's rx_missed_errors at the start */
	struct bpf_insn prog[CAPTURE_PROG_MAX];
} mc;

/* Decode the URL-encoded value s[0..n) (%XX, + for space, RFC 3986 2.1 and
 * HTML forms) into out (len bytes, NUL-terminated); -1 if it does not fit
 * or a % is not followed by two hex digits. */
static int url_decode(const char *s, size_t n, char *out, size_t len)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++, o++) {
		if (o + 1 >= len)
			return -1;
		if (s[i] == '%') {
			if (i + 2 >= n || digit_value(s[i + 1]) > 15 || digit_value(s[i + 2]) > 15)
				return -1;
			out[o] = (char)(digit_value(s[i + 1]) * 16 + digit_value(s[i + 2]));
			i += 2;
		} else {
			out[o] = s[i] == '+' ? ' ' : s[i];
		}
	}
	out[o] = 0;
	return 0;
}

/* One key=value of the query into req and mc; NULL, or what was wrong. */
static const char *query_pair(const char *key, const char *val, struct capture_req *req, uint64_t *seconds)
{
	uint64_t v;
	static char why[96];
	if (!strcmp(key, "filter")) {
		unsigned pc;
		const char *bad;
		int n = bpf_parse(val, strlen(val), mc.prog, CAPTURE_PROG_MAX, &bad);
		if (n < 0)
			return bad;
		if ((bad = bpf_check(mc.prog, (unsigned)n, &pc))) {
			snprintf(why, sizeof(why), "filter: instruction %u: %s", pc, bad);
			return why;
		}
		req->prog = mc.prog;
		req->prog_len = (unsigned)n;
		return NULL;
	}
	if (!strcmp(key, "dir") && capture_dir_parse(val)) {
		req->dir = capture_dir_parse(val);
		return NULL;
	}
	if (parse_u64(val, &v))
		v = UINT64_MAX;
	if (!strcmp(key, "port") && v < NIC_MAX_PORTS)
		req->port = (int)v;
	else if (!strcmp(key, "count") && v != UINT64_MAX)
		mc.count = v;
	else if (!strcmp(key, "seconds") && v >= 1 && v <= SECONDS_MAX)
		*seconds = v;
	else if (!strcmp(key, "snaplen") && v >= 1 && v <= CAPTURE_SNAPLEN_MAX)
		req->snaplen = (uint32_t)v;
	else
		return "port=N dir=rx|tx|both count=N (0: no limit) seconds=1..3600 snaplen=1..2048 "
		       "filter=tcpdump -dd or -ddd output, URL-encoded";
	return NULL;
}

int mgmt_capture_open(const char *query, const char **why)
{
	static char val[1024];
	struct capture_req req = { .port = -1, .dir = CAPTURE_RX | CAPTURE_TX, .snaplen = CAPTURE_SNAPLEN_MAX };
	uint64_t seconds = 10;
	mc.count = 0;
	for (const char *p = query; p && *p;) {
		size_t n = strcspn(p, "&"), k = strcspn(p, "=&");
		char key[16];
		if (k == n || k >= sizeof(key) || url_decode(p + k + 1, n - k - 1, val, sizeof(val))) {
			*why = "query: key=value pairs joined by &, values URL-encoded";
			return -1;
		}
		memcpy(key, p, k);
		key[k] = 0;
		if ((*why = query_pair(key, val, &req, &seconds)))
			return -1;
		p += n + (p[n] == '&');
	}
	if (req.port < 0) {
		*why = "port=N: the port to capture";
		return -1;
	}
	if (capture_start(&req, why))
		return -1;
	mc.nic = nics[req.port];
	mc.on = 1;
	mc.header_done = 0;
	mc.sent = 0;
	mc.snaplen = req.snaplen;
	mc.end_ns = now_ns() + seconds * 1000000000ull;
	mc.missed0 = mc.nic->stats[NS_rx_missed_errors];
	return 0;
}

/* The Interface Statistics Block, and the capture stopped. */
static void finish(struct pcapng_buf *b)
{
	struct capture_stats st;
	capture_stop(&st);
	mc.on = 0;
	pcapng_isb(b, 0, (uint64_t)phc_sw_stamp(phc_of(mc.nic), rdtsc()), st.seen,
		   mc.nic->stats[NS_rx_missed_errors] - mc.missed0, st.seen - st.filtered, st.dropped);
}

int mgmt_capture_read(struct pcapng_buf *b)
{
	const struct capture_rec *r;
	if (!mc.on)
		return 0;
	if (!mc.header_done) {
		char desc[64];
		snprintf(desc, sizeof(desc), "%s %s", mc.nic->driver, mc.nic->model);
		pcapng_shb(b, "linerate");
		pcapng_idb(b, mc.snaplen, mc.nic->name, desc);
		mc.header_done = 1;
	}
	/* Time is up whatever keeps coming (a capture of this port's own
	 * stream gets a frame for each it sends). */
	int over = now_ns() >= mc.end_ns;
	while (!over && (!mc.count || mc.sent < mc.count) && (r = capture_peek())) {
		if (!pcapng_epb(b, 0, (uint64_t)r->ns, r->data, r->caplen, r->wirelen,
				r->dir == CAPTURE_RX ? PCAPNG_INBOUND : PCAPNG_OUTBOUND))
			return 1;	/* the rest next time */
		capture_next();
		mc.sent++;
	}
	if ((over || (mc.count && mc.sent == mc.count)) && b->cap - b->len >= ISB_ROOM) {
		finish(b);
		return 0;
	}
	return 1;
}

void mgmt_capture_close(void)
{
	if (mc.on)
		capture_stop(NULL);
	mc.on = 0;
}
