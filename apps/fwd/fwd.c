/*
 * fwd, L2 mode: each received burst goes out of the paired port unchanged,
 * on the same queue number (modulo the peer's queues). pairs=0-1,2-3 pairs
 * ports both ways; pairs=0-0 sends frames back out of the port they came in.
 * fwd_mode=macswap swaps each frame's MACs first (testpmd's macswap).
 * A port with an address (ipN=) routes at L3 instead (apps/fwd/l3.c).
 */
#include <stdio.h>
#include <string.h>
#include "apps/app.h"
#include "apps/fwd/counters.h"
#include "apps/fwd/fwd.h"
#include "apps/fwd/l3.h"
#include "apps/fwd/tc.h"
#include "kernel/knobs.h"
#include "kernel/shell.h"
#include "kernel/time.h"
#include "net/addr.h"
#include "net/ifaddr.h"
#include "net/ipv4.h"

static int8_t peer_of[NIC_MAX_PORTS] = { 1, 0, -1, -1, -1, -1, -1, -1 };

/* pairs=A-B[,C-D...]: ports A and B forward to each other. */
static int parse_pairs(const char *v, char *err, size_t len)
{
	int8_t peers[NIC_MAX_PORTS];
	memset(peers, -1, sizeof(peers));
	for (const char *s = v; *s;) {
		int a, b, n = 0;
		if (sscanf(s, "%d-%d%n", &a, &b, &n) != 2 || a < 0 || b < 0 ||
		    a >= NIC_MAX_PORTS || b >= NIC_MAX_PORTS || (s[n] && s[n] != ',') ||
		    (s[n] == ',' && !s[n + 1])) {
			snprintf(err, len, "bad pair at '%s'", s);
			return -1;
		}
		if (peers[a] >= 0 || (a != b && peers[b] >= 0)) {
			snprintf(err, len, "port in two pairs at '%s'", s);
			return -1;
		}
		peers[a] = (int8_t)b;
		peers[b] = (int8_t)a;
		s += n + (s[n] == ',');
	}
	memcpy(peer_of, peers, sizeof(peers));
	return 0;
}
static void show_pairs(char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (int a = 0; a < NIC_MAX_PORTS && used < len; a++)
		if (peer_of[a] >= a)
			used += (size_t)snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", a, peer_of[a]);
}
KNOB(pairs, .name = "pairs", .type = KNOB_FUNC, .parse = parse_pairs, .show = show_pairs,
     .accepted = "A-B[,C-D...] with ports 0-7, e.g. 0-1,2-3 or 0-0",
     .help = "fwd: ports that forward to each other; default 0-1");

/* l2_dmac=MAC: L2 frames leave with this destination MAC and the egress
 * port's own MAC as source (e.g. towards a router or a host that does not
 * listen promiscuously); unset: frames pass unchanged. */
static uint8_t l2_dmac[6];
static int l2_rewrite;

static int parse_l2_dmac(const char *v, char *err, size_t len)
{
	if (mac_parse(v, l2_dmac)) {
		snprintf(err, len, "not a MAC address");
		return -1;
	}
	l2_rewrite = 1;
	return 0;
}

static void show_l2_dmac(char *buf, size_t len)
{
	char m[MAC_STR_MAX];
	snprintf(buf, len, "%s", l2_rewrite ? mac_str(m, l2_dmac) : "unset");
}
KNOB(l2_dmac, .name = "l2_dmac", .type = KNOB_FUNC, .parse = parse_l2_dmac, .show = show_l2_dmac,
     .accepted = "xx:xx:xx:xx:xx:xx",
     .help = "fwd L2: rewrite destination MAC to this and source MAC to the egress port's; default unset (unchanged)");

