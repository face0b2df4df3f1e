/*
 * virtio-net (virtio 1.2 section 5.1) over the virtio 1.x PCI transport:
 * queue pairs of a receive and a transmit split virtqueue (5.1.2: 2q and
 * 2q+1), every frame behind a 12-byte virtio_net_hdr (5.1.6; 20 with
 * HASH_REPORT). Features: MAC,
 * STATUS (link), CSUM and GUEST_CSUM (checksum offload both ways, in the
 * Intel drivers' pkt flags), MTU, EVENT_IDX (notification suppression both
 * ways), CTRL_VQ and CTRL_RX (the receive filter: promisc, multicast), MQ
 * (`queues=` pairs, one per core) and RSS (the device hashes with the Intel
 * ports' key and table; without RSS, MQ lets the backend spread flows:
 * a multiqueue tap by its flow hash), HASH_REPORT with RSS (the hash in a
 * 20-byte header; QEMU then steers in its own code). Not MRG_RXBUF:
 * every receive buffer is a whole 2048-byte pkt buffer, which holds the
 * header and any frame up to MTU 1500 + VLAN tag (5.1.6.3.1 asks for 1526
 * bytes without it), so a frame is never spread.
 * Interrupts: MSI-X, a vector per receive queue and one for configuration
 * changes; else INTx with the ISR register (4.1.4.5). Transmit queues have
 * no vector: tx_burst and tx_clean reclaim, as on the Intel ports.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <emmintrin.h>
#include "drivers/net/virtio/virtio.h"
#include "kernel/knobs.h"
#include "kernel/lapic.h"
#include "net/addr.h"
#include "net/bytes.h"
#include "net/ipv4.h"

#define ETH_MAX_FRAME 1518	/* 1514 + an 802.1Q tag, no FCS */
#define ETH_IP_OFF 14
#define IP_L4_OFF (ETH_IP_OFF + 20)
#define IP6_L4_OFF (ETH_IP_OFF + 40)
#define TCP_CSUM_OFF 16
#define UDP_CSUM_OFF 6

/* A TX header goes in the 12 (20) bytes before the frame: a pkt's headroom
 * (128 bytes), or in a small (copybreak) slot the room past struct pkt
 * (net/pkt.c). */
_Static_assert(sizeof(struct pkt) + VIRTIO_NET_HDR_HASH_LEN <= PKT_SMALL_HEADROOM,
	       "a virtio_net_hdr fits before every pkt buffer");

/* The features asked for (see the top); VERSION_1 is required, and
 * ACCESS_PLATFORM is taken when offered: DMA addresses are physical ones. */
#define VNET_FEATURES (VIRTIO_BIT(VIRTIO_F_VERSION_1) | VIRTIO_BIT(VIRTIO_F_ACCESS_PLATFORM) | \
	VIRTIO_BIT(VIRTIO_F_EVENT_IDX) | VIRTIO_BIT(VIRTIO_NET_F_MAC) | VIRTIO_BIT(VIRTIO_NET_F_STATUS) | \
	VIRTIO_BIT(VIRTIO_NET_F_CSUM) | VIRTIO_BIT(VIRTIO_NET_F_GUEST_CSUM) | VIRTIO_BIT(VIRTIO_NET_F_MTU) | \
	VIRTIO_BIT(VIRTIO_NET_F_CTRL_VQ) | VIRTIO_BIT(VIRTIO_NET_F_CTRL_RX) | VIRTIO_BIT(VIRTIO_NET_F_MQ) | \
	VIRTIO_BIT(VIRTIO_NET_F_RSS))
static int64_t virtio_packed = 1;
static const struct knob_range bool_range[] = { { 0, 1 } };
KNOB(virtio_packed, .name = "virtio_packed", .type = KNOB_INT, .ranges = bool_range, .nranges = 1,
     .ival = &virtio_packed, .help = "virtio-net: 1 packed virtqueues (virtio 1.2 2.8) when the device offers "
     "them (QEMU: packed=on), 0 split ones always; default 1");
static int64_t virtio_in_order = 1;
KNOB(virtio_in_order, .name = "virtio_in_order", .type = KNOB_INT, .ranges = bool_range, .nranges = 1,
     .ival = &virtio_in_order, .help = "virtio-net: 1 asks for VIRTIO_F_IN_ORDER (virtio 1.2 2.7.9) with split "
     "virtqueues when the device offers it (QEMU: in_order=on): sent frames are freed without reading "
     "their used entries; 0 never; default 1");
#define HAS_CTRL_RX (VIRTIO_BIT(VIRTIO_NET_F_CTRL_VQ) | VIRTIO_BIT(VIRTIO_NET_F_CTRL_RX))

struct vnet_port {
	struct nic nic;
	struct virtio_pci t;
	struct virtq rxq[NIC_MAX_QUEUES], txq[NIC_MAX_QUEUES];
	struct virtio_ctrl ctrl;	/* with VIRTIO_NET_F_CTRL_VQ: queue 2 x max_pairs */
	uint16_t max_pairs;		/* max_virtqueue_pairs with MQ or RSS, else 1 (5.1.4) */
	int msix;			/* 1: MSI-X, a vector per receive queue and one for config,
					 * or with nic.irq_shared vector 0 for them all, 1 for config */
	volatile int reset_pending;	/* the shell's `reset` */
	volatile uint32_t qreset_pending;	/* the shell's `reset PORT queue Q`: bit q for pair q */
};

static inline struct vnet_port *to_vnet(struct nic *nic)
{
	return (struct vnet_port *)nic;
}

/* Give receive descriptor id its buffer back (or a new one) and make it
 * available; in a split ring's avail slot other than id, the queue is ooo
 * (rx_fast's in-order run no longer applies). */
static inline void rx_post(struct virtq *vq, uint16_t id, struct pkt *p)
{
	vq->ooo |= id != (vq->avail_idx & (vq->n - 1));
	vq->bufs[id] = p;
	virtq_add_buf(vq, id, (uint64_t)p->buf, PKT_BUF_SIZE, VRING_DESC_F_WRITE);
}

/* 5.1.6.4: NEEDS_CSUM is a partial checksum (a local sender's, through a
 * tap) to complete: the sum from csum_start to the end, stored csum_offset
 * further. Returns the pkt flags, or -1 if the offsets fall outside. */
