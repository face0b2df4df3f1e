/*
 * Packet capture: copies of the frames a port receives and sends, taken
 * from the RX and TX bursts into a ring the reader (the console's
 * `capture`, the management port's /capture) empties. What Linux's packet
 * taps (dev_queue_xmit_nit, AF_PACKET) and DPDK's pdump do.
 *
 * The tap: capture_start points the port's nic->ops at a copy of its ops
 * whose rx_burst and tx_burst call the driver's and then copy the burst;
 * capture_stop points it back. With no capture the fast path is exactly
 * the driver's (not even a branch); every burst call site (run/lcore.c,
 * the apps' tx_burst) is covered without a hook of its own. RX frames are
 * copied as rx_burst hands them out, TX frames once tx_burst has taken
 * them (the ones the ring refused are not sent and not copied).
 *
 * One capture at a time, of one port: a second capture_start is refused.
 * The ring holds capture_buffers frames of up to snaplen bytes; a frame that
 * finds it full is counted in dropped (pcapng's isb_ifdrop), never waited
 * for. Producers (the cores polling the port's queues) take the ring's lock;
 * the one reader takes none.
 *
 * Time: the NIC's timestamp where it stamped the frame, hwts = 1: RX
 * (PKT_RX_TSTAMP), or TX (a frame sent with PKT_TX_TSTAMP whose request
 * was granted: capture_peek holds it back until the NIC's stamp has been
 * read, or is known never to come); else the TSC at the burst mapped to
 * the port's clock (drivers/net/phc.h, hwts = 0); ns of that clock
 * either way.
 */
#ifndef CAPTURE_H
#define CAPTURE_H
#include <stdint.h>
#include "net/bpf.h"

#define CAPTURE_RX 1
#define CAPTURE_TX 2
#define CAPTURE_SNAPLEN_MAX 2048	/* PKT_BUF_SIZE: no frame is longer */
#define CAPTURE_PROG_MAX 256		/* instructions of a filter */

/* One copied frame in the ring. */
struct capture_rec {
	int64_t ns;		/* port clock, ns */
	uint16_t wirelen;	/* frame bytes (without FCS) */
	uint16_t caplen;	/* bytes copied: min(wirelen, snaplen, filter's) */
	uint8_t dir;		/* CAPTURE_RX or CAPTURE_TX */
	uint8_t hwts;		/* 1: the NIC's timestamp; 0: TSC mapped to the port clock */
	uint32_t txseq;		/* a sent frame's TX stamp to wait for (phc_tx_seq), 0: none */
	uint8_t data[];
};

/* What a capture counted, frames. */
struct capture_stats {
	uint64_t seen;		/* in the directions captured */
	uint64_t filtered;	/* the filter returned 0 for them */
	uint64_t kept;		/* copied into the ring */
	uint64_t dropped;	/* found the ring full (isb_ifdrop) */
};

/* What to capture. */
struct capture_req {
	int port;
	int dir;			/* CAPTURE_RX | CAPTURE_TX */
	uint32_t snaplen;		/* 1..CAPTURE_SNAPLEN_MAX */
	const struct bpf_insn *prog;	/* checked (bpf_check), or NULL: every frame */
	unsigned prog_len;		/* <= CAPTURE_PROG_MAX */
};

/* "rx", "tx" or "both" as CAPTURE_RX | CAPTURE_TX bits; 0 for anything else. */
int capture_dir_parse(const char *s);

/* capture_buffers knob: frames the ring holds. */
extern int64_t capture_buffers;

/*
 * Start capturing; on core 0 or the management core, outside a burst.
 * Returns 0, or -1 with *why: a capture already runs (its port named in
 * *why), no such port, the ring's memory not there, a bad snaplen, a
 * filter too long.
 */
int capture_start(const struct capture_req *req, const char **why);
/* The oldest frame not yet consumed, or NULL (also while that frame's
 * TX timestamp is still to come). */
const struct capture_rec *capture_peek(void);
/* Consume the frame capture_peek returned. */
void capture_next(void);
/* The counters so far. */
void capture_get_stats(struct capture_stats *st);
/* 1 while a capture runs. */
int capture_running(void);
/* Stop: the port's ops back, the ring freed; *st the final counters (may be NULL). */
void capture_stop(struct capture_stats *st);

/*
 * The mirror (mirror=SRC:DST[,rx|tx|both], SPAN) rides on the same tap: a
 * copy of each frame of SRC's bursts, in a buffer of DST's pool, goes out
 * of DST on the TX queue of the burst's queue index (as fwd sends); one
 * without a buffer or a TX descriptor is dropped and counted. A mirror's
 * own frames are not mirrored again: DST may not be SRC. mirror_start
 * hooks it up after the placement (run/main.c); mirror_print prints its
 * counters (the console's `capture`).
 */
void mirror_start(void);
void mirror_print(void);
#endif
