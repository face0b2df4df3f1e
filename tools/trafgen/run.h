/* What a trafgen run keeps: its streams (one per size, or per stream id
 * seen in recv mode) and the counters that belong to no stream. main.c
 * runs it; report.c prints it. */
#ifndef TRAFGEN_RUN_H
#define TRAFGEN_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "args.h"
#include "frame.h"
#include "port.h"
#include "stats.h"

#define BURST 32                     /* frames per send call */
#define MAX_STREAMS 64               /* streams told apart; others count as 'other' */

struct stream {
	uint16_t id;
	unsigned size;            /* bytes with FCS: as sent, or the first frame's */
	bool ours;                /* sent by this run */
	uint64_t queued;          /* frames handed to the port = next sequence number */
	uint64_t written_off;     /* in-flight frames given up on by the window */
	uint64_t tx_start, tx_end;/* ns */
	uint64_t received, bytes; /* frames of ours (duplicates too); bytes with FCS */
	uint64_t rx_first, rx_last;
	const char *stop;         /* why the step ended */
	struct seq_track seq;
	struct lat_hist lat;
};

struct run {
	const struct config *cfg;
	struct port port[MAX_PORTS];
	struct stream *stream[MAX_STREAMS];
	int nstreams;
	uint64_t received;        /* frames of ours, all streams */
	uint64_t other, bad, arp_replies;
	uint64_t now;             /* ns, CLOCK_MONOTONIC */
	uint64_t rx_now;          /* ns: when this batch's frames were read (0: none yet) */
	uint64_t start, deadline, last_rx, last_tx;
	int64_t wall_offset;      /* CLOCK_REALTIME - CLOCK_MONOTONIC, ns (pcap) */
	FILE *pcap;
	const char *stop;         /* why the run ended */
	bool failed;
	uint8_t frame[BURST][FRAME_SIZE_MAX];
};

/* Prints the table (unless --quiet) and the RESULT line to stdout. */
void report(struct run *r);

#endif
