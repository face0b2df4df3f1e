/*
 * netconsole= (Linux's form, net/netcon.h): every message meant for all
 * consoles (the boot report, the periodic statistics, link events,
 * messages from other cores) also leaves as UDP datagrams to up to
 * NETCON_TARGETS collectors such as `nc -u -l 6666` or rsyslog's imudp.
 * Each target has its own 16 KiB buffer, filled from the first boot line
 * on; the core that owns its port's TX queue 0 sends it between its polls,
 * whole lines up to 1000 bytes a datagram (with '+': one line each, in
 * Linux's extended format), at most NETCON_BURST datagrams a turn of its
 * loop and never waiting for a descriptor, once the link is up and the port
 * has an IPv4 source address. A target given without a MAC is first found
 * by ARP (RFC 826; its gateway's MAC when it is off the port's subnet and
 * ipN= names a gw): a request a second, the answer picked from the port's
 * received frames (which still reach the port's app) until one comes;
 * after NETCON_ARP_TRIES unanswered requests it goes to the broadcast MAC,
 * Linux's default. What does not fit a buffer is dropped and counted. A
 * command's answer (it goes only to the console it was typed on) is not
 * sent.
 */
#include <stdio.h>
#include <string.h>
#include "drivers/net/nic.h"
#include "kernel/cpu.h"
#include "kernel/knobs.h"
#include "kernel/time.h"
#include "net/addr.h"
#include "net/ifaddr.h"
#include "net/ipv4.h"
#include "net/netcon.h"
#include "net/pkt.h"
#include "run/netconsole.h"

#define RING 16384		/* bytes a target; a power of two */
#define NETCON_BURST 4		/* datagrams a turn of the sending core's loop */
#define NETCON_BUFS 64		/* frame buffers a target: twice the TX ring's free threshold */
#define NETCON_ARP_TRIES 3	/* ARP requests, one a second, before the broadcast MAC */
#define EXT_LEVEL 6		/* the extended format's level: KERN_INFO */

/* One target and its state. */
struct conn {
	struct netcon_target t;
	int on;			/* in use (until netcon_apply refuses it) */
	struct nic *nic;
	struct pktpool *pool;
	struct pkt *held;	/* built, refused by a full TX ring: sent first next time */
	char ring[RING];
	volatile uint32_t head, tail;	/* free-running: head - tail bytes wait */
	uint64_t datagrams, bytes, dropped, tx_busy, no_buf, seq;
	uint16_t ip_id;
	/* ARP (no tgt-mac given): arp_ip is asked; netcon_rx sets mac, then
	 * resolved; the sending core gives up after NETCON_ARP_TRIES. */
	uint32_t arp_ip;
	uint8_t mac[6];
	volatile int resolved;
	int arp_tries, arp_gave_up;
	uint64_t arp_next;	/* TSC of the next request */
};

static struct conn conns[NETCON_TARGETS];
static int nconns;
static int given;		/* netconsole= given */
volatile uint32_t netcon_cores;
volatile uint32_t netcon_arp_ports;
static volatile int ring_lock;
static int esc;			/* filter state: 1 after ESC, 2 inside a CSI sequence */

static uint64_t lock(void)
{
	uint64_t flags = irq_save();
	while (__atomic_exchange_n(&ring_lock, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
	return flags;
}

static void unlock(uint64_t flags)
{
	__atomic_store_n(&ring_lock, 0, __ATOMIC_RELEASE);
	irq_restore(flags);
}

/* netconsole= given again adds its targets to those before. */
static int parse(const char *v, char *err, size_t len)
{
	struct netcon_target t[NETCON_TARGETS];
	int n = netcon_parse_list(v, t, NETCON_TARGETS - nconns, err, len);

	if (n < 0 && nconns && strncmp(err, "more than", 9) == 0)
		snprintf(err, len, "more than %d targets in all (%d before this one)", NETCON_TARGETS, nconns);
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++)
		conns[nconns++] = (struct conn){ .t = t[i], .on = 1 };
	given = 1;
	return 0;
}

static void show(char *buf, size_t len)
{
	size_t at = 0;

	if (!given)
		snprintf(buf, len, "off");
	for (int i = 0; i < nconns && at < len; i++) {
		if (i)
			buf[at++] = ';';
		netcon_show(&conns[i].t, buf + at, len - at);
		at += strlen(buf + at);
	}
}

KNOB(netconsole, .name = "netconsole", .type = KNOB_FUNC, .parse = parse, .show = show, .repeatable = 1,
     .help = "send every console message as UDP, as Linux's netconsole: "
	     "[+][src-port]@[src-ip]/[portN],[tgt-port]@tgt-ip/[tgt-mac]; up to 4 targets, ';' between them (as "
	     "Linux) or the knob repeated; src-port 6665, tgt-port 6666, port0 and the port's IPv4 address (ipN=) when left "
	     "out; without tgt-mac the target's (or its gateway's) MAC by ARP, the broadcast MAC if none answers; "
	     "'+': Linux's extended format, one line a datagram; default off",
     .accepted = "[+][1-65535]@[A.B.C.D]/[port0-port7],[1-65535]@A.B.C.D[/xx:xx:xx:xx:xx:xx][;...]");

void netcon_put(const char *s, size_t n)
{
	if (!nconns)
		return;
	uint64_t flags = lock();
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (esc == 1)
			esc = c == '[' ? 2 : 0;
		else if (esc == 2)
			esc = c >= 0x40 && c <= 0x7e ? 0 : 2;	/* ECMA-48: the final byte ends it */
		else if (c == 0x1b)
			esc = 1;
		else if (c >= 0x20 || c == '\n' || c == '\t') {
			for (int k = 0; k < nconns; k++) {
				struct conn *o = &conns[k];
				if (!o->on)
					continue;
				if (o->head - o->tail == RING)
					o->dropped++;
				else
					o->ring[o->head++ % RING] = (char)c;
			}
		}
	}
	unlock(flags);
}