/* fwd_mode=: testpmd's forwarding-mode names (testpmd_funcs, "set fwd"):
 * io passes frames unchanged (or rewritten by l2_dmac=); macswap swaps
 * each frame's destination and source MAC, for bouncing a tester's
 * traffic. Both send out of the paired port, as testpmd does (its port
 * topology): pairs=0-0 sends back out of the port a frame came in on.
 * `set fwd_mode` switches every L2 port from the next burst on. */
enum { FWD_MODE_IO, FWD_MODE_MACSWAP };
static const char *const fwd_mode_choices[] = { "io", "macswap", 0 };
static int64_t fwd_mode = FWD_MODE_IO;
KNOB(fwd_mode, .name = "fwd_mode", .type = KNOB_ENUM, .choices = fwd_mode_choices, .ival = &fwd_mode,
     .live = 1, .help = "fwd L2: io (frames unchanged) or macswap (destination and source MAC swapped, testpmd's "
	     "macswap), out of the paired port (pairs=0-0: the port it came in on); default io");

/* Swap destination and source MAC of each frame (all are >= ETH_HLEN).
 * Not inlined, nor the transparent clock's l2_tc_send: their locals would
 * give fwd_rx a stack canary, which every burst would pay. */
static void __attribute__((noinline)) swap_macs(struct pkt **pkts, int n)
{
	for (int i = 0; i < n; i++) {
		uint8_t t[6], *d = pkts[i]->data;
		memcpy(t, d, 6);
		memcpy(d, d + 6, 6);
		memcpy(d + 6, t, 6);
	}
}

static void rewrite_macs(struct pkt **pkts, int n, const struct nic *out)
{
	for (int i = 0; i < n; i++) {
		if (pkts[i]->len < 12)
			continue;
		memcpy(pkts[i]->data, l2_dmac, 6);
		memcpy(pkts[i]->data + 6, out->mac, 6);
	}
}

/* fwd_out_ok[p]: port p runs fwd, so L2 frames may leave through it (a
 * port of another app, e.g. the management port, never carries them). */
static uint8_t fwd_out_ok[NIC_MAX_PORTS];

/* ptp_tc= on the routed links (ports and VLAN sub-interfaces): the
 * PTP/UDP event messages they forward corrected; p2p: each link answers
 * and measures Pdelay itself (tc.c). */
static void fwd_tc_routed_init(void)
{
	int routed = 0;
	for (int l = l3_link_next(-1); l < FWD_LINKS && fwd_ptp_tc; l = l3_link_next(l))
		if (fwd_l3_port[l] && (l >= NIC_MAX_PORTS || app_runs_on(&app_fwd, l))) {
			routed++;
			fwd_tc_route_init(l, l3_nics[l], l3_link_port(l), ifaddrs[l].v4.addr, ifaddrs[l].ll6);
		}
	if (routed)
		printf("fwd: routed ports: %s transparent clock (ptp_tc=%s) on PTP/UDP event messages%s\n",
		       fwd_ptp_tc == FWD_TC_E2E ? "end-to-end" : "peer-to-peer", fwd_ptp_tc == FWD_TC_E2E ? "e2e" : "p2p",
		       fwd_ptp_tc == FWD_TC_P2P ? "; each link answers Pdelay" : "");
}

