/*
 * Transmit rings of e1000, e1000e and igb: the queue's state is in
 * ring.h, the descriptor formats in desc.h. A burst (tx_burst) sends like
 * ixy's ixgbe_tx_batch:
 *   step 1: clean up descriptors the NIC has sent, in batches (only the
 *           last descriptor of each burst asks for a status write-back,
 *           RS; its DD means the whole batch is out), giving their
 *           buffers back to their pools (e1000x_tx_reclaim, with
 *           pkt_free_bulk: one lock per run from a pool). tx_room does
 *           it once NIC_TX_FREE_THRESH descriptors are in flight, or when
 *           the burst needs their room.
 *   step 2: the checksum context descriptors first (IPv4 and, on igb,
 *           IPv6), once per ring, when the port's app has turned checksum
 *           insertion on.
 *   step 3: one data descriptor per packet, as many as there is room
 *           for, in at most two runs (to the ring's end, then from its
 *           start), four packets at a time within a run; RS on the last. Timestamped frames ask for their own
 *           write-back (tx_tstamp).
 *   step 4: TDT = the descriptor after the last: the NIC sends them. Then
 *           the burst's counters.
 * A lone frame (a request-response answer) takes tx_one, which skips
 * steps 1 and 2 when they have nothing to do. The descriptor format
 * (advanced on igb, legacy on e1000 and e1000e) is a constant of each
 * burst function (e1000x_tx_burst_adv and _legacy), chosen when the port
 * is set up; whether frames carry checksum options follows the ring's
 * context (ctx_set: the app turns insertion on while the port runs, and a
 * reset clears it), one of two loops compiled for it, once per burst.
 */
#include <stdio.h>
#include <stdlib.h>
#include "drivers/net/e1000x/e1000x.h"
#include "drivers/net/e1000x/ring.h"
#include "drivers/net/phc.h"
#include "kernel/mem.h"

/* Descriptor stores must reach memory before the tail write that hands
 * them over: x86 keeps store order, so a compiler barrier is enough
 * (Intel SDM vol. 3A 8.2.2). */
#define dma_wmb() __atomic_signal_fence(__ATOMIC_RELEASE)

int e1000x_txq_init(struct e1000x_txq *tq)
{
	if (!tq->ring)
		tq->ring = dma_alloc_below(tq->n * sizeof(union tx_desc), 128, tq->nic->dma_limit);
	if (!tq->bufs)
		tq->bufs = calloc(tq->n, sizeof(*tq->bufs));
	if (!tq->rs_at)
		tq->rs_at = calloc(tq->n, sizeof(*tq->rs_at));
	if (!tq->ring || !tq->bufs || !tq->rs_at) {
		printf("%s: no memory for TX queue %d (%u descriptors)\n", tq->nic->name, tq->q, tq->n);
		return -1;
	}
	tq->tail = tq->clean = 0;
	tq->stall_since = 0;
	tq->ctx_set = 0;
	return 0;
}

void e1000x_txq_release(struct e1000x_txq *tq)
{
	e1000x_tx_reclaim(tq);
	for (; tq->clean != tq->tail; tq->clean = tq->clean + 1 == tq->n ? 0 : tq->clean + 1) {
		if (tq->bufs[tq->clean] == &tq->ctx)
			continue;
		pkt_free(tq->bufs[tq->clean]);
		tq->nic->stats[NS_tx_dropped]++;
	}
}

uint32_t e1000x_tx_reclaim(struct e1000x_txq *tq)
{
	/* Step 1. Locals: the frees' stores could alias the queue's fields.
	 * rs_at[first] holds each batch's RS descriptor. The NIC works
	 * through the ring in order, so when the newest batch (its RS
	 * descriptor is the one before tail) is done, all are. The batches
	 * done are freed as one run (two when it wraps). */
	uint32_t start = tq->clean, c = start, tail = tq->tail, n = tq->n;
	volatile union tx_desc *ring = tq->ring;
	if (c != tail && (ring[tail ? tail - 1 : n - 1].d.status & TXD_DD))
		c = tail;
	while (c != tail) {
		uint32_t e = tq->rs_at[c];
		if (!(ring[e].d.status & TXD_DD))
			break;
		c = e + 1 == n ? 0 : e + 1;
	}
	if (c != start) {
		if (c < start) {
			pkt_free_bulk(tq->bufs + start, (int)(n - start));
			pkt_free_bulk(tq->bufs, (int)c);
		} else {
			pkt_free_bulk(tq->bufs + start, (int)(c - start));
		}
		tq->stall_since = 0;
		tq->clean = c;
	}
	return tail >= c ? tail - c : tail + n - c;
}

