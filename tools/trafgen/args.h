/* trafgen's command line (see `trafgen --help`). */
#ifndef TRAFGEN_ARGS_H
#define TRAFGEN_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "frame.h"
#include "port.h"

#define MAX_PORTS 2
#define MAX_SIZES 32

enum mode { MODE_SEND, MODE_RECV, MODE_BOTH };
extern const char *const mode_names[];   /* indexed by enum mode */
enum rate_unit { RATE_MAX, RATE_PPS, RATE_BPS };

struct config {
	enum mode mode;
	struct port_spec port[MAX_PORTS];
	int nports;
	uint64_t count;          /* frames per size (recv: in all); 0 = no bound */
	double duration;         /* s per size (recv: in all); 0 = no bound */
	enum rate_unit rate_unit;
	double rate;             /* frames/s or bits/s, as rate_unit says */
	unsigned window;         /* frames in flight in both mode; 0 = no limit */
	unsigned size[MAX_SIZES];/* bytes, FCS included */
	int nsizes;
	bool sweep;
	struct flow_spec flow;
	uint16_t stream;         /* stream id of the first size */
	double timeout, max_time;/* s */
	bool arp_reply;
	uint64_t rx_mac;         /* port 1's MAC for ARP replies */
	bool quiet;
	const char *pcap;
};

/* Fills *c from argv. Returns 0 to run, 1 when --help was printed (exit
 * 0), or 2 when an argument was wrong: what and the accepted forms are on
 * stderr (exit 2). */
int config_parse(struct config *c, int argc, char **argv);

/* Frames per second for frames of `size` bytes (FCS included), or 0 for
 * --rate max. bps counts size + FRAME_WIRE_EXTRA bytes per frame. */
double config_pps(const struct config *c, unsigned size);

#endif
