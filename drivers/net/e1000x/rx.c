/*
 * Receive rings of e1000, e1000e, igb and ixgbe: the queue's state is in ring.h,
 * the descriptor formats in desc.h. A burst (rx_burst) receives like
 * ixy's ixgbe_rx_batch:
 *   step 1: read the status of descriptor `next`; no DD (descriptor done)
 *           means the NIC has written no frame there yet: the burst ends.
 *   step 2: DD with EOP, no error, a length the fast loop takes: the
 *           descriptor's buffer becomes the packet handed out (length,
 *           port and queue, checksum flags from the status bits).
 *   step 3: a fresh buffer from the port's pool goes into the descriptor,
 *           its status cleared for the NIC's next write-back.
 *   step 4: on to the next descriptor (wrapping at the ring's end) until
 *           n packets are out or step 1 ends the burst.
 *   step 5: RDT = the last descriptor refilled: the NIC may use them all
 *           again. Then the burst's counters.
 * On the extended and advanced formats (e1000e, igb, ixgbe: the same
 * write-back layout, 82574 7.1.4.2, 82576 7.1.5.2, 82599 7.1.6.2) steps
 * 1-3 go four descriptors at a time first (rx_fast4, DPDK's vector RX
 * test in SSE2: the group's four status words and lengths checked with
 * one branch), then one at a time for the rest and for a group that
 * fails. Everything else a descriptor can hold (a piece of a long frame,
 * an error, a timestamp, a stripped VLAN tag, a copybreak copy, a frame
 * shorter than NIC_TX_MIN_LEN, counted in rx_short) goes one frame at a
 * time to rx_rare. A lone frame (a request-response wake) takes rx_one,
 * which skips the burst loop's set-up. The descriptor format (legacy on e1000,
 * extended on e1000e and igb, advanced with the 82599's error bits on
 * ixgbe) is a constant of each burst function (e1000x_rx_burst_ext,
 * _legacy and _82599), chosen when the port is set up; the
 * prefetch knob, which `set` changes while the port runs, picks one of
 * the two loops compiled for it once per burst.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <emmintrin.h>
#include "drivers/net/e1000x/e1000x.h"
#include "drivers/net/e1000x/ring.h"
#include "drivers/net/phc.h"
#include "kernel/mem.h"

/* Largest frame accepted without RCTL.LPE: 1518 + a VLAN tag, less the FCS. */
#define ETH_MAX_FRAME 1518

/* Descriptor stores must reach memory before the tail write that hands
 * them over (x86 keeps store order, so a compiler barrier is enough), and
 * the DD read before the other write-back fields (loads are not reordered
 * with loads on x86). Intel SDM vol. 3A 8.2.2. */
#define dma_wmb() __atomic_signal_fence(__ATOMIC_RELEASE)
#define dma_rmb() __atomic_signal_fence(__ATOMIC_ACQUIRE)

/* Give descriptor i its buffer bufs[i] (step 3). */
static inline void rx_arm(struct e1000x_rxq *rq, uint32_t i)
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
	rq->ci = 0;
	rq->cr = 0;	/* csum_res[0]: no checksum bits, nothing counted */
	return 0;
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

/* Index into csum_res: status bits 4-6 (UDPCS, TCPCS, IPCS) and the two
 * checksum errors (TCPE, IPE: bits 29-30, on the 82599 L4E, IPE at 30-31)
 * as bits 0-4. The multiply adds a copy of bits 4-6 moved up right under
 * the error bits (no two set bits meet, so no carries); what lands above
 * bit 31 is lost. The constants are the format's (fmt is a constant of
 * each burst function). */
static inline uint32_t csum_bits(const int fmt)
{
	return fmt == RXF_82599 ? 0xc0000070u : 0x60000070u;
}

static inline uint32_t csum_index(uint32_t st, const int fmt)
{
	if (fmt == RXF_82599)
		return ((st & csum_bits(fmt)) * 0x800001u) >> 27;
	return ((st & csum_bits(fmt)) * 0x400001u) >> 26;
}

