/*
 * ipN=dhcp on the management port: lwIP's DHCP client (RFC 2131, lwIP
 * 2.1.3 core/ipv4/dhcp.c) asks for the address; lwIP runs its timers
 * (renewal, rebinding, retries). mgmt_dhcp_poll, from the idle hook, sees
 * a lease bound, renewed to another address or lost, prints it on the
 * console and keeps ifaddrs (net/ifaddr.h: the port's address for
 * net/lwip's checks and for fwd's "is it ours") in step with it. A lease
 * ipN= would refuse (an address that is not a unicast host address of its
 * subnet, a subnet another port has)
 * or with a subnet mask that is not a prefix is refused: released, and
 * asked for again after 1 s, then 2, 4, ... up to DHCP_BACKOFF_MAX_S while
 * the leases offered are refused (a server that keeps offering a bad one
 * made a release-and-ask loop of about one a second).
 */
#include <stdio.h>
#include "apps/mgmt/mgmt.h"
#include "kernel/cpu.h"
#include "kernel/time.h"
#include "kernel/mem.h"	/* before lwIP's headers, which rename lwIP's mem_init */
#include "lwip/dhcp.h"
#include "lwip/netif.h"
#include "lwip/prot/dhcp.h"
#include "net/addr.h"
#include "net/ifaddr.h"
#include "net/lwip/lwif.h"
#include "net/prom.h"

static uint32_t dhcp_ports;	/* bit p: port p runs the client */
static uint64_t next_tsc;
static uint32_t refused[NIC_MAX_PORTS];		/* leases refused since boot */
static uint32_t refused_row[NIC_MAX_PORTS];	/* refused since the last lease taken */
static uint64_t retry_tsc[NIC_MAX_PORTS];	/* 0, or when the stopped client starts again */

int mgmt_dhcp_start(int port)
{
	struct netif *n = lwif_netif(port);
	if (!n || dhcp_start(n) != ERR_OK) {
		printf("mgmt: %s: lwIP's DHCP client did not start\n", nics[port]->name);
		return -1;
	}
	dhcp_ports |= 1u << port;
	printf("mgmt: %s asks DHCP for its address (ip%d=dhcp)\n", nics[port]->name, port);
	return 0;
}

int mgmt_dhcp_lease(int port, struct mgmt_lease *l)
{
	struct netif *n = ifaddrs[port].dhcp ? lwif_netif(port) : NULL;
	struct dhcp *d = n ? netif_dhcp_data(n) : NULL;
	if (!d)
		return -1;
	*l = (struct mgmt_lease){ .bound = dhcp_supplied_address(n) != 0, .refused = refused[port] };
	if (l->bound) {
		l->addr = lwip_ntohl(ip4_addr_get_u32(netif_ip4_addr(n)));
		l->mask = lwip_ntohl(ip4_addr_get_u32(netif_ip4_netmask(n)));
		l->router = lwip_ntohl(ip4_addr_get_u32(netif_ip4_gw(n)));
		l->server = lwip_ntohl(ip4_addr_get_u32(ip_2_ip4(&d->server_ip_addr)));
		l->lease_s = d->offered_t0_lease;
		l->renew_s = d->offered_t1_renew;
		l->rebind_s = d->offered_t2_rebind;
	}
	return 0;
}

static int prefix_len(uint32_t mask)
{
	return mask ? 32 - __builtin_ctz(mask) : 0;
}

static void print_lease(int p, const struct mgmt_lease *l)
{
	char a[IPV4_STR_MAX], r[IPV4_STR_MAX], s[IPV4_STR_MAX];
	printf("mgmt: %s: DHCP lease %s/%u from %s, router %s, %u s: ping, HTTP on %d\n", nics[p]->name,
	       ipv4_str(a, l->addr), prefix_len(l->mask), ipv4_str(s, l->server),
	       l->router ? ipv4_str(r, l->router) : "none", l->lease_s, HTTP_PORT);
}

/* A lease the port cannot take: a mask that is not contiguous, or an
 * address ipN= would refuse (ifaddr4_check: not a unicast host address of
 * its subnet, or a subnet another port has). 0, or -1 with why in err. */
static int lease_bad(int p, const struct mgmt_lease *l, char *err, size_t len)
{
	char a[IPV4_STR_MAX];
	int n = prefix_len(l->mask);
	if (!n || l->mask != ~0u << (32 - n)) {
		snprintf(err, len, "the subnet mask %s is not a prefix of 1-32 bits", ipv4_str(a, l->mask));
		return -1;
	}
	return ifaddr4_check(p, l->addr, n, err, len);
}

/* Refuse port p's lease: release it (DHCPRELEASE; lwIP drops the address
 * and its client stops) and ask again after 1 s, doubled for each lease
 * refused in a row, at most DHCP_BACKOFF_MAX_S. */
static void refuse(int p, const struct mgmt_lease *l, const char *why)
{
	char a[IPV4_STR_MAX], s[IPV4_STR_MAX];
	unsigned wait = refused_row[p] < 6 ? 1u << refused_row[p] : DHCP_BACKOFF_MAX_S;
	printf("mgmt: %s: DHCP lease %s from %s refused: %s; asking again in %u s\n", nics[p]->name,
	       ipv4_str(a, l->addr), ipv4_str(s, l->server), why, wait);
	refused[p]++;
	refused_row[p]++;
	ifaddrs[p].v4.addr = 0;
	ifaddrs[p].v4.len = 0;
	dhcp_release_and_stop(lwif_netif(p));
	retry_tsc[p] = rdtsc() + wait * tsc.hz;
}