static int rx_csum(const struct virtio_net_hdr *h, uint8_t *f, uint32_t len, uint64_t *sw)
{
	if (h->flags & VIRTIO_NET_HDR_F_DATA_VALID) {
		sw[NS_rx_csum_offload_good]++;
		return PKT_RX_L4_CSUM_OK;
	}
	if (!(h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		return 0;
	uint32_t start = h->csum_start, at = start + h->csum_offset;
	if (at + 2 > len)
		return -1;
	uint16_t c = inet_csum(f + start, len - start);
	put16(f + at, c || h->csum_offset != UDP_CSUM_OFF ? c : 0xffff);	/* UDP sends 0 as ffff */
	sw[NS_rx_csum_offload_good]++;
	return PKT_RX_L4_CSUM_OK;
}

/* With VIRTIO_NET_F_HASH_REPORT (a header of hdr = 20 bytes at h): the
 * device's RSS hash of the frame into p->rss_hash, flagged PKT_RX_RSS, when
 * it computed one (5.1.6.4.3: hash_report not NONE). */
static inline void rx_hash(uint32_t hdr, struct pkt *p, const uint8_t *h)
{
	const struct virtio_net_hdr_hash *hh = (const struct virtio_net_hdr_hash *)h;
	if (__builtin_expect(hdr == VIRTIO_NET_HDR_LEN, 1) || hh->hash_report == VIRTIO_NET_HASH_REPORT_NONE)
		return;
	p->rss_hash = hh->hash_value;
	p->flags |= PKT_RX_RSS;
}

/* The frame in receive descriptor id (len bytes with the header): the
 * packet to deliver, or NULL (dropped and counted). Either way the
 * descriptor is made available again, with a fresh buffer when its own
 * is delivered. */
static inline struct pkt *rx_one(struct nic *nic, struct virtq *vq, int q, uint16_t id, uint32_t len)
{
	uint64_t *sw = nic->qsw[q];
	struct pkt *p = vq->bufs[id], *out;
	const uint32_t hdr = vq->hdr, flen = len - hdr;
	int flags;
	if (len < hdr || len > PKT_BUF_SIZE ||
	    (flags = rx_csum((struct virtio_net_hdr *)p->buf, p->buf + hdr, flen, sw)) < 0) {
		sw[NS_rx_drop_desc_error]++;	/* no header, past the buffer, bad offsets */
		out = 0;
	} else if (vq->mrg_rxbuf && ((struct virtio_net_hdr *)p->buf)->num_buffers > 1) {
		/* 5.1.6.4.2: spread over buffers, so longer than one: the rest are skipped */
		vq->skip = (uint16_t)(((struct virtio_net_hdr *)p->buf)->num_buffers - 1);
		sw[NS_rx_drop_oversize]++;
		out = 0;
	} else if (flen > ETH_MAX_FRAME) {
		sw[NS_rx_drop_oversize]++;
		out = 0;
	} else if (nic->small_pool && flen <= nic->cfg.copybreak && (out = pkt_alloc_inline(nic->small_pool))) {
		memcpy(out->data, p->buf + hdr, flen);
		sw[NS_rx_copybreak]++;
	} else if ((out = pkt_alloc_inline(nic->pool))) {
		rx_post(vq, id, out);
		out = p;
		out->data = p->buf + hdr;
	} else {
		sw[NS_alloc_rx_buff_failed]++;
	}
	if (out != p)
		rx_post(vq, id, p);	/* the same buffer again */
	if (!out) {
		nic->q[q].rx_drops++;
		return 0;
	}
	out->len = (uint16_t)flen;
	nic->q[q].rx_short += flen < NIC_TX_MIN_LEN;	/* the fast runs leave these here */
	out->port = (uint16_t)nic->port;
	out->queue = (uint16_t)q;
	out->flags = (uint16_t)flags;
	rx_hash(hdr, out, p->buf);
	return out;
}

_Static_assert(__builtin_offsetof(struct pkt, queue) == __builtin_offsetof(struct pkt, port) + 2,
	       "rx_fast stores port and queue as one 32-bit word");
_Static_assert(VIRTIO_NET_HDR_F_DATA_VALID << 1 == PKT_RX_L4_CSUM_OK, "rx_fast shifts DATA_VALID into the pkt flag");

/* Up to m used entries of a split ring at once, while each is a common
 * frame: a descriptor in flight, one buffer (num_buffers 1 where mrg),
 * length past the hdr-byte header within NIC_TX_MIN_LEN..ETH_MAX_FRAME
 * (a shorter one is rx_one's, which counts it in rx_short), no partial checksum
 * to complete. Its buffer is handed out and the pool's top (taken from
 * *top down) put in its descriptor, whose length and WRITE flag stay as
 * posted (2.7.5). Stops at the first other entry (rx_one's), and with
 * VIRTIO_F_IN_ORDER at one naming a buffer other than the next made
 * available (the head of a batch, rx_slow's); returns the entries taken. hdr and mrg are constants where it is inlined, and the
 * ring's fields are locals: the stores through the rings and into the
 * pkts could alias vq, which the compiler would otherwise reload for
 * every frame. */
static inline __attribute__((always_inline)) uint32_t rx_run(struct virtq *vq, uint32_t portq,
							     struct pkt ***top, struct pkt **out, uint32_t m,
							     uint64_t *bytes, uint64_t *valid, const uint32_t hdr,
							     const int mrg)
{
	volatile struct vring_used_elem *used = vq->used->ring;
	volatile struct vring_desc *desc = vq->desc;
	volatile uint16_t *avail = vq->avail->ring;
	struct pkt **bufs = vq->bufs, **t = *top;
	const uint32_t n = vq->n, mask = n - 1, last = vq->last_used, end = last + m;
	const int in_order = vq->in_order;
	uint32_t u = last, a = vq->avail_idx;
	uint64_t b = 0, v = 0;
	for (; u != end; u++, a++) {
		volatile struct vring_used_elem *e = &used[u & mask];
		uint32_t id = e->id, len = e->len - hdr;
		if (id >= n || len - NIC_TX_MIN_LEN > ETH_MAX_FRAME - NIC_TX_MIN_LEN)	/* shorter wraps past it */
			break;
		if (in_order && id != avail[u & mask])	/* a batch (rx_slow's) */
			break;
		struct pkt *p = bufs[id];
		const struct virtio_net_hdr *h = (const struct virtio_net_hdr *)p->buf;
		uint8_t f = h->flags;
		if (f & ~VIRTIO_NET_HDR_F_DATA_VALID || (mrg && h->num_buffers != 1))
			break;
		struct pkt *fresh = *--t;
		bufs[id] = fresh;
		desc[id].addr = (uint64_t)fresh->buf;
		avail[a & mask] = (uint16_t)id;
		p->data = p->buf + hdr;
		p->len = (uint16_t)len;
		memcpy(&p->port, &portq, sizeof(portq));	/* port, queue */
		p->flags = (uint16_t)(f << 1);	/* DATA_VALID: PKT_RX_L4_CSUM_OK */
		rx_hash(hdr, p, p->buf);
		v += f;
		b += len;
		*out++ = p;
	}
	vq->last_used = (uint16_t)u;
	vq->avail_idx = (uint16_t)a;
	*top = t;
	*bytes += b;
	*valid = v / VIRTIO_NET_HDR_F_DATA_VALID;
	return u - last;
}

/* The buffer of a pkt of a PKT_SLOT pool (nic->pool, whose slots net/pkt.c
 * lays out as the struct pkt, then the buffer PKT_HEADROOM bytes on),
 * without a load of p->buf: rx_seq's, under rx_fast's check of the
 * pool's slot size. */
static inline uint8_t *slot_buf(struct pkt *p)
{
	return (uint8_t *)p + PKT_HEADROOM;
}

/* 1 when the four used entries at e (two 16-byte loads, plain memory
 * after the acquire that follows the used index) are common for rx_seq:
 * each, less want (its slot's id, header + NIC_TX_MIN_LEN; the next
 * two's in want + 2), leaves 0 in the id and the length past
 * NIC_TX_MIN_LEN within ETH_MAX_FRAME - NIC_TX_MIN_LEN. The differences
 * packed to 16 bits with signed saturation keep those in range exact
 * and make any other (a shorter frame wraps negative) at least
 * 0x7fff as unsigned, so one saturating subtraction of the limits
 * (0 for the ids) is 0 only when all eight are within them. DPDK's
 * vector RX, on the used ring: SSE2. */
static inline __attribute__((always_inline)) int rx_grp_common(const struct vring_used_elem *e, __m128i want)
{
	const __m128i two = _mm_set_epi32(0, 2, 0, 2);
	const __m128i lim = _mm_set_epi16(ETH_MAX_FRAME - NIC_TX_MIN_LEN, 0, ETH_MAX_FRAME - NIC_TX_MIN_LEN, 0,
					  ETH_MAX_FRAME - NIC_TX_MIN_LEN, 0, ETH_MAX_FRAME - NIC_TX_MIN_LEN, 0);
	__m128i x0 = _mm_sub_epi32(_mm_loadu_si128((const __m128i *)e), want);
	__m128i x1 = _mm_sub_epi32(_mm_loadu_si128((const __m128i *)(e + 2)), _mm_add_epi32(want, two));
	__m128i bad = _mm_subs_epu16(_mm_packs_epi32(x0, x1), lim);
	return _mm_movemask_epi8(_mm_cmpeq_epi16(bad, _mm_setzero_si128())) == 0xffff;
}

/* rx_run for a queue whose every descriptor is posted, avail slot i
 * naming id i (not ooo), over the k entries from slot s on (not past the
 * ring's end), with the 12-byte header and no MRG_RXBUF: an entry is
 * common (as rx_run's) only if it also names the id of its own slot, as
 * QEMU returns them, so the used entry, the buffer, the descriptor and
 * the fresh buffer fresh[i] that replaces it are walked side by side,
 * and the avail slot, which already names the id posted again, is not
 * written; a buffer's address is its pkt's plus PKT_HEADROOM (slot_buf:
 * rx_fast comes here only with a PKT_SLOT pool). Four entries at a time first (rx_grp_common tests their ids
 * and lengths at once; each frame's header byte is still looked at, and
 * a frame's len, port, queue and clones (0: a buffer on the ring is
 * nobody else's) are one store), then one at a time, where one test
 * takes the id and the length: the entry less (its slot's id, header +
 * NIC_TX_MIN_LEN) as a 64-bit word, halves swapped, is the frame's length
 * past NIC_TX_MIN_LEN, within ETH_MAX_FRAME - NIC_TX_MIN_LEN, only when
 * the id matches (else its high half is not 0) and the length is not
 * shorter (else it wraps). *acc gains the frames' bytes, and 1 << 32
 * for each frame with DATA_VALID. Returns the entries taken (fresh[0]
 * on). */
static inline __attribute__((always_inline)) uint32_t rx_seq(struct virtq *vq, uint32_t s, uint32_t k,
							     uint32_t portq, struct pkt *const *fresh_bufs,
							     struct pkt **out, uint64_t *acc)
{
	const struct vring_used_elem *ue = (const struct vring_used_elem *)vq->used->ring + s;
	char *e = (char *)&vq->used->ring[s], *d = (char *)&vq->desc[s], *bufs = (char *)(vq->bufs + s);
	const char *fresh = (const char *)fresh_bufs;
	char *o = (char *)out;
	const uint64_t lpq = ((uint64_t)portq << 16) - VIRTIO_NET_HDR_LEN;	/* len, port, queue, clones 0 */
	uint64_t sum = 0, lws = 0, nv = 0;
	uintptr_t i = 0, end = k * sizeof(struct pkt *), grp = (k & ~3u) * sizeof(struct pkt *);
	__m128i want = _mm_set_epi32(VIRTIO_NET_HDR_LEN + NIC_TX_MIN_LEN, (int)s + 1,
				     VIRTIO_NET_HDR_LEN + NIC_TX_MIN_LEN, (int)s);
	const __m128i four = _mm_set_epi32(0, 4, 0, 4);
	for (; i != grp; i += 4 * sizeof(struct pkt *), ue += 4, want = _mm_add_epi32(want, four)) {
		if (!rx_grp_common(ue, want))
			break;
		uint32_t j = 0;
#pragma GCC unroll 4
		for (; j < 4; j++) {
			struct pkt *p = *(struct pkt **)(bufs + i + 8 * j);
			uint8_t f = ((const struct virtio_net_hdr *)slot_buf(p))->flags;
			if (f & ~VIRTIO_NET_HDR_F_DATA_VALID)
				break;
			struct pkt *n = *(struct pkt *const *)(fresh + i + 8 * j);
			*(struct pkt **)(bufs + i + 8 * j) = n;
			((volatile struct vring_desc *)(d + 2 * (i + 8 * j)))->addr = (uint64_t)slot_buf(n);
			p->data = slot_buf(p) + VIRTIO_NET_HDR_LEN;
			uint64_t lw = ue[j].len + lpq;
			memcpy(&p->len, &lw, sizeof(lw));	/* len, port, queue, clones 0 */
			p->flags = (uint16_t)(f << 1);	/* DATA_VALID: PKT_RX_L4_CSUM_OK */
			lws += lw;
			nv += f;
			*(struct pkt **)(o + i + 8 * j) = p;
		}
		if (j < 4) {
			i += 8 * j;
			break;
		}
	}
	sum = lws - (i / sizeof(struct pkt *)) * ((uint64_t)portq << 16) + (nv << 31);	/* bytes, DATA_VALID << 32 */
	uint64_t want1 = (s + i / sizeof(struct pkt *)) | (uint64_t)(VIRTIO_NET_HDR_LEN + NIC_TX_MIN_LEN) << 32;
	for (; i != end; i += sizeof(struct pkt *), want1++) {
		uint64_t x;
		memcpy(&x, e + i, sizeof(x));	/* id in the low half, len in the high one; 4-byte aligned */
		x -= want1;
		uint64_t r = x << 32 | x >> 32;
		if (r > ETH_MAX_FRAME - NIC_TX_MIN_LEN)
			break;
		uint32_t len = (uint32_t)r + NIC_TX_MIN_LEN;
		struct pkt *p = *(struct pkt **)(bufs + i);
		uint8_t f = ((const struct virtio_net_hdr *)slot_buf(p))->flags;
		if (f & ~VIRTIO_NET_HDR_F_DATA_VALID)
			break;
		struct pkt *n = *(struct pkt *const *)(fresh + i);
		*(struct pkt **)(bufs + i) = n;
		((volatile struct vring_desc *)(d + 2 * i))->addr = (uint64_t)slot_buf(n);
		p->data = slot_buf(p) + VIRTIO_NET_HDR_LEN;
		p->len = (uint16_t)len;
		memcpy(&p->port, &portq, sizeof(portq));	/* port, queue */
		p->flags = (uint16_t)(f << 1);	/* DATA_VALID: PKT_RX_L4_CSUM_OK */
		sum += len + ((uint64_t)f << 31);
		*(struct pkt **)(o + i) = p;
	}
	*acc += sum;
	return (uint32_t)(i / sizeof(struct pkt *));
}

/* rx_seq over up to m entries from last_used, in one run or two (at the
 * ring's end), their fresh buffers the m below *top (the pool's free
 * stack), those not taken moved down onto the rest; returns the entries
 * taken, *top, *bytes and *valid as rx_run. */
static inline __attribute__((always_inline)) uint32_t rx_seq_ring(struct virtq *vq, uint32_t portq,
								  struct pkt ***top, struct pkt **out, uint32_t m,
								  uint64_t *bytes, uint64_t *valid)
{
	const uint32_t n = vq->n, s = vq->last_used & (n - 1), k1 = n - s < m ? n - s : m;
	struct pkt **t = *top;
	uint64_t acc = 0;
	uint32_t k = rx_seq(vq, s, k1, portq, t - k1, out, &acc);
	if (k < k1) {
		memmove(t - k1, t - k1 + k, (k1 - k) * sizeof(*t));
	} else if (m > k1) {
		uint32_t k2 = rx_seq(vq, 0, m - k1, portq, t - m, out + k1, &acc);
		if (k2 < m - k1)
			memmove(t - m, t - m + k2, (m - k1 - k2) * sizeof(*t));
		k += k2;
	}
	*top = t - k;
	vq->last_used = (uint16_t)(vq->last_used + k);
	vq->avail_idx = (uint16_t)(vq->avail_idx + k);
	*bytes += (uint32_t)acc;
	*valid = acc >> 32;
	return k;
}

/* 1 when rx_seq_ring applies to vq: a split ring with the 12-byte header
 * and no MRG_RXBUF, every descriptor posted in its own avail slot (not
 * ooo), no frame's rest to skip, copybreak off, a PKT_SLOT pool. */
static inline int rx_seq_ok(const struct nic *nic, const struct virtq *vq)
{
	return !vq->packed && !vq->skip && nic->cfg.copybreak <= 0 && !vq->mrg_rxbuf &&
	       vq->hdr == VIRTIO_NET_HDR_LEN && !vq->ooo && (uint16_t)(vq->avail_idx - vq->last_used) == vq->n &&
	       nic->pool->slot == PKT_SLOT;
}

/* rx_seq_ring (seq, where rx_seq_ok said so) or rx_run over up to m
 * entries of a split ring, with one pool lock for the run, as the e1000x
 * RX fast path; 0 for a packed ring, the rest of a frame spread over
 * buffers, or copybreak on (rx_one's). The frames are counted in the
 * queue's rx_packets and rx_bytes here, so that no count of the caller's
 * is passed by address (a stack canary, and the count kept in memory). */
static inline __attribute__((always_inline)) uint16_t rx_fast_body(struct nic *nic, struct virtq *vq, int q,
								   struct pkt **out, uint16_t m, const int seq)
{
	struct pktpool *pool = nic->pool;
	const uint32_t portq = (uint32_t)nic->port | (uint32_t)q << 16;
	uint64_t valid, b = 0, *bytes = &b;
	uint32_t k;
	if (!seq && (vq->packed || vq->skip || nic->cfg.copybreak > 0))
		return 0;
	pktpool_lock(pool);
	struct pkt **top = pool->free + pool->nfree;
	if (m > pool->nfree)
		m = (uint16_t)pool->nfree;
	__atomic_signal_fence(__ATOMIC_ACQUIRE);	/* used->idx before the entries (x86: loads in order) */
	if (seq)
		k = rx_seq_ring(vq, portq, &top, out, m, bytes, &valid);
	else if (vq->mrg_rxbuf)	/* the legacy interface */
		k = rx_run(vq, portq, &top, out, m, bytes, &valid, VIRTIO_NET_HDR_LEN, 1);
	else if (vq->hdr != VIRTIO_NET_HDR_LEN)
		k = rx_run(vq, portq, &top, out, m, bytes, &valid, VIRTIO_NET_HDR_HASH_LEN, 0);
	else
		k = rx_run(vq, portq, &top, out, m, bytes, &valid, VIRTIO_NET_HDR_LEN, 0);
	pool->nfree = (uint32_t)(top - pool->free);
	pktpool_unlock(pool);
	nic->qsw[q][NS_rx_csum_offload_good] += valid;
	nic->q[q].rx_packets += k;
	nic->q[q].rx_bytes += b;
	return (uint16_t)k;
}

/* rx_fast_body's rx_run case, its own function (not inlined), so that
 * rx_fast, whose common case is rx_seq_ring's, holds none of rx_run's
 * loads and spills. */
static __attribute__((noinline)) uint16_t rx_fast_run(struct nic *nic, struct virtq *vq, int q, struct pkt **out,
						      uint16_t m)
{
	return rx_fast_body(nic, vq, q, out, m, 0);
}

/* rx_fast_body, rx_seq_ring's case where rx_seq_ok says so, else
 * rx_fast_run's. */
static __attribute__((noinline)) uint16_t rx_fast(struct nic *nic, struct virtq *vq, int q, struct pkt **out,
						  uint16_t m)
{
	if (!rx_seq_ok(nic, vq))
		return rx_fast_run(nic, vq, q, out, m);
	return rx_fast_body(nic, vq, q, out, m, 1);
}

/* VIRTIO_F_IN_ORDER (2.7.9): the used entry at u names buffer id, the
 * last of a batch of the buffers made available from avail slot u on
 * (the device wrote one entry for the batch and moved its used index by
 * the batch's size): how many buffers come before id in it, looked for
 * among the m entries waiting that were made available; 0 if id is not
 * among them (rx_one's, as without the feature). */
static uint16_t rx_batch_before(const struct virtq *vq, uint32_t u, uint32_t id, uint16_t m)
{
	uint16_t posted = (uint16_t)(vq->avail_idx - u), k = m < posted ? m : posted;
	for (uint16_t j = 1; j < k; j++)
		if (vq->avail->ring[(u + j) & (vq->n - 1)] == id)
			return j;
	return 0;
}

/* The used entry at last_used the slow way (rx_one), m waiting, its frame
 * counted in the queue's rx_packets and rx_bytes (an entry naming no
 * descriptor, or the rest of a frame spread over buffers, is not a
 * frame): the frame to deliver, or NULL. With VIRTIO_F_IN_ORDER, an entry
 * standing for a batch (rx_batch_before) has the batch's earlier buffers,
 * whose lengths the device did not write, dropped in rx_drop_desc_error
 * and posted again first. The used entries taken (1, or the batch's size)
 * are how far last_used moved. Not inlined: the burst's loop keeps its
 * counts in registers. */
static __attribute__((noinline)) struct pkt *rx_slow(struct nic *nic, struct virtq *vq, int q, uint16_t m)
{
	struct nic_qstats *qs = &nic->q[q];
	uint32_t id, len, u = vq->last_used;
	virtq_take_used(vq, &id, &len);
	if (id >= vq->n) {
		nic->qsw[q][NS_rx_drop_desc_error]++;	/* not a descriptor: nothing to post again */
		return 0;
	}
	if (__builtin_expect(vq->skip, 0)) {	/* the rest of a frame dropped whole */
		vq->skip--;
		rx_post(vq, (uint16_t)id, vq->bufs[id]);
		return 0;
	}
	uint16_t before = vq->in_order && id != vq->avail->ring[u & (vq->n - 1)] ? rx_batch_before(vq, u, id, m) : 0;
	for (uint16_t j = 0; j < before; j++) {	/* each slot read before rx_post writes it again */
		uint16_t b = vq->avail->ring[(u + j) & (vq->n - 1)];
		rx_post(vq, b, vq->bufs[b]);
	}
	vq->last_used = (uint16_t)(vq->last_used + before);
	nic->qsw[q][NS_rx_drop_desc_error] += before;
	qs->rx_drops += before;
	qs->rx_packets += before + 1u;
	qs->rx_bytes += len > vq->hdr ? len - vq->hdr : 0;
	return rx_one(nic, vq, q, (uint16_t)id, len);
}

/* Split rings: rx_fast's runs, each stopped by an entry rx_slow takes;
 * packed ones: rx_slow's, entry by entry. */
static int vnet_rx_burst(struct nic *nic, int q, struct pkt **pkts, int n)
{
	struct virtq *vq = &to_vnet(nic)->rxq[q];
	struct nic_qstats *qs = &nic->q[q];
	int got = 0;
	uint16_t m;
	qs->polls++;
	if (!(m = virtq_used_ready(vq)))
		return 0;
	do {
		while (m && got < n) {
			uint16_t k = rx_fast(nic, vq, q, pkts + got, (uint16_t)(m < n - got ? m : n - got));
			got += k;
			m = (uint16_t)(m - k);
			if (m && got < n) {
				uint16_t u = vq->last_used;
				struct pkt *p = rx_slow(nic, vq, q, m);
				if (p)
					pkts[got++] = p;
				m = (uint16_t)(m - (uint16_t)(vq->last_used - u));
			}
		}
	} while (got < n && vq->packed && (m = virtq_used_ready(vq)));
	virtq_publish(vq);
	qs->poll_pkts += (uint64_t)got;
	nic->qsw[q][NS_rx_delivered] += (uint64_t)got;
	return got;
}

/* The buffer of sent frame id (a used entry), taken out of bufs; NULL if
 * id names no descriptor in flight (counted in tx_errors by the caller,
 * never followed). */
static inline struct pkt *tx_done(struct pkt **bufs, uint16_t n, uint32_t id)
{
	struct pkt *p = id < n ? bufs[id] : 0;
	if (__builtin_expect(p != 0, 1))
		bufs[id] = 0;
	return p;
}

/* Packed rings: the used entries one by one (2.8.1's flags per slot),
 * their buffers NIC_BURST_MAX to a pkt_free_bulk. */
static void tx_reclaim_packed(struct nic *nic, struct virtq *vq)
{
	struct pkt *done[NIC_BURST_MAX];
	int k = 0;
	uint32_t id, len;
	while (virtq_used_ready(vq)) {
		virtq_take_used(vq, &id, &len);
		struct pkt *p = tx_done(vq->bufs, vq->n, id);
		if (!p) {
			nic->stats[NS_tx_errors]++;
			continue;
		}
		vq->nfree++;
		done[k++] = p;
		if (k == NIC_BURST_MAX) {
			pkt_free_bulk(done, k);
			k = 0;
		}
	}
	pkt_free_bulk(done, k);
}

/* Split, not ooo: the frames in flight are the busy ones before
 * avail_idx, and the nfree slots from avail_idx on are free, though their
 * bufs entries may still name frames a run freed (tx_free_run leaves
 * them). Those entries are cleared, so that bufs names exactly the frames
 * in flight, as the checked way (tx_done) and release_pair read it. */
static void tx_forget_free(struct virtq *vq)
{
	if (vq->packed || vq->ooo)
		return;
	for (uint32_t i = 0; i < vq->nfree; i++)
		vq->bufs[(vq->avail_idx + i) & (vq->n - 1)] = 0;
}

/* Split rings, the checked way: the m used entries from last_used, each
 * id looked up (tx_done), NIC_BURST_MAX buffers to a pkt_free_bulk; the
 * queue is then ooo (free and in-flight slots may interleave, bufs names
 * those in flight) until it drains. */
static void tx_reclaim_ids(struct nic *nic, struct virtq *vq, uint32_t m)
{
	struct pkt *done[NIC_BURST_MAX], **bufs = vq->bufs;
	volatile struct vring_used_elem *ring = vq->used->ring;
	const uint32_t n = vq->n, mask = n - 1, last = vq->last_used, end = last + m;
	uint32_t freed = 0;
	uint64_t bad = 0;
	tx_forget_free(vq);
	vq->ooo = 1;
	for (uint32_t u = last; u != end;) {	/* NIC_BURST_MAX entries to a pkt_free_bulk */
		const uint32_t stop = end - u > NIC_BURST_MAX ? u + NIC_BURST_MAX : end;
		int k = 0;
		for (; u != stop; u++) {
			struct pkt *p = tx_done(bufs, (uint16_t)n, ring[u & mask].id);
			if (__builtin_expect(!p, 0)) {
				bad++;
				continue;
			}
			done[k++] = p;
		}
		pkt_free_bulk(done, k);
		freed += (uint32_t)k;
	}
	vq->nfree = (uint16_t)(vq->nfree + freed);
	nic->stats[NS_tx_errors] += bad;
}

/* k buffers of sent frames straight out of bufs; their slots keep the
 * stale pointers (free by their place, tx_forget_free). No call for 0:
 * a run's part after the ring's end is mostly empty. */
static inline void tx_free_run(struct pkt **bufs, uint32_t k)
{
	if (k)
		pkt_free_bulk(bufs, (int)k);
}

/* Nonzero unless the k used entries from slot s name their own slots
 * (entry s + i names id s + i). The device does not write them again
 * until their buffers are made available again, so they are read as
 * plain memory (after the acquire that follows the used index), two
 * entries to a 16-byte load, four a round; their lengths (0 for a sent
 * frame) are not looked at. */
static inline uint32_t tx_ids_off(const struct virtq *vq, uint32_t s, uint32_t k)
{
	const struct vring_used_elem *e = (const struct vring_used_elem *)vq->used->ring + s;
	const __m128i two = _mm_set_epi32(0, 2, 0, 2), four = _mm_add_epi32(two, two);
	__m128i want = _mm_set_epi32(0, (int)(s + 1), 0, (int)s), want2 = _mm_add_epi32(want, two);
	__m128i off = _mm_setzero_si128();
	uint32_t i = 0;
	for (; i + 4 <= k; i += 4) {
		__m128i x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)&e[i]), want);
		__m128i y = _mm_xor_si128(_mm_loadu_si128((const __m128i *)&e[i + 2]), want2);
		off = _mm_or_si128(off, _mm_or_si128(x, y));
		want = _mm_add_epi32(want, four);
		want2 = _mm_add_epi32(want2, four);
	}
	if (i + 2 <= k) {
		off = _mm_or_si128(off, _mm_xor_si128(_mm_loadu_si128((const __m128i *)&e[i]), want));
		i += 2;
	}
	uint32_t o = (uint32_t)_mm_cvtsi128_si32(off) | (uint32_t)_mm_cvtsi128_si32(_mm_unpackhi_epi64(off, off));
	if (i < k)
		o |= e[i].id ^ (s + i);
	return o;
}