/* Up to max bytes of o's whole lines into out (one line with one_line); a
 * line longer than max goes in pieces. 0 while only part of a line waits. */
static size_t take(struct conn *o, char *out, size_t max, int one_line)
{
	uint64_t flags = lock();
	uint32_t avail = o->head - o->tail, n = avail < max ? avail : (uint32_t)max, end = 0;

	for (uint32_t i = 0; i < n; i++)
		if (o->ring[(o->tail + i) % RING] == '\n') {
			end = i + 1;
			if (one_line)
				break;
		}
	if (!end && avail >= max)
		end = (uint32_t)max;
	for (uint32_t i = 0; i < end; i++)
		out[i] = o->ring[(o->tail + i) % RING];
	o->tail += end;
	unlock(flags);
	return end;
}

static uint32_t source_ip(const struct conn *o)
{
	return o->t.src_ip ? o->t.src_ip : ifaddrs[o->t.port].v4.addr;
}

/* Whom ARP asks for o: the target, or the port's gateway when the target
 * is off the port's subnet (known once the port has an address). */
static uint32_t arp_ip(const struct conn *o)
{
	const struct ifaddr4 *a = &ifaddrs[o->t.port].v4;
	uint32_t mask = a->len ? ~0u << (32 - a->len) : 0;

	if (a->addr && a->gw && ((o->t.tgt_ip ^ a->addr) & mask))
		return a->gw;
	return o->t.tgt_ip;
}

static void apply_one(struct conn *o)
{
	char what[160];

	netcon_show(&o->t, what, sizeof(what));
	if (o->t.port >= nic_count) {
		printf("netconsole: %s is not used: port%d does not exist (%d port%s)\n", what, o->t.port,
		       nic_count, nic_count == 1 ? "" : "s");
		o->on = 0;
		return;
	}
	o->nic = nics[o->t.port];
	o->pool = pktpool_create_below("netconsole", NETCON_BUFS, PKT_SLOT, o->nic->dma_limit);
	if (!o->pool) {
		printf("netconsole: %s is not used: no memory for %d frame buffers\n", what, NETCON_BUFS);
		o->on = 0;
		return;
	}
	o->pool->shared = 1;	/* a port reset frees TX buffers from core 0 */
	char src[IPV4_STR_MAX + 40];
	if (source_ip(o))
		ipv4_str(src, source_ip(o));
	else
		snprintf(src, sizeof(src), "none yet: held until ip%d= or DHCP gives one", o->t.port);
	printf("netconsole: %s, from %s (source %s), core %d, %s format%s; messages since the boot line kept "
	       "(%d KiB)\n", what, o->nic->name, src, o->nic->tx_owner[0], o->t.extended ? "extended" : "plain",
	       o->t.mac_given ? "" : ", MAC by ARP", RING / 1024);
	if (!o->t.mac_given)
		__atomic_or_fetch(&netcon_arp_ports, 1u << o->t.port, __ATOMIC_RELEASE);
	__atomic_or_fetch(&netcon_cores, 1u << o->nic->tx_owner[0], __ATOMIC_RELEASE);
}

void netcon_apply(void)
{
	for (int i = 0; i < nconns; i++)
		apply_one(&conns[i]);
}

/* Clear port's bit in netcon_arp_ports once none of its targets asks. */
static void arp_done(int port)
{
	for (int i = 0; i < nconns; i++)
		if (conns[i].on && conns[i].t.port == port && !conns[i].t.mac_given && !conns[i].resolved &&
		    !conns[i].arp_gave_up)
			return;
	__atomic_and_fetch(&netcon_arp_ports, ~(1u << port), __ATOMIC_RELEASE);
}

void netcon_rx(const struct nic *nic, struct pkt *const *pkts, int n)
{
	for (int i = 0; i < n; i++) {
		struct arp_info a;
		if (arp_parse(pkts[i]->data, pkts[i]->len, &a) != ARP_OK)
			continue;
		for (int k = 0; k < nconns; k++) {
			struct conn *o = &conns[k];
			if (o->on && o->t.port == nic->port && !o->t.mac_given && !o->resolved && o->arp_ip &&
			    a.spa == o->arp_ip) {
				memcpy(o->mac, a.sha, 6);
				__atomic_store_n(&o->resolved, 1, __ATOMIC_RELEASE);
				arp_done(nic->port);
			}
		}
	}
}

