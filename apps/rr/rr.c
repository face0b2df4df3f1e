/*
 * app=rr: the request-response server (apps/rr/rr.h). Each received frame
 * passes rr's checks (rr_filter.c) and goes to lwIP without a copy
 * (rr_netif.c); lwIP runs here, on the core that polls the port, and its
 * timers from the poll loop's idle hook. Frames lwIP sent leave in one
 * tx_burst per port at the end of each received burst.
 */
#include <stdio.h>
#include <string.h>
#include "apps/app.h"
#include "apps/rr/rr.h"
#include "kernel/cpu.h"
#include "kernel/knobs.h"
#include "kernel/time.h"
#include "lwip/timeouts.h"
#include "net/ifaddr.h"

struct rr_stats rr_stats[NIC_MAX_PORTS];
struct rr_config rr_cfg = { .req = 1, .rsp = 1, .port = 12866, .conns = 512, .idle_s = 60, .heap_kib = 4096,
			    .pbufs = 8192 };

static const struct knob_range size_range[] = { { 1, 65535 } };
static const struct knob_range port_range[] = { { 1, 65535 } };
static const struct knob_range conns_range[] = { { 1, RR_CONNS_MAX } };
static const struct knob_range idle_range[] = { { 0, 3600 } };
/* lwIP counts a pool's blocks in 16 bits (stats_mem): no pool over 65535,
 * the heap's 256-byte pool holding rr_heap KiB / 1 KiB blocks. */
static const struct knob_range heap_range[] = { { 64, 65535 } };
static const struct knob_range pbufs_range[] = { { 64, 65535 } };
KNOB(req, .name = "req", .type = KNOB_INT, .ranges = size_range, .nranges = 1, .ival = &rr_cfg.req,
     .help = "rr: request size of a transaction, bytes (netperf -r REQ,RSP; UDP: 1-65507); default 1");
KNOB(rsp, .name = "rsp", .type = KNOB_INT, .ranges = size_range, .nranges = 1, .ival = &rr_cfg.rsp,
     .help = "rr: response size of a transaction, bytes (UDP: 1-65507; above, UDP requests are counted udp_rr_unanswered); default 1");
KNOB(rr_port, .name = "rr_port", .type = KNOB_INT, .ranges = port_range, .nranges = 1, .ival = &rr_cfg.port,
     .help = "rr: UDP and TCP port of the request-response service; default 12866");
KNOB(rr_conns, .name = "rr_conns", .type = KNOB_INT, .ranges = conns_range, .nranges = 1,
     .ival = &rr_cfg.conns, .help = "rr: TCP connections at most (open or half-open); more SYNs are dropped and counted; lwIP's PCB pool holds 16 more; default 512");
KNOB(rr_heap, .name = "rr_heap", .type = KNOB_INT, .ranges = heap_range, .nranges = 1, .ival = &rr_cfg.heap_kib,
     .help = "rr: lwIP's heap (segments awaiting their ACK, small responses, ICMP replies), KiB; default 4096");
KNOB(rr_pbufs, .name = "rr_pbufs", .type = KNOB_INT, .ranges = pbufs_range, .nranges = 1, .ival = &rr_cfg.pbufs,
     .help = "rr: lwIP's TCP segments, and as many pbuf headers (responses sent by reference); default 8192");
KNOB(rr_idle, .name = "rr_idle", .type = KNOB_INT, .ranges = idle_range, .nranges = 1, .ival = &rr_cfg.idle_s,
     .help = "rr: a TCP connection idle this long is closed with a FIN and counted (conns_idle_closed), s (0: never); default 60");

static uint64_t next_timer_tsc, next_arp_tsc;
extern const struct app app_rr;

static int rr_init(void)
{
	int n = 0;
	for (int p = 0; p < nic_count; p++) {
		if (!app_runs_on(&app_rr, p))
			continue;
		if (!ifaddrs[p].v4.addr) {
			printf("rr: %s has no address (ip%d=): its frames are dropped (not_ours)\n", nics[p]->name, p);
			continue;
		}
		if (rr_netif_add(nics[p], ifaddrs[p].v4.addr, ifaddrs[p].v4.len)) {
			printf("rr: %s: lwIP refused the interface\n", nics[p]->name);
			return -1;
		}
		n++;
	}
	if (!n) {
		printf("rr: no port has an address: give one with ipN=A.B.C.D/LEN (e.g. ip0=10.0.0.1/24)\n");
		return -1;
	}
	if (rr_services_init() || sockperf_init())
		return -1;
	printf("rr: lwIP on %d port(s): request-response on UDP/TCP %ld (req %ld rsp %ld bytes, %ld connections), echo on %d, sockperf on %d\n",
	       n, rr_cfg.port, rr_cfg.req, rr_cfg.rsp, rr_cfg.conns, RR_ECHO_PORT, RR_SOCKPERF_PORT);
	return 0;
}

void rr_input(struct nic *nic, int q, struct pkt **pkts, int n)
{
	(void)q;
	struct rr_stats *st = &rr_stats[nic->port];
	st->rx += (uint64_t)n;
	for (int i = 0; i < n; i++) {
		struct pkt *p = pkts[i];
		st->ev[RR_rx_bytes] += p->len;
		int cls = rr_netif_fast_input(nic, p);
		if (cls >= 0) {
			st->stack[cls]++;
			continue;
		}
		cls = rr_filter(nic, p);
		if (cls < 0) {
			app_count_drops(1);
			continue;
		}
		if (rr_netif_input(nic, p, cls)) {
			st->drop[RR_no_pbuf]++;
			app_count_drops(1);
			pkt_free(p);
			continue;
		}
		st->stack[cls]++;
	}
	rr_netif_flush();
}

/* lwIP's timers (TCP every 250 ms, ARP, reassembly), checked every ms. */
int rr_timers(void)
{
	uint64_t now = rdtsc();
	if (now < next_timer_tsc)
		return 0;
	next_timer_tsc = now + tsc.hz / 1000;
	if (now >= next_arp_tsc) {
		next_arp_tsc = now + tsc.hz;
		rr_netif_arp_tick();
		rr_expire_half_open(rr_our_port, RR_SYN_MS);
	}
	sys_check_timeouts();
	rr_netif_flush();
	return 0;
}
APP(rr, .name = "rr", .help = "request-response server on lwIP: netperf-style RR, echo, sockperf",
    .init = rr_init, .rx = rr_input, .idle = rr_timers, .report = rr_report,
    .uses = APP_USES_IP);
