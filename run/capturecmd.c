/*
 * capture <port> [count N] [snaplen L] [dir rx|tx|both] [summary] [filter BPF] | capture stop
 * capture mirror: the mirror's counters (mirror=, drivers/net/capture.h)
 *
 * Frames of a port on the serial console (drivers/net/capture.h), as
 * text2pcap reads them (`text2pcap -D -t ISO dump.txt out.pcapng`): a line
 * with the direction (I received, O sent) and the time in ISO 8601 with ns,
 * then offset-prefixed hex, 16 bytes a line, and an empty line; or, with
 * `summary`, one tcpdump -q -n style line per frame (net/pktsum.h).
 * filter takes a classic BPF program as one word: tcpdump -ddd's output with
 * its newlines and spaces made commas (`tcpdump -ddd arp | tr '\n ' ,,`),
 * as long as the 128-byte line allows (net/bpf.h).
 * It ends after count frames (default 10) or at `capture stop`, with a line
 * of counts. The management port's GET /capture is the fast way; this is
 * for a box with only a serial line.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "drivers/net/capture.h"
#include "drivers/net/nic.h"
#include "kernel/console.h"
#include "kernel/fmt.h"
#include "kernel/shell.h"
#include "net/pktsum.h"
#include "run/capturecmd.h"

#define USAGE "capture <port> [count N] [snaplen L] [dir rx|tx|both] [summary] [filter BPF] | capture stop | capture mirror"

static struct {
	int on;			/* the console's capture runs */
	int summary;
	uint64_t left;		/* frames still to print */
	uint64_t printed;
	int off;		/* the hex dump's next offset in the frame, -1: its time line */
	const char *port;
} con;

#define LINE_MAX_OUT 128	/* bytes: longer than any line printed here, "\r\n" included */

/* "1970-01-01T00:00:01.000000123Z" for ns of the port clock. */
static void iso_time(char *buf, size_t len, int64_t ns)
{
	time_t s = (time_t)(ns / 1000000000);
	struct tm tm;
	gmtime_r(&s, &tm);
	size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%09lldZ", (long long)(ns % 1000000000));
}

/* The frame as text2pcap reads it, a line at a time while every console's
 * buffer has room for one (a frame is ~5 KB of text, more than the buffer):
 * returns 1 once its last line is out. */
static int print_hex(const struct capture_rec *r)
{
	while (console_room() >= LINE_MAX_OUT) {
		char line[64];
		if (con.off < 0) {
			iso_time(line, sizeof(line), r->ns);
			printf("%c %s\n", r->dir == CAPTURE_RX ? 'I' : 'O', line);
			con.off = 0;
			continue;
		}
		if (con.off >= r->caplen) {
			printf("\n");
			con.off = -1;
			return 1;
		}
		size_t n = (size_t)snprintf(line, sizeof(line), "%06x", con.off);
		for (int i = con.off; i < r->caplen && i < con.off + 16; i++)
			n += (size_t)snprintf(line + n, sizeof(line) - n, " %02x", r->data[i]);
		printf("%s\n", line);
		con.off += 16;
	}
	return 0;
}

static void print_summary(const struct capture_rec *r)
{
	char t[40], line[160];
	iso_time(t, sizeof(t), r->ns);
	pkt_summary(line, sizeof(line), r->data, r->caplen, r->wirelen);
	printf("%.18s %s %s %s\n", t + 11, con.port, r->dir == CAPTURE_RX ? "rx" : "tx", line);
}

static void finish(void)
{
	struct capture_stats st;
	capture_stop(&st);
	con.on = 0;
	shell_prompt_hold(0);
	printf("capture: %s: %llu frames printed; seen %llu, filtered %llu, kept %llu, dropped %llu (ring full)\n",
	       con.port, (unsigned long long)con.printed, (unsigned long long)st.seen,
	       (unsigned long long)st.filtered, (unsigned long long)st.kept, (unsigned long long)st.dropped);
}

void capture_console_poll(void)
{
	const struct capture_rec *r;
	for (int i = 0; con.on && con.left && i < 8 && (r = capture_peek()); i++) {
		if (con.summary) {
			if (console_room() < LINE_MAX_OUT)
				break;
			print_summary(r);
		} else if (!print_hex(r)) {
			break;
		}
		capture_next();
		con.left--;
		con.printed++;
	}
	if (con.on && !con.left)
		finish();
}

static struct bpf_insn prog[CAPTURE_PROG_MAX];

/* filter's word into prog and req; returns 0, or -1 after saying why not. */
static int parse_filter(const char *text, struct capture_req *req)
{
	const char *why;
	unsigned pc;
	int n = bpf_parse(text, strlen(text), prog, CAPTURE_PROG_MAX, &why);
	if (n < 0) {
		printf("capture: filter: %s\n", why);
		return -1;
	}
	if ((why = bpf_check(prog, (unsigned)n, &pc))) {
		printf("capture: filter: instruction %u: %s\n", pc, why);
		return -1;
	}
	req->prog = prog;
	req->prog_len = (unsigned)n;
	return 0;
}

/* The options after the port into req and con; returns 0, or -1 after
 * printing what was wrong. */
static int parse_opts(int argc, char **argv, struct capture_req *req)
{
	for (int i = 2; i < argc; i++) {
		uint64_t v = 0;
		const char *k = argv[i];
		if (!strcmp(k, "summary")) {
			con.summary = 1;
			continue;
		}
		if (i + 1 == argc) {
			printf("capture: %s needs a value\nusage: " USAGE "\n", k);
			return -1;
		}
		const char *val = argv[++i];
		if (!strcmp(k, "filter")) {
			if (parse_filter(val, req))
				return -1;
			continue;
		}
		if (!strcmp(k, "dir") && capture_dir_parse(val))
			req->dir = capture_dir_parse(val);
		else if (!strcmp(k, "count") && !parse_u64(val, &v) && v >= 1)
			con.left = v;
		else if (!strcmp(k, "snaplen") && !parse_u64(val, &v) && v >= 1 && v <= CAPTURE_SNAPLEN_MAX)
			req->snaplen = (uint32_t)v;
		else {
			printf("capture: %s %s: count is 1 or more, snaplen 1..%d, dir rx, tx or both\nusage: " USAGE "\n",
			       k, val, CAPTURE_SNAPLEN_MAX);
			return -1;
		}
	}
	return 0;
}

static int cmd_capture(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "stop")) {
		if (con.on)
			finish();
		else
			printf("capture: no console capture runs\n");
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "mirror")) {
		mirror_print();
		return 0;
	}
	struct nic *nic = argc >= 2 ? nic_find(argv[1]) : NULL;
	if (!nic) {
		printf("usage: " USAGE "; ");
		nic_print_ports();
		return -1;
	}
	struct capture_req req = { .port = nic->port, .dir = CAPTURE_RX | CAPTURE_TX, .snaplen = CAPTURE_SNAPLEN_MAX };
	con.summary = 0;
	con.left = 10;
	if (parse_opts(argc, argv, &req))
		return -1;
	const char *why;
	if (capture_start(&req, &why)) {
		printf("capture: %s: %s\n", nic->name, why);
		return -1;
	}
	con.on = 1;
	con.off = -1;
	con.printed = 0;
	shell_prompt_hold(1);
	con.port = nic->name;
	return 0;
}
SHELL_CMD(capture, "capture", USAGE,
	  "print a port's frames as text2pcap reads them (text2pcap -D -t ISO), or one tcpdump-like line each",
	  cmd_capture);
