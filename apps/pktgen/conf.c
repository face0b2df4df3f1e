/*
 * pktgen's knobs, with Linux pktgen's names: on the kernel command line
 * (count=1000) and through `pktgen set count 1000` (as a write of "count
 * 1000" to /proc/net/pktgen/ethX). Each value is range-checked when given;
 * how they fit together (min <= max, sizes within the MTU) is checked at
 * boot and at every start.
 */
#include <stdio.h>
#include <string.h>
#include "apps/pktgen/pktgen.h"
#include "kernel/config.h"
#include "kernel/fmt.h"
#include "kernel/knobs.h"
#include "net/addr.h"
#include "net/bytes.h"

struct pg_config pg = {
	.pkt_size = PG_MIN_SIZE, .count = 1000, .rate_kind = PG_RATE_MAX,
	.dst_min = 0x0a020002, .dst_max = 0x0a020002, .src_min = 0x0a010002, .src_max = 0x0a010002,
	.udp_src_min = 9, .udp_src_max = 9, .udp_dst_min = 9, .udp_dst_max = 9,
	.flowlen = 1, .burst = 32, .credit_ms = PG_CREDIT_MS, .lat_rate = 1000, .lat_hwts = 1, .vlan_id = VLAN_NONE, .svlan_id = VLAN_NONE,
	.dst6_min = { 0x20, 0x01, 0x0d, 0xb8, 0, 2, [15] = 2 }, .dst6_max = { 0x20, 0x01, 0x0d, 0xb8, 0, 2, [15] = 2 },
	.src6_min = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2 }, .src6_max = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2 },
};

static const struct knob_range size_range[] = { { PG_MIN_SIZE, 1514 } };
static const struct knob_range count_range[] = { { 0, (int64_t)1 << 48 } };
static const struct knob_range port_range[] = { { 0, 65535 } };
static const struct knob_range flows_range[] = { { 0, 65535 } };
static const struct knob_range flowlen_range[] = { { 1, 1000000000 } };
static const struct knob_range clone_range[] = { { 0, 65535 } };
static const struct knob_range lat_range[] = { { 0, 100000 } };
static const struct knob_range bool_range[] = { { 0, 1 } };
static const struct knob_range pcp_range[] = { { 0, 7 } };
static const struct knob_range mac_count_range[] = { { 0, 0xffffffff } };

KNOB(pkt_size, .name = "pkt_size", .set_by = "pktgen set", .type = KNOB_INT, .ranges = size_range, .nranges = 1, .ival = &pg.pkt_size,
     .help = "pktgen: frame bytes without the 4-byte FCS (60 = 64 on the wire), up to the MTU + 14; default 60");
KNOB(count, .name = "count", .set_by = "pktgen set", .type = KNOB_INT, .ranges = count_range, .nranges = 1, .ival = &pg.count,
     .help = "pktgen: frames per port (per sweep step); 0 = until pktgen stop; default 1000");
KNOB(udp_src_min, .name = "udp_src_min", .set_by = "pktgen set", .type = KNOB_INT, .ranges = port_range, .nranges = 1,
     .ival = &pg.udp_src_min, .help = "pktgen: lowest UDP source port; default 9");
KNOB(udp_src_max, .name = "udp_src_max", .set_by = "pktgen set", .type = KNOB_INT, .ranges = port_range, .nranges = 1,
     .ival = &pg.udp_src_max, .help = "pktgen: highest UDP source port; default 9");
KNOB(udp_dst_min, .name = "udp_dst_min", .set_by = "pktgen set", .type = KNOB_INT, .ranges = port_range, .nranges = 1,
     .ival = &pg.udp_dst_min, .help = "pktgen: lowest UDP destination port; default 9");
KNOB(udp_dst_max, .name = "udp_dst_max", .set_by = "pktgen set", .type = KNOB_INT, .ranges = port_range, .nranges = 1,
     .ival = &pg.udp_dst_max, .help = "pktgen: highest UDP destination port; default 9");
KNOB(flows, .name = "flows", .set_by = "pktgen set", .type = KNOB_INT, .ranges = flows_range, .nranges = 1, .ival = &pg.flows,
     .help = "pktgen: concurrent flows (address/port tuples), each sent flowlen frames in turn; 0 = a new tuple per frame; default 0");
KNOB(flowlen, .name = "flowlen", .set_by = "pktgen set", .type = KNOB_INT, .ranges = flowlen_range, .nranges = 1, .ival = &pg.flowlen,
     .help = "pktgen: frames of a flow before the next flow; default 1");
