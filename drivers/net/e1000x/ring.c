/* RX and TX descriptor rings shared by the gigabit families; see ring.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "drivers/net/e1000x/e1000x.h"
#include "drivers/net/e1000x/ring.h"
#include "drivers/net/phc.h"
#include "kernel/mem.h"

/* Descriptor stores must reach memory before the tail write that hands
 * them over (x86 keeps store order, so a compiler barrier is enough), and
 * the DD read before the other write-back fields (loads are not reordered
 * with loads on x86). Intel SDM vol. 3A 8.2.2. */
/* Largest frame accepted without RCTL.LPE: 1518 + a VLAN tag, less the FCS. */
#define ETH_MAX_FRAME 1518

#define dma_wmb() __atomic_signal_fence(__ATOMIC_RELEASE)
#define dma_rmb() __atomic_signal_fence(__ATOMIC_ACQUIRE)

/* What the ring's buffer array holds at a context descriptor: a packet
 * nobody frees (tx_free and release pass over it). */
static struct pkt ctx_slot = { .clones = 1 };

static void rx_arm(struct e1000x_rxq *rq, uint32_t i)
{
	rq->ring[i].read.addr = (uint64_t)rq->bufs[i]->buf;
	rq->ring[i].read.hdr_addr = 0;	/* clears the write-back status, DD included */
}

int e1000x_rxq_init(struct e1000x_rxq *rq)
{
	struct nic *nic = rq->nic;
	if (!rq->ring)
		rq->ring = dma_alloc_below(rq->n * sizeof(union rx_desc), 128, nic->dma_limit);
	if (!rq->bufs)
		rq->bufs = calloc(rq->n, sizeof(*rq->bufs));
	if (!rq->ring || !rq->bufs || pkt_alloc_bulk(nic->pool, rq->bufs, (int)rq->n) != (int)rq->n) {
		printf("%s: no memory for RX queue %d (%u descriptors)\n", nic->name, rq->q, rq->n);
		return -1;
	}
	for (uint32_t i = 0; i < rq->n; i++)
		rx_arm(rq, i);
	rq->next = 0;
	rq->discarding = 0;
	return 0;
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
	return 0;
}

void e1000x_txq_release(struct e1000x_txq *tq)
{
	e1000x_tx_reclaim(tq);
	for (; tq->clean != tq->tail; tq->clean = tq->clean + 1 == tq->n ? 0 : tq->clean + 1) {
		if (tq->bufs[tq->clean] == &ctx_slot)
			continue;
		pkt_free(tq->bufs[tq->clean]);
		tq->nic->stats[NS_tx_dropped]++;
	}
}

/* The descriptor's checksum results (82574 7.1.4.2 / 82576 7.1.5.2: IPCS,
 * TCPCS, UDPCS and the IPE, TCPE errors), 5 bits of it as csum_index()
 * packs them, decided once: the pkt flags (a flag only where the NIC set
 * its "checked" bit) in bits 7:0, and the counts for rx_csum_offload_good
 * in bits 43:32 and rx_csum_offload_errors in bits 55:44, so that a burst
 * sums both counts by adding the entries (the flags summed below bit 32
 * are discarded). The counts are Linux e1000e's (e1000_rx_checksum), one
 * per frame: an error when IPE or TCPE is set, else good when the NIC
 * checked the TCP or UDP checksum. */
#define CS_L4(i)	(((i) & 3) != 0)	/* TCPCS or UDPCS */
#define CS_IP(i)	(((i) & 4) != 0)	/* IPCS */
#define CS_L4E(i)	(((i) & 8) != 0)	/* TCPE */
#define CS_IPE(i)	(((i) & 16) != 0)	/* IPE */
#define CSUM_RES(i) \
	((CS_IP(i) ? (CS_IPE(i) ? PKT_RX_IP_CSUM_BAD : PKT_RX_IP_CSUM_OK) : 0) | \
	 (CS_L4(i) ? (CS_L4E(i) ? PKT_RX_L4_CSUM_BAD : PKT_RX_L4_CSUM_OK) : 0) | \
	 (uint64_t)(CS_L4(i) && !CS_L4E(i) && !CS_IPE(i)) << 32 | \
	 (uint64_t)((CS_IP(i) && CS_IPE(i)) || (CS_L4(i) && CS_L4E(i))) << 44)
