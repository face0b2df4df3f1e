/*
 * replay's knobs, with tcpreplay's option names (tcpreplay(1)):
 * replay_speed (--multiplier), replay_pps (--pps), replay_mbps (--mbps),
 * replay_topspeed (--topspeed), replay_loop (--loop), and tcprewrite's
 * --enet-dmac/--enet-smac (replay_dmac, replay_smac), --srcipmap/--dstipmap
 * (replay_srcipmap, replay_dstipmap: net/ipmap.h) and --pnat (replay_pnat,
 * which conflicts with the other two, as in tcprewrite). All can be `set` at
 * run time; the next `replay start` takes them.
 */
#include <stdio.h>
#include <string.h>
#include "apps/replay/replay.h"
#include "kernel/fmt.h"
#include "kernel/knobs.h"
#include "net/addr.h"

struct replay_config replay_cfg = { .speed_milli = 1000, .loop = 1 };

static const struct knob_range rate_range[] = { { 0, 100000000 } };
static const struct knob_range mbps_range[] = { { 0, 100000 } };
static const struct knob_range loop_range[] = { { 0, 1000000000 } };
static const struct knob_range bool_range[] = { { 0, 1 } };
static const char *const start_choices[] = { "link", "shell", NULL };

#define SPEED_ACCEPTED "0.001-1000, up to 3 decimals (2: twice as fast, 0.5: half)"

/* "2", "0.5", "1.25": thousandths in *milli. */
static int parse_speed(const char *v, char *err, size_t errlen)
{
	uint64_t whole = 0, frac = 0;
	char buf[24];
	const char *dot = strchr(v, '.');
	size_t wl = dot ? (size_t)(dot - v) : strlen(v), fl = dot ? strlen(dot + 1) : 0;
	int ok = wl > 0 && wl < sizeof(buf) && (!dot || (fl >= 1 && fl <= 3));
	if (ok) {
		memcpy(buf, v, wl);
		buf[wl] = 0;
		ok = !parse_u64(buf, &whole) && (!dot || strspn(dot + 1, "0123456789") == fl);
		for (size_t i = 0; ok && i < 3; i++)
			frac = frac * 10 + (i < fl ? (uint64_t)(dot[1 + i] - '0') : 0);
	}
	if (!ok || whole > 1000 || whole * 1000 + frac < 1 || whole * 1000 + frac > 1000000) {
		snprintf(err, errlen, "accepted: " SPEED_ACCEPTED);
		return -1;
	}
	replay_cfg.speed_milli = (int64_t)(whole * 1000 + frac);
	return 0;
}

static void show_speed(char *buf, size_t len)
{
	snprintf(buf, len, "%lld.%03lld", (long long)replay_cfg.speed_milli / 1000,
		 (long long)replay_cfg.speed_milli % 1000);
}

/* replay_dmac=, replay_smac=: a MAC, or "off". */
static int parse_mac(const char *v, uint8_t mac[6], int *set, char *err, size_t errlen)
{
	if (!strcmp(v, "off")) {
		*set = 0;
		return 0;
	}
	if (mac_parse(v, mac)) {
		snprintf(err, errlen, "accepted: xx:xx:xx:xx:xx:xx or off");
		return -1;
	}
	*set = 1;
	return 0;
}

static void show_mac(char *buf, size_t len, const uint8_t mac[6], int set)
{
	char m[MAC_STR_MAX];
	snprintf(buf, len, "%s", set ? mac_str(m, mac) : "off");
}

static int parse_dmac(const char *v, char *err, size_t errlen)
{
	return parse_mac(v, replay_cfg.dmac, &replay_cfg.set_dmac, err, errlen);
}
static int parse_smac(const char *v, char *err, size_t errlen)
{
	return parse_mac(v, replay_cfg.smac, &replay_cfg.set_smac, err, errlen);
}
static void show_dmac(char *buf, size_t len)
{
	show_mac(buf, len, replay_cfg.dmac, replay_cfg.set_dmac);
}
static void show_smac(char *buf, size_t len)
{
	show_mac(buf, len, replay_cfg.smac, replay_cfg.set_smac);
}

static int parse_srcipmap(const char *v, char *err, size_t errlen)
{
	return ipmap_parse(&replay_cfg.srcipmap, v, err, errlen);
}
static int parse_dstipmap(const char *v, char *err, size_t errlen)
{
	return ipmap_parse(&replay_cfg.dstipmap, v, err, errlen);
}
static int parse_pnat(const char *v, char *err, size_t errlen)
{
	return ipmap_parse(&replay_cfg.pnat, v, err, errlen);
}
static void show_pnat(char *buf, size_t len)
{
	ipmap_show(&replay_cfg.pnat, buf, len);
}
static void show_srcipmap(char *buf, size_t len)
{
	ipmap_show(&replay_cfg.srcipmap, buf, len);
}
static void show_dstipmap(char *buf, size_t len)
{
	ipmap_show(&replay_cfg.dstipmap, buf, len);
}

KNOB(replay_speed, .name = "replay_speed", .type = KNOB_FUNC, .parse = parse_speed, .show = show_speed,
     .accepted = SPEED_ACCEPTED, .live = 1,
     .help = "replay: the file's gaps divided by this (tcpreplay --multiplier); default 1 (recorded timing)");
