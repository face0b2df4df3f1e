/* trafgen's command line: options, their accepted forms, and --help. */
#include "args.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define M_SEND (1u << MODE_SEND)
#define M_RECV (1u << MODE_RECV)
#define M_BOTH (1u << MODE_BOTH)
#define M_ALL (M_SEND | M_RECV | M_BOTH)
#define SECONDS_MAX 1e6
#define COUNT_MAX (UINT64_C(1) << 62)
#define WINDOW_MAX 1000000

static const char usage[] =
"usage: trafgen send|recv|both --port SPEC [--port SPEC] [options]\n"
"\n"
"Sends and receives Ethernet/IPv4/UDP test frames through QEMU's host-side NIC\n"
"backends or a tap/veth device; reports counts, rates, loss, reordering,\n"
"duplicates and latency. It always stops by itself.\n"
"\n"
"Modes:\n"
"  send   send on port 0\n"
"  recv   receive; expected frames per stream = highest sequence number + 1\n"
"  both   send on port 0 and receive: on port 1 (e.g. through the appliance's\n"
"         two ports), or on port 0 itself (loopback, echo)\n"
"  Every port is read in every mode: frames of ours count as received, others\n"
"  as 'other' (ARP requests are answered with --arp-reply), and so do frames\n"
"  of ours from a stream this run did not send (send, both) or past the 64th\n"
"  stream seen (recv).\n"
"\n"
"Ports (one or two):\n"
"  --port stream:PATH\n"
"      connect to QEMU's -netdev stream,server=on,addr.type=unix,addr.path=PATH\n"
"      (4-byte big-endian length + frame; lossless back-pressure)\n"
"  --port dgram:LPORT:RPORT\n"
"      UDP on 127.0.0.1: bind LPORT, send to RPORT. The peer of -netdev dgram,\n"
"      local.type=inet,local.host=127.0.0.1,local.port=RPORT,remote.type=inet,\n"
"      remote.host=127.0.0.1,remote.port=LPORT (one frame per datagram; what\n"
"      QEMU's socket cannot hold, the kernel drops)\n"
"  --port tap:IFNAME\n"
"      AF_PACKET raw socket on a tap/veth device (root; use a network\n"
"      namespace you made)\n"
"\n"
"Sending (send, both):\n"
"  --count N         frames per size (recv: stop after exactly N frames)\n"
"                    [1000 when neither --count nor --duration is given, for\n"
"                    send and both]\n"
"  --duration S      seconds of sending per size (recv: of listening)\n"
"  --rate R          max | Npps | Nkpps | NMpps | Nbps | Nkbps | NMbps | NGbps\n"
"                    [max]; N may have a fraction. A frame of size B counts\n"
"                    (B + 20) * 8 bits: FCS included, plus 8 B preamble/SFD and\n"
"                    12 B inter-frame gap\n"
"  --window N        both: at most N frames in flight (sent - received), 0 = no\n"
"                    limit [64 when port 0 is dgram, whose QEMU socket overflows\n"
"                    beyond that; 256 on stream and tap]; a full window with\n"
"                    nothing back for 100 ms is written off, so loss cannot\n"
"                    stall the sender\n"
"  --size B          frame size in bytes including the 4-byte FCS that QEMU does\n"
"                    not carry: 64..1518 [64]; a 64-byte frame is 60 on the\n"
"                    socket\n"
"  --sweep B,B,...   one step per size, a row each, e.g.\n"
"                    64,128,256,512,1024,1518\n"
"  --src-mac M[-M]   [02:00:00:00:00:01]     --dst-mac M[-M]  [02:00:00:00:00:02]\n"
"  --src-ip A[-A]    [10.1.0.2]              --dst-ip A[-A]   [10.2.0.2]\n"
"  --src-ip6 A[-A]   --dst-ip6 A[-A]         IPv6 frames (both needed, the\n"
"                    ends of a range alike but for their last 32 bits), e.g.\n"
"                    2001:db8:1::2-2001:db8:1::41; --size 84..1518 [84]\n"
"  --src-port P[-P]  [1000]                  --dst-port P[-P] [9]\n"
"                    ranges, each walked on its own: the frame with sequence\n"
"                    number s takes element s mod (range length)\n"
"  --stream ID       stream id of the first size; sweep step i uses ID+i [0]\n"
"  --vlan VID        tag every frame sent with an 802.1Q tag (TPID 0x8100, PCP 0,\n"
"                    DEI 0, VID 0..4094; Linux pktgen's vlan_id): 4 bytes more,\n"
"                    counted in the size: 68..1522 [68] (IPv6 88..1522 [88])\n"
"\n"
"Receiving and stopping:\n"
"  --timeout S       recv: stop S s after the last frame; both: wait at most S s\n"
"                    after sending ends / after the last frame for the rest [2]\n"
"  --max-time S      hard limit on the whole run [60]\n"
"  --arp-reply       answer ARP requests (IPv6: Neighbor Solicitations) for the\n"
"                    source and destination addresses with the MAC of the port\n"
"                    asked (port 0: first --src-mac; port 1:\n"
"                    --rx-mac), under the request's 802.1Q tag if it had one\n"
"  --rx-mac M        port 1's MAC for ARP replies [first --dst-mac]\n"
"\n"
"Output:\n"
"  --quiet           only the RESULT line\n"
"  --pcap FILE       write every frame sent and received (pcap, ns timestamps)\n"
"  -h, --help        this text\n"
"\n"
"Frames: Ethernet II / IPv4 (TTL 64, DF, header checksum) or IPv6 (hop limit\n"
"64) / UDP (checksum) /\n"
"payload header, big-endian: magic 0x4c52 (16 bit), stream id (16), sequence\n"
"number (64, from 0), send time (48: CLOCK_MONOTONIC ns mod 2^48); zeros after.\n"
"Frames received under one 802.1Q tag (TPID 0x8100, any VID) are read under it.\n"
"\n"
"Statistics: received = valid frames of ours, duplicates included; lost =\n"
"sent (recv: highest sequence + 1) - distinct received; reordered = new frames\n"
"below the highest sequence seen; duplicates = repeats; bad = our magic with a\n"
"wrong checksum or length (not received); bytes and bps count the frame with\n"
"its FCS; latency = receive time - send time (meaningful with both ends on this\n"
"host), p50 .. p99.9 within 1/64 of the value; sock_drops = frames the kernel\n"
"dropped in our own receive sockets; stop = why it ended: complete (both:\n"
"every frame back), count, duration, timeout, max-time, interrupted or error.\n"
"Output: a table, then one line 'RESULT {json}', with a row per size (recv:\n"
"per stream).\n"
"\n"
"Exit status: 0 run complete (whatever the loss), 1 error, 2 bad arguments,\n"
"130 interrupted (SIGINT/SIGTERM; the results so far are printed).\n";