#define CSUM_RES4(i) CSUM_RES(i), CSUM_RES(i + 1), CSUM_RES(i + 2), CSUM_RES(i + 3)
#define CSUM_RES16(i) CSUM_RES4(i), CSUM_RES4(i + 4), CSUM_RES4(i + 8), CSUM_RES4(i + 12)
static const uint64_t csum_res[32] = { CSUM_RES16(0), CSUM_RES16(16) };

/* Index into csum_res: status bits 4-6 (UDPCS, TCPCS, IPCS) and 29-30
 * (TCPE, IPE) as bits 0-4. The multiply adds a copy of bits 4-6 moved up
 * to 26-28, right under 29-30 (no two set bits meet, so no carries). */
#define CSUM_BITS 0x60000070u
static inline uint32_t csum_index(uint32_t st)
{
	return ((st & CSUM_BITS) * 0x400001u) >> 26;
}

/* Add a burst's summed csum_res entries to the port's counters. */
static inline void csum_count(uint64_t *sw, uint64_t sum)
{
	sw[NS_rx_csum_offload_good] += sum >> 32 & 0xfff;
	sw[NS_rx_csum_offload_errors] += sum >> 44 & 0xfff;
}

/* Status of descriptor d in the extended layout (legacy converted): DD, EOP,
 * checksum bits and errors in their extended positions. */
static inline uint32_t desc_status(volatile union rx_desc *d, int legacy, uint16_t *len)
{
	if (!legacy) {
		uint32_t st = d->wb.staterr;
		dma_rmb();
		*len = d->wb.length;
		return st;
	}
	uint32_t s = d->legacy.status;
	dma_rmb();
	uint32_t e = d->legacy.errors;
	*len = d->legacy.length;
	if (s & RXD_STAT_IXSM)
		s &= ~(RXD_STAT_IPCS | RXD_STAT_TCPCS);
	return (s & (RXDEXT_DD | RXDEXT_EOP | RXDEXT_TCPCS | RXDEXT_IPCS)) | (uint32_t)e << 24;
}

int e1000x_port_rx_pending(struct nic *nic, int q)
{
	return e1000x_rx_pending(nic, q);
}

void e1000x_rxq_release(struct e1000x_rxq *rq)
{
	/* Frames the NIC wrote back (DD) that were never delivered: counted
	 * (rx_packets counted them) and dropped with their buffers. The ring
	 * memory survives CTRL.RST, so the write-backs are still there. */
	uint16_t len;
	for (uint32_t i = rq->next, k = 0; k < rq->n; k++, i = i + 1 == rq->n ? 0 : i + 1) {
		uint32_t st = desc_status(&rq->ring[i], rq->legacy, &len);
		if (!(st & RXDEXT_DD))
			break;
		rq->nic->stats[NS_rx_drop_reset] += !!(st & RXDEXT_EOP);
	}
	for (uint32_t i = 0; i < rq->n; i++)
		if (rq->bufs[i]) {
			pkt_free(rq->bufs[i]);
			rq->bufs[i] = 0;
		}
}

/* The frame in descriptor i that is not the common case (see rx_burst):
 * a piece of a long frame, a descriptor error, a timestamp, a copybreak
 * copy. Returns the packet to deliver or NULL (dropped, counted); the
 * descriptor's buffer is replaced when it is delivered. */