KNOB(replay_pps, .name = "replay_pps", .type = KNOB_INT, .ranges = rate_range, .nranges = 1, .ival = &replay_cfg.pps,
     .live = 1, .help = "replay: frames per second instead of the file's timing (tcpreplay --pps); 0 off; default 0");
KNOB(replay_mbps, .name = "replay_mbps", .type = KNOB_INT, .ranges = mbps_range, .nranges = 1,
     .ival = &replay_cfg.mbps, .live = 1,
     .help = "replay: Mb/s of frame bytes instead of the file's timing (tcpreplay --mbps); 0 off; default 0");
KNOB(replay_topspeed, .name = "replay_topspeed", .type = KNOB_INT, .ranges = bool_range, .nranges = 1,
     .ival = &replay_cfg.topspeed, .live = 1,
     .help = "replay: 1: as fast as the TX ring takes frames (tcpreplay --topspeed); default 0");
KNOB(replay_loop, .name = "replay_loop", .type = KNOB_INT, .ranges = loop_range, .nranges = 1,
     .ival = &replay_cfg.loop, .live = 1,
     .help = "replay: passes over the file (tcpreplay --loop); 0: until `replay stop`; default 1");
KNOB(replay_start, .name = "replay_start", .type = KNOB_ENUM, .choices = start_choices, .ival = &replay_cfg.start,
     .help = "replay: link: start when the port's link is up; shell: at `replay start`; default link");
KNOB(replay_dmac, .name = "replay_dmac", .type = KNOB_FUNC, .parse = parse_dmac, .show = show_dmac,
     .accepted = "xx:xx:xx:xx:xx:xx or off", .live = 1,
     .help = "replay: destination MAC written into every frame (tcprewrite --enet-dmac); default off");
KNOB(replay_smac, .name = "replay_smac", .type = KNOB_FUNC, .parse = parse_smac, .show = show_smac,
     .accepted = "xx:xx:xx:xx:xx:xx or off", .live = 1,
     .help = "replay: source MAC written into every frame (tcprewrite --enet-smac); default off");

KNOB(replay_srcipmap, .name = "replay_srcipmap", .type = KNOB_FUNC, .parse = parse_srcipmap, .show = show_srcipmap,
     .accepted = IPMAP_ACCEPTED, .live = 1,
     .help = "replay: source addresses inside FROM take TO's network bits, checksums fixed (tcprewrite "
	     "--srcipmap); default off");
KNOB(replay_dstipmap, .name = "replay_dstipmap", .type = KNOB_FUNC, .parse = parse_dstipmap, .show = show_dstipmap,
     .accepted = IPMAP_ACCEPTED, .live = 1,
     .help = "replay: destination addresses inside FROM take TO's network bits, checksums fixed (tcprewrite "
	     "--dstipmap); default off");

KNOB(replay_pnat, .name = "replay_pnat", .type = KNOB_FUNC, .parse = parse_pnat, .show = show_pnat,
     .accepted = IPMAP_ACCEPTED, .live = 1,
     .help = "replay: source and destination addresses, and ARP's sender and target, inside FROM take TO's "
	     "network bits, checksums fixed (tcprewrite --pnat); conflicts with replay_srcipmap/dstipmap; "
	     "default off");

int replay_maps(void)
{
	if (replay_cfg.pnat.n && (replay_cfg.srcipmap.n || replay_cfg.dstipmap.n)) {
		printf("replay: replay_pnat and replay_%s conflict (as tcprewrite's --pnat and --%s): set one off\n",
		       replay_cfg.srcipmap.n ? "srcipmap" : "dstipmap", replay_cfg.srcipmap.n ? "srcipmap" : "dstipmap");
		return -1;
	}
	return 0;
}

int replay_pace(void)
{
	int n = (replay_cfg.pps > 0) + (replay_cfg.mbps > 0) + (replay_cfg.topspeed > 0);
	if (n > 1) {
		printf("replay: replay_pps=%lld, replay_mbps=%lld, replay_topspeed=%lld: give one of them (the others 0)\n",
		       (long long)replay_cfg.pps, (long long)replay_cfg.mbps, (long long)replay_cfg.topspeed);
		return -1;
	}
	return replay_cfg.pps ? REPLAY_PPS : replay_cfg.mbps ? REPLAY_MBPS : replay_cfg.topspeed ? REPLAY_TOPSPEED
												: REPLAY_TIMED;
}

void replay_pace_str(char *buf, size_t len)
{
	switch (replay_pace()) {
	case REPLAY_PPS:
		snprintf(buf, len, "%lld pps", (long long)replay_cfg.pps);
		break;
	case REPLAY_MBPS:
		snprintf(buf, len, "%lld Mb/s", (long long)replay_cfg.mbps);
		break;
	case REPLAY_TOPSPEED:
		snprintf(buf, len, "topspeed");
		break;
	default:
		snprintf(buf, len, "recorded timing x %lld.%03lld", (long long)replay_cfg.speed_milli / 1000,
			 (long long)replay_cfg.speed_milli % 1000);
	}
}