/* Start port p's stopped client again once its wait is over. */
static void retry(int p, uint64_t now)
{
	if (!retry_tsc[p] || now < retry_tsc[p])
		return;
	retry_tsc[p] = 0;
	if (dhcp_start(lwif_netif(p)) != ERR_OK)
		printf("mgmt: %s: lwIP's DHCP client did not start\n", nics[p]->name);
}

void mgmt_dhcp_poll(void)
{
	uint64_t now = rdtsc();
	if (!dhcp_ports || now < next_tsc)
		return;
	next_tsc = now + tsc.hz / 100;
	for (int p = 0; p < nic_count; p++) {
		struct mgmt_lease l;
		char err[128];
		if (dhcp_ports >> p & 1)
			retry(p, now);
		if (!(dhcp_ports >> p & 1) || mgmt_dhcp_lease(p, &l) || (!l.bound && !ifaddrs[p].v4.addr) ||
		    (l.bound && l.addr && l.addr == ifaddrs[p].v4.addr && l.mask == ~0u << (32 - ifaddrs[p].v4.len)))
			continue;
		if (!l.bound) {
			char a[IPV4_STR_MAX];
			printf("mgmt: %s: DHCP lease of %s lost; asking again\n", nics[p]->name, ipv4_str(a, ifaddrs[p].v4.addr));
			ifaddrs[p].v4.addr = 0;
			ifaddrs[p].v4.len = 0;
			continue;
		}
		if (lease_bad(p, &l, err, sizeof(err))) {
			refuse(p, &l, err);
			continue;
		}
		ifaddr4_set(p, l.addr, prefix_len(l.mask));
		refused_row[p] = 0;
		print_lease(p, &l);
	}
}

void mgmt_dhcp_show(int port)
{
	struct mgmt_lease l;
	if (mgmt_dhcp_lease(port, &l))
		return;
	if (l.bound)
		print_lease(port, &l);
	else
		printf("mgmt: %s: no DHCP lease yet (ip%d=dhcp)\n", nics[port]->name, port);
	printf("mgmt: %s: DHCP leases refused %u\n", nics[port]->name, l.refused);
}

/* The management port's DHCP lease (ipN=dhcp), if a port runs the client. */
void mgmt_dhcp_metrics(struct prom *o)
{
	struct mgmt_lease l[NIC_MAX_PORTS];
	int any = 0, run[NIC_MAX_PORTS];
	for (int p = 0; p < nic_count; p++)
		any |= run[p] = mgmt_dhcp_lease(p, &l[p]) == 0;
	if (!any)
		return;
	prom_family(o, "mgmt_dhcp_bound", "gauge", "1 while the port holds a DHCP lease (ipN=dhcp)");
	for (int p = 0; p < nic_count; p++)
		if (run[p])
			prom_port_sample(o, "mgmt_dhcp_bound", p, NULL, NULL, (uint64_t)l[p].bound);
	prom_family(o, "mgmt_dhcp_refused_total", "counter",
		    "DHCP leases refused (an address ipN= would refuse, a mask that is not a prefix): released, asked again");
	for (int p = 0; p < nic_count; p++)
		if (run[p])
			prom_port_sample(o, "mgmt_dhcp_refused_total", p, NULL, NULL, l[p].refused);
	prom_family(o, "mgmt_dhcp_lease_info", "gauge", "the DHCP lease held: address, prefix length, router (\"\" if none) and server (value 1)");
	for (int p = 0; p < nic_count; p++) {
		if (!run[p] || !l[p].bound)
			continue;
		char a[IPV4_STR_MAX], r[IPV4_STR_MAX] = "", s[IPV4_STR_MAX];	/* no router: "" */
		ipv4_str(a, l[p].addr);
		if (l[p].router)
			ipv4_str(r, l[p].router);
		ipv4_str(s, l[p].server);
		prom_put(o, "linerate_mgmt_dhcp_lease_info{port=\"%s\",address=\"%s\",prefix=\"%d\",router=\"%s\",server=\"%s\"} 1\n",
		    nics[p]->name, a, l[p].mask ? 32 - __builtin_ctz(l[p].mask) : 0, r, s);
	}
	static const struct {
		const char *name, *help;
		size_t off;
	} t[] = {
		{ "mgmt_dhcp_lease_seconds", "lease time of the last DHCPACK", offsetof(struct mgmt_lease, lease_s) },
		{ "mgmt_dhcp_renew_seconds", "renewal time (T1) of the last DHCPACK", offsetof(struct mgmt_lease, renew_s) },
		{ "mgmt_dhcp_rebind_seconds", "rebinding time (T2) of the last DHCPACK", offsetof(struct mgmt_lease, rebind_s) },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		prom_family(o, t[i].name, "gauge", t[i].help);
		for (int p = 0; p < nic_count; p++)
			if (run[p] && l[p].bound)
				prom_port_sample(o, t[i].name, p, NULL, NULL, *(const uint32_t *)((const char *)&l[p] + t[i].off));
	}
}