/* Split with VIRTIO_F_IN_ORDER (2.7.9): the m buffers the used index moved
 * past are the m oldest in flight, from slot avail_idx - busy on (the
 * device may have written one entry for a batch of them), freed straight
 * out of bufs without reading an entry; an index moved past every frame
 * in flight is a lie, its excess counted in tx_errors. */
static inline void tx_reclaim_in_order(struct nic *nic, struct virtq *vq, uint32_t m)
{
	const uint32_t n = vq->n, busy = n - vq->nfree, k = m < busy ? m : busy;
	const uint32_t s = (uint16_t)(vq->avail_idx - busy) & (n - 1), k1 = n - s < k ? n - s : k;
	tx_free_run(vq->bufs + s, k1);
	tx_free_run(vq->bufs, k - k1);
	vq->nfree = (uint16_t)(vq->nfree + k);
	if (__builtin_expect(m != k, 0))
		nic->stats[NS_tx_errors] += m - k;
}

/* Split without VIRTIO_F_IN_ORDER: the m entries waiting at one read of
 * used->idx (only ids are read: a sent frame's length is 0). QEMU
 * returns them in order, so when the queue is not ooo, the driver's used
 * index is the oldest frame's slot, no more entries wait than frames are
 * in flight, and each entry u names its own slot (buffer u mod n, as
 * tx_fill_split placed it), the run is freed straight out of bufs, one
 * pkt_free_bulk per contiguous part; else each id is looked up
 * (tx_reclaim_ids). */