/* The timestamped frames among pkts[0..n), at ring[t..t+n), after the
 * run is filled and before the tail write (the NIC has not seen them):
 * each one the PHC grants a slot to asks for a stamp and its own
 * write-back. An advanced descriptor (igb) takes TSTAMP; a legacy one
 * cannot, so on the 82574 it is rewritten as an extended data descriptor
 * with TSTAMP (82574 7.8.2); elsewhere phc_tx_request counts the frame in
 * tx_hwtstamp_skipped. */
static void __attribute__((noinline)) tx_tstamp(struct e1000x_txq *tq, uint32_t t, struct pkt **pkts, int n)
{
	for (int k = 0; k < n; k++) {
		volatile union tx_desc *d = &tq->ring[t + (uint32_t)k];
		if (!(pkts[k]->flags & PKT_TX_TSTAMP) || !phc_tx_request(tq->nic, tq->q, t + (uint32_t)k))
			continue;
		if (tq->adv) {
			d->d.cmd_type_len |= ADVTXD_MAC_TSTAMP | ADVTXD_DCMD_RS;
		} else {
			d->d.cmd_type_len |= TXD_DEXT | TXD_DTYP_DATA | (uint32_t)TXD_CMD_RS << 24;
			d->d.status |= TXD_EXTCMD_TSTAMP;
		}
	}
}

/* The context descriptors tx_csum_ctx writes in a ring of format adv. */
static inline uint32_t tx_csum_ctxs(const int adv)
{
	return adv ? 2 : 1;
}

/* Step 2: the checksum contexts (desc.h) at ring[t..], before the frames
 * of a burst, once per ring init on a port whose app asks for checksum
 * insertion: on the advanced format (igb, ixgbe) two, IPv4 TCP in slot 0
 * and IPv6 TCP in slot 1, so that neither family's frames rewrite the
 * other's (82576 7.2.2.4, 7.2.2.2: IDX); on the legacy one the TCP/IP
 * context for IPv4: tx_csum_ctxs descriptors. */
static void __attribute__((noinline)) tx_csum_ctx(struct e1000x_txq *tq, uint32_t t)
{
	volatile union tx_desc *d = &tq->ring[t];
	if (tq->adv) {
		volatile union tx_desc *d6 = &tq->ring[t + 1 == tq->n ? 0 : t + 1];
		d->d.addr = 20u | 14u << ADVTXD_MACLEN_SHIFT;	/* IPLEN, MACLEN; seqnum_seed 0 */
		d->d.cmd_type_len = ADVTXD_TUCMD_IPV4 | ADVTXD_TUCMD_L4T_TCP | ADVTXD_DTYP_CTXT | ADVTXD_DCMD_DEXT;
		d->d.status = 0;	/* mss_l4len_idx: slot 0 */
		d6->d.addr = 40u | 14u << ADVTXD_MACLEN_SHIFT;
		d6->d.cmd_type_len = ADVTXD_TUCMD_L4T_TCP | ADVTXD_DTYP_CTXT | ADVTXD_DCMD_DEXT;	/* IPV4 clear */
		d6->d.status = ADVTXD_IDX_IP6;
		tq->bufs[t + 1 == tq->n ? 0 : t + 1] = &tq->ctx;
	} else {
		d->d.addr = TXCTX_IPCSS | TXCTX_IPCSO << 8 | (uint64_t)TXCTX_IPCSE << 16 | (uint64_t)TXCTX_TUCSS << 32 |
			    (uint64_t)TXCTX_TUCSO << 40;	/* TUCSE 0: to the frame's end */
		d->d.cmd_type_len = TXD_DEXT | TXD_TUCMD_IP | TXD_TUCMD_TCP;
		d->d.status = 0;
	}
	uint32_t n = tx_csum_ctxs(tq->adv);
	tq->ctx.clones = (uint16_t)(tq->ctx.clones + n);	/* one reference per descriptor: the reclaim's frees drop them */
	tq->bufs[t] = &tq->ctx;
	tq->ctx_set = 1;
}

