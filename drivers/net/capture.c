/*
 * Packet capture: the tap on a port's bursts, the ring of copies, and the
 * mirror (mirror=) on the same tap
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
#include "net/ipv4.h"
#include "net/pkt.h"

int64_t capture_buffers = 256;
static const struct knob_range buffers_range[] = { { 16, 65536 } };
KNOB(capture_buffers, .name = "capture_buffers", .type = KNOB_INT, .ranges = buffers_range, .nranges = 1,
     .ival = &capture_buffers,
     .help = "frames a capture's ring holds (console capture, GET /capture); one that finds it full is "
	     "counted dropped; default 256");

/* A port's tap: its ops with the tap's bursts, the driver's, and what
 * the tap is for: the capture, the mirror (mirror=) or both. */
static struct tap {
	struct nic_ops ops;
	const struct nic_ops *orig;
	int mirror_dir;			/* CAPTURE_* bits sent out of mirror_to */
	struct nic *mirror_to;
	uint64_t mirrored, mirror_dropped;
} taps[NIC_MAX_PORTS];

static struct capture {
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
static void copy_one(const struct pkt *p, int dir, int64_t sw_ns, uint32_t txseq)
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
	r->txseq = txseq;
	memcpy(r->data, p->data, r->caplen);
	/* What the wire carries: the checksums the NIC inserts (Linux's taps
	 * show the fields as the stack left them for the NIC). */
	if (dir == CAPTURE_TX && (p->flags & (PKT_TX_IP_CSUM | PKT_TX_L4_CSUM)))
		csum_offload_fill(p->flags, p->data, p->len, r->data, r->caplen);
	cap.st.kept++;
	__atomic_store_n(&cap.head, cap.head + 1, __ATOMIC_RELEASE);
}

/* Copies of n frames out of the mirror port (SPAN), on the queue of the
 * same index as fwd sends; a copy without a buffer or TX descriptor is
 * dropped and counted, never waited for. */
static void mirror(struct tap *t, int q, struct pkt **pkts, int n)
{
	struct nic *out = t->mirror_to;
	struct pkt *copies[NIC_BURST_MAX];
	int k = 0;
	for (; k < n && k < NIC_BURST_MAX; k++) {
		if (!(copies[k] = pkt_alloc(out->pool)))
			break;
		memcpy(copies[k]->data, pkts[k]->data, pkts[k]->len);
		copies[k]->len = pkts[k]->len;
	}
	int sent = k ? out->ops->tx_burst(out, q % out->nqueues, copies, k) : 0;
	pkt_free_bulk(copies + sent, k - sent);
	__atomic_add_fetch(&t->mirrored, (uint64_t)sent, __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->mirror_dropped, (uint64_t)(n - sent), __ATOMIC_RELAXED);
}

/* The tap: mirror and copy the n frames of a burst in direction dir;
 * txseq: the TX timestamp request the burst was granted (phc_tx_seq), 0
 * none: the first frame that asked for one has it (one is stamped at a
 * time, drivers/net/hwtstamp.h). */
static void tap(struct nic *nic, int q, struct pkt **pkts, int n, int dir, uint32_t txseq)
{
	struct tap *t = &taps[nic->port];
	if (n && (t->mirror_dir & dir))
		mirror(t, q, pkts, n);
	if (!(cap.dir & dir) || !n)
		return;
	int64_t sw_ns = phc_sw_stamp(phc_of(nic), rdtsc());
	cap_lock();
	if (cap.on && cap.nic == nic)
		for (int i = 0; i < n; i++) {
			uint32_t seq = txseq && (pkts[i]->flags & PKT_TX_TSTAMP) ? txseq : 0;
			copy_one(pkts[i], dir, sw_ns, seq);
			txseq = seq ? 0 : txseq;
		}
	cap_unlock();
}

static int tap_rx_burst(struct nic *nic, int q, struct pkt **pkts, int n)
{
	n = taps[nic->port].orig->rx_burst(nic, q, pkts, n);
	tap(nic, q, pkts, n, CAPTURE_RX, 0);
	return n;
}

static int tap_tx_burst(struct nic *nic, int q, struct pkt **pkts, int n)
{
	struct phc *c = cap.on && cap.nic == nic && (cap.dir & CAPTURE_TX) ? phc_of(nic) : NULL;
	uint32_t seq = c ? phc_tx_seq(c) : 0;
	n = taps[nic->port].orig->tx_burst(nic, q, pkts, n);
	tap(nic, q, pkts, n, CAPTURE_TX, c && phc_tx_seq(c) != seq ? phc_tx_seq(c) : 0);
	return n;
}