static inline void tx_reclaim_split(struct nic *nic, struct virtq *vq, uint32_t m)
{
	const uint32_t n = vq->n, last = vq->last_used, busy = n - vq->nfree;
	const uint32_t s = last & (n - 1), k = n - s < m ? n - s : m;
	uint32_t odd = vq->ooo | (m > busy) | ((uint16_t)(vq->avail_idx - last) != busy);
	__atomic_signal_fence(__ATOMIC_ACQUIRE);	/* the index before the entries (x86: loads in order) */
	odd |= tx_ids_off(vq, s, k);
	if (m > k)	/* the part after the ring's end */
		odd |= tx_ids_off(vq, 0, m - k);
	if (__builtin_expect(odd != 0, 0)) {
		tx_reclaim_ids(nic, vq, m);
	} else {
		tx_free_run(vq->bufs + s, k);
		tx_free_run(vq->bufs, m - k);
		vq->nfree = (uint16_t)(vq->nfree + m);
	}
}

/* Free the buffers of sent frames: packed rings entry by entry
 * (tx_reclaim_packed), split ones from one read of used->idx
 * (tx_reclaim_in_order, tx_reclaim_split). used_event is kept half the
 * index space ahead, so the device never interrupts for sent frames
 * (2.7.10; the queue has no vector either). */
static void tx_reclaim(struct nic *nic, struct virtq *vq)
{
	if (__builtin_expect(vq->packed, 0)) {
		tx_reclaim_packed(nic, vq);
		return;
	}
	const uint32_t n = vq->n, last = vq->last_used, m = virtq_used_ready(vq);
	if (vq->in_order)
		tx_reclaim_in_order(nic, vq, m);
	else
		tx_reclaim_split(nic, vq, m);
	vq->last_used = (uint16_t)(last + m);
	if (vq->nfree == n)
		vq->ooo = 0;	/* drained: every slot free */
	if (vq->event_idx)
		*vq->used_event = (uint16_t)(vq->last_used + 0x8000);
}

/* tx_hdr's checksums, for pkt flags f with PKT_TX_IP_CSUM or
 * PKT_TX_L4_CSUM (5.1.6.2): the TCP or UDP checksum by the device
 * (NEEDS_CSUM from csum_start, after a 20-byte IPv4 or a 40-byte IPv6
 * header (PKT_TX_IP6), the field at csum_offset 16 or 6 (PKT_TX_UDP)
 * holding the pseudo-header sum as PKT_TX_L4_CSUM leaves it); virtio has
 * no IPv4 header checksum offload, so PKT_TX_IP_CSUM is done here. Not
 * inlined: forwarded frames have neither, and the fill loops keep their
 * registers. */