_Static_assert(PKT_TX_IP_CSUM == 1u << 9 && PKT_TX_TCP_CSUM == 1u << 10, "flags >> 9 are POPTS IXSM, TXSM");
_Static_assert(PKT_TX_IP6 >> 7 == ADVTXD_IDX_IP6, "flags >> 7 & ADVTXD_IDX_IP6 is the IPv6 context's IDX");

/* Descriptor d for packet p (see tx_fill); returns its flags. */
static inline __attribute__((always_inline))
uint32_t tx_put(volatile union tx_desc *d, struct pkt **bp, struct pkt *p, const int adv, const int csum,
		uint32_t cmd)
{
	uint32_t flags = p->flags;
	d->d.addr = (uint64_t)p->data;
	if (csum) {
		uint32_t popts = flags >> 9 & 3;
		d->d.cmd_type_len = p->len | cmd | (adv || !popts ? 0 : TXD_DEXT | TXD_DTYP_DATA);
		d->d.status = (adv ? (uint32_t)p->len << ADVTXD_PAYLEN_SHIFT | (flags >> 7 & ADVTXD_IDX_IP6) : 0) |
			      popts << TXD_POPTS_SHIFT;
	} else {
		d->d.cmd_type_len = p->len | cmd;
		d->d.status = adv ? (uint32_t)p->len << ADVTXD_PAYLEN_SHIFT : 0;
	}
	*bp = p;
	return flags;
}

/* Descriptors for pkts[0..n) at ring[t..t+n) (no wrap), advanced (igb)
 * or legacy (cmd: the legacy command byte), four at a time and then one
 * at a time; adds their bytes to *bytes.
 * With csum (a port whose app asks for checksum insertion) a frame's
 * PKT_TX_IP_CSUM / PKT_TX_TCP_CSUM become POPTS IXSM / TXSM in its data
 * descriptor, a legacy one then written as a TCP/IP data descriptor (DEXT,
 * DTYP 0001; 8254x SDM 3.3.7). Returns the frames' flags ORed. */
static inline __attribute__((always_inline))
uint32_t tx_fill(struct e1000x_txq *tq, uint32_t t, struct pkt **pkts, int n, const int adv, const int csum,
		 uint32_t cmd, uint64_t *bytes)
{
	volatile union tx_desc *d = &tq->ring[t];
	struct pkt **bp = &tq->bufs[t], **pp = pkts, **end4 = pkts + (n & ~3), **end = pkts + n;
	uint32_t flags = 0;
	uint64_t sum = 0;
	for (; pp != end4; pp += 4, d += 4, bp += 4) {
		struct pkt *p0 = pp[0], *p1 = pp[1], *p2 = pp[2], *p3 = pp[3];
		flags |= tx_put(d, bp, p0, adv, csum, cmd) | tx_put(d + 1, bp + 1, p1, adv, csum, cmd) |
			 tx_put(d + 2, bp + 2, p2, adv, csum, cmd) | tx_put(d + 3, bp + 3, p3, adv, csum, cmd);
		sum += (uint32_t)p0->len + p1->len + p2->len + p3->len;
	}
	for (; pp != end; pp++, d++, bp++) {
		flags |= tx_put(d, bp, *pp, adv, csum, cmd);
		sum += (*pp)->len;
	}
	*bytes += sum;
	return flags;
}

/* tx_fill with or without the checksum options, as the ring's context
 * says. */
static inline __attribute__((always_inline))
uint32_t tx_fill_ctx(struct e1000x_txq *tq, uint32_t t, struct pkt **pkts, int n, const int adv, uint32_t cmd,
		     uint64_t *bytes)
{
	if (tq->ctx_set)
		return tx_fill(tq, t, pkts, n, adv, 1, cmd, bytes);
	return tx_fill(tq, t, pkts, n, adv, 0, cmd, bytes);
}

