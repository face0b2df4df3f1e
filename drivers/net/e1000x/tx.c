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
 *   step 2: a checksum context descriptor before a frame whose kind of
 *           request (TCP or UDP, IPv4 or IPv6) no context slot of the
 *           ring holds (tx_ctx_write), when the port's app has turned
 *           checksum insertion on.
 *   step 3: one data descriptor per packet, as many as there is room
 *           for, in at most two runs (to the ring's end, then from its
 *           start), four packets at a time within a run; RS on the last. Timestamped frames ask for their own
 *           write-back (tx_tstamp).
 *   step 4: TDT = the descriptor after the last: the NIC sends them. Then
 *           the burst's counters.
 * A lone frame (a request-response answer) takes tx_one, which skips
 * steps 1 and 2 when they have nothing to do; a burst with a frame that
 * needs a new context takes tx_ctx_burst, frame by frame. The descriptor format
 * (advanced on igb, legacy on e1000 and e1000e) is a constant of each
 * burst function (e1000x_tx_burst_adv and _legacy), chosen when the port
 * is set up; whether frames carry checksum options follows the port's
 * tx_csum_on (ctx_set: the app turns insertion on while the port runs),
 * one of two loops compiled for it, once per burst.
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

/* Checksum contexts (desc.h). A frame's request is REQ(flags):
 * PKT_TX_IP_CSUM, PKT_TX_L4_CSUM, PKT_TX_IP6, PKT_TX_UDP. The context it
 * needs is one of four kinds, CTX_IP6 | CTX_UDP (IPv4 or IPv6, TCP or
 * UDP), held in one of the ring's slots: two on the advanced format
 * (82576 7.2.2.2: IDX 0 and 1; 82599 7.2.3.2.3 likewise), one on the
 * legacy (8254x SDM 3.3.6: the TCP/IP context has no index). A frame
 * whose kind no slot holds gets a context descriptor written before it
 * (tx_ctx_write, counted tx_csum_ctx) into the slot written longest ago:
 * two kinds in use at once (TCP and UDP, or IPv4 and IPv6) then share
 * igb's two slots with no rewrite, and on the legacy slot every change of
 * kind rewrites it. The NIC takes descriptors in ring order, so a frame
 * queued before the rewrite still gets the context it was queued after. */
#define CTX_IP6 1
#define CTX_UDP 2
#define REQ(flags) ((flags) >> 9 & 15)
_Static_assert(PKT_TX_IP_CSUM >> 9 == 1 && PKT_TX_L4_CSUM >> 9 == 2 && PKT_TX_IP6 >> 9 == 4 &&
	       PKT_TX_UDP >> 9 == 8, "REQ: IP_CSUM, L4_CSUM, IP6, UDP");

/* The context slots of a ring of format adv. */
static inline int ctx_slots(const int adv)
{
	return adv ? 2 : 1;
}

/* The context kind request r needs: the L4 checksum's family and
 * protocol; the IPv4 header alone needs an IPv4 context. */
static int ctx_kind(uint32_t r)
{
	return ((r & 5) == 4 ? CTX_IP6 : 0) | ((r & 10) == 10 ? CTX_UDP : 0);
}

/* 1: a context of kind k serves request r. One that asks nothing needs
 * none; one for the IPv4 header alone takes any IPv4 context. */
static int ctx_serves(uint32_t r, int k)
{
	if (r & 2)
		return k == ctx_kind(r);
	return !(r & 1) || !(k & CTX_IP6);
}

/* slot_of for every request from what the slots hold (held). */
static void ctx_map(struct e1000x_txq *tq)
{
	for (uint32_t r = 0; r < 16; r++) {
		tq->slot_of[r] = r & 3 ? -1 : 0;
		for (int s = ctx_slots(tq->adv) - 1; s >= 0; s--)
			if (tq->held[s] >= 0 && ctx_serves(r, tq->held[s]))
				tq->slot_of[r] = (int8_t)s;
	}
}

/* Step 2 for a frame with request r that no slot serves: the context of
 * its kind (desc.h) at ring[t], into slot next_slot. */
