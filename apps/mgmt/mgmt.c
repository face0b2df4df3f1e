/*
 * app=mgmt, or mgmt=portN: the management port (mgmt.h), on net/lwip as
 * app=rr is, so the two cannot run at once (lwIP is not safe on two
 * cores). Received bursts go through the netif's checks into lwIP
 * (lwif_input); the idle hook runs lwIP's timers, the DHCP lease's check
 * and the HTTP server's budgeted round.
 */
#include <stdio.h>
#include <string.h>
#include "apps/app.h"
#include "apps/mgmt/mgmt.h"
#include "kernel/knobs.h"
#include "kernel/shell.h"
#include "net/addr.h"
#include "net/ifaddr.h"
#include "net/ipv4.h"
#include "net/lwip/lwif.h"
#include "net/prom.h"

static int mgmt_port = -1;

/* mgmt=portN | off */
static int parse_mgmt(const char *v, char *err, size_t len)
{
	int p, n = 0;
	if (!strcmp(v, "off")) {
		mgmt_port = -1;
		return 0;
	}
	if (sscanf(v, "port%d%n", &p, &n) != 1 || v[n] || p < 0 || p >= NIC_MAX_PORTS) {
		snprintf(err, len, "not a port");
		return -1;
	}
	mgmt_port = p;
	return 0;
}
static void show_mgmt(char *buf, size_t len)
{
	if (mgmt_port < 0)
		snprintf(buf, len, "off");
	else
		snprintf(buf, len, "port%d", mgmt_port);
}
/* The port mgmt= claims (struct app .claim), or -1. */
static int mgmt_claim(void)
{
	return mgmt_port;
}

KNOB(mgmt, .name = "mgmt", .type = KNOB_FUNC, .parse = parse_mgmt, .show = show_mgmt,
     .accepted = "portN (N 0-7) or off",
     .help = "management port: runs app mgmt (ping, HTTP /metrics, /, /config on port 80) at its ipN= "
	     "address (A.B.C.D/LEN or dhcp), whatever app= says; default off");

/* mgmt_allow=: the sources whose IPv4 frames reach lwIP on a management
 * port; none listed (the default): every source. */
#define ALLOW_MAX 16
static struct allow {
	uint32_t net, mask;
	int len;
} allow[ALLOW_MAX];
static int nallow;

/* mgmt_allow=any | A.B.C.D/LEN[,A.B.C.D/LEN...]: all or nothing is kept. */
static int parse_allow(const char *v, char *err, size_t len)
{
	struct allow a[ALLOW_MAX];
	int n = 0;
	if (!strcmp(v, "any")) {
		nallow = 0;
		return 0;
	}
	for (const char *s = v;; s++) {
		if (n == ALLOW_MAX) {
			snprintf(err, len, "more than %d prefixes", ALLOW_MAX);
			return -1;
		}
		const char *item = s;
		if (ipv4_prefix_parse(&s, &a[n].net, &a[n].len) || (*s && *s != ',')) {
			snprintf(err, len, "not a prefix A.B.C.D/LEN: '%.*s'", (int)strcspn(item, ","), item);
			return -1;
		}
		a[n].mask = a[n].len ? ~0u << (32 - a[n].len) : 0;
		if (a[n].net & ~a[n].mask) {
			snprintf(err, len, "host bits set in prefix %d", n + 1);
			return -1;
		}
		n++;
		if (!*s)
			break;
	}
	memcpy(allow, a, sizeof(a[0]) * (size_t)n);
	nallow = n;
	return 0;
}

