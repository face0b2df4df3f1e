/*
 * netconsole= (Linux's form, net/netcon.h): every message meant for all
 * consoles (the boot report, the periodic statistics, link events,
 * messages from other cores) also leaves as UDP datagrams to a collector
 * such as `nc -u -l 6666` or rsyslog's imudp. The bytes wait in a 16 KiB
 * buffer from the first boot line on; the core that owns the port's TX
 * queue 0 sends them between its polls, whole lines up to 1000 bytes a
 * datagram (with '+': one line each, in Linux's extended format), at most
 * NETCON_BURST datagrams a turn of its loop and never waiting for a
 * descriptor, once the link is up and the port has an IPv4 source
 * address. What does not fit the buffer is dropped and counted. A command's
 * answer (it goes only to the console it was typed on) is not sent.
 */
#include <stdio.h>
#include <string.h>
#include "drivers/net/nic.h"
#include "kernel/cpu.h"
#include "kernel/knobs.h"
#include "kernel/time.h"
#include "net/addr.h"
#include "net/ifaddr.h"
#include "net/netcon.h"
#include "net/pkt.h"
#include "run/netconsole.h"

#define RING 16384		/* bytes; a power of two */
#define NETCON_BURST 4		/* datagrams a turn of the sending core's loop */
#define NETCON_BUFS 64		/* frame buffers: twice the TX ring's free threshold */
#define EXT_LEVEL 6		/* the extended format's level: KERN_INFO */

static struct netcon_target target;
static int given;		/* netconsole= given */
static int configured;		/* and in use (until netcon_apply refuses it) */
int netcon_core = -1;
static struct nic *nic;
static struct pktpool *pool;
static struct pkt *held;	/* built, refused by a full TX ring: sent first next time */

static char ring[RING];
static volatile uint32_t head, tail;	/* free-running: head - tail bytes wait */
static volatile int ring_lock;
static int esc;			/* filter state: 1 after ESC, 2 inside a CSI sequence */
static uint64_t datagrams, bytes, dropped, tx_busy, no_buf, seq;
static uint16_t ip_id;

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

static int parse(const char *v, char *err, size_t len)
{
	if (netcon_parse(v, &target, err, len) != 0)
		return -1;
	given = configured = 1;
	return 0;
}

static void show(char *buf, size_t len)
{
	if (given)
		netcon_show(&target, buf, len);
	else
		snprintf(buf, len, "off");
}

KNOB(netconsole, .name = "netconsole", .type = KNOB_FUNC, .parse = parse, .show = show,
     .help = "send every console message as UDP, as Linux's netconsole: "
	     "[+][src-port]@[src-ip]/[portN],[tgt-port]@tgt-ip/[tgt-mac]; src-port 6665, tgt-port 6666, "
	     "port0, the port's IPv4 address (ipN=) and the broadcast MAC when left out; '+': Linux's "
	     "extended format, one line a datagram; default off",
     .accepted = "[+][1-65535]@[A.B.C.D]/[port0-port7],[1-65535]@A.B.C.D[/xx:xx:xx:xx:xx:xx]");

void netcon_put(const char *s, size_t n)
{
	if (!configured)
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
			if (head - tail == RING)
				dropped++;
			else
				ring[head++ % RING] = (char)c;
		}
	}
	unlock(flags);
}

/* Up to max bytes of whole lines from the ring into out (one line with
 * one_line); a line longer than max goes in pieces. 0 while only part of
 * a line waits. */
static size_t take(char *out, size_t max, int one_line)
{
	uint64_t flags = lock();
	uint32_t avail = head - tail, n = avail < max ? avail : (uint32_t)max, end = 0;

	for (uint32_t i = 0; i < n; i++)
		if (ring[(tail + i) % RING] == '\n') {
			end = i + 1;
			if (one_line)
				break;
		}
	if (!end && avail >= max)
		end = (uint32_t)max;
	for (uint32_t i = 0; i < end; i++)
		out[i] = ring[(tail + i) % RING];
	tail += end;
	unlock(flags);
	return end;
}

void netcon_apply(void)
{
	char what[160];

	if (!configured)
		return;
	netcon_show(&target, what, sizeof(what));
	if (target.port >= nic_count) {
		printf("netconsole: %s is not used: port%d does not exist (%d port%s)\n", what, target.port,
		       nic_count, nic_count == 1 ? "" : "s");
		configured = 0;
		return;
	}
	nic = nics[target.port];
	pool = pktpool_create_below("netconsole", NETCON_BUFS, PKT_SLOT, nic->dma_limit);
	if (!pool) {
		printf("netconsole: %s is not used: no memory for %d frame buffers\n", what, NETCON_BUFS);
		configured = 0;
		return;
	}
	pool->shared = 1;	/* a port reset frees TX buffers from core 0 */
	char src[IPV4_STR_MAX + 40];
	if (target.src_ip || ifaddrs[target.port].v4.addr)
		ipv4_str(src, target.src_ip ? target.src_ip : ifaddrs[target.port].v4.addr);
	else
		snprintf(src, sizeof(src), "none yet: held until ip%d= or DHCP gives one", target.port);
	printf("netconsole: %s, from %s (source %s), core %d, %s format; messages since the boot line kept "
	       "(%d KiB)\n", what, nic->name, src, nic->tx_owner[0], target.extended ? "extended" : "plain", RING / 1024);
	netcon_core = nic->tx_owner[0];	/* TX queue 0's one writer */
}

/* One datagram's payload into buf: whole lines, or one line behind the
 * extended format's "LEVEL,SEQ,USEC,-;". Returns its length, 0 if none. */
static size_t payload(char *buf, size_t cap)
{
	if (!target.extended)
		return take(buf, NETCON_CHUNK, 0);
	char hdr[48];
	int h = snprintf(hdr, sizeof(hdr), "%d,%lu,%lu,-;", EXT_LEVEL, seq, tsc_to_ns(rdtsc()) / 1000);
	size_t n = take(buf + h, cap - (size_t)h < NETCON_CHUNK ? cap - (size_t)h : NETCON_CHUNK, 1);
	if (!n)
		return 0;
	memcpy(buf, hdr, (size_t)h);
	seq++;
	return (size_t)h + n;
}

int netcon_poll(void)
{
	if (head == tail && !held)
		return 0;
	uint32_t src = target.src_ip ? target.src_ip : ifaddrs[target.port].v4.addr;
	if (!nic->link_up || !src)
		return 0;
	for (int k = 0; k < NETCON_BURST; k++) {
		if (!held) {
			char buf[NETCON_CHUNK + 48];
			struct pkt *p = pkt_alloc(pool);
			if (!p) {
				no_buf++;
				return 1;
			}
			size_t n = payload(buf, sizeof(buf));
			if (!n) {
				pkt_free(p);
				return 0;
			}
			p->len = (uint16_t)netcon_frame(p->data, PKT_BUF_SIZE, &target, nic->mac, src, ip_id++, buf, n);
			bytes += n;
			held = p;
		}
		if (nic->ops->tx_burst(nic, 0, &held, 1) != 1) {
			tx_busy++;
			return 1;
		}
		held = 0;
		datagrams++;
	}
	return head != tail;
}

void netcon_print(void)
{
	char what[160];

	if (!configured)
		return;
	netcon_show(&target, what, sizeof(what));
	printf("netconsole %s: sent %lu datagrams (%lu bytes), dropped %lu bytes, waiting %u of %d bytes, "
	       "TX ring full %lu, no buffer %lu\n", what, datagrams, bytes, dropped, head - tail, RING, tx_busy, no_buf);
}