static struct pkt *rx_rare(struct e1000x_rxq *rq, uint32_t i, uint32_t st, uint16_t len)
{
	struct nic *nic = rq->nic;
	uint64_t *sw = rq->sw;
	struct pkt *p = rq->bufs[i], *out = p;
	uint32_t off = 0;
	uint64_t ts = 0;
	if (!(st & RXDEXT_EOP) || rq->discarding || len > ETH_MAX_FRAME) {
		/* Longer than a VLAN-tagged 1518-byte frame (QEMU's igb passes those
		 * with RCTL.LPE clear), or spread over buffers: drop every piece,
		 * count the frame once. */
		if (!rq->discarding)
			sw[NS_rx_drop_oversize]++;
		rq->discarding = !(st & RXDEXT_EOP);
		return 0;
	}
	if (st & RXDEXT_ERR_FRAME) {
		sw[NS_rx_drop_desc_error]++;
		return 0;
	}
	if ((st & rq->tsip_bit) && len > RX_TS_HDR_LEN) {
		memcpy(&ts, p->buf + 8, 8);	/* I350/I210 7.1.5: SYSTIM leads the frame */
		off = RX_TS_HDR_LEN;
		len = (uint16_t)(len - off);
	}
	if (nic->small_pool && len <= nic->cfg.copybreak && (out = pkt_alloc_inline(nic->small_pool))) {
		memcpy(out->data, p->buf + off, len);
		sw[NS_rx_copybreak]++;
	} else {
		struct pkt *fresh = pkt_alloc_inline(nic->pool);
		if (!fresh) {
			sw[NS_alloc_rx_buff_failed]++;
			return 0;
		}
		rq->bufs[i] = fresh;
		out = p;
		out->data = p->buf + off;
	}
	uint64_t cr = csum_res[csum_index(st)];
	out->len = len;
	out->port = (uint16_t)nic->port;
	out->queue = (uint16_t)rq->q;
	out->flags = cr & 0xff;
	if (off)
		phc_rx_buf_tstamp(nic, out, ts);
	else if (st & rq->ts_bit)
		phc_rx_hwtstamp(nic, out);
	csum_count(sw, cr);
	return out;
}

/* The burst loop of rx_burst, specialised by the compiler for each
 * descriptor format and prefetch setting (constants at each call). Runs
 * of common frames (DD and EOP, no frame error or timestamp bit, not
 * inside a long frame, longer than copybreak and at most ETH_MAX_FRAME)
 * take the fast loop, each run bounded up front by the ring's end, the
 * frames wanted and the free buffers, so that the loop checks nothing
 * else; any other frame goes to rx_rare. Returns frames delivered; sets
 * *bytes_out to their bytes and *csum_out to their summed csum_res. */
static inline __attribute__((always_inline))
int rx_loop(struct e1000x_rxq *rq, struct pkt **pkts, int n, const int legacy, const int prefetch,
	    uint64_t *bytes_out, uint64_t *csum_out)
{
	struct pktpool *pool = rq->nic->pool;
	volatile union rx_desc *ring = rq->ring;
	uint32_t i = rq->next, nd = rq->n, last = nd;
	uint32_t portq = (uint32_t)rq->nic->port | (uint32_t)rq->q << 16;
	uint32_t mask = RXDEXT_DD | RXDEXT_EOP | RXDEXT_ERR_FRAME | rq->ts_bit | rq->tsip_bit;
	uint32_t cb = rq->nic->cfg.copybreak > 0 ? (uint32_t)rq->nic->cfg.copybreak : 0;
	/* Common lengths: lo..ETH_MAX_FRAME, one unsigned compare (none when
	 * copybreak takes every frame: len - UINT32_MAX = len + 1 > 0). */
	uint32_t lo = cb < ETH_MAX_FRAME ? cb + 1 : UINT32_MAX, span = cb < ETH_MAX_FRAME ? ETH_MAX_FRAME - lo : 0;
	uint64_t bytes = 0, csum = 0, cr = csum_res[0];
	uint32_t ci = 0;	/* the checksum bits cr is for (csum_index) */
	struct pkt **out = pkts, **end = pkts + n;

	/* The pool's free stack is held for the burst: one lock, and its top
	 * in a register. */
	pktpool_lock(pool);
	struct pkt **top = pool->free + pool->nfree;
	while (out != end) {
		uint32_t run = (uint32_t)(end - out), room = nd - i, nfree = (uint32_t)(top - pool->free);
		run = run < room ? run : room;
		run = run < nfree ? run : nfree;
		volatile union rx_desc *d = &ring[i], *stop = d + (rq->discarding ? 0 : run);
		struct pkt **bp = &rq->bufs[i];
		for (; d != stop; d++, bp++) {
			uint16_t len;
			uint32_t st = desc_status(d, legacy, &len);
			if (__builtin_expect((st & mask) != (RXDEXT_DD | RXDEXT_EOP) || (uint32_t)len - lo > span, 0))
				break;
			struct pkt *p = *bp, *fresh = *--top;
			*bp = fresh;
			d->read.addr = (uint64_t)fresh->buf;
			d->read.hdr_addr = 0;	/* clears the write-back status, DD included */
			p->data = p->buf;
			if (prefetch)
				__builtin_prefetch(p->buf);
			p->len = len;
			memcpy(&p->port, &portq, sizeof(portq));	/* port, queue */
			if (__builtin_expect((st & CSUM_BITS) != ci, 0)) {	/* mostly as the frame before */
				ci = st & CSUM_BITS;
				cr = csum_res[csum_index(st)];
			}
			p->flags = (uint8_t)cr;
			csum += cr;
			bytes += len;
			*out++ = p;
		}
		uint32_t k = (uint32_t)(d - &ring[i]);
		if (k) {
			i += k;
			last = i - 1;
			if (i == nd)
				i = 0;
		}
		if (out == end || (k == run && k == room))
			continue;	/* done, or on from the ring's start */
		/* Descriptor i is not done, or not the common case, or no
		 * buffer is left to replace its own. */
		uint16_t len;
		uint32_t st = desc_status(&ring[i], legacy, &len);
		if (!(st & RXDEXT_DD))
			break;
		pool->nfree = (uint32_t)(top - pool->free);
		pktpool_unlock(pool);
		struct pkt *p = rx_rare(rq, i, st, len);
		pktpool_lock(pool);
		top = pool->free + pool->nfree;
		if (p) {
			*out++ = p;
			bytes += p->len;
		}
		ring[i].read.addr = (uint64_t)rq->bufs[i]->buf;
		ring[i].read.hdr_addr = 0;
		last = i;
		i = i + 1 == nd ? 0 : i + 1;
	}
	pool->nfree = (uint32_t)(top - pool->free);
	pktpool_unlock(pool);
	if (prefetch)
		__builtin_prefetch((const void *)&ring[i]);
	if (last != nd) {
		dma_wmb();
		wr32(rq->regs, rq->rdt, last);
	}
	rq->next = i;
	*bytes_out = bytes;
	*csum_out = csum;
	return (int)(out - pkts);
}