static int fwd_init(void)
{
	for (int p = 0; p < nic_count; p++)
		fwd_out_ok[p] = (uint8_t)app_runs_on(&app_fwd, p);
	if (fwd_l3_init())
		return -1;
	fwd_tc_routed_init();
	int l2 = 0;
	for (int p = 0; p < nic_count; p++)
		l2 += app_runs_on(&app_fwd, p) && !fwd_l3_port[p];
	if (!l2)
		return 0;
	for (int p = 0; p < nic_count; p++) {
		int q = peer_of[p];
		if (!app_runs_on(&app_fwd, p) || fwd_l3_port[p])
			continue;
		if (fwd_ptp_tc)
			fwd_tc_port_init(nics[p]);
		if (q < 0)
			printf("fwd: %s is in no pair (pairs=): its frames are dropped (no_peer)\n", nics[p]->name);
		else if (q >= nic_count)
			printf("fwd: %s is paired with port%d, which does not exist: its frames are dropped (no_peer)\n",
			       nics[p]->name, q);
		else if (!app_runs_on(&app_fwd, q))
			printf("fwd: %s is paired with %s, which runs %s: its frames are dropped (no_peer)\n",
			       nics[p]->name, nics[q]->name, app_of_port(q)->name);
	}
	if (fwd_mode == FWD_MODE_MACSWAP && l2_rewrite)
		printf("fwd: fwd_mode=macswap swaps the MACs: l2_dmac= is not applied\n");
	printf("fwd: L2 cross-connect (%s) on %d port(s)%s%s\n", fwd_mode_choices[fwd_mode], l2,
	       fwd_ptp_tc == FWD_TC_E2E   ? ", end-to-end transparent clock (ptp_tc=e2e)"
	       : fwd_ptp_tc == FWD_TC_P2P ? ", peer-to-peer transparent clock (ptp_tc=p2p)"
					  : "",
	       nic_cfg.promisc ? "" : "; promisc=0: only frames to each port's own MAC and broadcast arrive");
	return 0;
}

/* Drop frames shorter than an Ethernet header (runt) and pad the others
 * to NIC_TX_MIN_LEN with zeros (the buffer is a whole one); returns how
 * many are left, in order. Silicon drops such frames on receive, but
 * QEMU's e1000e and igb deliver a frame from a tap or socket as short as
 * it came. */
static int drop_runts(int port, struct pkt **pkts, int n)
{
	int i = 0;
	/* Almost no burst has one: look four at a time, then one at a time. */
	while (i + 4 <= n && pkts[i]->len >= NIC_TX_MIN_LEN && pkts[i + 1]->len >= NIC_TX_MIN_LEN &&
	       pkts[i + 2]->len >= NIC_TX_MIN_LEN && pkts[i + 3]->len >= NIC_TX_MIN_LEN)
		i += 4;
	while (i < n && pkts[i]->len >= NIC_TX_MIN_LEN)
		i++;
	int k = i;
	for (; i < n; i++) {
		struct pkt *p = pkts[i];
		if (p->len >= ETH_HLEN) {
			if (p->len < NIC_TX_MIN_LEN) {
				memset(p->data + p->len, 0, NIC_TX_MIN_LEN - p->len);
				p->len = NIC_TX_MIN_LEN;
			}
			pkts[k++] = p;
			continue;
		}
		fwd_drop(port, FWD_DROP_runt, 1);
		pkt_free(p);
	}
	return k;
}

/* sent of the n frames of pkts that came in on nic went out: counted
 * forwarded, the rest dropped (tx_ring_full). */
static inline void l2_sent(struct nic *nic, struct pkt **pkts, int n, int sent)
{
	fwd_st(nic->port)->forwarded += (uint64_t)sent;
	if (sent < n) {
		fwd_drop(nic->port, FWD_DROP_tx_ring_full, (uint64_t)(n - sent));
		pkt_free_bulk(pkts + sent, n - sent);
	}
}

/* The L2 burst's send through the transparent clock (ptp_tc=): the
 * frames it keeps are counted local. */
static void __attribute__((noinline)) l2_tc_send(struct nic *nic, struct nic *out, int q, struct pkt **pkts, int n)
{
	int k = n, sent = fwd_tc_tx(nic, out, q % out->nqueues, pkts, &n);
	fwd_st(nic->port)->local += (uint64_t)(k - n);
	l2_sent(nic, pkts, n, sent);
}

/* rx_short of each port's queues as fwd last read it (drivers/net/nic.h). */
static uint64_t short_seen[NIC_MAX_PORTS][NIC_MAX_QUEUES];

/* 1 when a burst from queue q may hold a frame shorter than
 * NIC_TX_MIN_LEN: always, unless the port's driver counts those it
 * delivers (rx_short_counted) and the count has not moved since the last
 * burst. */