static __attribute__((noinline)) void tx_hdr_csum(const struct pkt *p, struct virtio_net_hdr *h, uint32_t f)
{
	if (f & PKT_TX_IP_CSUM)
		put16(p->data + ETH_IP_OFF + 10, inet_csum(p->data + ETH_IP_OFF, 20));
	if (f & PKT_TX_L4_CSUM)
		*h = (struct virtio_net_hdr){ .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
					      .csum_start = f & PKT_TX_IP6 ? IP6_L4_OFF : IP_L4_OFF,
					      .csum_offset = f & PKT_TX_UDP ? UDP_CSUM_OFF : TCP_CSUM_OFF };
}

/* The header (hdr bytes at h, just before p->data) of a frame to send
 * whose pkt flags are f (5.1.6.2): no offload (a 20-byte header's hash
 * fields 0), or tx_hdr_csum's. h and f are the caller's, read before the
 * header's stores, which could alias the pkt. */
static inline void tx_hdr(const struct pkt *p, uint8_t *h8, uint32_t f, uint32_t hdr)
{
	struct virtio_net_hdr *h = (struct virtio_net_hdr *)h8;
	*h = (struct virtio_net_hdr){ .gso_type = VIRTIO_NET_HDR_GSO_NONE };
	if (__builtin_expect(hdr != VIRTIO_NET_HDR_LEN, 0))
		memset(h + 1, 0, VIRTIO_NET_HDR_HASH_LEN - VIRTIO_NET_HDR_LEN);
	if (__builtin_expect(f & (PKT_TX_IP_CSUM | PKT_TX_L4_CSUM), 0))
		tx_hdr_csum(p, h, f);
}

/* Split rings: buffer id i is descriptor i in avail ring slot i, the ring
 * filled once at start (2.7.6: the driver may make any descriptor
 * available), so a frame costs its header and its descriptor's address
 * and length, and a burst one avail->idx store (virtq_publish). */
static void tx_ring_init(struct virtq *vq)
{
	if (!vq->packed)
		for (uint16_t i = 0; i < vq->n; i++)
			vq->avail->ring[i] = i;
}

/* Reclaim when a burst would not fit, half the ring is in flight (at
 * least NIC_TX_FREE_THRESH descriptors: the pool lock is taken once per
 * run of up to NIC_BURST_MAX buffers), or the next slot is (ooo or packed: a device
 * that returned buffers out of order may have returned it since). */
static inline int tx_reclaim_due(const struct virtq *vq, int n)
{
	int busy = vq->n - vq->nfree;
	return vq->nfree < n || busy >= (vq->n / 2 > NIC_TX_FREE_THRESH ? vq->n / 2 : NIC_TX_FREE_THRESH) ||
	       ((vq->ooo | vq->packed) && vq->bufs[vq->avail_idx & (vq->n - 1)]);
}

/* Frames pkts[0..k) into the k descriptors from desc, buffer ids from
 * bufs on (contiguous slots, all free), behind a header of hdr bytes; the
 * frames' bytes (the descriptors' less the headers). The three arrays
 * are walked at one byte offset (8 bytes a frame, the descriptors twice
 * it), as rx_seq, four frames a round. */
static inline __attribute__((always_inline)) uint64_t tx_fill_run(struct pkt **bufs, volatile struct vring_desc *desc,
								  struct pkt **pkts, uint32_t k, const uint16_t hdr)
{
	char *b8 = (char *)bufs, *d8 = (char *)desc, *p8 = (char *)pkts;
	uint64_t b = 0;
#pragma GCC unroll 4
	for (uintptr_t i = 0, end = k * sizeof(struct pkt *); i != end; i += sizeof(struct pkt *)) {
		struct pkt *p = *(struct pkt **)(p8 + i);
		volatile struct vring_desc *d = (volatile struct vring_desc *)(d8 + 2 * i);
		uint8_t *h = p->data - hdr;
		uint64_t len = (uint64_t)hdr + p->len;
		tx_hdr(p, h, p->flags, hdr);
		*(struct pkt **)(b8 + i) = p;
		b += len;
		d->addr = (uint64_t)h;	/* flags 0, next unread: as virtq_restart left them */
		d->len = (uint32_t)len;
	}
	return b - (uint64_t)hdr * k;
}

/* Up to m frames of pkts into split ring vq: frame k in descriptor and
 * buffer id avail_idx + k (mod n), whose avail ring slot already names it
 * (tx_ring_init), behind a header of hdr bytes (vq->hdr, a constant where
 * it is inlined). Unless the queue is ooo, the nfree slots from avail_idx
 * are free (those in flight are the ones before it) and the frames go in
 * one or two contiguous runs; else a slot still in flight stops the
 * burst. Returns the frames placed, their bytes in *bytes. */
static inline __attribute__((always_inline)) int tx_fill_split(struct virtq *vq, struct pkt **pkts, int m,
							       uint64_t *bytes, const uint16_t hdr)
{
	if (__builtin_expect(!vq->ooo, 1)) {
		const uint32_t n = vq->n, s = vq->avail_idx & (n - 1), k = n - s < (uint32_t)m ? n - s : (uint32_t)m;
		uint64_t b = tx_fill_run(vq->bufs + s, vq->desc + s, pkts, k, hdr);
		if ((uint32_t)m > k)	/* the part after the ring's end */
			b += tx_fill_run(vq->bufs, vq->desc, pkts + k, (uint32_t)m - k, hdr);
		*bytes = b;
		vq->avail_idx = (uint16_t)(vq->avail_idx + m);
		return m;
	}
	struct pkt **bufs = vq->bufs;
	volatile struct vring_desc *desc = vq->desc;
	const uint16_t mask = (uint16_t)(vq->n - 1), start = vq->avail_idx;
	uint64_t b = 0;
	int k = 0;
	for (; k < m; k++) {
		struct pkt *p = pkts[k];
		uint16_t id = (uint16_t)(start + k) & mask;
		if (__builtin_expect(bufs[id] != 0, 0))
			break;
		uint8_t *h = p->data - hdr;
		uint32_t len = p->len;
		tx_hdr(p, h, p->flags, hdr);
		bufs[id] = p;
		b += len;
		desc[id].addr = (uint64_t)h;	/* flags 0, next unread: as virtq_restart left them */
		desc[id].len = hdr + len;
	}
	vq->avail_idx = (uint16_t)(start + k);
	*bytes = b;
	return k;
}

/* The same for a packed ring: frame k in slot avail_idx + k with that
 * slot's number as its buffer id (2.8.6). */
static int tx_fill_packed(struct virtq *vq, struct pkt **pkts, int m, uint64_t *bytes)
{
	int k = 0;
	for (; k < m; k++) {
		struct pkt *p = pkts[k];
		uint16_t id = vq->avail_idx & (uint16_t)(vq->n - 1);
		if (vq->bufs[id])
			break;
		uint8_t *h = p->data - vq->hdr;
		uint32_t len = p->len;
		tx_hdr(p, h, p->flags, vq->hdr);
		vq->bufs[id] = p;
		*bytes += len;
		virtq_add_buf(vq, id, (uint64_t)h, vq->hdr + len, 0);
	}
	return k;
}

/* A device that returned buffers out of order can leave the next slot in
 * flight with others free: the burst stops there, counted in tx_ring_full. */
static int vnet_tx_burst(struct nic *nic, int q, struct pkt **pkts, int n)
{
	struct virtq *vq = &to_vnet(nic)->txq[q];
	if (tx_reclaim_due(vq, n))
		tx_reclaim(nic, vq);
	int m = n < vq->nfree ? n : vq->nfree, sent;
	uint64_t bytes = 0;
	if (__builtin_expect(vq->packed, 0))
		sent = tx_fill_packed(vq, pkts, m, &bytes);
	else if (vq->hdr == VIRTIO_NET_HDR_LEN)
		sent = tx_fill_split(vq, pkts, m, &bytes, VIRTIO_NET_HDR_LEN);
	else
		sent = tx_fill_split(vq, pkts, m, &bytes, VIRTIO_NET_HDR_HASH_LEN);
	vq->nfree = (uint16_t)(vq->nfree - sent);
	if (sent < n)
		nic->qsw[q][NS_tx_ring_full]++;
	if (!sent)
		return 0;
	virtq_publish(vq);
	nic->q[q].tx_packets += (uint64_t)sent;
	nic->q[q].tx_bytes += bytes;
	nic->qsw[q][NS_tx_sent] += (uint64_t)sent;
	return sent;
}

static int vnet_rx_pending(struct nic *nic, int q)
{
	return virtq_has_used(&to_vnet(nic)->rxq[q]);
}

static int vnet_irq_enable(struct nic *nic, int q)
{
	return virtq_irq(&to_vnet(nic)->rxq[q], 1);
}

static void vnet_irq_disable(struct nic *nic, int q)
{
	virtq_irq(&to_vnet(nic)->rxq[q], 0);
}

/* No register raises a queue's interrupt: the core sends its vector to
 * itself (the poll loop calls this on the queue's owner). */
static void vnet_irq_raise(struct nic *nic, int q)
{
	struct pci_dev *d = nic->pci;
	int k = to_vnet(nic)->msix && !nic->irq_shared ? q : 0;
	lapic_ipi(lapic_id(), LAPIC_ICR_FIXED | (uint32_t)d->vectors[k]);
}

/* InterruptThrottleRate: virtio has no interrupt timer; the device
 * interrupts once per used_event crossing, which the poll loop re-arms
 * only at the end of a round. The rate is recorded, not enforced. */
static void vnet_set_itr(struct nic *nic, int q, uint32_t ints_per_s)
{
	nic->q[q].itr = ints_per_s;
}

static void vnet_update_stats(struct nic *nic)
{
	uint64_t *s = nic->stats;
	nic_stats_fold(nic);
	s[NS_rx_packets] = s[NS_rx_bytes] = s[NS_tx_packets] = s[NS_tx_bytes] = 0;
	for (int q = 0; q < nic->nqueues; q++) {
		s[NS_rx_packets] += nic->q[q].rx_packets;
		s[NS_rx_bytes] += nic->q[q].rx_bytes;
		s[NS_tx_packets] += nic->q[q].tx_packets;
		s[NS_tx_bytes] += nic->q[q].tx_bytes;
	}
}

