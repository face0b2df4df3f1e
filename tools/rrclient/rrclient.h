/* rrclient: the host end of the request-response tests (docs/apps/rr.md, "Host
 * request-response client"): N parallel TCP or UDP sessions, each a chain
 * of transactions (a request of req bytes, then wait for rsp bytes), as
 * netperf TCP_RR/UDP_RR run them, bounded by count and time. */
#ifndef RRCLIENT_H
#define RRCLIENT_H
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>
#include "../trafgen/stats.h"

struct rr_opts {
	struct sockaddr_storage dst;	/* the server: IPv4 or IPv6 (a link-local one with its %IFNAME) */
	socklen_t dst_len;
	int tcp;			/* 1 TCP, 0 UDP */
	int sessions;
	uint32_t req, rsp;		/* bytes */
	uint64_t count;			/* transactions per session; 0: until duration */
	double duration;		/* s; 0: until count */
	double max_time;		/* s, hard stop */
	double timeout;			/* s: a UDP request without an answer is counted and sent again; TCP: the run stops */
	int quiet;
};

struct rr_result {
	uint64_t transactions;		/* completed */
	uint64_t requests;		/* sent */
	uint64_t timeouts;		/* UDP requests unanswered within timeout */
	uint64_t bad_size;		/* UDP answers of another size than rsp */
	uint64_t connect_failed;	/* TCP sessions that never connected (refused, reset, timeout) */
	uint64_t errors;		/* sessions ended by a socket error or an early close */
	int sessions_done;		/* sessions that finished their count */
	double elapsed;			/* s, from the first request to the end */
	const char *stop;		/* "count", "duration", "signal", "max-time", "error" */
	struct lat_hist lat;
};

/* Set by SIGINT or SIGTERM: the run stops as at the end of --duration. */
extern volatile sig_atomic_t rr_interrupted;

/* Run the sessions; fills r. Returns 0, or -1 when it could not start. */
int rr_run(const struct rr_opts *o, struct rr_result *r);
#endif