static int maybe_short(const struct nic *nic, int q)
{
	uint64_t c = nic->q[q].rx_short;
	if (nic->rx_short_counted && c == short_seen[nic->port][q])
		return 0;
	short_seen[nic->port][q] = c;
	return 1;
}

static void fwd_rx(struct nic *nic, int q, struct pkt **pkts, int n)
{
	struct fwd_stats *st = fwd_st(nic->port);
	int peer = peer_of[nic->port];
	st->rx += (uint64_t)n;
	if (maybe_short(nic, q))
		n = drop_runts(nic->port, pkts, n);
	if (fwd_l3_port[nic->port]) {
		fwd_l3_rx(nic, q, pkts, n);
		return;
	}
	if (peer < 0 || peer >= nic_count || !fwd_out_ok[peer]) {
		fwd_drop(nic->port, FWD_DROP_no_peer, (uint64_t)n);
		pkt_free_bulk(pkts, n);
		return;
	}
	struct nic *out = nics[peer];
	if (fwd_mode == FWD_MODE_MACSWAP)
		swap_macs(pkts, n);
	else if (l2_rewrite)
		rewrite_macs(pkts, n, out);
	if (__builtin_expect(fwd_ptp_tc != FWD_TC_OFF, 0) && fwd_tc_burst(nic, q, pkts, n))
		l2_tc_send(nic, out, q, pkts, n);
	else
		l2_sent(nic, pkts, n, out->ops->tx_burst(out, q % out->nqueues, pkts, n));
}
/* A routed port that sends per core (fwd_l3_tx_per_core). */
static int fwd_tx_per_core(int port)
{
	return fwd_l3_tx_per_core && fwd_l3_port[port];
}

/* Ports that send through each other: every L3 port (any may route to
 * any) unless each core sends on its own TX queue of them (then each is
 * its own), or an L2 pair. */
static int fwd_domain(int port)
{
	if (fwd_tx_per_core(port))
		return port;
	for (int p = 0; p < nic_count; p++)
		if (fwd_l3_port[port] && fwd_l3_port[p])
			return p;
	int peer = peer_of[port];
	return peer >= 0 && peer < port && !fwd_l3_port[peer] ? peer : port;
}

static void fwd_report(int json);

/* The router's ARP/ND timers; the P2P transparent clock's Pdelay. */
static int fwd_idle(void)
{
	return fwd_l3_idle() + (fwd_ptp_tc == FWD_TC_P2P ? fwd_tc_idle() : 0);
}

/* A run-time placement (run/portcmd.c) moved a port to or from fwd: L2
 * frames leave only through ports that run it now (the peer of a port
 * taken off counts no_peer). */
static void fwd_ports_changed(void)
{
	for (int p = 0; p < nic_count; p++)
		fwd_out_ok[p] = (uint8_t)app_runs_on(&app_fwd, p);
}

APP(fwd, .name = "fwd", .help = "forward between port pairs, or route IPv4 and IPv6 between ports with ipN=",
    .init = fwd_init, .rx = fwd_rx, .idle = fwd_idle, .domain = fwd_domain, .tx_per_core = fwd_tx_per_core,
    .metrics = fwd_metrics,
    .report = fwd_report, .runtime = 1, .ports_changed = fwd_ports_changed,
    .uses = APP_USES_IP | APP_USES_ROUTES);

/* An L3 port's line of `fwd`: its IPv4 address, "ipv6" if it routes
 * IPv6 (its addresses: `fwd routes`), frames held for ARP or ND, the
 * router's events. */