KNOB(clone_skb, .name = "clone_skb", .set_by = "pktgen set", .type = KNOB_INT, .ranges = clone_range, .nranges = 1, .ival = &pg.clone_skb,
     .help = "pktgen: sends of each frame built (the same buffer; one sequence number); 0 and 1 = a new frame each; default 0");
KNOB(lat_rate, .name = "lat_rate", .set_by = "pktgen set", .type = KNOB_INT, .ranges = lat_range, .nranges = 1, .ival = &pg.lat_rate,
     .help = "pktgen: latency probes per second per port, besides count; 0 off; default 1000");
KNOB(lat_hwts, .name = "lat_hwts", .set_by = "pktgen set", .type = KNOB_INT, .ranges = bool_range, .nranges = 1, .ival = &pg.lat_hwts,
     .help = "pktgen: 1: on ports that stamp in hardware (igb) probes are L2 PTP Sync frames timed by the NIC; "
	     "0: UDP probes timed by the TSC (routable); default 1");

static int parse_num(const char *v, uint64_t lo, uint64_t hi, uint64_t *out, char *err, size_t len)
{
	if (parse_u64(v, out) || *out < lo || *out > hi) {
		snprintf(err, len, "not a number in %llu-%llu", (unsigned long long)lo, (unsigned long long)hi);
		return -1;
	}
	return 0;
}

/* vlan_id / svlan_id as Linux pktgen's: 0-4095 tags the frames (svlan_id
 * the outer of two, needing vlan_id), above 4095 removes both tags. */
static int parse_vid(const char *v, uint16_t *vid, char *err, size_t len)
{
	uint64_t x;
	if (parse_num(v, 0, 65535, &x, err, len)) {
		err[0] = 0;
		return -1;
	}
	if (x > 4095) {
		pg.vlan_id = pg.svlan_id = VLAN_NONE;
		return 0;
	}
	if (vid == &pg.svlan_id && pg.vlan_id == VLAN_NONE) {
		snprintf(err, len, "svlan_id is the outer tag of two: set vlan_id (the inner) first");
		return -1;
	}
	*vid = (uint16_t)x;
	return 0;
}
static void show_vid(char *buf, size_t len, uint16_t vid)
{
	snprintf(buf, len, vid == VLAN_NONE ? "65535 (off)" : "%u", vid);
}
static int parse_vlan_id(const char *v, char *e, size_t l) { return parse_vid(v, &pg.vlan_id, e, l); }
static void show_vlan_id(char *b, size_t l) { show_vid(b, l, pg.vlan_id); }
static int parse_svlan_id(const char *v, char *e, size_t l) { return parse_vid(v, &pg.svlan_id, e, l); }
static void show_svlan_id(char *b, size_t l) { show_vid(b, l, pg.svlan_id); }
KNOB(vlan_id, .name = "vlan_id", .set_by = "pktgen set", .type = KNOB_FUNC, .parse = parse_vlan_id, .show = show_vlan_id,
     .accepted = "0-4095 (the VID) or 4096-65535 (no VLAN tags)",
     .help = "pktgen: 802.1Q tag (TPID 0x8100) with this VID; above 4095 removes it and svlan_id's, as Linux; default off");
KNOB(svlan_id, .name = "svlan_id", .set_by = "pktgen set", .type = KNOB_FUNC, .parse = parse_svlan_id, .show = show_svlan_id,
     .accepted = "0-4095 (the VID, after vlan_id) or 4096-65535 (no VLAN tags)",
     .help = "pktgen: QinQ outer tag with this VID in front of vlan_id's (TPID 0x8100 as Linux pktgen's); "
	     "above 4095 removes both tags; default off");
KNOB(vlan_p, .name = "vlan_p", .set_by = "pktgen set", .type = KNOB_INT, .ranges = pcp_range, .nranges = 1, .ival = &pg.vlan_p,
     .help = "pktgen: priority (PCP) of the vlan_id tag; default 0");
KNOB(vlan_cfi, .name = "vlan_cfi", .set_by = "pktgen set", .type = KNOB_INT, .ranges = bool_range, .nranges = 1, .ival = &pg.vlan_cfi,
     .help = "pktgen: CFI/DEI bit of the vlan_id tag; default 0");
KNOB(svlan_p, .name = "svlan_p", .set_by = "pktgen set", .type = KNOB_INT, .ranges = pcp_range, .nranges = 1, .ival = &pg.svlan_p,
     .help = "pktgen: priority (PCP) of the svlan_id tag; default 0");