/* Write-back errors that make the frame bad (not checksum results). */
static inline uint32_t err_frame(const int fmt)
{
	return fmt == RXF_82599 ? RXDADV_82599_ERR_FRAME : RXDEXT_ERR_FRAME;
}

/* Add a burst's summed csum_res entries to the port's counters. */
static inline void csum_count(uint64_t *sw, uint64_t sum)
{
	sw[NS_rx_csum_offload_good] += sum >> 32 & 0xfff;
	sw[NS_rx_csum_offload_errors] += sum >> 44 & 0xfff;
}

/* Status of descriptor d in the extended layout (legacy converted): DD, EOP,
 * checksum bits and errors in their extended positions. */
static inline uint32_t desc_status(volatile union rx_desc *d, int fmt, uint16_t *len)
{
	if (fmt != RXF_LEGACY) {
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

void e1000x_rxq_release(struct e1000x_rxq *rq)
{
	/* Frames the NIC wrote back (DD) that were never delivered: counted
	 * (rx_packets counted them) and dropped with their buffers. The ring
	 * memory survives CTRL.RST, so the write-backs are still there. */
	uint16_t len;
	for (uint32_t i = rq->next, k = 0; k < rq->n; k++, i = i + 1 == rq->n ? 0 : i + 1) {
		uint32_t st = desc_status(&rq->ring[i], rq->fmt, &len);
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

/* Fill in a received packet p of len bytes: port, queue, checksum flags. */
static inline void rx_pkt(struct e1000x_rxq *rq, struct pkt *p, uint16_t len, uint64_t cr)
{
	p->len = len;
	p->port = (uint16_t)rq->nic->port;
	p->queue = (uint16_t)rq->q;
	p->flags = (uint8_t)cr;
}

/* The bytes of a timestamp the NIC wrote into the buffer with the frame
 * (descriptor TSIP): in front of it (I350/I210), or after it on the
 * 82599 format's parts (X550). */
static inline uint32_t rx_ts_len(const int fmt)
{
	return fmt == RXF_82599 ? RX_TS_TAIL_LEN : RX_TS_HDR_LEN;
}

/* The frame in descriptor i that is not the common case (see the top):
 * a piece of a long frame, a descriptor error, a timestamp, a copybreak
 * copy. Returns the packet to deliver or NULL (dropped, counted); the
 * descriptor's buffer is replaced when it is delivered. */
static struct pkt *rx_rare(struct e1000x_rxq *rq, uint32_t i, uint32_t st, uint16_t len)
{
	const int fmt = rq->fmt;
	struct nic *nic = rq->nic;
	uint64_t *sw = rq->sw;
	struct pkt *p = rq->bufs[i], *out = p;
	uint32_t off = 0, ts_len = st & rq->tsip_bit ? rx_ts_len(fmt) : 0;
	uint64_t ts = 0;
	if (!(st & RXDEXT_EOP) || rq->discarding || len > ETH_MAX_FRAME + ts_len) {
		/* Longer than a VLAN-tagged 1518-byte frame (QEMU's igb passes those
		 * with RCTL.LPE clear), or spread over buffers: drop every piece,
		 * count the frame once. */
		if (!rq->discarding)
			sw[NS_rx_drop_oversize]++;
		rq->discarding = !(st & RXDEXT_EOP);
		return 0;
	}
	if (st & err_frame(fmt)) {
		sw[NS_rx_drop_desc_error]++;
		return 0;
	}
	if (ts_len && len > ts_len) {
		len = (uint16_t)(len - ts_len);
		if (fmt == RXF_82599) {
			memcpy(&ts, p->buf + len, 8);	/* X550: SYSTIM follows the frame */
		} else {
			memcpy(&ts, p->buf + 8, 8);	/* I350/I210 7.1.5: SYSTIM leads the frame */
			off = RX_TS_HDR_LEN;
		}
	} else {
		ts_len = 0;
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
	uint64_t cr = csum_res[csum_index(st, fmt)];
	rx_pkt(rq, out, len, cr);
	rq->qs->rx_short += len < NIC_TX_MIN_LEN;
	if (st & (rq->ts_bit | rq->tsip_bit)) {	/* the NIC stamped it */
		rq->qs->rx_tstamped++;
		if (ts_len)
			phc_rx_buf_tstamp(nic, out, ts);
		else if (st & rq->ts_bit)
			phc_rx_hwtstamp(nic, out);
	}
	if (st & rq->vp_bit) {	/* the tag the NIC took off (CTRL.VME) */
		out->flags |= PKT_RX_VLAN;
		out->vlan_tci = rq->ring[i].wb.vlan;
	}
	csum_count(sw, cr);
	return out;
}

/* What rx_loop carries from one run of descriptors to the next (in
 * registers once inlined): where the packets go, the pool's free stack
 * top (the pool is locked meanwhile), the sums for the counters, and the
 * fast loop's bounds. */
struct rx_state {
	struct pkt **out, **end;	/* next slot of the caller's array, its end */
	struct pkt **top;		/* top of the locked pool's free stack */
	uint64_t bytes, csum;		/* of the frames delivered; csum: summed csum_res */
	uint64_t cr;			/* csum_res entry of the checksum bits ci */
	uint32_t ci;
	uint32_t mask;			/* status bits that must read DD | EOP */
	uint32_t lo, span;		/* common lengths: lo..lo + span */
	uint32_t portq;			/* pkt port and queue as one word */
};

_Static_assert(__builtin_offsetof(struct pkt, queue) == __builtin_offsetof(struct pkt, port) + 2,
	       "rx_fast stores port and queue as one 32-bit word");

/* The burst's bounds: common frames are DD and EOP with no frame error or
 * timestamp bit, longer than copybreak, at least NIC_TX_MIN_LEN (shorter
 * ones go to rx_rare, which counts them in rx_short) and at most
 * ETH_MAX_FRAME (one unsigned compare; none when copybreak takes every
 * frame: len - UINT32_MAX = len + 1 > 0). */
static inline void rx_state_init(struct e1000x_rxq *rq, struct rx_state *s, struct pkt **pkts, int n,
				 const int fmt)
{
	uint32_t cb = rq->nic->cfg.copybreak > 0 ? (uint32_t)rq->nic->cfg.copybreak : 0;
	s->out = pkts;
	s->end = pkts + n;
	s->bytes = s->csum = 0;
	s->cr = rq->cr;
	s->ci = rq->ci;
	s->mask = RXDEXT_DD | RXDEXT_EOP | err_frame(fmt) | rq->ts_bit | rq->tsip_bit | rq->vp_bit;
	s->lo = cb >= ETH_MAX_FRAME ? UINT32_MAX : cb < NIC_TX_MIN_LEN ? NIC_TX_MIN_LEN : cb + 1;
	s->span = cb < ETH_MAX_FRAME ? ETH_MAX_FRAME - s->lo : 0;
	s->portq = (uint32_t)rq->nic->port | (uint32_t)rq->q << 16;
}

/* Steps 1-4 for up to run descriptors from i, which need no wrap, have a
 * free buffer each and a slot in the caller's array: stops at the first
 * not done or not common. Returns the descriptors taken. */
static inline __attribute__((always_inline))
uint32_t rx_fast(struct e1000x_rxq *rq, struct rx_state *s, uint32_t i, uint32_t run, const int fmt,
		 const int prefetch)
{
	volatile union rx_desc *d = &rq->ring[i], *stop = d + run;
	struct pkt **bp = &rq->bufs[i];
	for (; d != stop; d++, bp++) {
		uint16_t len;
		uint32_t st = desc_status(d, fmt, &len);
		if (__builtin_expect((st & s->mask) != (RXDEXT_DD | RXDEXT_EOP) || (uint32_t)len - s->lo > s->span, 0))
			break;
		struct pkt *p = *bp, *fresh = *--s->top;
		*bp = fresh;
		d->read.addr = (uint64_t)fresh->buf;
		d->read.hdr_addr = 0;	/* clears the write-back status, DD included */
		p->data = p->buf;
		if (prefetch)
			__builtin_prefetch(p->buf);
		p->len = len;
		memcpy(&p->port, &s->portq, sizeof(s->portq));	/* port, queue */
		if (__builtin_expect((st & csum_bits(fmt)) != s->ci, 0)) {	/* mostly as the frame before */
			s->ci = st & csum_bits(fmt);
			s->cr = csum_res[csum_index(st, fmt)];
		}
		p->flags = (uint8_t)s->cr;
		s->csum += s->cr;
		s->bytes += len;
		*s->out++ = p;
	}
	return (uint32_t)(d - &rq->ring[i]);
}

_Static_assert(__builtin_offsetof(struct pkt, len) == 8 && __builtin_offsetof(struct pkt, clones) == 14,
	       "rx_fast4 stores len, port, queue and clones as one 64-bit word");

/* rx_fast4's steps 2-3 for frame j of its group: the buffer of d[j]
 * handed out as out[j] (lpq: its port and queue at bits 16-47, beside the
 * length; fl: its flags), the pool's top[-1 - j] put in its place. */
static inline __attribute__((always_inline))
void rx_take(volatile union rx_desc *d, struct pkt **bp, struct pkt **top, struct pkt **out, int j, uint64_t lpq,
	     uint32_t fl, const int prefetch)
{
	struct pkt *p = bp[j], *fresh = top[-1 - j];
	uint64_t lw = d[j].wb.length | lpq;	/* read again: cheaper than holding four lengths */
	bp[j] = fresh;
	d[j].read.addr = (uint64_t)fresh->buf;
	d[j].read.hdr_addr = 0;	/* clears the write-back status, DD included */
	p->data = p->buf;
	if (prefetch)
		__builtin_prefetch(p->buf);
	memcpy(&p->len, &lw, sizeof(lw));	/* len, port, queue, clones 0 */
	p->flags = fl;
	out[j] = p;
}

/* The write-back halves (staterr, length, vlan: bytes 8-15) of the four
 * descriptors d[0..4) as their status words and their length words (the
 * vlan field above each length): SSE2, DPDK's vector RX. Each half is one
 * aligned 8-byte load, so a descriptor's DD and length are read together
 * (the NIC writes the length before or with DD). */
static inline __attribute__((always_inline))
void grp_load(volatile union rx_desc *d, __m128i *st, __m128i *lv)
{
	const __m128i *v = (const __m128i *)(uintptr_t)d;
	dma_rmb();	/* the descriptors are read afresh, after the stores of the group before */
	__m128i a = _mm_unpackhi_epi64(_mm_load_si128(v), _mm_load_si128(v + 1));
	__m128i b = _mm_unpackhi_epi64(_mm_load_si128(v + 2), _mm_load_si128(v + 3));
	*st = _mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b), _MM_SHUFFLE(2, 0, 2, 0)));
	*lv = _mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b), _MM_SHUFFLE(3, 1, 3, 1)));
}