/* Point the port at its tap (once). */
static void tap_install(struct nic *nic)
{
	struct tap *t = &taps[nic->port];
	if (nic->ops == &t->ops)
		return;
	t->orig = nic->ops;
	t->ops = *nic->ops;
	t->ops.rx_burst = tap_rx_burst;
	t->ops.tx_burst = tap_tx_burst;
	__atomic_store_n(&nic->ops, &t->ops, __ATOMIC_RELEASE);
}

/* The driver's ops back, unless the mirror still wants the tap. */
static void tap_remove(struct nic *nic)
{
	struct tap *t = &taps[nic->port];
	if (!t->mirror_dir && nic->ops == &t->ops)
		__atomic_store_n(&nic->ops, t->orig, __ATOMIC_RELEASE);
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
	cap.on = 1;
	cap_unlock();
	tap_install(nic);
	return 0;
}

/* Settle r's TX timestamp: 1 with the NIC's stamp in r once it has been
 * read, or with r's TSC time kept when it never will be; 0 while it may
 * still come. */
static int tx_stamp(struct capture_rec *r)
{
	int64_t ns;
	int got = phc_tx_tstamp_peek(phc_of(cap.nic), r->txseq, &ns);
	if (!got)
		return 0;
	if (got == 1) {
		r->ns = ns;
		r->hwts = 1;
	}
	r->txseq = 0;
	return 1;
}

const struct capture_rec *capture_peek(void)
{
	if (!cap.on || cap.tail == __atomic_load_n(&cap.head, __ATOMIC_ACQUIRE))
		return NULL;
	struct capture_rec *r = slot(cap.tail);
	return r->txseq && !tx_stamp(r) ? NULL : r;
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
	tap_remove(cap.nic);
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

/* mirror=SRC:DST[,rx|tx|both]: the knob's value until mirror_start. */
static struct {
	int src, dst, dir;
} mirror_cfg = { -1, -1, 0 };

static int parse_mirror(const char *v, char *err, size_t len)
{
	int src, dst, n = 0;
	char dir[8] = "both";
	if (!strcmp(v, "off")) {
		mirror_cfg.src = -1;
		return 0;
	}
	if (sscanf(v, "%d:%d%n", &src, &dst, &n) != 2 || (v[n] && sscanf(v + n, ",%7s", dir) != 1) ||
	    src < 0 || dst < 0 || src >= NIC_MAX_PORTS || dst >= NIC_MAX_PORTS || src == dst ||
	    !capture_dir_parse(dir)) {
		snprintf(err, len, "not SRC:DST[,rx|tx|both] with two different ports 0-7");
		return -1;
	}
	mirror_cfg.src = src;
	mirror_cfg.dst = dst;
	mirror_cfg.dir = capture_dir_parse(dir);
	return 0;
}

static void show_mirror(char *buf, size_t len)
{
	static const char *const dirs[] = { "", "rx", "tx", "both" };
	if (mirror_cfg.src < 0)
		snprintf(buf, len, "off");
	else
		snprintf(buf, len, "%d:%d,%s", mirror_cfg.src, mirror_cfg.dst, dirs[mirror_cfg.dir]);
}

KNOB(mirror, .name = "mirror", .type = KNOB_FUNC, .parse = parse_mirror, .show = show_mirror,
     .accepted = "SRC:DST[,rx|tx|both] (port numbers) or off",
     .help = "port mirror (SPAN): a copy of every frame port SRC receives and/or sends goes out of port DST, "
	     "dropped and counted when DST has no buffer or TX descriptor for it (capture mirror shows the counts); "
	     "default off");

void mirror_start(void)
{
	int src = mirror_cfg.src, dst = mirror_cfg.dst;
	if (src < 0)
		return;
	if (src >= nic_count || dst >= nic_count) {
		printf("mirror=%d:%d: no port%d; no mirror\n", src, dst, src >= nic_count ? src : dst);
		return;
	}
	struct tap *t = &taps[src];
	t->mirror_to = nics[dst];
	t->mirror_dir = mirror_cfg.dir;
	nics[dst]->pool->shared = 1;	/* the copies come from it on src's cores */
	tap_install(nics[src]);
	printf("mirror: port%d %s -> port%d\n", src, mirror_cfg.dir == 3 ? "rx+tx" : mirror_cfg.dir == 1 ? "rx" : "tx",
	       dst);
}

void mirror_print(void)
{
	if (mirror_cfg.src < 0 || !taps[mirror_cfg.src].mirror_dir)
		printf("mirror: off (mirror=SRC:DST[,rx|tx|both] on the command line)\n");
	for (int i = 0; i < NIC_MAX_PORTS; i++)
		if (taps[i].mirror_dir)
			printf("mirror: port%d -> %s: mirrored %llu, dropped %llu (no buffer or TX descriptor)\n", i,
			       taps[i].mirror_to->name, (unsigned long long)taps[i].mirrored,
			       (unsigned long long)taps[i].mirror_dropped);
}