static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno == 0 && *end == 0 && *out <= max;
}

/* A non-negative decimal with an optional fraction; *end after it. */
static bool parse_decimal(const char *s, double *out, char **end)
{
	if ((*s < '0' || *s > '9') && *s != '.')
		return false;
	*out = strtod(s, end);
	return *end != s && isfinite(*out);
}

static bool parse_mac(const char *s, uint64_t *out)
{
	unsigned b[6];
	int n = 0;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%n", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &n) != 6 ||
	    s[n] != 0)
		return false;
	*out = 0;
	for (int i = 0; i < 6; i++)
		*out = *out << 8 | b[i];
	return true;
}

static bool parse_ip(const char *s, uint64_t *out)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return false;
	*out = ntohl(a.s_addr);
	return true;
}

static bool parse_udp(const char *s, uint64_t *out)
{
	return parse_u64(s, 65535, out);
}

/* The last 32 bits of a, in host order. */
static uint32_t low32(const struct in6_addr *a)
{
	uint32_t v;

	memcpy(&v, a->s6_addr + 12, 4);
	return ntohl(v);
}

/* "A" or "A-B", IPv6 addresses alike but for their last 32 bits, with
 * A <= B: their first 96 bits into hi, the last 32 as the range r. */
static const char *parse_ip6_range(const char *s, uint8_t hi[12], struct range *r)
{
	char buf[96], *dash;
	struct in6_addr a, b;

	if (strlen(s) >= sizeof(buf))
		return "too long";
	strcpy(buf, s);
	dash = strchr(buf, '-');
	if (dash)
		*dash = 0;
	if (inet_pton(AF_INET6, buf, &a) != 1 || (dash && inet_pton(AF_INET6, dash + 1, &b) != 1))
		return "not an IPv6 address or range";
	if (!dash)
		b = a;
	if (memcmp(a.s6_addr, b.s6_addr, 12) != 0)
		return "the ends differ before their last 32 bits";
	if (low32(&b) < low32(&a))
		return "the range ends before it starts";
	memcpy(hi, a.s6_addr, 12);
	r->lo = low32(&a);
	r->n = low32(&b) - r->lo + 1;
	return NULL;
}

