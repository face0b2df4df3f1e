/*
 * Packet capture: the tap on a port's bursts and the ring of copies
 * (capture.h).
 */
#include <stdio.h>
#include <string.h>
#include "drivers/net/capture.h"
#include "drivers/net/nic.h"
#include "drivers/net/phc.h"
#include "kernel/cpu.h"
#include "kernel/knobs.h"
#include "kernel/mem.h"

int64_t capture_buffers = 256;
static const struct knob_range buffers_range[] = { { 16, 65536 } };
KNOB(capture_buffers, .name = "capture_buffers", .type = KNOB_INT, .ranges = buffers_range, .nranges = 1,
     .ival = &capture_buffers,
     .help = "frames a capture's ring holds (console capture, GET /capture); one that finds it full is "
	     "counted dropped; default 256");

static struct capture {
	struct nic_ops ops;		/* the port's ops with the tap's bursts */
	const struct nic_ops *orig;	/* the driver's */
	struct nic *nic;
	volatile int on;		/* producers look under the lock */
	volatile int lock;
	int dir;
	uint32_t snaplen;
	struct bpf_insn prog[CAPTURE_PROG_MAX];
	unsigned prog_len;
	uint8_t *ring;
	size_t ring_bytes;
	uint32_t slots, slot_bytes;
	uint32_t head;			/* next slot written (producers) */
	uint32_t tail;			/* next slot read (reader) */
	struct capture_stats st;
} cap;

static void cap_lock(void)
{
	while (__atomic_exchange_n(&cap.lock, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
}

static void cap_unlock(void)
{
	__atomic_store_n(&cap.lock, 0, __ATOMIC_RELEASE);
}

static struct capture_rec *slot(uint32_t i)
{
	return (struct capture_rec *)(cap.ring + (size_t)(i % cap.slots) * cap.slot_bytes);
}

/* Copy one frame into the ring, if the filter keeps it and there is room. */
static void copy_one(const struct pkt *p, int dir, int64_t sw_ns)
{
	uint32_t keep = cap.prog_len ? bpf_run(cap.prog, p->data, p->len) : p->len;
	cap.st.seen++;
	if (!keep) {
		cap.st.filtered++;
		return;
	}
	if (cap.head - __atomic_load_n(&cap.tail, __ATOMIC_ACQUIRE) == cap.slots) {
		cap.st.dropped++;
		return;
	}
	struct capture_rec *r = slot(cap.head);
	uint32_t len = p->len < cap.snaplen ? p->len : cap.snaplen;
	r->caplen = (uint16_t)(len < keep ? len : keep);
	r->wirelen = p->len;
	r->dir = (uint8_t)dir;
	r->hwts = dir == CAPTURE_RX && (p->flags & PKT_RX_TSTAMP);
	r->ns = r->hwts ? (int64_t)p->tstamp : sw_ns;
	memcpy(r->data, p->data, r->caplen);
	cap.st.kept++;
	__atomic_store_n(&cap.head, cap.head + 1, __ATOMIC_RELEASE);
}

/* The tap: copy the n frames of a burst in direction dir. */
static void tap(struct nic *nic, struct pkt **pkts, int n, int dir)
{
	if (!(cap.dir & dir) || !n)
		return;
	int64_t sw_ns = phc_sw_stamp(phc_of(nic), rdtsc());
	cap_lock();
	if (cap.on && cap.nic == nic)
		for (int i = 0; i < n; i++)
			copy_one(pkts[i], dir, sw_ns);
	cap_unlock();
}

static int tap_rx_burst(struct nic *nic, int q, struct pkt **pkts, int n)
{
	n = cap.orig->rx_burst(nic, q, pkts, n);
	tap(nic, pkts, n, CAPTURE_RX);
	return n;
}

static int tap_tx_burst(struct nic *nic, int q, struct pkt **pkts, int n)
{
	n = cap.orig->tx_burst(nic, q, pkts, n);
	tap(nic, pkts, n, CAPTURE_TX);
	return n;
}

int capture_dir_parse(const char *s)
{
	return !strcmp(s, "rx") ? CAPTURE_RX : !strcmp(s, "tx") ? CAPTURE_TX :
	       !strcmp(s, "both") ? CAPTURE_RX | CAPTURE_TX : 0;
}

/* The reason req cannot be served, or NULL. */
static const char *req_check(const struct capture_req *req)
{
	if (req->port < 0 || req->port >= nic_count)
		return "no such port";
	if (!req->dir || req->dir & ~(CAPTURE_RX | CAPTURE_TX))
		return "dir is rx, tx or both";
	if (req->snaplen < 1 || req->snaplen > CAPTURE_SNAPLEN_MAX)
		return "snaplen is 1..2048 bytes";
	if (req->prog_len > CAPTURE_PROG_MAX)
		return "filter longer than 256 instructions";
	return NULL;
}

int capture_start(const struct capture_req *req, const char **why)
{
	static char busy[48];
	if (cap.nic) {
		snprintf(busy, sizeof(busy), "a capture of %s runs already", cap.nic->name);
		*why = busy;
		return -1;
	}
	if ((*why = req_check(req)))
		return -1;
	cap.slot_bytes = (uint32_t)(sizeof(struct capture_rec) + req->snaplen + 7) & ~7u;
	cap.slots = (uint32_t)capture_buffers;
	cap.ring_bytes = (size_t)cap.slots * cap.slot_bytes;
	cap.ring = dma_alloc(cap.ring_bytes, 0);
	if (!cap.ring) {
		*why = "no memory for the ring (capture_buffers= fewer, or a smaller snaplen)";
		return -1;
	}
	struct nic *nic = nics[req->port];
	phc_of(nic);	/* its clock set up here, not on a polling core */
	cap_lock();
	cap.nic = nic;
	cap.dir = req->dir;
	cap.snaplen = req->snaplen;
	cap.prog_len = req->prog ? req->prog_len : 0;
	if (cap.prog_len)
		memcpy(cap.prog, req->prog, cap.prog_len * sizeof(cap.prog[0]));
	cap.head = cap.tail = 0;
	memset(&cap.st, 0, sizeof(cap.st));
	cap.orig = nic->ops;
	cap.ops = *nic->ops;
	cap.ops.rx_burst = tap_rx_burst;
	cap.ops.tx_burst = tap_tx_burst;
	cap.on = 1;
	cap_unlock();
	__atomic_store_n(&nic->ops, &cap.ops, __ATOMIC_RELEASE);
	return 0;
}

const struct capture_rec *capture_peek(void)
{
	if (!cap.on || cap.tail == __atomic_load_n(&cap.head, __ATOMIC_ACQUIRE))
		return NULL;
	return slot(cap.tail);
}

void capture_next(void)
{
	__atomic_store_n(&cap.tail, cap.tail + 1, __ATOMIC_RELEASE);
}

void capture_get_stats(struct capture_stats *st)
{
	cap_lock();
	*st = cap.st;
	cap_unlock();
}

int capture_running(void)
{
	return cap.nic != NULL;
}

void capture_stop(struct capture_stats *st)
{
	if (!cap.nic)
		return;
	__atomic_store_n(&cap.nic->ops, cap.orig, __ATOMIC_RELEASE);
	/* A core still in a tap sees on = 0 under the lock and copies nothing. */
	cap_lock();
	cap.on = 0;
	if (st)
		*st = cap.st;
	cap_unlock();
	dma_free(cap.ring, cap.ring_bytes);
	cap.ring = NULL;
	cap.nic = NULL;
}