static void __attribute__((noinline)) tx_ctx_write(struct e1000x_txq *tq, uint32_t t, uint32_t r)
{
	volatile union tx_desc *d = &tq->ring[t];
	int k = ctx_kind(r), s = tq->next_slot;
	uint32_t iplen = k & CTX_IP6 ? 40 : 20, tucss = 14 + iplen, tucso = tucss + (k & CTX_UDP ? 6 : 16);
	if (tq->adv) {
		d->d.addr = iplen | 14u << ADVTXD_MACLEN_SHIFT;	/* IPLEN, MACLEN; seqnum_seed 0 */
		d->d.cmd_type_len = (k & CTX_IP6 ? 0 : ADVTXD_TUCMD_IPV4) | (k & CTX_UDP ? 0 : ADVTXD_TUCMD_L4T_TCP) |
				    ADVTXD_DTYP_CTXT | ADVTXD_DCMD_DEXT;
		d->d.status = (uint32_t)s << ADVTXD_IDX_SHIFT;	/* mss_l4len_idx */
	} else {
		uint64_t ip = k & CTX_IP6 ? 0 : TXCTX_IPCSS | TXCTX_IPCSO << 8 | (uint64_t)TXCTX_IPCSE << 16;
		d->d.addr = ip | (uint64_t)tucss << 32 | (uint64_t)tucso << 40;	/* TUCSE 0: to the frame's end */
		d->d.cmd_type_len = TXD_DEXT | (k & CTX_IP6 ? 0 : TXD_TUCMD_IP) | (k & CTX_UDP ? 0 : TXD_TUCMD_TCP);
		d->d.status = 0;
	}
	tq->held[s] = (int8_t)k;
	tq->next_slot = (uint8_t)((s + 1) % ctx_slots(tq->adv));
	ctx_map(tq);
	tq->bufs[t] = &tq->ctx;
	tq->ctx.clones++;	/* one reference per descriptor: the reclaim's frees drop them */
	tq->sw[NS_tx_csum_ctx]++;
}

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
	tq->held[0] = tq->held[1] = -1;	/* a reset empties the NIC's slots */
	tq->next_slot = 0;
	ctx_map(tq);
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

_Static_assert(PKT_TX_IP_CSUM == 1u << 9 && PKT_TX_L4_CSUM == 1u << 10, "flags >> 9 are POPTS IXSM, TXSM");

/* Descriptor d for packet p (see tx_fill; slot_of: the ring's); ORs its
 * flags into *flags and adds its length to *sum. The length goes into the
 * command word by addition (no bit of cmd is below bit 16), which the
 * compiler does in one instruction. */
static inline __attribute__((always_inline))
void tx_put(volatile union tx_desc *d, struct pkt **bp, struct pkt *p, const int adv, const int csum,
	    uint32_t cmd, const int8_t *slot_of, uint32_t *flags, uint64_t *sum)
{
	uint32_t fl = p->flags, len = p->len;
	d->d.addr = (uint64_t)p->data;
	if (csum) {
		uint32_t popts = fl >> 9 & 3;
		d->d.cmd_type_len = len + cmd + (adv || !popts ? 0 : TXD_DEXT | TXD_DTYP_DATA);
		d->d.status = (adv ? len << ADVTXD_PAYLEN_SHIFT |
					     (uint32_t)(uint8_t)slot_of[REQ(fl)] << ADVTXD_IDX_SHIFT : 0) |
			      popts << TXD_POPTS_SHIFT;
	} else {
		d->d.cmd_type_len = len + cmd;
		d->d.status = adv ? len << ADVTXD_PAYLEN_SHIFT : 0;
	}
	*bp = p;
	*flags |= fl;
	*sum += len;
}

/* Descriptors for pkts[0..n) at ring[t..t+n) (no wrap), advanced (igb)
 * or legacy (cmd: the legacy command byte), four at a time and then one
 * at a time; adds their bytes to *bytes.
 * With csum (a port whose app asks for checksum insertion) a frame's
 * PKT_TX_IP_CSUM / PKT_TX_L4_CSUM become POPTS IXSM / TXSM in its data
 * descriptor, a legacy one then written as a TCP/IP data descriptor (DEXT,
 * DTYP 0001; 8254x SDM 3.3.7), an advanced one with the IDX of the slot
 * holding its context (every frame's is in a slot). Returns the frames'
 * flags ORed. */