/* "X" or "X-Y" with X <= Y, each parsed by one(). */
static const char *parse_range(const char *s, bool (*one)(const char *, uint64_t *),
			       struct range *r)
{
	char buf[64], *dash;
	uint64_t hi;

	if (strlen(s) >= sizeof(buf))
		return "too long";
	strcpy(buf, s);
	dash = strchr(buf, '-');
	if (dash)
		*dash = 0;
	if (!one(buf, &r->lo) || (dash && !one(dash + 1, &hi)))
		return "not a value or range";
	if (dash && hi < r->lo)
		return "the range ends before it starts";
	r->n = dash ? hi - r->lo + 1 : 1;
	return NULL;
}

static const char *set_port(struct config *c, const char *v)
{
	if (c->nports == MAX_PORTS)
		return "at most two ports";
	return port_spec_parse(v, &c->port[c->nports++]);
}

static const char *set_count(struct config *c, const char *v)
{
	return parse_u64(v, COUNT_MAX, &c->count) && c->count > 0 ? NULL : "not a count";
}

static const char *set_seconds(const char *v, double *out)
{
	char *end;

	if (!parse_decimal(v, out, &end) || *end != 0)
		return "not a number of seconds";
	return *out > 0 && *out <= SECONDS_MAX ? NULL : "out of range";
}

static const char *set_duration(struct config *c, const char *v)
{
	return set_seconds(v, &c->duration);
}

static const char *set_timeout(struct config *c, const char *v)
{
	return set_seconds(v, &c->timeout);
}

static const char *set_max_time(struct config *c, const char *v)
{
	return set_seconds(v, &c->max_time);
}

static const char *set_rate(struct config *c, const char *v)
{
	static const struct { const char *suffix; enum rate_unit unit; double mult; } units[] = {
		{ "pps", RATE_PPS, 1 }, { "kpps", RATE_PPS, 1e3 }, { "Mpps", RATE_PPS, 1e6 },
		{ "bps", RATE_BPS, 1 }, { "kbps", RATE_BPS, 1e3 }, { "Mbps", RATE_BPS, 1e6 },
		{ "Gbps", RATE_BPS, 1e9 },
	};
	char *end;

	if (strcmp(v, "max") == 0) {
		c->rate_unit = RATE_MAX;
		return NULL;
	}
	if (!parse_decimal(v, &c->rate, &end))
		return "not a rate";
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix) == 0) {
			c->rate_unit = units[i].unit;
			c->rate *= units[i].mult;
			return c->rate > 0 && c->rate <= 1e12 ? NULL : "out of range";
		}
	}
	return "unknown unit";
}

static const char *set_window(struct config *c, const char *v)
{
	uint64_t w;

	if (!parse_u64(v, WINDOW_MAX, &w))
		return "not a frame count 0..1000000";
	c->window = (unsigned)w;
	return NULL;
}

static const char *set_sizes(struct config *c, const char *v)
{
	const char *p = v;
	char num[8];
	uint64_t s;

	c->nsizes = 0;
	do {
		size_t n = strcspn(p, ",");

		if (n == 0 || n >= sizeof(num))
			return "not a size";
		memcpy(num, p, n);
		num[n] = 0;
		if (!parse_u64(num, FRAME_SIZE_MAX + FRAME_VLAN_HLEN, &s) || s < FRAME_SIZE_MIN)
			return "a size is 64..1518 (with --vlan 68..1522)";
		if (c->nsizes == MAX_SIZES)
			return "at most 32 sizes";
		c->size[c->nsizes++] = (unsigned)s;
		p += n;
	} while (*p++ == ',');
	return NULL;
}