/* 1 when every frame of a group (st, lv from grp_load) is common: its
 * status bits under mask are want (DD, EOP, no error or timestamp bit,
 * the checksum bits of want), its length at least lo and at most hi (the
 * vector forms of rx_fast4: lo, and hi with 0xffff over the vlan field,
 * so that unsigned saturating subtractions are 0 in range). */
static inline __attribute__((always_inline))
int grp_common(__m128i st, __m128i lv, __m128i mask, __m128i want, __m128i lo, __m128i hi)
{
	__m128i bad = _mm_xor_si128(_mm_and_si128(st, mask), want);
	bad = _mm_or_si128(bad, _mm_or_si128(_mm_subs_epu16(lv, hi), _mm_subs_epu16(lo, lv)));
	return _mm_movemask_epi8(_mm_cmpeq_epi32(bad, _mm_setzero_si128())) == 0xffff;
}

/* Steps 1-4 four descriptors at a time (extended or advanced format fmt),
 * as DPDK's vector RX does, for up to run descriptors from i (as
 * rx_fast): a group is taken when grp_common finds its four status words
 * DD and EOP with no error or timestamp bit and the checksum bits of the
 * frames before (s->ci; a group whose four share other checksum bits
 * takes them on), and its four lengths in the common range (a group
 * that fails goes to rx_fast, one frame at a time). A frame's len, port,
 * queue and clones (0: a buffer on the ring is nobody else's) are one
 * store. Returns the descriptors taken, a multiple of 4. */
