/*
 * app=rr: the request-response server (apps/rr/rr.h) on net/lwip: received
 * bursts go to lwIP through lwif_input, lwIP's timers run from the idle
 * hook; rr tells the netif which ports are its services' and refuses SYNs
 * beyond rr_conns.
 */
#include <stdio.h>
#include <string.h>
#include "apps/app.h"
#include "apps/rr/rr.h"
#include "kernel/cpu.h"
#include "kernel/knobs.h"
#include "kernel/time.h"
#include "net/ifaddr.h"
#include "net/lwip/lwif.h"

struct rr_stats rr_stats[NIC_MAX_PORTS];
uint64_t rr_ports[65536 / 64];

void rr_ports_mark(uint16_t port, int on)
{
	if (on)
		rr_ports[port >> 6] |= 1ull << (port & 63);
	else
		rr_ports[port >> 6] &= ~(1ull << (port & 63));
}

int rr_port_taken(const char *knob, int64_t port)
{
	if (!rr_our_port((uint16_t)port))
		return 0;
	printf("rr: %s=%ld is taken by another of rr's services (rr_port, echo, sockperf, netserver_port, iperf3_port)\n",
	       knob, port);
	return 1;
}
struct rr_config rr_cfg = { .req = 1, .rsp = 1, .port = 12866, .conns = 512, .idle_s = 60 };

static const struct knob_range size_range[] = { { 1, 65535 } };
static const struct knob_range port_range[] = { { 1, 65535 } };
static const struct knob_range conns_range[] = { { 1, RR_CONNS_MAX } };
static const struct knob_range idle_range[] = { { 0, 3600 } };
KNOB(req, .name = "req", .type = KNOB_INT, .ranges = size_range, .nranges = 1, .ival = &rr_cfg.req,
     .help = "rr: request size of a transaction, bytes (netperf -r REQ,RSP; UDP: 1-65507); default 1");
KNOB(rsp, .name = "rsp", .type = KNOB_INT, .ranges = size_range, .nranges = 1, .ival = &rr_cfg.rsp,
     .help = "rr: response size of a transaction, bytes (UDP: 1-65507; above, UDP requests are counted udp_rr_unanswered); default 1");
KNOB(rr_port, .name = "rr_port", .type = KNOB_INT, .ranges = port_range, .nranges = 1, .ival = &rr_cfg.port,
     .help = "rr: UDP and TCP port of the request-response service; default 12866");
KNOB(rr_conns, .name = "rr_conns", .type = KNOB_INT, .ranges = conns_range, .nranges = 1,
     .ival = &rr_cfg.conns, .help = "rr: TCP connections at most (open or half-open); more SYNs are dropped and counted; lwIP's PCB pool holds 16 more; default 512");
KNOB(rr_idle, .name = "rr_idle", .type = KNOB_INT, .ranges = idle_range, .nranges = 1, .ival = &rr_cfg.idle_s,
     .help = "rr: a TCP connection idle this long is closed with a FIN and counted (conns_idle_closed), s (0: never); default 60");

extern const struct app app_rr;

/* A SYN to one of rr's services with rr_conns established: refused and
 * counted (a half-open one gives way otherwise, rr_syn_room). */
static int rr_syn_full(int port)
{
	if (rr_syn_room(port))
		return 0;
	rr_count(port, RR_conns_refused, 1);
	return 1;
}

static const struct lwif_app rr_lwif = { .name = "rr", .ours = rr_our_port, .syn_full = rr_syn_full };

int rr_port_shown(int p)
{
	return app_runs_on(&app_rr, p) || lwif_app_of(p) == &rr_lwif;
}

static int has_addr(int p)
{
	return ifaddrs[p].v4.addr || ifaddrs[p].n6 || ifaddrs[p].auto6;
}

/* Port p's lwIP netif; 0, or -1 after saying why. */
static int rr_port_add(int p)
{
	const struct lwif_mem mem = { .pcbs = (uint32_t)rr_cfg.conns + RR_PCB_SPARE };
	if (lwif_mem_init(&mem))
		return -1;
	if (lwif_add(nics[p], ifaddrs[p].v4.addr, ifaddrs[p].v4.len, &rr_lwif)) {
		printf("rr: %s: lwIP refused the interface\n", nics[p]->name);
		return -1;
	}
	return 0;
}

static int rr_init(void)
{
	int n = 0;
	for (int p = 0; p < nic_count; p++) {
		if (!app_runs_on(&app_rr, p))
			continue;
		if (!has_addr(p)) {
			printf("rr: %s has no address (ip%d=): its frames are dropped (not_ours)\n", nics[p]->name, p);
			continue;
		}
		if (rr_port_add(p))
			return -1;
		n++;
	}
	if (!n) {
		printf("rr: no port has an address: give one with ipN=A.B.C.D/LEN and/or ADDR6/LEN (e.g. ip0=10.0.0.1/24,2001:db8::1/64)\n");
		return -1;
	}
	if (rr_services_init() || sockperf_init() || netserver_init() || iperf3_init())
		return -1;
	printf("rr: lwIP on %d port(s): request-response on UDP/TCP %ld (req %ld rsp %ld bytes, %ld connections), echo on %d, sockperf on %d, netserver on %ld, iperf3 on %ld\n",
	       n, rr_cfg.port, rr_cfg.req, rr_cfg.rsp, rr_cfg.conns, RR_ECHO_PORT, RR_SOCKPERF_PORT, netserver_port, iperf3_port);
	return 0;
}

static void rr_rx(struct nic *nic, int q, struct pkt **pkts, int n)
{
	(void)q;
	int dropped = lwif_input(nic, pkts, n);
	if (dropped)
		app_count_drops((uint64_t)dropped);
}

static void rr_count_expired(int port)
{
	rr_count(port, RR_half_open_expired, 1);
}

/* lwIP's timers; once a second, rr's handshakes older than RR_SYN_MS are
 * dropped (half_open_expired) and netserver's and iperf3's tests checked;
 * an iperf3 UDP test's sender streams paced. */
static int rr_idle(void)
{
	static uint64_t next_tsc;
	uint64_t now = rdtsc();
	if (now >= next_tsc) {
		next_tsc = now + tsc.hz;
		lwif_expire_half_open(rr_our_port, RR_SYN_MS, rr_count_expired);
		netserver_tick();
		iperf3_tick();
	}
	int sent = iperf3_poll();
	if (sent)
		lwif_flush();
	return lwif_timers() + sent;
}

/* `port config` (run/portcmd.c, other cores parked): a port given to rr
 * gets its netif (made once, up again after a switch; it needs its ipN=,
 * read at boot); a port taken off has its netif down, its TCP connections
 * aborted (conns_aborted, a RST to each peer). Counters stay. */
static int rr_place(int port, int on)
{
	if (!on) {
		lwif_set_up(port, 0);
		return 0;
	}
	if (lwif_netif(port)) {
		lwif_set_up(port, 1);
		return 0;
	}
	if (!has_addr(port)) {
		printf("rr: %s has no address: rr answers on ports with one, given at boot (ip%d=A.B.C.D/LEN and/or "
		       "ADDR6/LEN)\n", nics[port]->name, port);
		return -1;
	}
	return rr_port_add(port);
}

APP(rr, .name = "rr", .help = "request-response server on lwIP: netperf-style RR, echo, sockperf, netserver",
    .init = rr_init, .rx = rr_rx, .idle = rr_idle, .report = rr_report, .metrics = rr_metrics,
    .uses = APP_USES_IP, .runtime = 1, .place = rr_place);