KNOB(svlan_cfi, .name = "svlan_cfi", .set_by = "pktgen set", .type = KNOB_INT, .ranges = bool_range, .nranges = 1,
     .ival = &pg.svlan_cfi, .help = "pktgen: CFI/DEI bit of the svlan_id tag; default 0");
KNOB(queue_map_min, .name = "queue_map_min", .set_by = "pktgen set", .type = KNOB_INT, .ranges = port_range, .nranges = 1,
     .ival = &pg.queue_map_min, .help = "pktgen: lowest TX queue, walked up to queue_map_max per frame (modulo the port's "
					"queues, as Linux); default 0");
KNOB(queue_map_max, .name = "queue_map_max", .set_by = "pktgen set", .type = KNOB_INT, .ranges = port_range, .nranges = 1,
     .ival = &pg.queue_map_max, .help = "pktgen: highest TX queue; default 0");
KNOB(src_mac_count, .name = "src_mac_count", .set_by = "pktgen set", .type = KNOB_INT, .ranges = mac_count_range, .nranges = 1,
     .ival = &pg.src_mac_count, .help = "pktgen: source MACs walked from src_mac up (added to its low 40 bits, as "
					"Linux); 0 and 1: one; default 0");
KNOB(dst_mac_count, .name = "dst_mac_count", .set_by = "pktgen set", .type = KNOB_INT, .ranges = mac_count_range, .nranges = 1,
     .ival = &pg.dst_mac_count, .help = "pktgen: destination MACs walked from dst_mac up; 0 and 1: one; default 0");

/* Linux pktgen's flag names (pkt_flag_names in pktgen.c): those done here
 * with their bit, the others 0. */
static const struct pg_flag {
	const char *name;
	uint32_t bit;
} flag_names[] = {
	{ "IPV6", PG_F_IPV6 }, { "IPSRC_RND", PG_F_IPSRC_RND }, { "IPDST_RND", PG_F_IPDST_RND },
	{ "TXSIZE_RND", 0 }, { "UDPSRC_RND", PG_F_UDPSRC_RND }, { "UDPDST_RND", PG_F_UDPDST_RND },
	{ "UDPCSUM", PG_F_UDPCSUM }, { "NO_TIMESTAMP", 0 }, { "MPLS_RND", 0 },
	{ "QUEUE_MAP_RND", PG_F_QUEUE_MAP_RND }, { "QUEUE_MAP_CPU", PG_F_QUEUE_MAP_CPU }, { "FLOW_SEQ", 0 },
	{ "IPSEC", 0 }, { "MACSRC_RND", PG_F_MACSRC_RND }, { "MACDST_RND", PG_F_MACDST_RND },
	{ "VID_RND", PG_F_VID_RND }, { "SVID_RND", PG_F_SVID_RND }, { "NODE_ALLOC", 0 }, { "SHARED", 0 },
};
#define NFLAGS (sizeof(flag_names) / sizeof(flag_names[0]))
#define FLAGS_ACCEPTED "IPV6 IPSRC_RND IPDST_RND UDPSRC_RND UDPDST_RND UDPCSUM QUEUE_MAP_RND QUEUE_MAP_CPU " \
		       "MACSRC_RND MACDST_RND VID_RND SVID_RND; !NAME clears; several split by ','"

/* One NAME or !NAME: sets or clears its bit in *flags. */
static int parse_flag_word(const char *w, size_t n, uint32_t *flags, char *err, size_t len)
{
	int clear = n && w[0] == '!';
	for (size_t i = 0; i < NFLAGS; i++) {
		const char *f = flag_names[i].name;
		if (strlen(f) != n - (size_t)clear || strncmp(f, w + clear, n - (size_t)clear))
			continue;
		if (!flag_names[i].bit) {
			snprintf(err, len, "Linux pktgen's flag %s is not done here", f);
			return -1;
		}
		*flags = clear ? *flags & ~flag_names[i].bit : *flags | flag_names[i].bit;
		return 0;
	}
	snprintf(err, len, "unknown flag '%.*s'", (int)(n > 32 ? 32 : n), w);
	return -1;
}
/* flag NAME[,NAME...]: each sets (or with '!' clears) one flag; all or none. */
static int parse_flag(const char *v, char *err, size_t len)
{
	uint32_t flags = pg.flags;
	for (const char *s = v;; s++) {
		size_t w = strcspn(s, ",");
		if (parse_flag_word(s, w, &flags, err, len))
			return -1;
		s += w;
		if (!*s)
			break;
	}
	pg.flags = flags;
	return 0;
}
static void show_flag(char *buf, size_t len)
{
	size_t used = 0;
	snprintf(buf, len, "none");
	for (size_t i = 0; i < NFLAGS && used < len; i++)
		if (pg.flags & flag_names[i].bit)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "", flag_names[i].name);
}
KNOB(flag, .name = "flag", .set_by = "pktgen set", .type = KNOB_FUNC, .parse = parse_flag, .show = show_flag,
     .accepted = FLAGS_ACCEPTED,
     .help = "pktgen: set a Linux pktgen flag (!NAME clears it): *_RND draw the field at random in its range per "
	     "tuple, QUEUE_MAP_CPU sends on the core's queue, IPV6 sends UDP over IPv6; shows those set; default none");