static inline __attribute__((always_inline))
uint32_t rx_fast4(struct e1000x_rxq *rq, struct rx_state *s, uint32_t i, uint32_t run, const int fmt,
		  const int prefetch)
{
	volatile union rx_desc *d = &rq->ring[i], *const first = d, *const end = d + (run & ~3u);
	struct pkt **bp = &rq->bufs[i], **out = s->out, **top = s->top, **mark = out;
	const uint32_t ddeop = RXDEXT_DD | RXDEXT_EOP;
	const __m128i mask = _mm_set1_epi32((int)(s->mask | csum_bits(fmt)));
	const __m128i lo = _mm_set1_epi32((int)s->lo), hi = _mm_set1_epi32((int)(0xffff0000u | (s->lo + s->span)));
	const __m128i lenw = _mm_set1_epi32(0xffff);
	__m128i want = _mm_set1_epi32((int)(ddeop | s->ci)), bytes = _mm_setzero_si128();
	const uint64_t lpq = (uint64_t)s->portq << 16;
	uint64_t cr = s->cr;
	for (; d != end; d += 4, bp += 4, out += 4, top -= 4) {
		__m128i st, lv;
		grp_load(d, &st, &lv);
		if (__builtin_expect(!grp_common(st, lv, mask, want, lo, hi), 0)) {
			/* Other checksum bits than the frames before, the same in all four? */
			uint32_t ci = (uint32_t)_mm_cvtsi128_si32(st) & csum_bits(fmt);
			__m128i w = _mm_set1_epi32((int)(ddeop | ci));
			if (ci == s->ci || !grp_common(st, lv, mask, w, lo, hi))
				break;
			s->csum += cr * (uint64_t)(out - mark);	/* the frames before, counted with the old */
			mark = out;
			s->ci = ci;
			want = w;
			cr = csum_res[csum_index(ci, fmt)];
		}
		bytes = _mm_add_epi32(bytes, _mm_and_si128(lv, lenw));
		uint32_t fl = (uint8_t)cr;
		rx_take(d, bp, top, out, 0, lpq, fl, prefetch);
		rx_take(d, bp, top, out, 1, lpq, fl, prefetch);
		rx_take(d, bp, top, out, 2, lpq, fl, prefetch);
		rx_take(d, bp, top, out, 3, lpq, fl, prefetch);
	}
	bytes = _mm_add_epi32(bytes, _mm_shuffle_epi32(bytes, _MM_SHUFFLE(1, 0, 3, 2)));
	bytes = _mm_add_epi32(bytes, _mm_shuffle_epi32(bytes, _MM_SHUFFLE(2, 3, 0, 1)));
	s->csum += cr * (uint64_t)(out - mark);
	s->out = out;
	s->top = top;
	s->bytes += (uint32_t)_mm_cvtsi128_si32(bytes);
	s->cr = cr;
	return (uint32_t)(d - first);
}