static void vnet_tx_clean(struct nic *nic, int q)
{
	tx_reclaim(nic, &to_vnet(nic)->txq[q]);
}

static void vnet_request_reset(struct nic *nic)
{
	to_vnet(nic)->reset_pending = 1;
	nic->other_pending = 1;
}

/* The shell's `reset PORT queue Q`: pair q alone at the next watchdog
 * (reset_pair), with VIRTIO_F_RING_RESET negotiated. */
static int vnet_reset_queue(struct nic *nic, int q)
{
	struct vnet_port *v = to_vnet(nic);
	if (!(v->t.features & VIRTIO_BIT(VIRTIO_F_RING_RESET))) {
		printf("%s: the device does not offer VIRTIO_F_RING_RESET (virtio 1.2 2.6.1; QEMU: queue_reset=on, "
		       "not on the legacy interface): `reset %s` resets the whole port\n", nic->name, nic->name);
		return -1;
	}
	__atomic_fetch_or(&v->qreset_pending, 1u << q, __ATOMIC_RELEASE);
	nic->other_pending = 1;
	return 0;
}

/* Link state from the config status field (5.1.4, with VIRTIO_NET_F_STATUS;
 * without it the link is always up). virtio has no speed (no SPEED_DUPLEX). */
static void check_link(struct vnet_port *v)
{
	struct nic *nic = &v->nic;
	int up = !(v->t.features & VIRTIO_BIT(VIRTIO_NET_F_STATUS)) ||
		 (vpci_config(&v->t, VIRTIO_NET_CFG_STATUS, 2) & VIRTIO_NET_S_LINK_UP);
	if (up == nic->link_up)
		return;
	if (nic->link_up >= 0)	/* -1: first look after probe */
		nic->stats[NS_link_changes]++;
	nic->link_up = up;
	printf("%s: link %s\n", nic->name, up ? "up, virtio (no speed), full duplex" : "down");
}

/* The frames queue pair q holds go back to the pool after the device or
 * the pair was reset: received ones not delivered in rx_drop_reset,
 * frames the device had not reported sent in tx_dropped. */
static void release_pair(struct vnet_port *v, int q)
{
	struct nic *nic = &v->nic;
	struct virtq *rx = &v->rxq[q], *tx = &v->txq[q];
	uint32_t id, len;
	for (uint16_t m; (m = virtq_used_ready(rx)); nic->stats[NS_rx_drop_reset] += m)
		for (uint16_t i = 0; i < m; i++)
			virtq_take_used(rx, &id, &len);
	for (uint16_t i = 0; i < rx->n; i++)
		if (rx->bufs[i]) {
			pkt_free(rx->bufs[i]);
			rx->bufs[i] = 0;
		}
	tx_reclaim(nic, tx);
	tx_forget_free(tx);
	for (uint16_t i = 0; i < tx->n; i++)
		if (tx->bufs[i]) {
			nic->stats[NS_tx_dropped]++;
			pkt_free(tx->bufs[i]);
			tx->bufs[i] = 0;
		}
}

/* 1 when receive queues raise interrupts: not with poll=busy, where QEMU's
 * first used entry after a reset would still send one (virtio-net's
 * event index starts invalid: it notifies once whatever used_event says). */
static int rx_irqs(const struct nic *nic)
{
	return nic->cfg.poll != POLL_BUSY;
}

/* Queue pair q: receive queue 2q on vector q (none with poll=busy),
 * transmit queue 2q+1 without one (5.1.2); every receive descriptor gets
 * a buffer. */
static int setup_pair(struct vnet_port *v, int q)
{
	struct nic *nic = &v->nic;
	struct virtq *rx = &v->rxq[q];
	if (virtq_setup(&v->t, rx, (uint16_t)(2 * q), (uint32_t)nic->rxd,
			v->msix && rx_irqs(nic) ? (uint16_t)(nic->irq_shared ? 0 : q) : VIRTIO_MSI_NO_VECTOR,
			&nic->q[q].rx_kicks) ||
	    virtq_setup(&v->t, &v->txq[q], (uint16_t)(2 * q + 1), (uint32_t)nic->txd, VIRTIO_MSI_NO_VECTOR,
			&nic->q[q].tx_kicks))
		return -1;
	tx_ring_init(&v->txq[q]);
	rx->hdr = v->txq[q].hdr = v->t.features & VIRTIO_BIT(VIRTIO_NET_F_HASH_REPORT) ? VIRTIO_NET_HDR_HASH_LEN
										 : VIRTIO_NET_HDR_LEN;
	rx->mrg_rxbuf = !!(v->t.features & VIRTIO_BIT(VIRTIO_NET_F_MRG_RXBUF));
	rx->skip = 0;
	for (uint16_t i = 0; i < rx->n; i++) {
		struct pkt *p = pkt_alloc(nic->pool);
		if (!p) {
			printf("%s: no buffers for receive queue %d\n", nic->name, q);
			return -1;
		}
		rx_post(rx, i, p);
	}
	return 0;
}

/* The receive filter (5.1.6.5.1-2) as the Intel ports have it: promisc=0
 * the port's MAC, broadcast and the groups joined (nic->mc); promisc=1
 * every frame. Without CTRL_RX, QEMU's device stays promiscuous (its
 * reset state). 0, or -1 after printing. */
static int set_rx_mode(struct vnet_port *v)
{
	struct nic *nic = &v->nic;
	if ((v->t.features & HAS_CTRL_RX) != HAS_CTRL_RX)
		return 0;
	uint8_t on = nic_cfg.promisc != 0, table[8 + NIC_MC_MAX * 6] = { 0 };
	uint32_t nmc = (uint32_t)nic->nmc;
	memcpy(table + 4, &nmc, 4);	/* no unicast entries: the device's MAC is its own */
	memcpy(table + 8, nic->mc, nmc * 6);
	if (virtio_ctrl_cmd(&v->ctrl, nic->name, VIRTIO_NET_CTRL_RX, VIRTIO_NET_CTRL_RX_PROMISC, &on, 1) ||
	    virtio_ctrl_cmd(&v->ctrl, nic->name, VIRTIO_NET_CTRL_RX, VIRTIO_NET_CTRL_RX_ALLMULTI, &on, 1) ||
	    virtio_ctrl_cmd(&v->ctrl, nic->name, VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_TABLE_SET, table,
			    8 + nmc * 6)) {
		printf("%s: receive filter not set: the port may receive every frame\n", nic->name);
		return -1;
	}
	return 0;
}

/* RSS (5.1.6.5.7.1): hash types the device supports among IPv4/6 with
 * TCP and UDP, the Intel ports' 40-byte key, a 128-entry table spread
 * over the pairs as their RETA. 0, or -1 (the device refused it). */
static int set_rss(struct vnet_port *v)
{
	struct nic *nic = &v->nic;
	enum { TABLE = 128, KEY = 40 };
	uint8_t cfg[8 + 2 * TABLE + 3 + KEY];
	uint32_t types = vpci_config(&v->t, VIRTIO_NET_CFG_HASH_TYPES, 4) &
			 (VIRTIO_NET_HASH_TYPE_IPv4 | VIRTIO_NET_HASH_TYPE_TCPv4 | VIRTIO_NET_HASH_TYPE_UDPv4 |
			  VIRTIO_NET_HASH_TYPE_IPv6 | VIRTIO_NET_HASH_TYPE_TCPv6 | VIRTIO_NET_HASH_TYPE_UDPv6);
	uint16_t mask = TABLE - 1, zero = 0, pairs = (uint16_t)nic->nqueues;
	uint8_t klen = KEY;
	if (vpci_config(&v->t, VIRTIO_NET_CFG_RSS_TABLE_MAX, 2) < TABLE ||
	    vpci_config(&v->t, VIRTIO_NET_CFG_RSS_KEY_MAX, 1) < KEY) {
		printf("%s: the device's RSS table or key is shorter than %d entries / %d bytes\n", nic->name,
		       TABLE, KEY);
		return -1;
	}
	memcpy(cfg, &types, 4);
	memcpy(cfg + 4, &mask, 2);
	memcpy(cfg + 6, &zero, 2);	/* unclassified_queue: frames not hashed go to pair 0 */
	for (uint16_t i = 0; i < TABLE; i++) {
		uint16_t q = (uint16_t)(i % nic->nqueues);
		memcpy(cfg + 8 + 2 * i, &q, 2);
	}
	memcpy(cfg + 8 + 2 * TABLE, &pairs, 2);	/* max_tx_vq */
	cfg[10 + 2 * TABLE] = klen;
	for (int i = 0; i < KEY / 4; i++) {
		uint32_t w = nic_rss_key_word(i);
		memcpy(cfg + 11 + 2 * TABLE + 4 * i, &w, 4);
	}
	return virtio_ctrl_cmd(&v->ctrl, nic->name, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_RSS_CONFIG, cfg,
			       sizeof(cfg));
}

/* More than one queue pair: RSS when negotiated, else VQ_PAIRS_SET and
 * the device's own steering (5.1.6.5.5). 0, or -1 after printing. */
static int set_queues(struct vnet_port *v)
{
	struct nic *nic = &v->nic;
	uint16_t pairs = (uint16_t)nic->nqueues;
	if (pairs == 1)
		return 0;
	if (v->t.features & VIRTIO_BIT(VIRTIO_NET_F_RSS) ? set_rss(v)
	    : virtio_ctrl_cmd(&v->ctrl, nic->name, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, &pairs, 2)) {
		printf("%s: %d queue pairs not taken by the device: frames arrive on pair 0 only\n", nic->name,
		       nic->nqueues);
		return -1;
	}
	return 0;
}

static void vnet_set_mc(struct nic *nic)
{
	set_rx_mode(to_vnet(nic));
}