/* rate: Mb/s or max; ratep: frames/s; delay: ns between frames. The last
 * given decides, as in Linux pktgen where each sets the delay. rate's bare
 * number is Linux pktgen's Mb/s; with a k/M/G suffix it is bits/s, as
 * trafgen's (10G = 10000 Mb/s), in whole Mb/s. ratep takes k/M/G too. */
#define RATE_ACCEPTED \
	"max, 1-100000 (Mb/s, counting FCS, preamble and gap: 24 B a frame) or 1M-100G (b/s: 10G = 10000 Mb/s)"
#define RATEP_ACCEPTED "max or 1-200000000 (frames/s; k, M, G: 1M = 1000000)"
static int parse_rate(const char *v, char *err, size_t len)
{
	uint64_t x;
	if (!strcmp(v, "max")) {
		pg.rate_kind = PG_RATE_MAX;
		return 0;
	}
	int bps = *v && strchr("kMG", v[strlen(v) - 1]);
	if (parse_u64_si(v, &x)) {
		snprintf(err, len, "not a number");
		return -1;
	}
	if (bps && x % 1000000) {
		snprintf(err, len, "not whole Mb/s");
		return -1;
	}
	if (bps)
		x /= 1000000;
	if (x < 1 || x > 100000) {
		snprintf(err, len, "out of range");
		return -1;
	}
	pg.rate = (int64_t)x;
	pg.rate_kind = PG_RATE_MBPS;
	return 0;
}
static int parse_ratep(const char *v, char *err, size_t len)
{
	uint64_t x;
	if (!strcmp(v, "max")) {
		pg.rate_kind = PG_RATE_MAX;
		return 0;
	}
	if (parse_u64_si(v, &x) || x < 1 || x > 200000000) {
		snprintf(err, len, "not a number in range");
		return -1;
	}
	pg.ratep = (int64_t)x;
	pg.rate_kind = PG_RATE_PPS;
	return 0;
}
static int parse_delay(const char *v, char *err, size_t len)
{
	uint64_t x;
	if (parse_num(v, 0, 1000000000, &x, err, len))
		return -1;
	pg.delay = (int64_t)x;
	pg.rate_kind = x ? PG_RATE_DELAY : PG_RATE_MAX;
	return 0;
}
/* Each of rate, ratep and delay shows its own value in the form it takes
 * when it is the one in force, else which one decides. */
static void show_pace(char *buf, size_t len, enum pg_rate_kind kind, int64_t v)
{
	static const char *const name[] = { "", "rate", "ratep", "delay" };
	if (pg.rate_kind == kind)
		snprintf(buf, len, "%lld", (long long)v);
	else if (pg.rate_kind == PG_RATE_MAX)
		snprintf(buf, len, kind == PG_RATE_DELAY ? "0" : "max");
	else
		snprintf(buf, len, "unset (%s decides)", name[pg.rate_kind]);
}
static void show_rate(char *buf, size_t len)
{
	show_pace(buf, len, PG_RATE_MBPS, pg.rate);
}
static void show_ratep(char *buf, size_t len)
{
	show_pace(buf, len, PG_RATE_PPS, pg.ratep);
}
static void show_delay(char *buf, size_t len)
{
	show_pace(buf, len, PG_RATE_DELAY, pg.delay);
}
KNOB(rate, .name = "rate", .set_by = "pktgen set", .type = KNOB_FUNC, .parse = parse_rate, .show = show_rate,
     .accepted = RATE_ACCEPTED,
     .help = "pktgen: send rate in Mb/s, clamped to the link; default max (as fast as the TX ring takes frames)");