/* Descriptor i stopped rx_fast. Not done: returns 0 (the burst ends).
 * Else it is not the common case, or no buffer is left to replace its
 * own: rx_rare takes it, with the pool's stack written back and the pool
 * unlocked meanwhile, and the descriptor is rearmed. Returns 1. */
static inline __attribute__((always_inline))
int rx_slow(struct e1000x_rxq *rq, struct rx_state *s, uint32_t i, const int fmt)
{
	struct pktpool *pool = rq->nic->pool;
	uint16_t len;
	uint32_t st = desc_status(&rq->ring[i], fmt, &len);
	if (!(st & RXDEXT_DD))
		return 0;
	pool->nfree = (uint32_t)(s->top - pool->free);
	pktpool_unlock(pool);
	struct pkt *p = rx_rare(rq, i, st, len);
	pktpool_lock(pool);
	s->top = pool->free + pool->nfree;
	if (p) {
		*s->out++ = p;
		s->bytes += p->len;
	}
	rx_arm(rq, i);
	return 1;
}

/* Steps 1-5 for up to n frames, from one body specialised by the compiler
 * for each descriptor format and prefetch setting (constants at each
 * call): runs of common frames take rx_fast, each run bounded up front by
 * the ring's end, the frames wanted and the free buffers (the pool's
 * stack is held for the burst: one lock, its top in a register); any other
 * frame takes rx_slow. Returns frames delivered; s holds their sums. */