/* One datagram's payload into buf: whole lines, or one line behind the
 * extended format's "LEVEL,SEQ,USEC,-;". Returns its length, 0 if none. */
static size_t payload(struct conn *o, char *buf, size_t cap)
{
	if (!o->t.extended)
		return take(o, buf, NETCON_CHUNK, 0);
	char hdr[48];
	int h = snprintf(hdr, sizeof(hdr), "%d,%lu,%lu,-;", EXT_LEVEL, o->seq, tsc_to_ns(rdtsc()) / 1000);
	size_t n = take(o, buf + h, cap - (size_t)h < NETCON_CHUNK ? cap - (size_t)h : NETCON_CHUNK, 1);
	if (!n)
		return 0;
	memcpy(buf, hdr, (size_t)h);
	o->seq++;
	return (size_t)h + n;
}

/* While o's MAC is unknown: an ARP request a second, NETCON_ARP_TRIES of
 * them, then the broadcast MAC. Returns 1 while o must wait. */
static int resolve(struct conn *o, uint32_t src)
{
	char ip[IPV4_STR_MAX], what[160];

	if (o->t.mac_given || o->arp_gave_up)
		return 0;
	if (__atomic_load_n(&o->resolved, __ATOMIC_ACQUIRE)) {
		memcpy(o->t.tgt_mac, o->mac, 6);	/* netcon_frame's destination */
		return 0;
	}
	uint64_t now = rdtsc();
	if (now < o->arp_next)
		return 1;
	if (o->arp_tries == NETCON_ARP_TRIES) {
		o->arp_gave_up = 1;
		arp_done(o->t.port);
		netcon_show(&o->t, what, sizeof(what));
		printf("netconsole: %s: no ARP answer from %s to %d requests: sending to ff:ff:ff:ff:ff:ff\n", what,
		       ipv4_str(ip, o->arp_ip), NETCON_ARP_TRIES);
		return 0;
	}
	struct pkt *p = pkt_alloc(o->pool);
	if (!p) {
		o->no_buf++;
		return 1;
	}
	o->arp_ip = arp_ip(o);
	p->len = (uint16_t)arp_build(p->data, PKT_BUF_SIZE, ARP_REQUEST, o->nic->mac, src, 0, o->arp_ip);
	if (o->nic->ops->tx_burst(o->nic, 0, &p, 1) != 1) {
		pkt_free(p);
		o->tx_busy++;
		return 1;
	}
	o->arp_tries++;
	o->arp_next = now + tsc.hz;
	return 1;
}

/* Up to NETCON_BURST datagrams of o. Returns 1 when more work waits. */
static int poll_one(struct conn *o)
{
	if (o->head == o->tail && !o->held)
		return 0;
	uint32_t src = source_ip(o);
	if (!o->nic->link_up || !src || resolve(o, src))
		return 0;
	for (int k = 0; k < NETCON_BURST; k++) {
		if (!o->held) {
			char buf[NETCON_CHUNK + 48];
			struct pkt *p = pkt_alloc(o->pool);
			if (!p) {
				o->no_buf++;
				return 1;
			}
			size_t n = payload(o, buf, sizeof(buf));
			if (!n) {
				pkt_free(p);
				return 0;
			}
			p->len = (uint16_t)netcon_frame(p->data, PKT_BUF_SIZE, &o->t, o->nic->mac, src, o->ip_id++,
							buf, n);
			o->bytes += n;
			o->held = p;
		}
		if (o->nic->ops->tx_burst(o->nic, 0, &o->held, 1) != 1) {
			o->tx_busy++;
			return 1;
		}
		o->held = 0;
		o->datagrams++;
	}
	return o->head != o->tail;
}

int netcon_poll(int core)
{
	int more = 0;

	for (int i = 0; i < nconns; i++)
		if (conns[i].on && conns[i].nic->tx_owner[0] == core)
			more |= poll_one(&conns[i]);
	return more;
}

void netcon_print(void)
{
	char what[160], mac[MAC_STR_MAX];

	for (int i = 0; i < nconns; i++) {
		struct conn *o = &conns[i];
		if (!o->on)
			continue;
		netcon_show(&o->t, what, sizeof(what));
		printf("netconsole %s: sent %lu datagrams (%lu bytes), dropped %lu bytes, waiting %u of %d bytes, "
		       "TX ring full %lu, no buffer %lu", what, o->datagrams, o->bytes, o->dropped, o->head - o->tail,
		       RING, o->tx_busy, o->no_buf);
		if (o->arp_tries)
			printf(", %d ARP request%s, MAC %s", o->arp_tries, o->arp_tries == 1 ? "" : "s",
			       o->resolved ? mac_str(mac, o->mac) : o->arp_gave_up ? "ff:ff:ff:ff:ff:ff (no answer)" :
			       "not yet known");
		printf("\n");
	}
}