_Static_assert(__builtin_offsetof(struct pkt, queue) == __builtin_offsetof(struct pkt, port) + 2,
	       "rx_loop stores port and queue as one 32-bit word");

/* A burst's counters: got frames of bytes, their summed csum_res entries. */
static inline void rx_count(struct e1000x_rxq *rq, int got, uint64_t bytes, uint64_t csum)
{
	uint64_t *sw = rq->sw;
	struct nic_qstats *qs = rq->qs;
	qs->polls++;
	qs->poll_pkts += (uint64_t)got;
	qs->rx_packets += (uint64_t)got;
	qs->rx_bytes += bytes;
	sw[NS_rx_delivered] += (uint64_t)got;
	csum_count(sw, csum);
}

/* rx_burst of up to n frames when its first descriptor is done and not
 * a lone common frame (rx_one): the burst loop. */
static int __attribute__((noinline)) rx_many(struct e1000x_rxq *rq, struct pkt **pkts, int n)
{
	struct nic *nic = rq->nic;
	uint64_t bytes, csum;
	int got = rq->legacy ? rx_loop(rq, pkts, n, 1, nic->cfg.prefetch, &bytes, &csum) :
		  nic->cfg.prefetch ? rx_loop(rq, pkts, n, 0, 1, &bytes, &csum) :
		  rx_loop(rq, pkts, n, 0, 0, &bytes, &csum);
	rx_count(rq, got, bytes, csum);
	return got;
}

/* Descriptor i (status st, length len) holds the only frame done, a
 * request-response wake: if it is the common case of rx_loop, take it
 * into pkts[0] without the burst loop's set-up, count it and return 1;
 * else (or with the pool empty) leave it to rx_many. */