static const char *set_size(struct config *c, const char *v)
{
	return strchr(v, ',') ? "one size; use --sweep for several" : set_sizes(c, v);
}

static const char *set_sweep(struct config *c, const char *v)
{
	c->sweep = true;
	return set_sizes(c, v);
}

static const char *set_stream(struct config *c, const char *v)
{
	uint64_t s;

	if (!parse_u64(v, 65535, &s))
		return "not a stream id";
	c->stream = (uint16_t)s;
	return NULL;
}

#define RANGE_SETTER(fn, field, parser) \
	static const char *fn(struct config *c, const char *v) \
	{ \
		return parse_range(v, parser, &c->flow.field); \
	}
RANGE_SETTER(set_src_mac, src_mac, parse_mac)
RANGE_SETTER(set_dst_mac, dst_mac, parse_mac)
RANGE_SETTER(set_src_ip, src_ip, parse_ip)
RANGE_SETTER(set_dst_ip, dst_ip, parse_ip)
RANGE_SETTER(set_src_port, src_port, parse_udp)
RANGE_SETTER(set_dst_port, dst_port, parse_udp)

static const char *set_src_ip6(struct config *c, const char *v)
{
	c->flow.ip6 = true;
	return parse_ip6_range(v, c->flow.src_ip6, &c->flow.src_ip);
}

static const char *set_dst_ip6(struct config *c, const char *v)
{
	c->flow.ip6 = true;
	return parse_ip6_range(v, c->flow.dst_ip6, &c->flow.dst_ip);
}

/* VLAN ID 0..4094 (4095 is reserved, IEEE 802.1Q-2018 Table 9-2; 0 is a
 * priority tag). */
static const char *set_vlan(struct config *c, const char *v)
{
	uint64_t vid;

	if (!parse_u64(v, 4094, &vid))
		return "not a VLAN ID";
	c->flow.vlan = true;
	c->flow.vlan_tci = (uint16_t)vid;
	return NULL;
}

static const char *set_rx_mac(struct config *c, const char *v)
{
	return parse_mac(v, &c->rx_mac) ? NULL : "not a MAC address";
}

static const char *set_pcap(struct config *c, const char *v)
{
	c->pcap = v;
	return *v ? NULL : "empty file name";
}

static const char *set_quiet(struct config *c, const char *v)
{
	(void)v;
	c->quiet = true;
	return NULL;
}

static const char *set_arp_reply(struct config *c, const char *v)
{
	(void)v;
	c->arp_reply = true;
	return NULL;
}

struct opt {
	const char *name;
	const char *(*set)(struct config *c, const char *value);
	const char *forms;      /* accepted values, for messages; NULL: takes none */
	unsigned modes;         /* M_* where it applies */
	unsigned max_uses;
};