static inline __attribute__((always_inline))
int rx_loop(struct e1000x_rxq *rq, struct rx_state *s, const int fmt, const int prefetch)
{
	struct pktpool *pool = rq->nic->pool;
	struct pkt **pkts = s->out;
	uint32_t i = rq->next, nd = rq->n, last = nd;
	pktpool_lock(pool);
	s->top = pool->free + pool->nfree;
	while (s->out != s->end) {
		uint32_t run = (uint32_t)(s->end - s->out), room = nd - i, nfree = (uint32_t)(s->top - pool->free);
		run = run < room ? run : room;
		run = run < nfree ? run : nfree;
		uint32_t k = 0;
		if (!rq->discarding) {
			/* Four at a time for the extended and advanced formats
			 * (one write-back layout, csum_bits and err_frame per
			 * format); legacy descriptors are 8 bytes of another. */
			k = fmt != RXF_LEGACY ? rx_fast4(rq, s, i, run, fmt, prefetch) : 0;
			k += rx_fast(rq, s, i + k, run - k, fmt, prefetch);
		}
		if (k) {
			i += k;
			last = i - 1;
			if (i == nd)
				i = 0;
		}
		if (s->out == s->end || (k == run && k == room))
			continue;	/* done, or on from the ring's start */
		if (!rx_slow(rq, s, i, fmt))
			break;
		last = i;
		i = i + 1 == nd ? 0 : i + 1;
	}
	pool->nfree = (uint32_t)(s->top - pool->free);
	pktpool_unlock(pool);
	if (prefetch)
		__builtin_prefetch((const void *)&rq->ring[i]);
	if (last != nd) {
		dma_wmb();
		wr32(rq->regs, rq->rdt, last);
	}
	rq->next = i;
	return (int)(s->out - pkts);
}

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
static inline __attribute__((always_inline))
int rx_many(struct e1000x_rxq *rq, struct pkt **pkts, int n, const int fmt)
{
	struct rx_state s;
	rx_state_init(rq, &s, pkts, n, fmt);
	int got = rq->nic->cfg.prefetch ? rx_loop(rq, &s, fmt, 1) : rx_loop(rq, &s, fmt, 0);
	rq->ci = s.ci;
	rq->cr = s.cr;
	rx_count(rq, got, s.bytes, s.csum);
	return got;
}

/* rx_many compiled once per descriptor format, apart from the burst
 * functions so that an empty poll pays none of its set-up. */
static int __attribute__((noinline)) rx_many_ext(struct e1000x_rxq *rq, struct pkt **pkts, int n)
{
	return rx_many(rq, pkts, n, RXF_EXT);
}

static int __attribute__((noinline)) rx_many_legacy(struct e1000x_rxq *rq, struct pkt **pkts, int n)
{
	return rx_many(rq, pkts, n, RXF_LEGACY);
}

static int __attribute__((noinline)) rx_many_82599(struct e1000x_rxq *rq, struct pkt **pkts, int n)
{
	return rx_many(rq, pkts, n, RXF_82599);
}

/* Descriptor i (status st, length len, in the extended layout) holds the
 * only frame done, a request-response wake: if it is the common case of
 * rx_fast, take it into pkts[0] without the burst loop's set-up, count it
 * and return 1; else (or with the pool empty) return 0, leaving it to
 * rx_many. */
