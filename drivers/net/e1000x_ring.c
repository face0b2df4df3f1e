/* RX and TX descriptor rings shared by the gigabit families; see e1000x_ring.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "drivers/net/e1000x.h"
#include "drivers/net/e1000x_ring.h"
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
	if (!tq->ring || !tq->bufs) {
		printf("%s: no memory for TX queue %d (%u descriptors)\n", tq->nic->name, tq->q, tq->n);
		return -1;
	}
	tq->tail = tq->clean = 0;
	tq->stall_since = 0;
	return 0;
}

void e1000x_rxq_release(struct e1000x_rxq *rq)
{
	for (uint32_t i = 0; i < rq->n; i++)
		if (rq->bufs[i]) {
			pkt_free(rq->bufs[i]);
			rq->bufs[i] = 0;
		}
}

void e1000x_txq_release(struct e1000x_txq *tq)
{
	e1000x_tx_reclaim(tq);
	for (; tq->clean != tq->tail; tq->clean = tq->clean + 1 == tq->n ? 0 : tq->clean + 1) {
		pkt_free(tq->bufs[tq->clean]);
		tq->nic->stats[NS_tx_dropped]++;
	}
}

/* Hardware checksum results into pkt flags. */
static uint32_t csum_flags(uint32_t st, uint64_t *sw)
{
	uint32_t f = 0;
	if (st & RXDEXT_IPCS) {
		f |= st & RXDEXT_ERR_IPE ? PKT_RX_IP_CSUM_BAD : PKT_RX_IP_CSUM_OK;
		sw[st & RXDEXT_ERR_IPE ? NS_rx_csum_offload_errors : NS_rx_csum_offload_good]++;
	}
	if (st & (RXDEXT_TCPCS | RXDEXT_UDPCS)) {
		f |= st & RXDEXT_ERR_TCPE ? PKT_RX_L4_CSUM_BAD : PKT_RX_L4_CSUM_OK;
		sw[st & RXDEXT_ERR_TCPE ? NS_rx_csum_offload_errors : NS_rx_csum_offload_good]++;
	}
	return f;
}

/* Status of descriptor i in the extended layout (legacy converted): DD, EOP,
 * checksum bits and errors in their extended positions. */