/* VIRTIO_NET_F_HASH_REPORT, asked for with RSS and more than one queue
 * pair: QEMU then steers by the driver's table in its own code (its
 * software RSS, which fills the hash in); without it, QEMU steers with an
 * eBPF program on the tap, which left every flow on pair 0 here
 * (docs/drivers.md). The header grows to 20 bytes both ways. */
static uint64_t rss_hash_wanted(struct vnet_port *v)
{
	uint64_t f = VIRTIO_BIT(VIRTIO_NET_F_RSS) | VIRTIO_BIT(VIRTIO_NET_F_HASH_REPORT);
	return v->nic.nqueues > 1 && (vpci_device_features(&v->t) & f) == f ? VIRTIO_BIT(VIRTIO_NET_F_HASH_REPORT) : 0;
}

/* VIRTIO_F_IN_ORDER when virtio_in_order=1 and the rings will be split
 * (virtio_packed=0 or the device offers no packed ones): the split paths
 * take a batch's one used entry (rx_slow, tx_reclaim_in_order); a packed
 * ring's batch (2.8.x: one used descriptor for it) is not, so the feature
 * is not asked for with packed rings. */
static uint64_t in_order_wanted(const struct virtio_pci *t)
{
	return virtio_in_order && !(virtio_packed && (vpci_device_features(t) & VIRTIO_BIT(VIRTIO_F_RING_PACKED)))
	       ? VIRTIO_BIT(VIRTIO_F_IN_ORDER) : 0;
}

/* Device initialisation (3.1.1): reset, ACKNOWLEDGE, DRIVER, features and
 * FEATURES_OK read back, queues, DRIVER_OK; then the receive buffers are
 * announced (no notification before DRIVER_OK, 3.1.1). 0, or -1 after
 * printing (the device is left FAILED). */
static int vnet_start(struct vnet_port *v)
{
	struct nic *nic = &v->nic;
	struct virtio_pci *t = &v->t;
	if (vpci_reset(t))
		return -1;
	vpci_status_set(t, VIRTIO_STATUS_ACKNOWLEDGE);
	vpci_status_set(t, VIRTIO_STATUS_DRIVER);
	/* The legacy interface has 32 feature bits and no VERSION_1: its
	 * header has num_buffers, so 12 bytes, only with MRG_RXBUF (5.1.6). */
	uint64_t want = t->io ? (VNET_FEATURES | VIRTIO_BIT(VIRTIO_NET_F_MRG_RXBUF)) & 0xffffffffu
			      : VNET_FEATURES | (virtio_packed ? VIRTIO_BIT(VIRTIO_F_RING_PACKED) : 0) |
				rss_hash_wanted(v) | in_order_wanted(t) |
				(t->common_len >= VIRTIO_COMMON_RESET_LEN ? VIRTIO_BIT(VIRTIO_F_RING_RESET) : 0);
	if (vpci_features_ok(t, want))
		return -1;
	if (!(t->features & VIRTIO_BIT(t->io ? VIRTIO_NET_F_MRG_RXBUF : VIRTIO_F_VERSION_1))) {
		printf("%s: the device does not offer %s\n", nic->name, t->io ?
		       "VIRTIO_NET_F_MRG_RXBUF on its legacy interface (its header would be 10 bytes)" :
		       "VIRTIO_F_VERSION_1");
		vpci_status_set(t, VIRTIO_STATUS_FAILED);
		return -1;
	}
	nic->tx_csum = nic->tx_csum6 = !!(t->features & VIRTIO_BIT(VIRTIO_NET_F_CSUM));	/* any csum_start */
	uint16_t cfgvec = !v->msix ? VIRTIO_MSI_NO_VECTOR : nic->irq_shared ? 1 : (uint16_t)nic->nqueues;
	for (int q = 0; q < nic->nqueues; q++)
		if (setup_pair(v, q)) {
			vpci_status_set(t, VIRTIO_STATUS_FAILED);
			return -1;
		}
	uint16_t ctrlq = t->features & (VIRTIO_BIT(VIRTIO_NET_F_MQ) | VIRTIO_BIT(VIRTIO_NET_F_RSS))
			 ? (uint16_t)(2 * v->max_pairs) : 2;	/* 5.1.2 */
	if ((t->features & VIRTIO_BIT(VIRTIO_NET_F_CTRL_VQ)) &&
	    virtq_setup(t, &v->ctrl.vq, ctrlq, 8, VIRTIO_MSI_NO_VECTOR, &v->ctrl.kicks)) {
		vpci_status_set(t, VIRTIO_STATUS_FAILED);
		return -1;
	}
	if (vpci_config_vector(t, cfgvec) != cfgvec)
		printf("%s: the device refused MSI-X vector %u for configuration changes: link changes "
		       "seen once a second\n", nic->name, cfgvec);
	vpci_status_set(t, VIRTIO_STATUS_DRIVER_OK);
	for (int q = 0; q < nic->nqueues; q++)
		virtq_publish(&v->rxq[q]);
	napi_itr_init(nic);
	set_rx_mode(v);	/* a failure is printed; the port runs */
	set_queues(v);
	return 0;
}

/* Reset the device and start it again (DEVICE_NEEDS_RESET, the shell's
 * `reset`); the link goes down and up as on the Intel ports. */
static void recover(struct vnet_port *v, const char *why)
{
	struct nic *nic = &v->nic;
	nic_reset_begin(nic, why);
	vpci_reset(&v->t);
	for (int q = 0; q < nic->nqueues; q++)
		release_pair(v, q);
	nic_stats_fold(nic);
	int err = vnet_start(v);
	v->reset_pending = 0;
	v->qreset_pending = 0;	/* every pair was reset with the device */
	nic_reset_end(nic, err);
}

/* Queue pair q reset alone (VIRTIO_F_RING_RESET; 2.6.1, the steps of
 * Linux's virtnet_rx_resize): the other cores parked, both queues reset
 * (4.1.4.3.2), their frames home as after a device reset (release_pair),
 * the queues placed again with fresh receive buffers and announced;
 * counted in the pair's queue_N_resets. The other pairs, the link and the
 * device's configuration (filter, RSS) are not touched. A queue that does
 * not finish its reset gets the whole device reset. */
static void reset_pair(struct vnet_port *v, int q)
{
	struct nic *nic = &v->nic;
	printf("%s: queue pair %d: reset asked for from the shell: resetting it alone (virtio 1.2 2.6.1)\n",
	       nic->name, q);
	if (nic_stop_others)
		nic_stop_others(1);
	int err = vpci_queue_reset(&v->t, (uint16_t)(2 * q)) || vpci_queue_reset(&v->t, (uint16_t)(2 * q + 1));
	if (!err) {
		release_pair(v, q);
		err = setup_pair(v, q);
	}
	if (!err) {
		virtq_publish(&v->rxq[q]);
		if (rx_irqs(nic))
			(void)vnet_irq_enable(nic, q);
		nic->q[q].resets++;
	}
	if (nic_stop_others)
		nic_stop_others(0);
	if (err)
		recover(v, "a queue pair not reset");
}

/* The pairs the shell asked to reset, taken (reset_pair each). */
static void reset_pairs(struct vnet_port *v)
{
	uint32_t want = __atomic_exchange_n(&v->qreset_pending, 0, __ATOMIC_ACQ_REL);
	for (int q = 0; q < v->nic.nqueues; q++)
		if (want & (1u << q))
			reset_pair(v, q);
}

/* A queue whose used index jumped past its ring (virtq_used_ready), or NULL. */
static const struct virtq *broken_queue(const struct vnet_port *v)
{
	for (int q = 0; q < v->nic.nqueues; q++) {
		if (v->rxq[q].broken)
			return &v->rxq[q];
		if (v->txq[q].broken)
			return &v->txq[q];
	}
	return 0;
}

static void vnet_watchdog(struct nic *nic)
{
	struct vnet_port *v = to_vnet(nic);
	const struct virtq *bad = broken_queue(v);
	nic->other_pending = 0;
	if (vpci_status(&v->t) & VIRTIO_STATUS_NEEDS_RESET) {
		recover(v, "the device set DEVICE_NEEDS_RESET (virtio 1.2 2.1.1)");
	} else if (bad) {
		printf("%s: virtqueue %u: the used index moved %u entries, past its %u descriptors "
		       "(virtio 1.2 2.7.14): none taken\n", nic->name, bad->index, bad->broken, bad->n);
		recover(v, "used ring index past the ring");
	} else if (v->reset_pending) {
		recover(v, "reset asked for from the shell");
	} else if (v->qreset_pending) {
		reset_pairs(v);
	}
	check_link(v);
	napi_watchdog(nic);
}

/* Configuration change (MSI-X config vector): the watchdog reads the link. */
static void vnet_config_irq(struct trapframe *tf, void *arg)
{
	(void)tf;
	((struct nic *)arg)->other_pending = 1;
}

/* INTx: the ISR register says which (4.1.4.5; reading clears it and
 * deasserts the line). Receive queue 0 is scheduled for a queue
 * interrupt, and for a used entry waiting (irq_raise's IPI), unless it is
 * busy polled. */
static void vnet_intx_irq(struct trapframe *tf, void *arg)
{
	struct vnet_port *v = arg;
	uint8_t isr = vpci_isr(&v->t);
	if (isr & VIRTIO_ISR_CONFIG)
		v->nic.other_pending = 1;
	if (rx_irqs(&v->nic) && ((isr & VIRTIO_ISR_QUEUE) || virtq_has_used(&v->rxq[0])))
		napi_queue_irq(tf, napi_queue_arg(&v->nic, 0));
}

/* The receive queues' shared MSI-X vector: every queue with a used entry
 * waiting is scheduled (on its owner, napi_queue_irq). */
static void vnet_shared_irq(struct trapframe *tf, void *arg)
{
	struct vnet_port *v = arg;
	for (int q = 0; q < v->nic.nqueues; q++)
		if (virtq_has_used(&v->rxq[q]))
			napi_queue_irq(tf, napi_queue_arg(&v->nic, q));
}