static void show_allow(char *buf, size_t len)
{
	size_t at = 0;
	char a[IPV4_STR_MAX];
	snprintf(buf, len, "any");
	for (int i = 0; i < nallow && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s/%d", i ? "," : "", ipv4_str(a, allow[i].net), allow[i].len);
}

KNOB(mgmt_allow, .name = "mgmt_allow", .type = KNOB_FUNC, .parse = parse_allow, .show = show_allow,
     .accepted = "any, or up to 16 prefixes A.B.C.D/LEN (host bits zero) split by commas",
     .help = "management port: only IPv4 frames from these sources reach lwIP (ping, HTTP), the rest are "
	     "dropped as not_allowed (ARP and DHCP replies pass; with prefixes given, every IPv6 frame is); default any (open)");

/* 1 if src (host order) is in one of mgmt_allow='s prefixes, or none is given. */
static int mgmt_allowed(uint32_t src)
{
	for (int i = 0; i < nallow; i++)
		if ((src & allow[i].mask) == allow[i].net)
			return 1;
	return !nallow;
}

/* IPv6 sources: every one while mgmt_allow= is any; none once it lists
 * (IPv4) prefixes. */
static int mgmt_allowed6(const uint8_t src[16])
{
	(void)src;
	return !nallow;
}

/* 1 if dport is the HTTP server's. */
static int mgmt_ours(uint16_t dport)
{
	return dport == HTTP_PORT || pcapip_ours(dport);
}

static const struct lwif_app mgmt_lwif = { .name = "mgmt", .ours = mgmt_ours, .allowed = mgmt_allowed,
					      .allowed6 = mgmt_allowed6 };

static int mgmt_init(void)
{
	int n = 0;
	const struct lwif_mem mem = { .pcbs = MGMT_PCBS };
	for (int p = 0; p < nic_count; p++) {
		if (!app_runs_on(&app_mgmt, p))
			continue;
		if (!ifaddrs[p].v4.addr && !ifaddrs[p].dhcp && !ifaddrs[p].n6 && !ifaddrs[p].auto6) {
			printf("mgmt: %s has no address: give one with ip%d=A.B.C.D/LEN or ip%d=dhcp\n", nics[p]->name,
			       p, p);
			return -1;
		}
		if (lwif_mem_init(&mem))
			return -1;
		if (lwif_add(nics[p], ifaddrs[p].v4.addr, ifaddrs[p].v4.len, &mgmt_lwif)) {
			printf("mgmt: %s: lwIP refused the interface\n", nics[p]->name);
			return -1;
		}
		n++;
		if (ifaddrs[p].dhcp) {
			if (mgmt_dhcp_start(p))
				return -1;
			continue;
		}
		char a[IPV4_STR_MAX];
		printf("mgmt: %s at %s/%u: ping, HTTP on %d (/metrics, /, /config)\n", nics[p]->name, ipv4_str(a, ifaddrs[p].v4.addr),
		       ifaddrs[p].v4.len, HTTP_PORT);
	}
	return n && !http_init() ? pcapip_init() : -1;
}

static int mgmt_idle(void)
{
	lwif_timers();
	mgmt_dhcp_poll();
	int n = http_poll() + pcapip_poll();
	lwif_flush();
	return n;
}

/* The HTTP outcomes, and per management port the frames received, handed
 * to lwIP by protocol and dropped by reason (net/lwip's checks). */
static void mgmt_show(enum app_show show)
{
	int json = show == APP_SHOW_JSON;
	printf(json ? "{\"stats\":\"mgmt\"" : "mgmt http:");
	for (int i = 0; i < HTTP_N; i++)
		app_counter(show, mgmt_http_names[i], NULL, mgmt_http[i]);
	for (int i = 0; i < PCAPIP_N; i++)
		app_counter(show, mgmt_pcapip_names[i], NULL, mgmt_pcapip[i]);
	printf(json ? "}\n" : "\n");
	for (int p = 0; p < nic_count; p++) {
		if (!app_runs_on(&app_mgmt, p))
			continue;
		const struct lwif_stats *st = &lwif_stats[p];
		printf(json ? "{\"stats\":\"mgmt_port\",\"port\":\"%s\",\"rx\":%lu" : "mgmt %s: rx %lu, to lwIP",
		       nics[p]->name, st->rx);
		for (int i = 0; i < LWIF_STACK_N; i++)
			app_counter(show, lwif_stack_names[i], NULL, st->stack[i]);
		printf(json ? "" : ", dropped");
		for (int i = 0; i < LWIF_DROP_N; i++)
			app_counter(show, lwif_drop_names[i], NULL, st->drop[i]);
		printf(json ? "}\n" : "\n");
	}
}

static void mgmt_report(int json)
{
	mgmt_show(json ? APP_SHOW_JSON : APP_SHOW_NONZERO);
}

/* mgmt's /metrics: the management port's netif counters as
 * linerate_mgmt_*, the HTTP outcomes and the DHCP lease. */
static void mgmt_metrics(struct prom *o)
{
	static const struct lwif_families f = LWIF_FAMILIES("mgmt");
	int run[NIC_MAX_PORTS];
	for (int p = 0; p < nic_count; p++)
		run[p] = app_runs_on(&app_mgmt, p);
	lwif_metrics_frames(o, &f, run);
	for (int p = 0; p < nic_count; p++)
		if (run[p])
			lwif_metrics_events(o, &f, p);
	prom_family(o, "mgmt_http_total", "counter",
		    "management HTTP: answers (ok, not_found, bad_method, bad_request, too_large, truncated) and connection events");
	for (int i = 0; i < HTTP_N; i++)
		prom_sample(o, "mgmt_http_total", "event", mgmt_http_names[i], NULL, NULL, mgmt_http[i]);
	mgmt_dhcp_metrics(o);
}

static int cmd_mgmt(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		printf("usage: mgmt\n");
		return -1;
	}
	int any = 0;
	for (int p = 0; p < nic_count; p++)
		any |= app_runs_on(&app_mgmt, p);
	if (!any) {
		printf("mgmt: no management port runs (mgmt=portN)\n");
		return -1;
	}
	mgmt_show(APP_SHOW_ALL);
	for (int p = 0; p < nic_count; p++)
		if (app_runs_on(&app_mgmt, p))
			mgmt_dhcp_show(p);
	return 0;
}
SHELL_CMD(mgmt, "mgmt", "mgmt", "the management port's HTTP outcomes, frame counters and DHCP lease", cmd_mgmt);

