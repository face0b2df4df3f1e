/* replay's knobs and per-port state, shared by its files (apps/replay/). */
#ifndef APPS_REPLAY_H
#define APPS_REPLAY_H
#include <stdint.h>
#include "apps/app.h"
#include "net/ipmap.h"
#include "net/pcapfile.h"

/* How frames are spaced, as tcpreplay's options choose. */
enum replay_pace {
	REPLAY_TIMED,		/* the file's gaps over replay_speed (--multiplier) */
	REPLAY_PPS,		/* replay_pps frames a second (--pps) */
	REPLAY_MBPS,		/* replay_mbps Mb/s of frame bytes (--mbps) */
	REPLAY_TOPSPEED,	/* as fast as the TX ring takes them (--topspeed) */
};

/* The knobs (apps/replay/conf.c). */
struct replay_config {
	int64_t speed_milli;	/* replay_speed x 1000 */
	int64_t pps, mbps, topspeed;
	int64_t loop;		/* passes over the file; 0: until replay stop */
	int64_t start;		/* 0: when the link is up, 1: at `replay start` */
	uint8_t dmac[6], smac[6];	/* tcprewrite --enet-dmac/--enet-smac */
	int set_dmac, set_smac;
	struct ipmap srcipmap, dstipmap;	/* tcprewrite --srcipmap/--dstipmap */
	struct ipmap pnat;	/* tcprewrite --pnat */
};
extern struct replay_config replay_cfg;

/* The pace the knobs choose; -1 after printing why when more than one of
 * replay_pps, replay_mbps and replay_topspeed is given. */
int replay_pace(void);
/* 0, or -1 after printing why when replay_pnat and replay_srcipmap or
 * replay_dstipmap are both on (tcprewrite refuses them together). */
int replay_maps(void);
/* The pace in words, e.g. "recorded timing x 2.000", "1000 pps". */
void replay_pace_str(char *buf, size_t len);

#define REPLAY_BURST 32

/* One port's replay, owned by the core that polls the port. */
struct replay_port {
	struct pktpool *pool;
	struct pcapfile_cur cur;
	int running;
	int pace;		/* enum replay_pace of this run */
	int have_next;		/* next holds the next frame to send */
	int last_pass_done;	/* the file's end met on the run's last pass */
	struct pcapfile_rec next;
	uint64_t next_due;	/* TSC at which next is due; 0: now */
	struct pkt *pend[REPLAY_BURST];	/* built, not yet taken by the ring */
	uint64_t pend_due[REPLAY_BURST];
	int npend;
	uint64_t t0;		/* TSC of the run's (TIMED: the pass's) first round; 0: not yet */
	uint64_t file_t0, file_clock;	/* ns in the file: the pass's first, latest */
	uint64_t scheduled, bits;	/* frames and frame bits scheduled (PPS, MBPS) */
	/* counters of the run (tcpreplay's statistics) */
	uint64_t packets, bytes, loops, skipped_mtu, ring_full;
	uint64_t rewritten;	/* frames whose addresses replay_srcipmap/dstipmap/pnat changed */
	uint64_t late_max, late_sum;	/* TSC cycles past their due time, sent frames */
	uint64_t start_tsc, last_tsc;	/* the first round, the last frame sent */
	uint64_t rx_packets;	/* received on the port, dropped */
};
#endif