static void show_l3(int port)
{
	char a[IPV4_STR_MAX];
	const struct ifaddr *ia = &ifaddrs[port];
	struct fwd_stats sum, *st = &sum;
	fwd_stats_sum(port, st);
	printf("fwd %s l3", l3_nics[port]->name);
	if (ia->v4.addr)
		printf(" %s/%u", ipv4_str(a, ia->v4.addr), ia->v4.len);
	printf("%s: held %lu", ia->n6 ? " ipv6" : "", (unsigned long)fwd_l3_held(port));
#define FWD_EV_PRINT(name) printf(" " #name " %lu", (unsigned long)st->ev[FWD_EV_##name]);
	FWD_EVENTS(FWD_EV_PRINT)
	printf("\n");
}

/* A link's frame counters (a port, or a VLAN sub-interface "port0.100"):
 * every one, "fwd port0: rx .. forwarded .. <each drop reason> local ..
 * arp .. nd .." and an L3 link's show_l3 (the fwd command); those that are
 * not 0 after rx and forwarded, as "fwd: port0 rx .. forwarded .." (the
 * periodic report: a drop stands out); or JSON with every key. */
static void show_link(int link, const char *name, enum app_show show)
{
	struct fwd_stats sum, *st = &sum;
	fwd_stats_sum(link, st);
	if (show == APP_SHOW_JSON)
		printf("{\"stats\":\"fwd\",\"t_ms\":%lu,\"port\":\"%s\",\"rx\":%lu,\"forwarded\":%lu",
		       now_ns() / 1000000, name, st->rx, st->forwarded);
	else
		printf(show == APP_SHOW_ALL ? "fwd %s: rx %lu forwarded %lu" : "fwd: %s rx %lu forwarded %lu",
		       name, st->rx, st->forwarded);
	for (int i = 0; i < FWD_DROP_N; i++)
		app_counter(show, fwd_drop_names[i], NULL, st->drop[i]);
	app_counter(show, "local", NULL, st->local);
	app_counter(show, "arp", NULL, st->arp);
	app_counter(show, "nd", NULL, st->nd);
	printf(show == APP_SHOW_JSON ? "}\n" : "\n");
	if (show == APP_SHOW_ALL && fwd_l3_port[link])
		show_l3(link);
	if (show == APP_SHOW_ALL)
		fwd_tc_show(link, name);
}

/* After each periodic statistics report: a line per fwd port and VLAN sub-interface. */
static void fwd_report(int json)
{
	enum app_show show = json ? APP_SHOW_JSON : APP_SHOW_NONZERO;
	for (int p = 0; p < nic_count; p++)
		if (app_runs_on(&app_fwd, p))
			show_link(p, nics[p]->name, show);
	for (int l = NIC_MAX_PORTS; l < NIC_MAX_PORTS + fwd_l3_nvlans; l++)
		if (l3_nics[l])
			show_link(l, l3_nics[l]->name, show);
}

static int cmd_fwd(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "arp")) {
		fwd_l3_arp_show();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "nd")) {
		fwd_l3_nd_show();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "routes")) {
		fwd_l3_routes_show();
		return 0;
	}
	if (argc != 1) {
		printf("usage: fwd | fwd arp | fwd nd | fwd routes\n");
		return -1;
	}
	int any = 0;
	for (int p = 0; p < nic_count; p++) {
		if (!app_runs_on(&app_fwd, p))
			continue;
		any = 1;
		show_link(p, nics[p]->name, APP_SHOW_ALL);
	}
	for (int l = NIC_MAX_PORTS; l < NIC_MAX_PORTS + fwd_l3_nvlans; l++)
		if (l3_nics[l])
			show_link(l, l3_nics[l]->name, APP_SHOW_ALL);
	if (!any)
		printf("fwd: the app runs on no port (app=fwd)\n");
	return 0;
}
SHELL_CMD(fwd, "fwd", "fwd [arp|nd|routes]", "forwarding counters per port: rx, forwarded, drops by reason, local, arp, nd; L3 ports: held and ICMP/ARP/ND events; arp: the ARP tables; nd: the IPv6 neighbor caches; routes: the routing tables", cmd_fwd);