/* Step 3 for the n frames of pkts at ring[t..] (n fits): tx_fill_ctx in
 * at most two runs, then tx_tstamp over a run if a frame asks for a
 * stamp. Adds their bytes to *bytes. */
static inline __attribute__((always_inline))
void tx_write(struct e1000x_txq *tq, uint32_t t, struct pkt **pkts, int n, const int adv, uint32_t cmd,
	      uint64_t *bytes)
{
	for (int k, left = n; left; t = 0, pkts += k, left -= k) {
		k = (int)(tq->n - t) < left ? (int)(tq->n - t) : left;
		if (__builtin_expect(tx_fill_ctx(tq, t, pkts, k, adv, cmd, bytes) & PKT_TX_TSTAMP, 0))
			tx_tstamp(tq, t, pkts, k);
	}
}

/* Room in the ring for a burst of n: descriptors free once sent buffers
 * are given back in runs (NIC_TX_FREE_THRESH), or when the burst (and a
 * checksum context) needs theirs. */
static inline int tx_room(struct e1000x_txq *tq, int n)
{
	uint32_t t = tq->tail, nd = tq->n;
	uint32_t inflight = t >= tq->clean ? t - tq->clean : t + nd - tq->clean;
	if (inflight >= NIC_TX_FREE_THRESH || inflight + (uint32_t)n >= nd - 1)
		inflight = e1000x_tx_reclaim(tq);
	return (int)(nd - 1 - inflight);
}

/* The command bits of every frame's descriptor, RS aside: advanced, or
 * the legacy command byte. */
static inline uint32_t tx_cmd(const struct nic *nic, const int adv)
{
	if (adv)
		return ADVTXD_DTYP_DATA | ADVTXD_DCMD_EOP | ADVTXD_DCMD_IFCS | ADVTXD_DCMD_DEXT;
	return (TXD_CMD_EOP | TXD_CMD_IFCS | (nic->cfg.tx_int_delay ? TXD_CMD_IDE : 0)) << 24;
}

/* RS, the write-back request, in the format's command bits. */
static inline uint32_t tx_rs(const int adv)
{
	return adv ? ADVTXD_DCMD_RS : (uint32_t)TXD_CMD_RS << 24;
}

/* Step 4: hand the batch ring[batch..last] of sent frames (bytes) to the NIC. */
static inline void tx_post(struct e1000x_txq *tq, uint32_t batch, uint32_t last, int sent, uint64_t bytes)
{
	uint32_t t = last + 1 == tq->n ? 0 : last + 1;
	tq->rs_at[batch] = last;
	tq->tail = t;
	dma_wmb();
	wr32(tq->regs, tq->tdt, t);
	struct nic_qstats *qs = tq->qs;
	qs->tx_packets += (uint64_t)sent;
	qs->tx_bytes += bytes;
	tq->sw[NS_tx_sent] += (uint64_t)sent;
}

/* tx_burst of one frame (a request-response answer) when the checksum
 * context, if any, is in place, fewer than NIC_TX_FREE_THRESH descriptors
 * are in flight (so no reclaim, and room: rings have at least 80) and
 * the frame asks for no timestamp: one descriptor, RS on it. */
static inline __attribute__((always_inline))
int tx_one(struct e1000x_txq *tq, struct pkt **pkts, const int adv)
{
	uint32_t t = tq->tail;
	uint64_t bytes = 0;
	tx_fill_ctx(tq, t, pkts, 1, adv, tx_cmd(tq->nic, adv) | tx_rs(adv), &bytes);
	tx_post(tq, t, t, 1, bytes);
	return 1;
}

/* Step 2 when the app has turned checksum insertion on or off since the
 * ring's init; returns the room left (0: none for a frame after the
 * contexts) and moves *t past the contexts written. */
static int __attribute__((noinline)) tx_csum_change(struct e1000x_txq *tq, uint32_t *t, int n, int room)
{
	if (!tq->nic->tx_csum_on) {
		tq->ctx_set = 0;
		return room;
	}
	int k = (int)tx_csum_ctxs(tq->adv);
	if (n <= 0 || room <= k)
		return 0;
	tx_csum_ctx(tq, *t);
	*t = *t + (uint32_t)k < tq->n ? *t + (uint32_t)k : *t + (uint32_t)k - tq->n;
	return room - k;
}