static int __attribute__((noinline)) rx_one(struct e1000x_rxq *rq, struct pkt **pkts, int n, uint32_t i,
					    uint32_t st, uint16_t len)
{
	struct nic *nic = rq->nic;
	struct pktpool *pool = nic->pool;
	if ((st & (RXDEXT_DD | RXDEXT_EOP | RXDEXT_ERR_FRAME | rq->ts_bit | rq->tsip_bit)) != (RXDEXT_DD | RXDEXT_EOP) ||
	    len > ETH_MAX_FRAME || (int64_t)len <= nic->cfg.copybreak || rq->discarding)
		return rx_many(rq, pkts, n);
	pktpool_lock(pool);
	if (!pool->nfree) {
		pktpool_unlock(pool);
		return rx_many(rq, pkts, n);
	}
	struct pkt *p = rq->bufs[i], *fresh = pool->free[--pool->nfree];
	pktpool_unlock(pool);
	rq->bufs[i] = fresh;
	rq->ring[i].read.addr = (uint64_t)fresh->buf;
	rq->ring[i].read.hdr_addr = 0;	/* clears the write-back status, DD included */
	uint64_t cr = csum_res[csum_index(st)];
	p->data = p->buf;
	p->len = len;
	p->port = (uint16_t)nic->port;
	p->queue = (uint16_t)rq->q;
	p->flags = (uint8_t)cr;
	if (nic->cfg.prefetch)
		__builtin_prefetch(p->buf);	/* the next descriptor was just read */
	dma_wmb();
	wr32(rq->regs, rq->rdt, i);
	rq->next = i + 1 == rq->n ? 0 : i + 1;
	pkts[0] = p;
	rx_count(rq, 1, len, cr);
	return 1;
}

int e1000x_port_rx_burst(struct nic *nic, int q, struct pkt **pkts, int n)
{
	struct e1000x_rxq *rq = &to_port(nic)->rxq[q];
	uint32_t i = rq->next, after = i + 1 == rq->n ? 0 : i + 1;
	uint16_t len, len2;
	uint32_t st = desc_status(&rq->ring[i], rq->legacy, &len);
	if (!(st & RXDEXT_DD)) {
		rq->qs->polls++;	/* nothing */
		return 0;
	}
	if (desc_status(&rq->ring[after], rq->legacy, &len2) & RXDEXT_DD)
		return rx_many(rq, pkts, n);
	return rx_one(rq, pkts, n, i, st, len);
}

/* Give back to their pools the sent packets bufs[a..b) (no wrap): one
 * lock per run of packets from the same pool, whose free stack top is kept
 * in a register meanwhile; a run without clones checks nothing else. */
static void tx_free(struct pkt **bufs, uint32_t a, uint32_t b)
{
	struct pktpool *pool = 0;
	struct pkt **top = 0, **bp = bufs + a, **end = bufs + b;
	while (bp != end) {
		struct pkt *p = *bp;
		if (p->clones) {
			if (p != &ctx_slot)
				p->clones--;
			bp++;
			continue;
		}
		if (p->pool != pool) {
			if (pool) {
				pool->nfree = (uint32_t)(top - pool->free);
				pktpool_unlock(pool);
			}
			pool = p->pool;
			pktpool_lock(pool);
			top = pool->free + pool->nfree;
		}
		/* the run: p and those after it from the same pool, no clones */
		do {
			*top++ = p;
			if (++bp == end)
				break;
			p = *bp;
		} while (p->pool == pool && !p->clones);
	}
	if (pool) {
		pool->nfree = (uint32_t)(top - pool->free);
		pktpool_unlock(pool);
	}
}