#define IP_PROTO_TCP	6
#define TCP_FLAG_SYN	0x02
#define TCP_FLAG_ACK	0x10

/* 1 if p is a TCP SYN (without ACK) to HTTP_PORT at port's address. */
static int http_syn(const struct pkt *p, int port)
{
	const struct eth_hdr *eth = (const struct eth_hdr *)p->data;
	const struct ipv4_hdr *ip = (const struct ipv4_hdr *)(p->data + ETH_HLEN);
	if (p->len < ETH_HLEN + IPV4_HLEN || eth->type != hton16(ETHERTYPE_IPV4) || ip->proto != IP_PROTO_TCP ||
	    (ip->frag_off & hton16(IPV4_OFFSET)))
		return 0;
	unsigned ihl = (unsigned)(ip->ver_ihl & 15) * 4;
	const uint8_t *tcp = (const uint8_t *)ip + ihl;
	if (ihl < IPV4_HLEN || p->len < ETH_HLEN + ihl + 14)
		return 0;
	return ntoh32(ip->daddr) == ifaddrs[port].v4.addr && (tcp[2] << 8 | tcp[3]) == HTTP_PORT && (tcp[13] & (TCP_FLAG_SYN | TCP_FLAG_ACK)) == TCP_FLAG_SYN;
}

/* A received burst: SYNs to the HTTP port beyond HTTP_HALF_OPEN handshakes
 * under way are dropped (syn_over_limit, as rr drops SYNs beyond
 * rr_conns), the rest go through net/lwip's checks into lwIP. */
static void mgmt_rx(struct nic *nic, int q, struct pkt **pkts, int n)
{
	(void)q;
	int k = 0, half_open = -1;
	for (int i = 0; i < n; i++) {
		struct pkt *p = pkts[i];
		if (http_syn(p, nic->port)) {
			if (half_open < 0)
				half_open = http_half_open();
			if (half_open >= HTTP_HALF_OPEN) {
				lwif_stats[nic->port].rx++;
				lwif_stats[nic->port].drop[LWIF_syn_over_limit]++;
				app_count_drops(1);
				pkt_free(p);
				continue;
			}
			half_open++;
		}
		pkts[k++] = p;
	}
	int dropped = k ? lwif_input(nic, pkts, k) : 0;
	if (dropped)
		app_count_drops((uint64_t)dropped);
}

APP(mgmt, .name = "mgmt", .help = "management port: ping and HTTP /metrics (Prometheus), /, /config",
    .init = mgmt_init, .rx = mgmt_rx, .idle = mgmt_idle, .report = mgmt_report, .metrics = mgmt_metrics,
    .claim = mgmt_claim, .uses = APP_USES_IP, .boot_only = "it takes the port mgmt= names");