static inline uint32_t rx_status(const struct e1000x_rxq *rq, uint32_t i, uint16_t *len)
{
	volatile union rx_desc *d = &rq->ring[i];
	if (!rq->legacy) {
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

int e1000x_rx_pending(const struct e1000x_rxq *rq)
{
	uint16_t len;
	return rx_status(rq, rq->next, &len) & RXDEXT_DD;
}

int e1000x_rx_burst(struct e1000x_rxq *rq, struct pkt **pkts, int n)
{
	struct nic *nic = rq->nic;
	uint64_t *sw = nic->qsw[rq->q];
	uint32_t i = rq->next, last = rq->n;
	uint64_t bytes = 0;
	int got = 0, copybreak = (int)nic->cfg.copybreak, prefetch = (int)nic->cfg.prefetch;

	while (got < n) {
		uint16_t len;
		uint32_t st = rx_status(rq, i, &len);
		if (!(st & RXDEXT_DD))
			break;
		uint32_t next = i + 1 == rq->n ? 0 : i + 1;
		struct pkt *p = rq->bufs[i];
		if (prefetch) {
			__builtin_prefetch((const void *)&rq->ring[next]);
			__builtin_prefetch(p->buf);
		}
		if (!(st & RXDEXT_EOP) || rq->discarding || len > ETH_MAX_FRAME) {
			/* Longer than a VLAN-tagged 1518-byte frame (QEMU's igb passes those
			 * with RCTL.LPE clear), or spread over buffers: drop every piece,
			 * count the frame once. */
			if (!rq->discarding)
				sw[NS_rx_drop_oversize]++;
			rq->discarding = !(st & RXDEXT_EOP);
		} else if (st & RXDEXT_ERR_FRAME) {
			sw[NS_rx_drop_desc_error]++;
		} else {
			struct pkt *out = p;
			uint32_t off = 0;
			uint64_t ts = 0;
			if ((st & rq->tsip_bit) && len > RX_TS_HDR_LEN) {
				memcpy(&ts, p->buf + 8, 8);	/* I350/I210 7.1.5: SYSTIM leads the frame */
				off = RX_TS_HDR_LEN;
				len = (uint16_t)(len - off);
			}
			if (len <= copybreak && (out = pkt_alloc_inline(nic->small_pool))) {
				memcpy(out->data, p->buf + off, len);
				sw[NS_rx_copybreak]++;
			} else {
				struct pkt *fresh = pkt_alloc_inline(nic->pool);
				if (fresh) {
					rq->bufs[i] = fresh;
					out = p;
				} else {
					sw[NS_alloc_rx_buff_failed]++;
					out = 0;
				}
			}
			if (out) {
				if (out == p)
					out->data = p->buf + off;
				out->len = len;
				out->port = (uint16_t)nic->port;
				out->queue = (uint16_t)rq->q;
				out->flags = csum_flags(st, sw) | (off ? PKT_RX_TSTAMP : 0);
				out->tstamp = ts;
				if (st & rq->ts_bit) {
					out->flags |= PKT_RX_TSTAMP;
					phc_rx_hwtstamp(nic, out);
				}
				pkts[got++] = out;
				bytes += len;
			}
		}
		rx_arm(rq, i);
		last = i;
		i = next;
	}
	if (last != rq->n) {
		dma_wmb();
		wr32(rq->regs, rq->rdt, last);
	}
	rq->next = i;
	struct nic_qstats *qs = &nic->q[rq->q];
	qs->polls++;
	qs->poll_pkts += (uint64_t)got;
	qs->rx_packets += (uint64_t)got;
	qs->rx_bytes += bytes;
	nic->itr[rq->q].rx_pkts += (uint64_t)got;
	nic->itr[rq->q].rx_bytes += bytes;
	sw[NS_rx_delivered] += (uint64_t)got;
	return got;
}

uint32_t e1000x_tx_reclaim(struct e1000x_txq *tq)
{
	/* locals: pkt_free's stores could alias the queue's fields */
	uint32_t c = tq->clean, tail = tq->tail, n = tq->n;
	volatile union tx_desc *ring = tq->ring;
	struct pkt **bufs = tq->bufs;
	while (c != tail && (ring[c].d.status & TXD_DD)) {
		pkt_free(bufs[c]);
		c = c + 1 == n ? 0 : c + 1;
	}
	if (c != tq->clean)
		tq->stall_since = 0;
	tq->clean = c;
	return tail >= c ? tail - c : tail + n - c;
}

int e1000x_tx_burst(struct e1000x_txq *tq, struct pkt **pkts, int n)
{
	struct nic *nic = tq->nic;
	uint64_t *sw = nic->qsw[tq->q];
	uint32_t inflight = e1000x_tx_reclaim(tq), t = tq->tail;
	int room = (int)(tq->n - 1 - inflight), sent = 0;
	uint64_t bytes = 0;

	for (; sent < n && sent < room; sent++) {
		struct pkt *p = pkts[sent];
		volatile union tx_desc *d = &tq->ring[t];
		d->d.addr = (uint64_t)p->data;
		if (tq->adv) {
			uint32_t ts = p->flags & PKT_TX_TSTAMP && phc_tx_request(nic, tq->q, t) ? ADVTXD_MAC_TSTAMP : 0;
			d->d.cmd_type_len = p->len | ADVTXD_DTYP_DATA | ADVTXD_DCMD_EOP | ADVTXD_DCMD_IFCS |
					    ADVTXD_DCMD_RS | ADVTXD_DCMD_DEXT | ts;
			d->d.status = (uint32_t)p->len << ADVTXD_PAYLEN_SHIFT;
		} else {
			if (p->flags & PKT_TX_TSTAMP)
				sw[NS_tx_hwtstamp_skipped]++;
			uint32_t cmd = TXD_CMD_EOP | TXD_CMD_IFCS | TXD_CMD_RS | (nic->cfg.tx_int_delay ? TXD_CMD_IDE : 0);
			d->d.cmd_type_len = p->len | cmd << 24;
			d->d.status = 0;
		}
		tq->bufs[t] = p;
		bytes += p->len;
		t = t + 1 == tq->n ? 0 : t + 1;
	}
	if (sent) {
		tq->tail = t;
		dma_wmb();
		wr32(tq->regs, tq->tdt, t);
	}
	if (sent < n)
		sw[NS_tx_ring_full]++;
	struct nic_qstats *qs = &nic->q[tq->q];
	qs->tx_packets += (uint64_t)sent;
	qs->tx_bytes += bytes;
	nic->itr[tq->q].tx_pkts += (uint64_t)sent;
	nic->itr[tq->q].tx_bytes += bytes;
	sw[NS_tx_sent] += (uint64_t)sent;
	return sent;
}

int e1000x_tx_hung(struct e1000x_txq *tq, uint64_t timeout_ns)
{
	/* Read-only: this runs on core 0 while the queue's owner may be in
	 * tx_burst; only the owner reclaims. Hung = the oldest descriptor not
	 * yet reclaimed is still not done. */
	uint32_t c = tq->clean;
	if (c == tq->tail || (tq->ring[c].d.status & TXD_DD) || !tq->nic->link_up) {
		tq->stall_since = 0;
		return 0;
	}
	uint64_t now = now_ns();
	if (!tq->stall_since)
		tq->stall_since = now;
	return now - tq->stall_since > timeout_ns;
}