static inline __attribute__((always_inline))
uint32_t tx_fill(struct e1000x_txq *tq, uint32_t t, struct pkt **pkts, int n, const int adv, const int csum,
		 uint32_t cmd, uint64_t *bytes)
{
	_Static_assert(((ADVTXD_DTYP_DATA | ADVTXD_DCMD_EOP | ADVTXD_DCMD_IFCS | ADVTXD_DCMD_DEXT | ADVTXD_DCMD_RS |
			 TXD_DEXT | TXD_DTYP_DATA | (uint32_t)(TXD_CMD_EOP | TXD_CMD_IFCS | TXD_CMD_IDE | TXD_CMD_RS) << 24) &
			0xffff) == 0, "tx_put adds the length to command bits above bit 15");
	volatile union tx_desc *d = &tq->ring[t];
	struct pkt **bp = &tq->bufs[t], **pp = pkts, **end4 = pkts + (n & ~3), **end = pkts + n;
	const int8_t *so = tq->slot_of;
	uint32_t flags = 0;
	uint64_t sum = 0;
	for (; pp != end4; pp += 4, d += 4, bp += 4) {
		tx_put(d, bp, pp[0], adv, csum, cmd, so, &flags, &sum);
		tx_put(d + 1, bp + 1, pp[1], adv, csum, cmd, so, &flags, &sum);
		tx_put(d + 2, bp + 2, pp[2], adv, csum, cmd, so, &flags, &sum);
		tx_put(d + 3, bp + 3, pp[3], adv, csum, cmd, so, &flags, &sum);
	}
	for (; pp != end; pp++, d++, bp++)
		tx_put(d, bp, *pp, adv, csum, cmd, so, &flags, &sum);
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
 * are given back in runs (NIC_TX_FREE_THRESH), or when the burst needs
 * theirs. */
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

/* tx_burst of one frame (a request-response answer) when its checksum
 * context, if any, is in a slot, fewer than NIC_TX_FREE_THRESH descriptors
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

/* 1: every frame of pkts[0..n) has its checksum context in a slot. */
static inline int ctx_ready(const struct e1000x_txq *tq, struct pkt **pkts, int n)
{
	int m = 0;
	for (int k = 0; k < n; k++)
		m |= tq->slot_of[REQ(pkts[k]->flags)];
	return m >= 0;
}

/* tx_many when a frame needs a context no slot holds (room: tx_room's):
 * frame by frame, each such one after its context (tx_ctx_write), while
 * there is room for both. */
static int __attribute__((noinline)) tx_ctx_burst(struct e1000x_txq *tq, struct pkt **pkts, int n, int room)
{
	const int adv = tq->adv;
	uint32_t t = tq->tail, batch = t, last = t, cmd = tx_cmd(tq->nic, adv);
	uint64_t bytes = 0;
	int sent = 0;
	for (; sent < n; sent++) {
		uint32_t r = REQ(pkts[sent]->flags);
		int need = tq->slot_of[r] < 0 ? 2 : 1;
		if (room < need)
			break;
		if (need == 2) {
			tx_ctx_write(tq, t, r);
			t = t + 1 == tq->n ? 0 : t + 1;
		}
		last = t;
		tx_write(tq, t, pkts + sent, 1, adv, cmd, &bytes);
		t = t + 1 == tq->n ? 0 : t + 1;
		room -= need;
	}
	if (sent) {
		tq->ring[last].d.cmd_type_len |= tx_rs(adv);
		tx_post(tq, batch, last, sent, bytes);
	}
	if (sent < n)
		tq->sw[NS_tx_ring_full]++;
	return sent;
}

/* tx_burst of any n: steps 1-4. */
static inline __attribute__((always_inline))
int tx_many(struct e1000x_txq *tq, struct pkt **pkts, int n, const int adv)
{
	uint32_t t = tq->tail, batch = t;
	int room = tx_room(tq, n);
	uint64_t bytes = 0;
	if (__builtin_expect(tq->ctx_set != tq->nic->tx_csum_on, 0))
		tq->ctx_set = tq->nic->tx_csum_on;
	if (tq->ctx_set && __builtin_expect(!ctx_ready(tq, pkts, n), 0))
		return tx_ctx_burst(tq, pkts, n, room);
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
	    !(pkts[0]->flags & PKT_TX_TSTAMP) && tq->slot_of[REQ(pkts[0]->flags)] >= 0)
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