uint32_t e1000x_tx_reclaim(struct e1000x_txq *tq)
{
	/* locals: the frees' stores could alias the queue's fields. Only the
	 * last descriptor of each tx_burst asks for a status write-back (RS);
	 * rs_at[first] holds it, and its DD means the whole batch is sent.
	 * The NIC works through the ring in order, so when the newest batch
	 * (its RS descriptor is the one before tail) is done, all are. The
	 * batches done are freed as one run (two when it wraps). */
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
			tx_free(tq->bufs, start, n);
			tx_free(tq->bufs, 0, c);
		} else {
			tx_free(tq->bufs, start, c);
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

/* The checksum context (desc.h) at ring[t], before the frames of a burst,
 * once per ring init on a port whose app asks for checksum insertion. */
static void __attribute__((noinline)) tx_csum_ctx(struct e1000x_txq *tq, uint32_t t)
{
	volatile union tx_desc *d = &tq->ring[t];
	if (tq->adv) {
		d->d.addr = 20u | 14u << ADVTXD_MACLEN_SHIFT;	/* IPLEN, MACLEN; seqnum_seed 0 */
		d->d.cmd_type_len = ADVTXD_TUCMD_IPV4 | ADVTXD_TUCMD_L4T_TCP | ADVTXD_DTYP_CTXT | ADVTXD_DCMD_DEXT;
	} else {
		d->d.addr = TXCTX_IPCSS | TXCTX_IPCSO << 8 | (uint64_t)TXCTX_IPCSE << 16 | (uint64_t)TXCTX_TUCSS << 32 |
			    (uint64_t)TXCTX_TUCSO << 40;	/* TUCSE 0: to the frame's end */
		d->d.cmd_type_len = TXD_DEXT | TXD_TUCMD_IP | TXD_TUCMD_TCP;
	}
	d->d.status = 0;	/* advanced: mss_l4len_idx, context slot 0 */
	tq->bufs[t] = &ctx_slot;
	tq->ctx_set = 1;
}

_Static_assert(PKT_TX_IP_CSUM == 1u << 9 && PKT_TX_TCP_CSUM == 1u << 10, "flags >> 9 are POPTS IXSM, TXSM");


/* Descriptors for pkts[0..n) at ring[t..t+n) (no wrap), advanced (igb)
 * or legacy (cmd: the legacy command byte); adds their bytes to *bytes.
 * With csum (a port whose app asks for checksum insertion) a frame's
 * PKT_TX_IP_CSUM / PKT_TX_TCP_CSUM become POPTS IXSM / TXSM in its data
 * descriptor, a legacy one then written as a TCP/IP data descriptor (DEXT,
 * DTYP 0001; 8254x SDM 3.3.7). Returns the frames' flags ORed: with
 * PKT_TX_TSTAMP among them the caller runs tx_tstamp over the run. */
static inline __attribute__((always_inline))
uint32_t tx_fill(struct e1000x_txq *tq, uint32_t t, struct pkt **pkts, int n, const int adv, const int csum,
		 uint32_t cmd, uint64_t *bytes)
{
	volatile union tx_desc *d = &tq->ring[t];
	struct pkt **bp = &tq->bufs[t];
	uint32_t flags = 0;
	uint64_t sum = 0;
	for (struct pkt **pp = pkts, **end = pkts + n; pp != end; pp++, d++, bp++) {
		struct pkt *p = *pp;
		flags |= p->flags;
		d->d.addr = (uint64_t)p->data;
		if (csum) {
			uint32_t popts = p->flags >> 9 & 3;
			d->d.cmd_type_len = p->len | cmd | (adv || !popts ? 0 : TXD_DEXT | TXD_DTYP_DATA);
			d->d.status = (adv ? (uint32_t)p->len << ADVTXD_PAYLEN_SHIFT : 0) | popts << TXD_POPTS_SHIFT;
		} else {
			d->d.cmd_type_len = p->len | cmd;
			d->d.status = adv ? (uint32_t)p->len << ADVTXD_PAYLEN_SHIFT : 0;
		}
		*bp = p;
		sum += p->len;
	}
	*bytes += sum;
	return flags;
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

/* The legacy command byte of every frame's descriptors (RS aside). */
static inline uint32_t tx_cmd_legacy(const struct nic *nic)
{
	return (TXD_CMD_EOP | TXD_CMD_IFCS | (nic->cfg.tx_int_delay ? TXD_CMD_IDE : 0)) << 24;
}
#define TX_CMD_ADV (ADVTXD_DTYP_DATA | ADVTXD_DCMD_EOP | ADVTXD_DCMD_IFCS | ADVTXD_DCMD_DEXT)

/* Hand the batch ring[batch..last] of sent frames (bytes) to the NIC. */
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
static int __attribute__((noinline)) tx_one(struct e1000x_txq *tq, struct pkt **pkts)
{
	uint32_t t = tq->tail;
	uint64_t bytes = 0;
	if (tq->adv) {
		uint32_t cmd = TX_CMD_ADV | ADVTXD_DCMD_RS;
		if (tq->ctx_set)
			tx_fill(tq, t, pkts, 1, 1, 1, cmd, &bytes);
		else
			tx_fill(tq, t, pkts, 1, 1, 0, cmd, &bytes);
	} else {
		uint32_t cmd = tx_cmd_legacy(tq->nic) | (uint32_t)TXD_CMD_RS << 24;
		if (tq->ctx_set)
			tx_fill(tq, t, pkts, 1, 0, 1, cmd, &bytes);
		else
			tx_fill(tq, t, pkts, 1, 0, 0, cmd, &bytes);
	}
	tx_post(tq, t, t, 1, bytes);
	return 1;
}

/* tx_burst of any n: up to two runs of descriptors, the checksum context
 * first when the app has just turned insertion on. */
static int __attribute__((noinline)) tx_many(struct e1000x_txq *tq, struct pkt **pkts, int n)
{
	struct nic *nic = tq->nic;
	uint64_t *sw = tq->sw;
	uint32_t t = tq->tail, nd = tq->n, batch = t;
	int room = tx_room(tq, n);
	uint64_t bytes = 0;

	if (__builtin_expect(tq->ctx_set != nic->tx_csum_on, 0)) {
		/* The app turned checksum insertion on: the context goes first. */
		if (!nic->tx_csum_on) {
			tq->ctx_set = 0;
		} else if (n > 0 && room > 1) {
			tx_csum_ctx(tq, t);
			t = t + 1 == nd ? 0 : t + 1;
			room--;
		} else {
			room = 0;
		}
	}
	int sent = n < room ? n : room;
	if (sent <= 0) {
		if (n > 0)
			sw[NS_tx_ring_full]++;
		return 0;
	}
	/* In at most two linear runs: to the ring's end, then from its start. */
	int first = (int)(nd - t) < sent ? (int)(nd - t) : sent;
	uint32_t last = t + (uint32_t)sent - 1 < nd ? t + (uint32_t)sent - 1 : t + (uint32_t)sent - 1 - nd;
	uint32_t flags;
	if (tq->adv) {
		if (tq->ctx_set) {
			flags = tx_fill(tq, t, pkts, first, 1, 1, TX_CMD_ADV, &bytes);
			if (first < sent)
				flags |= tx_fill(tq, 0, pkts + first, sent - first, 1, 1, TX_CMD_ADV, &bytes);
		} else {
			flags = tx_fill(tq, t, pkts, first, 1, 0, TX_CMD_ADV, &bytes);
			if (first < sent)
				flags |= tx_fill(tq, 0, pkts + first, sent - first, 1, 0, TX_CMD_ADV, &bytes);
		}
		tq->ring[last].d.cmd_type_len |= ADVTXD_DCMD_RS;
	} else {
		uint32_t cmd = tx_cmd_legacy(nic);
		if (tq->ctx_set) {
			flags = tx_fill(tq, t, pkts, first, 0, 1, cmd, &bytes);
			if (first < sent)
				flags |= tx_fill(tq, 0, pkts + first, sent - first, 0, 1, cmd, &bytes);
		} else {
			flags = tx_fill(tq, t, pkts, first, 0, 0, cmd, &bytes);
			if (first < sent)
				flags |= tx_fill(tq, 0, pkts + first, sent - first, 0, 0, cmd, &bytes);
		}
		tq->ring[last].d.cmd_type_len |= (uint32_t)TXD_CMD_RS << 24;
	}
	if (__builtin_expect(flags & PKT_TX_TSTAMP, 0)) {
		tx_tstamp(tq, t, pkts, first);
		if (first < sent)
			tx_tstamp(tq, 0, pkts + first, sent - first);
	}
	tx_post(tq, batch, last, sent, bytes);
	if (sent < n)
		sw[NS_tx_ring_full]++;
	return sent;
}

int e1000x_port_tx_burst(struct nic *nic, int q, struct pkt **pkts, int n)
{
	struct e1000x_txq *tq = &to_port(nic)->txq[q];
	uint32_t t = tq->tail, c = tq->clean;
	if (n == 1 && tq->ctx_set == nic->tx_csum_on && (t >= c ? t - c : t + tq->n - c) < NIC_TX_FREE_THRESH &&
	    !(pkts[0]->flags & PKT_TX_TSTAMP))
		return tx_one(tq, pkts);
	return tx_many(tq, pkts, n);
}

int e1000x_tx_desc_done(const struct e1000x_txq *tq, uint32_t desc)
{
	uint32_t inflight = (tq->tail + tq->n - tq->clean) % tq->n;
	uint32_t pos = (desc + tq->n - tq->clean) % tq->n;
	return pos >= inflight || (tq->ring[desc].d.status & TXD_DD);
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