static const struct opt opts[] = {
	{ "port", set_port, "stream:PATH | dgram:LOCALPORT:REMOTEPORT (1..65535) | tap:IFNAME", M_ALL, 2 },
	{ "count", set_count, "frames, 1..2^62", M_ALL, 1 },
	{ "duration", set_duration, "seconds, e.g. 10 or 0.5 (up to 1e6)", M_ALL, 1 },
	{ "rate", set_rate, "max | Npps | Nkpps | NMpps | Nbps | Nkbps | NMbps | NGbps, e.g. 10kpps, 100Mbps", M_SEND | M_BOTH, 1 },
	{ "window", set_window, "frames in flight, 0 (no limit)..1000000", M_BOTH, 1 },
	{ "size", set_size, "bytes including the 4-byte FCS, 64..1518", M_SEND | M_BOTH, 1 },
	{ "sweep", set_sweep, "sizes 64..1518 separated by commas, e.g. 64,128,256,512,1024,1518", M_SEND | M_BOTH, 1 },
	{ "src-mac", set_src_mac, "MAC or MAC-MAC, e.g. 02:00:00:00:00:01", M_ALL, 1 },
	{ "dst-mac", set_dst_mac, "MAC or MAC-MAC, e.g. 02:00:00:00:00:02", M_ALL, 1 },
	{ "src-ip", set_src_ip, "IPv4 or IPv4-IPv4, e.g. 10.1.0.2", M_ALL, 1 },
	{ "dst-ip", set_dst_ip, "IPv4 or IPv4-IPv4, e.g. 10.2.0.2-10.2.0.9", M_ALL, 1 },
	{ "src-ip6", set_src_ip6, "IPv6 or IPv6-IPv6 alike but for the last 32 bits, e.g. 2001:db8:1::2", M_ALL, 1 },
	{ "dst-ip6", set_dst_ip6, "IPv6 or IPv6-IPv6 alike but for the last 32 bits, e.g. 2001:db8:2::2-2001:db8:2::9", M_ALL, 1 },
	{ "src-port", set_src_port, "UDP port or range, 0..65535, e.g. 1000-1063", M_SEND | M_BOTH, 1 },
	{ "dst-port", set_dst_port, "UDP port or range, 0..65535, e.g. 9", M_SEND | M_BOTH, 1 },
	{ "stream", set_stream, "stream id, 0..65535", M_SEND | M_BOTH, 1 },
	{ "vlan", set_vlan, "VLAN ID 0..4094, e.g. 100", M_SEND | M_BOTH, 1 },
	{ "timeout", set_timeout, "seconds, e.g. 2 or 0.5 (up to 1e6)", M_RECV | M_BOTH, 1 },
	{ "max-time", set_max_time, "seconds, e.g. 60 (up to 1e6)", M_ALL, 1 },
	{ "arp-reply", set_arp_reply, NULL, M_ALL, 1 },
	{ "rx-mac", set_rx_mac, "MAC, e.g. 02:00:00:00:00:02", M_ALL, 1 },
	{ "quiet", set_quiet, NULL, M_ALL, 1 },
	{ "pcap", set_pcap, "a file name", M_ALL, 1 },
};
#define NOPTS (sizeof(opts) / sizeof(opts[0]))

const char *const mode_names[] = { "send", "recv", "both" };

/* Prints "trafgen: " fmt, the accepted forms if any, and a pointer to
 * --help. Returns 2, the exit status for bad arguments. */
__attribute__((format(printf, 2, 3)))
static int bad(const char *forms, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "trafgen: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (forms)
		fprintf(stderr, "; accepted: %s", forms);
	fprintf(stderr, "\nTry 'trafgen --help'.\n");
	return 2;
}

static void set_defaults(struct config *c)
{
	memset(c, 0, sizeof(*c));
	c->rate_unit = RATE_MAX;
	c->size[0] = FRAME_SIZE_MIN;
	c->nsizes = 1;
	c->flow.src_mac = (struct range){ 0x020000000001, 1 };
	c->flow.dst_mac = (struct range){ 0x020000000002, 1 };
	c->flow.src_ip = (struct range){ 0x0a010002, 1 };   /* 10.1.0.2 */
	c->flow.dst_ip = (struct range){ 0x0a020002, 1 };   /* 10.2.0.2 */
	c->flow.src_port = (struct range){ 1000, 1 };
	c->flow.dst_port = (struct range){ 9, 1 };        /* discard */
	c->timeout = 2;
	c->max_time = 60;
}

/* The option word at argv[*i]: applies it, advancing *i past its value.
 * Returns 0, or 2 after saying what was wrong. */
static int apply_option(struct config *c, unsigned uses[], int argc, char **argv, int *i)
{
	const char *arg = argv[*i] + 2, *eq = strchr(arg, '='), *val = NULL, *err;
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	const struct opt *o = NULL;

	for (size_t k = 0; k < NOPTS; k++)
		if (strlen(opts[k].name) == len && strncmp(opts[k].name, arg, len) == 0)
			o = &opts[k];
	if (!o)
		return bad(NULL, "unknown option %s", argv[*i]);
	if (o->forms) {
		if (eq)
			val = eq + 1;
		else if (*i + 1 < argc)
			val = argv[++*i];
		else
			return bad(o->forms, "--%s needs a value", o->name);
	} else if (eq) {
		return bad(NULL, "--%s takes no value", o->name);
	}
	if (++uses[o - opts] > o->max_uses)
		return bad(NULL, "--%s given more than %u time%s", o->name, o->max_uses,
			   o->max_uses > 1 ? "s" : "");
	err = o->set(c, val);
	if (err)
		return bad(o->forms, "--%s %s: %s", o->name, val, err);
	return 0;
}