static inline __attribute__((always_inline))
int rx_one(struct e1000x_rxq *rq, struct pkt **pkts, uint32_t i, uint32_t st, uint16_t len, const int fmt)
{
	struct nic *nic = rq->nic;
	struct pktpool *pool = nic->pool;
	if ((st & (RXDEXT_DD | RXDEXT_EOP | err_frame(fmt) | rq->ts_bit | rq->tsip_bit | rq->vp_bit)) != (RXDEXT_DD | RXDEXT_EOP) ||
	    len > ETH_MAX_FRAME || len < NIC_TX_MIN_LEN || (int64_t)len <= nic->cfg.copybreak || rq->discarding)
		return 0;
	pktpool_lock(pool);
	if (!pool->nfree) {
		pktpool_unlock(pool);
		return 0;
	}
	struct pkt *p = rq->bufs[i];
	rq->bufs[i] = pool->free[--pool->nfree];
	pktpool_unlock(pool);
	rx_arm(rq, i);
	uint64_t cr = csum_res[csum_index(st, fmt)];
	p->data = p->buf;
	rx_pkt(rq, p, len, cr);
	if (nic->cfg.prefetch)
		__builtin_prefetch(p->buf);	/* the next descriptor was just read */
	dma_wmb();
	wr32(rq->regs, rq->rdt, i);
	rq->next = i + 1 == rq->n ? 0 : i + 1;
	pkts[0] = p;
	rx_count(rq, 1, len, cr);
	return 1;
}

/* rx_one compiled once per descriptor format, as rx_many. */
static int __attribute__((noinline)) rx_one_ext(struct e1000x_rxq *rq, struct pkt **pkts, uint32_t i, uint32_t st,
						uint16_t len)
{
	return rx_one(rq, pkts, i, st, len, RXF_EXT);
}

static int __attribute__((noinline)) rx_one_legacy(struct e1000x_rxq *rq, struct pkt **pkts, uint32_t i,
						   uint32_t st, uint16_t len)
{
	return rx_one(rq, pkts, i, st, len, RXF_LEGACY);
}

static int __attribute__((noinline)) rx_one_82599(struct e1000x_rxq *rq, struct pkt **pkts, uint32_t i,
						  uint32_t st, uint16_t len)
{
	return rx_one(rq, pkts, i, st, len, RXF_82599);
}

/* The body of the nic_ops rx_burst for one descriptor format: nothing
 * done (step 1), one frame (rx_one) or more (rx_many). */
static inline __attribute__((always_inline))
int rx_burst(struct nic *nic, int q, struct pkt **pkts, int n, const int fmt)
{
	struct e1000x_rxq *rq = &to_port(nic)->rxq[q];
	uint32_t i = rq->next, after = i + 1 == rq->n ? 0 : i + 1;
	uint16_t len, len2;
	uint32_t st = desc_status(&rq->ring[i], fmt, &len);
	if (!(st & RXDEXT_DD)) {
		rq->qs->polls++;	/* nothing */
		return 0;
	}
	if (!(desc_status(&rq->ring[after], fmt, &len2) & RXDEXT_DD) &&
	    (fmt == RXF_EXT ? rx_one_ext : fmt == RXF_LEGACY ? rx_one_legacy : rx_one_82599)(rq, pkts, i, st, len))
		return 1;
	if (fmt == RXF_82599)
		return rx_many_82599(rq, pkts, n);
	return fmt == RXF_LEGACY ? rx_many_legacy(rq, pkts, n) : rx_many_ext(rq, pkts, n);
}

int e1000x_rx_burst_ext(struct nic *nic, int q, struct pkt **pkts, int n)
{
	return rx_burst(nic, q, pkts, n, RXF_EXT);
}

int e1000x_rx_burst_legacy(struct nic *nic, int q, struct pkt **pkts, int n)
{
	return rx_burst(nic, q, pkts, n, RXF_LEGACY);
}

int e1000x_rx_burst_82599(struct nic *nic, int q, struct pkt **pkts, int n)
{
	return rx_burst(nic, q, pkts, n, RXF_82599);
}