/* Fewer MSI-X vectors than queues + 1 (QEMU's vectors=): vector 0 for
 * every receive queue and vector 1 for configuration changes, as Linux's
 * vp_find_vqs falls back (per_vq_vectors false). Returns 1 when set up,
 * 0 when the device or IntMode does not allow it. */
static int setup_shared(struct vnet_port *v)
{
	struct nic *nic = &v->nic;
	struct pci_dev *d = nic->pci;
	if (nic->nqueues < 2 || !d->cap_msix || d->msix_size < 2 || d->msix_size > nic->nqueues)
		return 0;
	irq_handler_t handlers[2] = { vnet_shared_irq, vnet_config_irq };
	void *args[2] = { v, nic };
	char rx[32], cfg[32];
	snprintf(rx, sizeof(rx), "%s-rx", nic->name);
	snprintf(cfg, sizeof(cfg), "%s-config", nic->name);
	const char *names[2] = { rx, cfg };
	if (pci_irq_setup(d, 2, handlers, args, names) != 2 || d->int_mode != INT_MODE_MSIX) {	/* IntMode<2 */
		pci_irq_free(d);
		return 0;
	}
	printf("%s: %u MSI-X vectors for %d queues and configuration changes: one shared by the "
	       "receive queues\n", nic->name, d->msix_size, nic->nqueues);
	nic->irq_shared = 1;
	return 1;
}

/* Vectors: receive queue q on vector q and configuration changes on vector
 * nqueues with MSI-X; with too few vectors for that, one shared by the
 * receive queues (setup_shared); else one vector (INTx, ISR) and one
 * queue pair. */
static int setup_vectors(struct vnet_port *v)
{
	if (setup_shared(v)) {
		v->msix = 1;
		return 0;
	}
	int msix = nic_setup_vectors(&v->nic, vnet_config_irq, &v->nic, "config");
	if (msix < 0)
		return -1;
	v->msix = msix;
	if (!msix)
		pci_irq_set_handler(v->nic.pci, 0, vnet_intx_irq, v);
	return 0;
}

/* rxd=/txd=: the device's queue size when the knob is at its default
 * (NIC_RING_DEFAULT), as Linux virtio_net takes it; else the largest power
 * of two within the knob and the queue size, said when not the value
 * asked for. */
static int ring_size(struct vnet_port *v, uint16_t index, int want, const char *knob)
{
	uint16_t max = vpci_queue_max(&v->t, index), n = max;
	if (want == NIC_RING_DEFAULT)
		return max;
	if (v->t.io) {
		if (want != max)
			printf("%s: %s=%d: the legacy interface fixes virtqueue %u at %u descriptors\n", v->nic.name,
			       knob, want, index, max);
		return max;
	}
	while (n > want && n > 1)
		n >>= 1;
	if (n != want)
		printf("%s: %s=%d: virtqueue %u holds %u descriptors (a power of two); using %u\n", v->nic.name,
		       knob, want, index, max, n);
	return n;
}

/* Queue pairs (5.1.4: max_virtqueue_pairs, read before the features are
 * agreed as 3.1.1 step 4 allows): queues= of them, up to what the device
 * has and NIC_MAX_QUEUES; said when fewer than asked. */
static void count_pairs(struct vnet_port *v)
{
	struct nic *nic = &v->nic;
	uint64_t offered = vpci_device_features(&v->t);
	v->max_pairs = 1;
	if (offered & (VIRTIO_BIT(VIRTIO_NET_F_MQ) | VIRTIO_BIT(VIRTIO_NET_F_RSS)))
		v->max_pairs = (uint16_t)vpci_config(&v->t, VIRTIO_NET_CFG_MAX_PAIRS, 2);
	if (!v->max_pairs || !(offered & VIRTIO_BIT(VIRTIO_NET_F_CTRL_VQ)))
		v->max_pairs = 1;	/* 5.1.6.5.5: pairs are chosen on the control queue */
	nic->max_queues = v->max_pairs < NIC_MAX_QUEUES ? v->max_pairs : NIC_MAX_QUEUES;
	nic->nqueues = nic->cfg.queues < nic->max_queues ? (int)nic->cfg.queues : nic->max_queues;
	if ((int)nic->cfg.queues > nic->nqueues)
		printf("%s: queues=%lld: the device has %d queue pair(s) (QEMU: mq=on and a netdev with "
		       "queues=N); using %d\n", nic->name, (long long)nic->cfg.queues, nic->max_queues, nic->nqueues);
}

static void print_probe(struct vnet_port *v)
{
	struct nic *nic = &v->nic;
	struct pci_dev *d = nic->pci;
	char m[MAC_STR_MAX];
	printf("%s: %s %s at %02x:%02x.%x, MAC %s, %d queue(s), rxd %d txd %d, %s\n", nic->name, nic->driver,
	       nic->model, d->bus, d->dev, d->fn, mac_str(m, nic->mac), nic->nqueues, nic->rxd, nic->txd,
	       v->msix ? "MSI-X" : d->int_mode == INT_MODE_MSI ? "MSI" : "INTx");
	printf("%s: virtio features %#llx: %s%s%s%s%s%s%s%s%s%s%s%s%s%s, MTU %u\n", nic->name,
	       (unsigned long long)v->t.features, v->t.io ? "legacy interface, MRG_RXBUF" : "VERSION_1",
	       v->t.features & VIRTIO_BIT(VIRTIO_NET_F_MAC) ? " MAC" : "",
	       v->t.features & VIRTIO_BIT(VIRTIO_NET_F_STATUS) ? " STATUS" : "",
	       v->t.features & VIRTIO_BIT(VIRTIO_NET_F_CSUM) ? " CSUM" : "",
	       v->t.features & VIRTIO_BIT(VIRTIO_NET_F_GUEST_CSUM) ? " GUEST_CSUM" : "",
	       v->t.features & VIRTIO_BIT(VIRTIO_F_EVENT_IDX) ? " EVENT_IDX" : "",
	       v->t.features & VIRTIO_BIT(VIRTIO_NET_F_MTU) ? " MTU" : "",
	       (v->t.features & HAS_CTRL_RX) == HAS_CTRL_RX ? " CTRL_VQ CTRL_RX" : "",
	       v->t.features & VIRTIO_BIT(VIRTIO_NET_F_MQ) ? " MQ" : "",
	       v->t.features & VIRTIO_BIT(VIRTIO_NET_F_RSS) ? " RSS" : "",
	       v->t.features & VIRTIO_BIT(VIRTIO_NET_F_HASH_REPORT) ? " HASH_REPORT" : "",
	       v->t.features & VIRTIO_BIT(VIRTIO_F_RING_PACKED) ? " RING_PACKED" : "",
	       v->t.features & VIRTIO_BIT(VIRTIO_F_IN_ORDER) ? " IN_ORDER" : "",
	       v->t.features & VIRTIO_BIT(VIRTIO_F_RING_RESET) ? " RING_RESET" : "", nic->mtu);
}

/* MAC and MTU from the device configuration (5.1.4), read once the
 * features are agreed. 0, or -1 without a usable MAC. */
static int read_config(struct vnet_port *v)
{
	struct nic *nic = &v->nic;
	if (!(v->t.features & VIRTIO_BIT(VIRTIO_NET_F_MAC))) {
		printf("%s: the device offers no MAC address (VIRTIO_NET_F_MAC)\n", nic->name);
		return -1;
	}
	for (int i = 0; i < 6; i++)
		nic->mac[i] = (uint8_t)vpci_config(&v->t, VIRTIO_NET_CFG_MAC + (uint32_t)i, 1);
	if (v->t.features & VIRTIO_BIT(VIRTIO_NET_F_MTU)) {
		uint32_t mtu = vpci_config(&v->t, VIRTIO_NET_CFG_MTU, 2);
		if (mtu < nic->mtu)
			nic->mtu = mtu;
	}
	return 0;
}

static const struct nic_ops vnet_ops = {
	.rx_burst = vnet_rx_burst, .tx_burst = vnet_tx_burst, .irq_enable = vnet_irq_enable,
	.irq_disable = vnet_irq_disable, .irq_raise = vnet_irq_raise, .rx_pending = vnet_rx_pending,
	.update_stats = vnet_update_stats, .watchdog = vnet_watchdog, .tx_clean = vnet_tx_clean,
	.reset = vnet_request_reset, .reset_queue = vnet_reset_queue, .set_itr = vnet_set_itr, .set_mc = vnet_set_mc,
};

static int vnet_probe(struct pci_dev *d, const struct pci_id *id)
{
	struct vnet_port *v = calloc(1, sizeof(*v));
	if (!v)
		return -1;
	struct nic *nic = &v->nic;
	*nic = (struct nic){ .driver = "virtio_net", .model = id->name, .pci = d, .ops = &vnet_ops,
			     .link_up = -1, .kicks = 1, .rx_short_counted = 1 };	/* rx_one counts them */
	nic_config_init(nic);
	v->t = (struct virtio_pci){ .pci = d, .who = "virtio_net" };
	if (vpci_map(&v->t) || nic_register(nic) < 0) {
		free(v);
		return -1;
	}
	v->t.who = nic->name;
	d->priv = v;
	if (vpci_reset(&v->t)) {
		nic_unregister(nic);
		return -1;
	}
	count_pairs(v);
	nic->rxd = ring_size(v, 0, nic->rxd, "rxd");
	nic->txd = ring_size(v, 1, nic->txd, "txd");
	if (setup_vectors(v) || nic_pools_create(nic) || vnet_start(v) || read_config(v)) {
		vpci_reset(&v->t);
		nic_unregister(nic);
		return -1;
	}
	check_link(v);
	print_probe(v);
	return 0;
}

static const struct pci_id vnet_ids[] = {
	{ VIRTIO_PCI_VENDOR, VIRTIO_PCI_NET_MODERN, "Virtio 1.0 network device" },
	{ VIRTIO_PCI_VENDOR, VIRTIO_PCI_NET_TRANS, "Virtio network device" },
	{ 0, 0, 0 },
};
PCI_DRIVER(virtio_net, .name = "virtio_net", .ids = vnet_ids, .probe = vnet_probe);