/* The mode word: sets *mode (-1 until given). Returns 0 or 2. */
static int parse_mode(int *mode, const char *word)
{
	for (int m = 0; m < 3; m++) {
		if (strcmp(word, mode_names[m]) == 0) {
			if (*mode >= 0)
				return bad(NULL, "unexpected argument %s: the mode is already %s",
					   word, mode_names[*mode]);
			*mode = m;
			return 0;
		}
	}
	return bad("send, recv or both", "unknown mode %s", word);
}

static unsigned used(const unsigned uses[], const char *name)
{
	for (size_t k = 0; k < NOPTS; k++)
		if (strcmp(opts[k].name, name) == 0)
			return uses[k];
	return 0;
}

/* The sizes against the frame's kind (IPv6, tagged), and the default size,
 * the kind's smallest, when none was given. Returns 0 or 2. */
static int check_sizes(struct config *c, bool dflt)
{
	unsigned tag = c->flow.vlan ? FRAME_VLAN_HLEN : 0;
	unsigned min = (c->flow.ip6 ? FRAME_SIZE_MIN_IP6 : FRAME_SIZE_MIN) + tag, max = FRAME_SIZE_MAX + tag;
	const char *kind = c->flow.ip6 ? (tag ? "a tagged IPv6" : "an IPv6") : (tag ? "a tagged IPv4" : "an IPv4");

	if (dflt)
		c->size[0] = min;
	for (int i = 0; i < c->nsizes; i++)
		if (c->size[i] < min || c->size[i] > max)
			return bad(NULL, "--size %u: %s frame is %u..%u bytes", c->size[i], kind, min, max);
	return 0;
}

/* What no single option can check, and defaults that depend on others.
 * Returns 0 or 2. */
static int check(struct config *c, const unsigned uses[])
{
	for (size_t k = 0; k < NOPTS; k++)
		if (uses[k] && !(opts[k].modes & (1u << c->mode)))
			return bad(NULL, "--%s does not apply to %s mode", opts[k].name,
				   mode_names[c->mode]);
	if (c->nports == 0)
		return bad(opts[0].forms, "missing --port");
	if (used(uses, "size") && used(uses, "sweep"))
		return bad(NULL, "--size and --sweep exclude each other");
	if (c->flow.ip6 && (!used(uses, "src-ip6") || !used(uses, "dst-ip6")))
		return bad(NULL, "IPv6 frames need both --src-ip6 and --dst-ip6");
	if (c->flow.ip6 && (used(uses, "src-ip") || used(uses, "dst-ip")))
		return bad(NULL, "--src-ip6/--dst-ip6 and --src-ip/--dst-ip exclude each other");
	if (check_sizes(c, !used(uses, "size") && !used(uses, "sweep")))
		return 2;
	if (c->stream + c->nsizes - 1 > 65535)
		return bad(NULL, "--stream %u: the sweep's stream ids would pass 65535",
			   (unsigned)c->stream);
	if (c->mode != MODE_RECV && c->count == 0 && c->duration == 0)
		c->count = 1000;
	if (!used(uses, "window"))
		c->window = c->port[0].kind == PORT_DGRAM ? 64 : 256;
	if (!used(uses, "rx-mac"))
		c->rx_mac = c->flow.dst_mac.lo;
	return 0;
}

int config_parse(struct config *c, int argc, char **argv)
{
	unsigned uses[NOPTS] = { 0 };
	int r, mode = -1;

	set_defaults(c);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(usage, stdout);
			return 1;
		}
		if (strncmp(argv[i], "--", 2) == 0)
			r = apply_option(c, uses, argc, argv, &i);
		else if (argv[i][0] == '-')
			r = bad(NULL, "unknown option %s", argv[i]);
		else
			r = parse_mode(&mode, argv[i]);
		if (r)
			return r;
	}
	if (mode < 0)
		return bad("send, recv or both", "missing the mode");
	c->mode = (enum mode)mode;
	return check(c, uses);
}

double config_pps(const struct config *c, unsigned size)
{
	if (c->rate_unit == RATE_BPS)
		return c->rate / ((size + FRAME_WIRE_EXTRA) * 8.0);
	return c->rate_unit == RATE_PPS ? c->rate : 0;
}