/* tx_burst of any n: steps 1-4. */
static inline __attribute__((always_inline))
int tx_many(struct e1000x_txq *tq, struct pkt **pkts, int n, const int adv)
{
	uint32_t t = tq->tail, batch = t;
	int room = tx_room(tq, n);
	uint64_t bytes = 0;
	if (__builtin_expect(tq->ctx_set != tq->nic->tx_csum_on, 0))
		room = tx_csum_change(tq, &t, n, room);
	int sent = n < room ? n : room;
	if (sent <= 0) {
		if (n > 0)
			tq->sw[NS_tx_ring_full]++;
		return 0;
	}
	uint32_t last = t + (uint32_t)sent - 1 < tq->n ? t + (uint32_t)sent - 1 : t + (uint32_t)sent - 1 - tq->n;
	tx_write(tq, t, pkts, sent, adv, tx_cmd(tq->nic, adv), &bytes);
	tq->ring[last].d.cmd_type_len |= tx_rs(adv);
	tx_post(tq, batch, last, sent, bytes);
	if (sent < n)
		tq->sw[NS_tx_ring_full]++;
	return sent;
}

/* tx_many compiled once per descriptor format, apart from the burst
 * functions so that a lone frame pays none of its set-up. */
static int __attribute__((noinline)) tx_many_adv(struct e1000x_txq *tq, struct pkt **pkts, int n)
{
	return tx_many(tq, pkts, n, 1);
}

static int __attribute__((noinline)) tx_many_legacy(struct e1000x_txq *tq, struct pkt **pkts, int n)
{
	return tx_many(tq, pkts, n, 0);
}

/* The body of the nic_ops tx_burst for one descriptor format: tx_one
 * when it can, else tx_many. */
static inline __attribute__((always_inline))
int tx_burst(struct nic *nic, int q, struct pkt **pkts, int n, const int adv)
{
	struct e1000x_txq *tq = &to_port(nic)->txq[q];
	uint32_t t = tq->tail, c = tq->clean;
	if (n == 1 && tq->ctx_set == nic->tx_csum_on && (t >= c ? t - c : t + tq->n - c) < NIC_TX_FREE_THRESH &&
	    !(pkts[0]->flags & PKT_TX_TSTAMP))
		return tx_one(tq, pkts, adv);
	return adv ? tx_many_adv(tq, pkts, n) : tx_many_legacy(tq, pkts, n);
}

int e1000x_tx_burst_adv(struct nic *nic, int q, struct pkt **pkts, int n)
{
	return tx_burst(nic, q, pkts, n, 1);
}

int e1000x_tx_burst_legacy(struct nic *nic, int q, struct pkt **pkts, int n)
{
	return tx_burst(nic, q, pkts, n, 0);
}

int e1000x_tx_desc_done(const struct e1000x_txq *tq, uint32_t desc)
{
	uint32_t inflight = (tq->tail + tq->n - tq->clean) % tq->n;
	uint32_t pos = (desc + tq->n - tq->clean) % tq->n;
	return pos >= inflight || (tq->ring[desc].d.status & TXD_DD);
}

int e1000x_tx_pending(const struct e1000x_txq *tq)
{
	/* Read-only, as e1000x_tx_hung: the newest batch's RS descriptor (the
	 * one before tail) not done. */
	uint32_t t = tq->tail;
	return t != tq->clean && !(tq->ring[t ? t - 1 : tq->n - 1].d.status & TXD_DD);
}

int e1000x_tx_hung(struct e1000x_txq *tq, uint64_t timeout_ns)
{
	/* Read-only: this runs on core 0 while the queue's owner may be in
	 * tx_burst; only the owner reclaims. Hung = the oldest descriptor not
	 * yet reclaimed is still not done (its batch's RS descriptor). */
	uint32_t c = tq->clean;
	if (c == tq->tail || (tq->ring[tq->rs_at[c]].d.status & TXD_DD) || !tq->nic->link_up) {
		tq->stall_since = 0;
		return 0;
	}
	uint64_t now = now_ns();
	if (!tq->stall_since)
		tq->stall_since = now;
	return now - tq->stall_since > timeout_ns;
}