KNOB(ratep, .name = "ratep", .set_by = "pktgen set", .type = KNOB_FUNC, .parse = parse_ratep, .show = show_ratep,
     .accepted = RATEP_ACCEPTED, .help = "pktgen: send rate in frames/s, clamped to the link; default max");
KNOB(delay, .name = "delay", .set_by = "pktgen set", .type = KNOB_FUNC, .parse = parse_delay, .show = show_delay,
     .accepted = "0-1000000000 (ns between frames; 0 = max)", .help = "pktgen: ns between frames; default 0 (max)");

/* sweep=S,S,...: one step of count frames per pkt_size, stream id per step. */
static int parse_sweep(const char *v, char *err, size_t len)
{
	uint16_t list[PG_SWEEP_MAX];
	int n = 0;
	if (!strcmp(v, "off")) {
		pg.nsweep = 0;
		return 0;
	}
	for (const char *s = v;; s++) {
		char word[16];
		size_t w = strcspn(s, ",");
		uint64_t x;
		if (n == PG_SWEEP_MAX || w >= sizeof(word)) {
			snprintf(err, len, "more than %d sizes or a size too long", PG_SWEEP_MAX);
			return -1;
		}
		memcpy(word, s, w);
		word[w] = 0;
		if (parse_num(word, PG_MIN_SIZE, 1514, &x, err, len))
			return -1;
		list[n++] = (uint16_t)x;
		s += w;
		if (!*s)
			break;
	}
	memcpy(pg.sweep, list, sizeof(list[0]) * (size_t)n);
	pg.nsweep = n;
	return 0;
}
static void show_sweep(char *buf, size_t len)
{
	size_t used = 0;
	snprintf(buf, len, "off");
	for (int i = 0; i < pg.nsweep && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%u", i ? "," : "", pg.sweep[i]);
}
KNOB(sweep, .name = "sweep", .set_by = "pktgen set", .type = KNOB_FUNC, .parse = parse_sweep, .show = show_sweep,
     .accepted = "S,S,... (up to 16 pkt_sizes, 60-1514) or off",
     .help = "pktgen: one step per size (count frames each, its own stream id) instead of pkt_size; default off");

/* imix=simple (7:4:1 of 64, 594 and 1518 B, the "simple IMIX" of
 * testers' use), SIZE:WEIGHT,... (sizes with the 4-byte FCS, as RFC 2544's
 * and IMIX lists give them) or off. */
static int parse_imix(const char *v, char *err, size_t len)
{
	uint16_t size[PG_IMIX_MAX], weight[PG_IMIX_MAX];
	int n = 0;
	if (!strcmp(v, "off")) {
		pg.nimix = 0;
		return 0;
	}
	if (!strcmp(v, "simple"))
		v = "64:7,594:4,1518:1";
	for (const char *s = v;; s++) {
		char word[24], *colon;
		size_t w = strcspn(s, ",");
		uint64_t x, y;
		if (n == PG_IMIX_MAX || w >= sizeof(word)) {
			snprintf(err, len, "more than %d sizes or an entry too long", PG_IMIX_MAX);
			return -1;
		}
		memcpy(word, s, w);
		word[w] = 0;
		colon = strchr(word, ':');
		if (!colon) {
			snprintf(err, len, "'%s' is not SIZE:WEIGHT", word);
			return -1;
		}
		*colon = 0;
		if (parse_num(word, PG_MIN_SIZE + 4, 1518, &x, err, len) || parse_num(colon + 1, 1, 1000, &y, err, len))
			return -1;
		size[n] = (uint16_t)(x - 4);
		weight[n++] = (uint16_t)y;
		s += w;
		if (!*s)
			break;
	}
	memcpy(pg.imix_size, size, sizeof(size[0]) * (size_t)n);
	memcpy(pg.imix_weight, weight, sizeof(weight[0]) * (size_t)n);
	pg.nimix = n;
	return 0;
}
static void show_imix(char *buf, size_t len)
{
	size_t used = 0;
	snprintf(buf, len, "off");
	for (int i = 0; i < pg.nimix && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%u:%u", i ? "," : "", pg.imix_size[i] + 4,
					 pg.imix_weight[i]);
}
KNOB(imix, .name = "imix", .set_by = "pktgen set", .type = KNOB_FUNC, .parse = parse_imix, .show = show_imix,
     .accepted = "simple (64:7,594:4,1518:1), SIZE:WEIGHT,... (up to 8; sizes 64-1518 with the FCS, weights 1-1000) or off",
     .help = "pktgen: frames of several sizes interleaved by weight (exact per sum of the weights) instead of pkt_size; "
	     "default off");

/* A whole dotted quad (net/addr.h). */
static int parse_ip(const char *v, uint32_t *out, char *err, size_t len)
{
	const char *s = v;
	uint32_t a;
	if (ipv4_parse(&s, &a) || *s) {
		snprintf(err, len, "not an IPv4 address");
		return -1;
	}
	*out = a;
	return 0;
}
static void show_ip(char *buf, size_t len, uint32_t a)
{
	char q[IPV4_STR_MAX];
	snprintf(buf, len, "%s", ipv4_str(q, a));
}
static int parse_dst(const char *v, char *e, size_t l)
{
	uint32_t a;
	if (parse_ip(v, &a, e, l))
		return -1;
	pg.dst_min = pg.dst_max = a;
	return 0;
}
#define IP_KNOB(field, what)									\
	static int parse_##field(const char *v, char *e, size_t l) { return parse_ip(v, &pg.field, e, l); } \
	static void show_##field(char *b, size_t l) { show_ip(b, l, pg.field); }			\
	KNOB(field, .name = #field, .set_by = "pktgen set", .type = KNOB_FUNC, .parse = parse_##field, .show = show_##field, \
	     .accepted = "A.B.C.D (decimal, no leading zeros)", .help = "pktgen: " what)
IP_KNOB(dst_min, "lowest IPv4 destination, walked up to dst_max; default 10.2.0.2");
IP_KNOB(dst_max, "highest IPv4 destination; default 10.2.0.2");
IP_KNOB(src_min, "lowest IPv4 source, walked up to src_max; default 10.1.0.2");
IP_KNOB(src_max, "highest IPv4 source; default 10.1.0.2");
KNOB(dst, .name = "dst", .set_by = "pktgen set", .type = KNOB_FUNC, .parse = parse_dst, .show = show_dst_min, .accepted = "A.B.C.D (decimal, no leading zeros)",
     .help = "pktgen: one IPv4 destination (dst_min = dst_max); shows dst_min; default 10.2.0.2");

/* A whole IPv6 address (net/addr.h); giving one selects IPv6, as in
 * Linux pktgen. */
static int parse_ip6(const char *v, uint8_t *a, uint8_t *b, char *err, size_t len)
{
	const char *s = v;
	uint8_t x[16];
	if (addr6_parse(&s, x) || *s) {
		snprintf(err, len, "not an IPv6 address");
		return -1;
	}
	memcpy(a, x, 16);
	if (b)
		memcpy(b, x, 16);
	pg.flags |= PG_F_IPV6;
	return 0;
}
static void show_ip6(char *buf, size_t len, const uint8_t *a)
{
	char t[IPV6_STR_MAX];
	snprintf(buf, len, "%s", addr6_fmt(t, a));
}
#define IP6_ACCEPTED "an IPv6 address (RFC 4291 2.2: 2001:db8::1, ::ffff:10.0.0.1)"
#define IP6_KNOB(field, what)								\
	static int parse_##field(const char *v, char *e, size_t l) { return parse_ip6(v, pg.field, 0, e, l); } \
	static void show_##field(char *b, size_t l) { show_ip6(b, l, pg.field); }		\
	KNOB(field, .name = #field, .set_by = "pktgen set", .type = KNOB_FUNC, .parse = parse_##field, .show = show_##field, \
	     .accepted = IP6_ACCEPTED, .help = "pktgen: " what)
IP6_KNOB(dst6_min, "lowest IPv6 destination, walked in its low 64 bits up to dst6_max; sets flag IPV6; "
		      "default 2001:db8:2::2");
IP6_KNOB(dst6_max, "highest IPv6 destination (the same upper 64 bits as dst6_min); sets flag IPV6; "
		      "default 2001:db8:2::2");
IP6_KNOB(src6_min, "lowest IPv6 source, walked like dst6_min; sets flag IPV6; default 2001:db8:1::2");
IP6_KNOB(src6_max, "highest IPv6 source; sets flag IPV6; default 2001:db8:1::2");
static int parse_dst6(const char *v, char *e, size_t l) { return parse_ip6(v, pg.dst6_min, pg.dst6_max, e, l); }
static int parse_src6(const char *v, char *e, size_t l) { return parse_ip6(v, pg.src6_min, pg.src6_max, e, l); }
KNOB(dst6, .name = "dst6", .set_by = "pktgen set", .type = KNOB_FUNC, .parse = parse_dst6, .show = show_dst6_min,
     .accepted = "an IPv6 address (RFC 4291 2.2: 2001:db8::1, ::ffff:10.0.0.1)",
     .help = "pktgen: one IPv6 destination (dst6_min = dst6_max); sets flag IPV6 as Linux; shows dst6_min");
KNOB(src6, .name = "src6", .set_by = "pktgen set", .type = KNOB_FUNC, .parse = parse_src6, .show = show_src6_min,
     .accepted = "an IPv6 address (RFC 4291 2.2: 2001:db8::1, ::ffff:10.0.0.1)",
     .help = "pktgen: one IPv6 source (src6_min = src6_max); sets flag IPV6 as Linux; shows src6_min");

/* A MAC knob: *set = 1 once given; shown as unset's text until then. */
static int parse_mac(const char *v, uint8_t *mac, int *set, char *err, size_t len)
{
	if (mac_parse(v, mac)) {
		snprintf(err, len, "not a MAC address");
		return -1;
	}
	*set = 1;
	return 0;
}
static void show_mac(char *buf, size_t len, const uint8_t *m, int set, const char *unset)
{
	char t[MAC_STR_MAX];
	snprintf(buf, len, "%s", set ? mac_str(t, m) : unset);
}
static int parse_dst_mac(const char *v, char *e, size_t l) { return parse_mac(v, pg.dst_mac, &pg.dst_mac_set, e, l); }
static void show_dst_mac(char *b, size_t l) { show_mac(b, l, pg.dst_mac, pg.dst_mac_set, "peer port's"); }
static int parse_src_mac(const char *v, char *e, size_t l) { return parse_mac(v, pg.src_mac, &pg.src_mac_set, e, l); }
static void show_src_mac(char *b, size_t l) { show_mac(b, l, pg.src_mac, pg.src_mac_set, "port's own"); }
KNOB(dst_mac, .name = "dst_mac", .set_by = "pktgen set", .type = KNOB_FUNC, .parse = parse_dst_mac, .show = show_dst_mac,
     .accepted = "xx:xx:xx:xx:xx:xx",
     .help = "pktgen: destination MAC; default the peer port's (port0 <-> port1, port2 <-> port3, ...: "
	     "a port of this box receives it), and without a peer port pktgen start asks for one");
KNOB(src_mac, .name = "src_mac", .set_by = "pktgen set", .type = KNOB_FUNC, .parse = parse_src_mac, .show = show_src_mac,
     .accepted = "xx:xx:xx:xx:xx:xx", .help = "pktgen: source MAC; default the port's own");

const char pg_knob_names[] = "pkt_size sweep count rate ratep delay dst dst_min dst_max src_min src_max "
			     "dst_mac src_mac udp_src_min udp_src_max udp_dst_min udp_dst_max flows flowlen "
			     "imix burst clone_skb lat_rate lat_hwts flag vlan_id vlan_p vlan_cfi svlan_id svlan_p svlan_cfi "
			     "queue_map_min queue_map_max src_mac_count dst_mac_count dst6 dst6_min dst6_max src6 src6_min src6_max";

static int is_pg_knob(const char *name)
{
	size_t n = strlen(name);
	for (const char *s = pg_knob_names; *s;) {
		size_t w = strcspn(s, " ");
		if (w == n && !strncmp(s, name, n))
			return 1;
		s += w + (s[w] == ' ');
	}
	return 0;
}

static int is_rate_knob(const char *name)
{
	return !strcmp(name, "rate") || !strcmp(name, "ratep") || !strcmp(name, "delay");
}

int pg_set(const char *name, const char *value)
{
	char msg[CMDLINE_MSG_MAX];
	int running = 0;
	for (int p = 0; pg_tx && p < nic_count; p++)
		running |= pg_running(p);
	if (!is_pg_knob(name)) {
		printf("pktgen set: unknown knob '%.64s' (knobs: %s)\n", name, pg_knob_names);
		return -1;
	}
	if (rfc2544_busy())
		return -1;
	if (running && !is_rate_knob(name)) {
		printf("pktgen set: %s cannot change while sending (rate, ratep and delay can): pktgen stop first\n",
		       name);
		return -1;
	}
	if (!strcmp(name, "burst")) {
		uint64_t x;
		if (parse_u64(value, &x) || x < 1 || x > PG_BURST_MAX) {
			printf("pktgen set: bad value '%.64s' for burst (accepted: 1-%d frames per tx_burst call)\n",
			       value, PG_BURST_MAX);
			return -1;
		}
		pg.burst = (int64_t)x;
		printf("burst=%lld\n", (long long)pg.burst);
		return 0;
	}
	const struct knob *k = knob_find(__knobs_start, KNOBS_COUNT, name);
	if (knob_set(k, value, msg, sizeof(msg))) {
		printf("pktgen set: %s\n", msg + (strncmp(msg, "cmdline: ", 9) ? 0 : 9));
		return -1;
	}
	knob_value(k, msg, sizeof(msg));
	printf("%s=%s\n", name, msg);
	return running ? pg_request(PG_REQ_RATE, -1) : 0;
}

static int check_range(const char *what, uint64_t lo, uint64_t hi, const char *accepted)
{
	if (lo <= hi)
		return 0;
	printf("pktgen: %s_min is above %s_max (%s): set %s_max first, or both\n", what, what, accepted, what);
	return -1;
}

/* An IPv6 range walks the low 64 bits: min and max share the upper 64. */
static int check_range6(const char *what, const uint8_t *min, const uint8_t *max)
{
	if (!(pg.flags & PG_F_IPV6))
		return 0;
	if (memcmp(min, max, 8)) {
		printf("pktgen: %s_min and %s_max differ in their upper 64 bits (accepted: a range inside one /64, "
		       "min <= max)\n", what, what);
		return -1;
	}
	return check_range(what, get32(min + 8) * (UINT64_C(1) << 32) + get32(min + 12),
			   get32(max + 8) * (UINT64_C(1) << 32) + get32(max + 12), "IPv6 addresses, min <= max");
}

int pg_ntags(void)
{
	return (pg.vlan_id != VLAN_NONE) + (pg.vlan_id != VLAN_NONE && pg.svlan_id != VLAN_NONE);
}

uint32_t pg_hdr_len(void)
{
	return ETH_HLEN + VLAN_HLEN * (uint32_t)pg_ntags() + (pg.flags & PG_F_IPV6 ? 40 : IPV4_HLEN) + 8;
}

int pg_check(int port)
{
	int bad = 0;
	if (port >= 0) {
		const struct nic *nic = nics[port];
		uint32_t max = nic->mtu + 14, min = pg_hdr_len() + PG_PAYLOAD_LEN;
		int n = pg.nimix ? pg.nimix : pg.nsweep ? pg.nsweep : 1;
		for (int i = 0; i < n; i++) {
			uint32_t s = pg.nimix ? pg.imix_size[i] : pg.nsweep ? pg.sweep[i] : (uint32_t)pg.pkt_size;
			if (s < min) {
				printf("pktgen: %s: pkt_size %u is below the %u bytes of headers (%d VLAN tags, %s, UDP) "
				       "and pktgen's %d-byte payload header (accepted: %u-%u)\n", nic->name, s,
				       min - PG_PAYLOAD_LEN, pg_ntags(), pg.flags & PG_F_IPV6 ? "IPv6" : "IPv4",
				       PG_PAYLOAD_LEN, min, max);
				bad = 1;
			}
			if (s > max) {
				printf("pktgen: %s: pkt_size %u is above the port's MTU %u + 14 (accepted: 60-%u)\n",
				       nic->name, s, nic->mtu, max);
				bad = 1;
			}
		}
		return bad ? -1 : 0;
	}
	bad |= check_range("dst", pg.dst_min, pg.dst_max, "A.B.C.D, min <= max");
	bad |= check_range("src", pg.src_min, pg.src_max, "A.B.C.D, min <= max");
	bad |= check_range("udp_src", (uint64_t)pg.udp_src_min, (uint64_t)pg.udp_src_max, "0-65535, min <= max");
	bad |= check_range("udp_dst", (uint64_t)pg.udp_dst_min, (uint64_t)pg.udp_dst_max, "0-65535, min <= max");
	bad |= check_range("queue_map", (uint64_t)pg.queue_map_min, (uint64_t)pg.queue_map_max, "0-65535, min <= max");
	bad |= check_range6("dst6", pg.dst6_min, pg.dst6_max);
	bad |= check_range6("src6", pg.src6_min, pg.src6_max);
	if (pg.nsweep && pg.nimix) {
		printf("pktgen: sweep and imix are both set: one of them (pktgen set sweep off, or imix off)\n");
		bad = 1;
	}
	if (pg.nsweep && !pg.count) {
		printf("pktgen: sweep needs count > 0 (frames per step)\n");
		bad = 1;
	}
	return bad ? -1 : 0;
}
