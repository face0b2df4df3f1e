/* The e1000e driver (82574L) against the register model: reset order,
 * the 82574 errata bits, IVAR, the MSI-X "other" re-raise, bounded waits. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "drivers/net/e1000e/e1000e.c"
#include "tests/regmodel/model.h"

#define DEV 0x10d3
extern struct nic *model_nic;

static int probe(void)
{
	return model_probe(&pci_driver_e1000e, DEV);
}

static struct pkt *csum_frame(uint32_t flags)
{
	struct pkt *p = pkt_alloc(model_nic->pool);
	p->len = 55;
	p->flags = flags;
	return p;
}

/* Checksum insertion (desc.h; 8254x SDM 3.3.6, 3.3.7): once the app turns
 * it on, the first frame that asks comes after the TCP/IP context
 * descriptor (IPv4 header at 14, checksum at 24, ending at 33; TCP from
 * 34, checksum at 50, to the frame's end; TUCMD DEXT, IP, TCP; DTYP 0000)
 * in a TCP/IP data descriptor (DEXT, DTYP 0001) with POPTS IXSM/TXSM; a
 * frame that does not ask stays legacy, the IPv4 header alone takes the
 * IPv4 context. The one context is rewritten when the kind changes: IPv6
 * UDP (no IP fields, TUCSS 54, TUCSO 60, TUCMD DEXT alone), then IPv4 UDP
 * (TUCSO 40, TUCMD IP), counted tx_csum_ctx; the context's slots are
 * never freed and the frames' buffers all come back. */
static void test_tx_csum_context(void **st)
{
	(void)st;
	model_init(M_82574);
	assert_int_equal(probe(), 0);
	assert_int_equal(model_nic->tx_csum, 1);
	assert_int_equal(model_nic->tx_csum6, 1);
	uint32_t nfree = model_nic->pool->nfree;
	const uint32_t v4 = PKT_TX_IP_CSUM | PKT_TX_L4_CSUM;
	struct pkt *p[3] = { csum_frame(v4), csum_frame(0), csum_frame(PKT_TX_IP_CSUM) };
	model_nic->tx_csum_on = 1;
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, p, 3), 3);
	struct e1000x_txq *tq = &to_port(model_nic)->txq[0];
	assert_int_equal(tq->ring[0].d.addr, 14 | 24 << 8 | 33 << 16 | 34ull << 32 | 50ull << 40);
	assert_int_equal(tq->ring[0].d.cmd_type_len, 1u << 29 | 1u << 25 | 1u << 24);
	assert_int_equal(tq->ring[1].d.cmd_type_len & (1u << 29 | 0xfu << 20 | 0xfffff), 1u << 29 | 1u << 20 | 55);
	assert_int_equal(tq->ring[1].d.status, 3u << 8);
	assert_int_equal(tq->ring[2].d.cmd_type_len & (1u << 29 | 0xffu << 16), 0);
	assert_int_equal(tq->ring[2].d.status, 0);
	assert_int_equal(tq->ring[3].d.cmd_type_len & (1u << 29 | 0xfu << 20), 1u << 29 | 1u << 20);
	assert_int_equal(tq->ring[3].d.status, 1u << 8);
	assert_int_equal(model_last_write(E1000E_TDT(0)), 4);
	struct pkt *q = csum_frame(v4);
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, &q, 1), 1);	/* no second context */
	assert_int_equal(tq->ring[4].d.status, 3u << 8);
	struct pkt *u[2] = { csum_frame(PKT_TX_L4_CSUM | PKT_TX_IP6 | PKT_TX_UDP), csum_frame(v4 | PKT_TX_UDP) };
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, u, 2), 2);
	assert_int_equal(tq->ring[5].d.addr, 54ull << 32 | 60ull << 40);
	assert_int_equal(tq->ring[5].d.cmd_type_len, 1u << 29);
	assert_int_equal(tq->ring[6].d.status, 2u << 8);
	assert_int_equal(tq->ring[7].d.addr, 14 | 24 << 8 | 33 << 16 | 34ull << 32 | 40ull << 40);
	assert_int_equal(tq->ring[7].d.cmd_type_len, 1u << 29 | 1u << 25);
	assert_int_equal(tq->ring[8].d.status, 3u << 8);
	assert_int_equal(model_last_write(E1000E_TDT(0)), 9);
	assert_int_equal(model_nic->qsw[0][NS_tx_csum_ctx], 3);
	tq->ring[3].d.status |= TXD_DD;
	tq->ring[4].d.status |= TXD_DD;
	tq->ring[8].d.status |= TXD_DD;
	assert_int_equal(e1000x_tx_reclaim(tq), 0);
	assert_int_equal(model_nic->pool->nfree, nfree);
	assert_int_equal(tq->ctx.clones, 0);
}

/* One frame per tx_burst (its descriptor with EOP, IFCS and RS, the tail
 * past it), each sent (DD) at once: the buffers stay in the ring until
 * NIC_TX_FREE_THRESH descriptors are in flight, then come back in one run,
 * across the ring's end too; a batch not yet done stops the run, and
 * tx_clean's reclaim takes everything sent. */
static void test_tx_frees_in_runs(void **st)
{
	(void)st;
	model_init(M_82574);
	assert_int_equal(probe(), 0);
	struct e1000x_txq *tq = &to_port(model_nic)->txq[0];
	uint32_t nfree = model_nic->pool->nfree;
	for (uint32_t k = 0; k < 3 * tq->n; k++) {
		struct pkt *p = csum_frame(0);
		uint32_t t = tq->tail;
		assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, &p, 1), 1);
		assert_int_equal(tq->ring[t].d.cmd_type_len & (0xffffu | (TXD_CMD_EOP | TXD_CMD_IFCS | TXD_CMD_RS) << 24),
				 55 | (TXD_CMD_EOP | TXD_CMD_IFCS | TXD_CMD_RS) << 24);
		assert_int_equal(model_last_write(E1000E_TDT(0)), t + 1 == tq->n ? 0 : t + 1);
		uint32_t held = k < NIC_TX_FREE_THRESH ? k + 1 : (k - NIC_TX_FREE_THRESH) % NIC_TX_FREE_THRESH + 1;
		assert_int_equal(model_nic->pool->nfree, nfree - held);
		tq->ring[t].d.status |= TXD_DD;
	}
	assert_int_equal(e1000x_tx_reclaim(tq), 0);
	assert_int_equal(model_nic->pool->nfree, nfree);
	/* Three sent, the fourth not yet: the run stops before it. */
	for (int k = 0; k < 4; k++) {
		struct pkt *p = csum_frame(0);
		uint32_t t = tq->tail;
		assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, &p, 1), 1);
		if (k < 3)
			tq->ring[t].d.status |= TXD_DD;
	}
	assert_int_equal(e1000x_tx_reclaim(tq), 1);
	assert_int_equal(model_nic->pool->nfree, nfree - 1);
}

/* Descriptor i of queue 0 written back: a frame of len bytes, status st. */
static void rx_done(uint32_t i, uint16_t len, uint32_t st)
{
	struct e1000x_rxq *rq = &to_port(model_nic)->rxq[0];
	rq->ring[i].wb.length = len;
	rq->ring[i].wb.staterr = RXDEXT_DD | RXDEXT_EOP | st;
}

/* A frame alone (the one-frame path) and the same frames as one burst
 * (the burst loop) give the same packets and counters: length, port,
 * queue, checksum flags, rx_csum_offload_good/errors, polls and bytes; the
 * descriptor is re-armed and RDT written. A frame with a descriptor error
 * stays the burst loop's (rx_drop_desc_error) when alone too. */
static void test_rx_alone_as_in_burst(void **st)
{
	(void)st;
	model_init(M_82574);
	assert_int_equal(probe(), 0);
	struct e1000x_rxq *rq = &to_port(model_nic)->rxq[0];
	static const uint32_t sts[3] = { RXDEXT_IPCS | RXDEXT_TCPCS, RXDEXT_IPCS | RXDEXT_ERR_IPE, 0 };
	struct pkt *pk[4];
	uint32_t nfree = model_nic->pool->nfree;
	for (int k = 0; k < 3; k++) {
		rx_done((uint32_t)k, (uint16_t)(60 + k), sts[k]);
		assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, pk, 4), 1);
		assert_int_equal(model_last_write(E1000E_RDT(0)), k);
		assert_int_equal(rq->ring[k].wb.staterr & RXDEXT_DD, 0);
		pk[k + 1] = pk[0];
	}
	for (int k = 0; k < 3; k++)
		rx_done((uint32_t)(3 + k), (uint16_t)(60 + k), sts[k]);
	struct pkt *b[4];
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, b, 4), 3);
	assert_int_equal(model_last_write(E1000E_RDT(0)), 5);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(pk[k + 1]->len, b[k]->len);
		assert_int_equal(pk[k + 1]->flags, b[k]->flags);
		assert_int_equal(pk[k + 1]->port, b[k]->port);
		assert_int_equal(pk[k + 1]->queue, b[k]->queue);
		assert_ptr_equal(pk[k + 1]->data, pk[k + 1]->buf);
	}
	assert_int_equal(b[0]->flags, PKT_RX_IP_CSUM_OK | PKT_RX_L4_CSUM_OK);
	assert_int_equal(b[1]->flags, PKT_RX_IP_CSUM_BAD);
	struct nic_qstats *qs = &model_nic->q[0];
	uint64_t *sw = model_nic->qsw[0];
	assert_int_equal(qs->polls, 4);
	assert_int_equal(qs->rx_packets, 6);
	assert_int_equal(qs->poll_pkts, 6);
	assert_int_equal(qs->rx_bytes, 2 * (60 + 61 + 62));
	assert_int_equal(sw[NS_rx_delivered], 6);
	assert_int_equal(sw[NS_rx_csum_offload_good], 2);
	assert_int_equal(sw[NS_rx_csum_offload_errors], 2);
	rx_done(6, 60, RXDEXT_ERR_CE);
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, pk, 4), 0);
	assert_int_equal(sw[NS_rx_drop_desc_error], 1);
	assert_int_equal(rq->next, 7);
	for (int k = 0; k < 3; k++) {
		pkt_free(pk[k + 1]);
		pkt_free(b[k]);
	}
	assert_int_equal(model_nic->pool->nfree, nfree);
}

/* A burst through the four-at-a-time loop (rx.c rx_fast4) and the
 * frames it hands to the one-at-a-time paths: five groups of four, each
 * frame's packet and every counter exact. Group 0: TCP/IPv4 checked,
 * lengths 60-63. Group 1: IPv4 alone checked in all four (other checksum
 * bits than the group before). Group 2: mixed (a TCP checksum error in
 * one). Group 3: one frame over 1518 bytes (rx_drop_oversize). Group 4:
 * a CRC error in the last (rx_drop_desc_error). Then a burst of four
 * more, two TCP and two IPv4 alone, after the checksum bits the burst
 * before ended with (kept in the queue from one burst to the next). Last,
 * frames of 16 and 14 bytes among 60-byte ones: delivered, and counted in
 * rx_short (what lets fwd skip its runt check, nic.h). */
static void test_rx_groups_of_four(void **st)
{
	(void)st;
	model_init(M_82574);
	assert_int_equal(probe(), 0);
	struct e1000x_rxq *rq = &to_port(model_nic)->rxq[0];
	const uint32_t tcp = RXDEXT_IPCS | RXDEXT_TCPCS, ok = PKT_RX_IP_CSUM_OK | PKT_RX_L4_CSUM_OK;
	static const uint16_t lens[20] = { 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71,
					   72, 1600, 74, 75, 76, 77, 78, 79 };
	const uint32_t sts[20] = { tcp, tcp, tcp, tcp, RXDEXT_IPCS, RXDEXT_IPCS, RXDEXT_IPCS, RXDEXT_IPCS,
				   tcp, tcp | RXDEXT_ERR_TCPE, RXDEXT_IPCS, tcp, tcp, tcp, tcp, tcp,
				   tcp, tcp, tcp, tcp | RXDEXT_ERR_CE };
	const uint32_t want[18] = { ok, ok, ok, ok, PKT_RX_IP_CSUM_OK, PKT_RX_IP_CSUM_OK, PKT_RX_IP_CSUM_OK,
				    PKT_RX_IP_CSUM_OK, ok, PKT_RX_IP_CSUM_OK | PKT_RX_L4_CSUM_BAD, PKT_RX_IP_CSUM_OK, ok,
				    ok, ok, ok, ok, ok, ok };
	static const int delivered[18] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16, 17, 18 };
	uint32_t nfree = model_nic->pool->nfree;
	uint64_t bytes = 0;
	for (uint32_t i = 0; i < 20; i++)
		rx_done(i, lens[i], sts[i]);
	struct pkt *b[32];
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, b, 32), 18);
	for (int k = 0; k < 18; k++) {
		assert_int_equal(b[k]->len, lens[delivered[k]]);
		assert_int_equal(b[k]->flags, want[k]);
		assert_int_equal(b[k]->port, model_nic->port);
		assert_int_equal(b[k]->queue, 0);
		assert_int_equal(b[k]->clones, 0);
		assert_ptr_equal(b[k]->data, b[k]->buf);
		bytes += b[k]->len;
	}
	assert_int_equal(model_last_write(E1000E_RDT(0)), 19);
	assert_int_equal(rq->next, 20);
	for (uint32_t i = 0; i < 20; i++)
		assert_int_equal(rq->ring[i].wb.staterr & RXDEXT_DD, 0);
	struct nic_qstats *qs = &model_nic->q[0];
	uint64_t *sw = model_nic->qsw[0];
	assert_int_equal(qs->rx_packets, 18);
	assert_int_equal(qs->rx_bytes, bytes);
	assert_int_equal(sw[NS_rx_delivered], 18);
	assert_int_equal(sw[NS_rx_csum_offload_good], 4 + 2 + 3 + 3);
	assert_int_equal(sw[NS_rx_csum_offload_errors], 1);
	assert_int_equal(sw[NS_rx_drop_oversize], 1);
	assert_int_equal(sw[NS_rx_drop_desc_error], 1);
	pkt_free_bulk(b, 18);
	for (uint32_t i = 20; i < 24; i++)
		rx_done(i, 60, i < 22 ? tcp : RXDEXT_IPCS);
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, b, 32), 4);
	for (int k = 0; k < 4; k++)
		assert_int_equal(b[k]->flags, k < 2 ? ok : PKT_RX_IP_CSUM_OK);
	assert_int_equal(sw[NS_rx_csum_offload_good], 12 + 2);
	assert_int_equal(qs->rx_bytes, bytes + 4 * 60);
	pkt_free_bulk(b, 4);
	assert_int_equal(qs->rx_short, 0);
	static const uint16_t shorts[4] = { 60, 16, 60, 14 };
	for (uint32_t i = 24; i < 28; i++)
		rx_done(i, shorts[i - 24], tcp);
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, b, 32), 4);
	for (int k = 0; k < 4; k++)
		assert_int_equal(b[k]->len, shorts[k]);
	assert_int_equal(qs->rx_short, 2);
	assert_true(model_nic->rx_short_counted);
	pkt_free_bulk(b, 4);
	assert_int_equal(model_nic->pool->nfree, nfree);
}

/* First write to reg setting bit. */
static int wbit(int from, uint32_t reg, uint32_t bit)
{
	return model_find_write(from, reg, bit, bit);
}

static void test_reset_order(void **st)
{
	(void)st;
	model_init(M_82574);
	assert_int_equal(probe(), 0);
	int gio = wbit(0, CTRL, 1u << 2), rst = wbit(0, CTRL, 1u << 26);
	assert_true(gio >= 0 && rst > gio);
	/* GIO_MASTER_ENABLE polled until clear, between the two */
	int poll = -1;
	for (int i = gio; i < rst; i++)
		if (M.log[i].op == 'R' && M.log[i].reg == STATUS && !(M.log[i].val & (1u << 19)))
			poll = i;
	assert_true(poll > gio);
	/* RX and TX stopped before the reset */
	assert_true(model_find_write(gio, RCTL, 0xffffffff, 0) < rst);
	/* MDIO ownership taken before CTRL.RST (Linux e1000_reset_hw_82571) */
	int own = wbit(0, 0xf00, 1u << 5);
	assert_true(own >= 0 && own < rst);
	/* auto-read seen done after the reset, before RAL0 is read */
	int ard = -1;
	for (int i = rst; i < M.nlog && ard < 0; i++)
		if (M.log[i].op == 'R' && M.log[i].reg == EECD && (M.log[i].val & (1u << 9)))
			ard = i;
	int ral = model_find_read(rst, RAL(0));
	assert_true(ard > rst && ral > ard);
	assert_memory_equal(model_nic->mac, ((uint8_t[]){ 0x00, 0x1b, 0x21, 0x0a, 0x0b, 0x0c }), 6);
	/* DRV_LOAD after the reset */
	assert_true(wbit(rst, CTRL_EXT, 1u << 28) > rst);
	assert_true(model_peek(CTRL_EXT) & (1u << 28));
	/* every PHY access under the MDIO ownership; TNCRS never read */
	assert_int_equal(M.mdic_unowned, 0);
	model_nic->ops->update_stats(model_nic);
	assert_int_equal(M.absent_reads, 0);
	assert_int_equal(M.resets, 1);
}

static void test_errata_bits(void **st)
{
	(void)st;
	model_init(M_82574);
	model_poke(0x3840, 0xf << 27);	/* TARC0 bits 30:27 as a previous driver left them */
	assert_int_equal(probe(), 0);
	/* ASPM L0s and L1 off in the Link Control (PCIe cap at 0xe0), RCB kept */
	assert_int_equal(M.cfg[0xe0 + 0x10], 0x40);
	uint32_t tarc0 = model_peek(0x3840);
	assert_int_equal(tarc0 & (0xfu << 27), 0);
	assert_true(tarc0 & (1u << 26));
	assert_int_equal(model_peek(CTRL) & (1u << 29), 0);
	assert_true(model_peek(CTRL_EXT) & (1u << 22));
	assert_int_equal(model_peek(CTRL_EXT) & (1u << 23), 0);
	assert_int_equal(model_peek(0x5b00) & (1u << 22 | 1u << 27), 1u << 22 | 1u << 27);	/* GCR */
	assert_true(model_peek(0x5b64) & 1);	/* GCR2 */
	/* TXDCTL of both queues the same, with queues=1 */
	assert_int_equal(nic_cfg.queues[0], 1);
	assert_int_equal(model_peek(0x3828), model_peek(0x3928));
	assert_true(model_peek(0x3828) & (1u << 22));
	/* RFCTL: extended descriptors, ACK_DIS in MSI-X mode */
	assert_int_equal(model_peek(0x5008) & (1u << 15 | 1u << 12), 1u << 15 | 1u << 12);
}

static void test_no_ack_dis_without_msix(void **st)
{
	(void)st;
	model_init(M_82574);
	M.s.int_mode = INT_MODE_MSI;
	assert_int_equal(probe(), 0);
	assert_int_equal(model_peek(0x5008) & (1u << 12), 0);
	assert_true(model_peek(0x5008) & (1u << 15));
}

/* IVAR (10.2.4.9), byte for byte: 4-bit entries, valid bit 3. */
static void test_ivar(void **st)
{
	(void)st;
	model_init(M_82574);
	assert_int_equal(probe(), 0);
	assert_int_equal(model_peek(0xe4), 0x00090808);	/* RXQ0, TXQ0 -> 0; other -> 1 */
	model_init(M_82574);
	nic_cfg.queues[0] = 2;
	assert_int_equal(probe(), 0);
	assert_int_equal(model_peek(0xe4), 0x000a9898);	/* RXQ1, TXQ1 -> 1; other -> 2 */
	assert_int_equal(model_peek(0xdc), 0x00300000);	/* EIAC: the two RX queue causes (no TX interrupts) */
	/* IAM: OTHER, LSC and the queue causes too, so the message masks its
	 * queue whether the 82574 masks through EIAC or IAM (review 2026-12-02
	 * N10; Linux keeps IAM all ones) */
	assert_int_equal(model_peek(0xe0), 0x01000004u | 0x00300000u);
	nic_cfg.queues[0] = 1;
}

/* The "other" vector re-raises the RX queue causes its ICR read cleared
 * (TX causes interrupt nothing). */
static void test_other_reraises(void **st)
{
	(void)st;
	model_init(M_82574);
	nic_cfg.queues[0] = 2;
	assert_int_equal(probe(), 0);
	M.icr = 1u << 21 | 1u << 22 | 1u << 2 | 1u << 24;	/* RXQ1, TXQ0 pending; LSC; OTHER */
	int from = M.nlog;
	M.handlers[2](0, M.args[2]);
	int ics = model_find_write(from, ICS, 0, 0);
	assert_true(ics > from);
	assert_int_equal(M.log[ics].val, 1u << 21);
	assert_int_equal(M.icr, 1u << 21);
	assert_int_equal(model_nic->other_pending, 1);
	assert_true(M.ims & (1u << 24 | 1u << 2));
	/* nothing pending: no ICS */
	M.icr = 1u << 24;
	from = M.nlog;
	M.handlers[2](0, M.args[2]);
	assert_int_equal(model_find_write(from, ICS, 0, 0), -1);
	nic_cfg.queues[0] = 1;
}

/* A PHY left powered down is powered up and autonegotiates. */
static void test_phy_power_up(void **st)
{
	(void)st;
	model_init(M_82574);
	M.s.phy_bmcr = 0x1940 | 1u << 10;	/* power down, isolate */
	assert_int_equal(probe(), 0);
	assert_int_equal(M.phy[0] & (1u << 11 | 1u << 10), 0);
	assert_true(M.phy[0] & (1u << 12));
	assert_int_equal(M.phy[4], 0x01e1);
	assert_int_equal(M.phy[9], 1u << 9);
	assert_int_equal(model_peek(CTRL) & (1u << 11 | 1u << 12), 0);
	assert_true(model_peek(CTRL) & (1u << 6));
}

static void test_auto_rd_timeout(void **st)
{
	(void)st;
	model_init(M_82574);
	M.s.auto_rd_reads = -1;
	assert_int_equal(probe(), -1);
	assert_true(model_console_has("EECD.AUTO_RD not set 20 ms after reset"));
}

static void test_gio_timeout(void **st)
{
	(void)st;
	model_init(M_82574);
	M.s.gio_polls = -1;
	assert_int_equal(probe(), 0);
	assert_true(model_console_has("GIO_MASTER_ENABLE still set 80 ms after CTRL.GIO_MASTER_DISABLE"));
	assert_int_equal(M.resets, 1);
}

static void test_rst_stuck(void **st)
{
	(void)st;
	model_init(M_82574);
	M.s.rst_stuck = 1;
	assert_int_equal(probe(), -1);
	assert_true(model_console_has("CTRL.RST did not clear within 100 ms"));
}

static void test_firmware_holds_mdio(void **st)
{
	(void)st;
	model_init(M_82574);
	M.s.fw_holds_mdio = 1;
	assert_int_equal(probe(), 0);
	assert_true(model_console_has("MDIO_SW_OWNERSHIP not granted in 20 ms"));
	assert_true(model_console_has("PHY set-up through MDIC failed"));
	assert_int_equal(M.mdic_unowned, 0);	/* no MDIC access without ownership */
}

static void test_mdic_timeout(void **st)
{
	(void)st;
	model_init(M_82574);
	M.s.mdic_never_ready = 1;
	assert_int_equal(probe(), 0);
	assert_true(model_console_has("MDIC not ready after 10 ms"));
}

/* PHY hang: two watchdogs in a row with the counters stuck reset the port. */
static void test_phy_hang(void **st)
{
	(void)st;
	model_init(M_82574);
	assert_int_equal(probe(), 0);
	M.phy[21] = 0xffff;
	M.phy[10] = 0x00ff;
	model_nic->ops->watchdog(model_nic);
	assert_int_equal(model_nic->stats[NS_resets], 0);
	M.phy[21] = 0xffff;	/* the counter clears on read on silicon; stuck here */
	model_nic->ops->watchdog(model_nic);
	assert_int_equal(model_nic->stats[NS_resets], 1);
	assert_true(model_console_has("PHY hung: resetting"));
	assert_int_equal(M.resets, 2);
	/* a counter below the maximum: no hang */
	M.phy[21] = 0x1234;
	model_nic->ops->watchdog(model_nic);
	model_nic->ops->watchdog(model_nic);
	assert_int_equal(model_nic->stats[NS_resets], 1);
}

/* Review 2026-12-02 N16: TCTL read-modify-written as Linux
 * e1000_configure_tx: the reset-default upper bits (MULR) kept. */
static void test_tctl_keeps_defaults(void **st)
{
	(void)st;
	model_init(M_82574);
	assert_int_equal(probe(), 0);
	assert_int_equal(model_peek(TCTL), 1u << 28 | TCTL_EN | TCTL_PSP | TCTL_CT(0x0f) | TCTL_COLD(0x3f) | TCTL_RTLC);
}

/* Review 2026-12-02 N3: a hung PHY survives CTRL.RST; the recovery resets
 * it (BMCR.RESET, Linux e1000e_phy_sw_reset) once, unless firmware blocks
 * PHY resets (MANC.BLK_PHY_RST_ON_IDE): then the port is reset at most 3
 * times in a row and the console says so. */
static void test_phy_hang_phy_reset(void **st)
{
	(void)st;
	model_init(M_82574);
	assert_int_equal(probe(), 0);
	M.s.phy_hung = 1;
	for (int i = 0; i < 10; i++)
		model_nic->ops->watchdog(model_nic);
	assert_int_equal(M.phy_resets, 1);
	assert_int_equal(model_nic->stats[NS_resets], 1);
	model_init(M_82574);
	M.s.manc = 1u << 18;
	assert_int_equal(probe(), 0);
	M.s.phy_hung = 1;
	for (int i = 0; i < 20; i++)
		model_nic->ops->watchdog(model_nic);
	assert_int_equal(M.phy_resets, 0);
	assert_int_equal(model_nic->stats[NS_resets], 3);
	assert_true(model_console_has("PHY reset blocked by firmware (MANC.BLK_PHY_RST_ON_IDE)"));
	assert_true(model_console_has("PHY still hung after 3 resets: no more until it recovers"));
	M.s.phy_hung = 0;	/* it recovers, hangs again: resets again */
	model_nic->ops->watchdog(model_nic);
	M.s.phy_hung = 1;
	model_nic->ops->watchdog(model_nic);
	model_nic->ops->watchdog(model_nic);
	assert_int_equal(model_nic->stats[NS_resets], 4);
}

/* Review 2026-12-02 N5: the link goes down with TX work queued: the port
 * is reset once (Linux e1000_watchdog_task: "reset the controller to
 * flush the Tx FIFO"), not again while the link stays down, and sends
 * when the link is back. */
static void test_link_down_tx_queued(void **st)
{
	(void)st;
	model_init(M_82574);
	assert_int_equal(probe(), 0);
	model_nic->ops->watchdog(model_nic);
	assert_int_equal(model_nic->link_up, 1);
	struct pkt *pk[3];
	for (int k = 0; k < 3; k++) {
		pk[k] = pkt_alloc_inline(model_nic->pool);
		pk[k]->len = 60;
	}
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, pk, 3), 3);
	M.s.link_down = 1;
	model_poke(STATUS, model_peek(STATUS) & ~(1u << 1));
	model_nic->ops->watchdog(model_nic);
	assert_int_equal(model_nic->link_up, 0);
	assert_int_equal(model_nic->stats[NS_resets], 1);
	assert_true(model_console_has("link down with TX work queued: resetting"));
	assert_int_equal(model_nic->stats[NS_tx_dropped], 3);
	struct pkt *p = pkt_alloc_inline(model_nic->pool);
	p->len = 60;
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, &p, 1), 1);
	for (int i = 0; i < 5; i++)
		model_nic->ops->watchdog(model_nic);
	assert_int_equal(model_nic->stats[NS_resets], 1);
	M.s.link_down = 0;
	model_poke(STATUS, model_peek(STATUS) | 1u << 1);
	to_port(model_nic)->txq[0].ring[0].d.status |= 1;	/* DD: sent once the link is up */
	model_nic->ops->watchdog(model_nic);
	assert_int_equal(model_nic->link_up, 1);
	assert_int_equal(model_nic->stats[NS_resets], 1);
	M.s.link_down = 1;	/* a second flap with TX queued: flushed again */
	model_poke(STATUS, model_peek(STATUS) & ~(1u << 1));
	p = pkt_alloc_inline(model_nic->pool);
	p->len = 60;
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, &p, 1), 1);
	model_nic->ops->watchdog(model_nic);
	assert_int_equal(model_nic->stats[NS_resets], 2);
}

/* TX hang recovery: bus mastering off and the reset before any buffer goes
 * back to the pool; frames given up count in tx_dropped. */
static void test_tx_hang_order(void **st)
{
	(void)st;
	model_init(M_82574);
	assert_int_equal(probe(), 0);
	struct pkt *pk[3];
	assert_int_equal(pkt_alloc_bulk(model_nic->pool, pk, 3), 3);
	for (int i = 0; i < 3; i++)
		pk[i]->len = 60;
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, pk, 3), 3);
	model_nic->ops->watchdog(model_nic);	/* stall starts */
	udelay(2100000);
	int from = M.nlog;
	model_nic->ops->watchdog(model_nic);
	assert_int_equal(model_nic->stats[NS_tx_timeout_count], 1);
	assert_int_equal(model_nic->stats[NS_tx_dropped], 3);
	int gio = wbit(from, CTRL, 1u << 2), rst = wbit(from, CTRL, 1u << 26);
	int freed = -1;
	for (int i = from; i < M.nlog && freed < 0; i++)
		if (M.log[i].op == 'F')
			freed = i;
	assert_true(gio > from && rst > gio && freed > rst);
}

/* A recovery whose reset fails stops the port and leaves the counters as
 * they were (not added twice). */
static void test_failed_reset_keeps_counts(void **st)
{
	(void)st;
	model_init(M_82574);
	assert_int_equal(probe(), 0);
	model_nic->stats[NS_rx_delivered] = 1000;
	M.s.rst_stuck = 1;
	M.phy[21] = 0xffff;
	M.phy[10] = 0x00ff;
	model_nic->ops->watchdog(model_nic);
	model_nic->ops->watchdog(model_nic);
	assert_true(model_console_has("CTRL.RST did not clear within 100 ms"));
	assert_true(model_console_has("reset failed; port stopped"));
	assert_int_equal(model_nic->stats[NS_rx_delivered], 1000);
	assert_int_equal(model_nic->stats[NS_resets], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tx_frees_in_runs),
		cmocka_unit_test(test_rx_alone_as_in_burst),
		cmocka_unit_test(test_rx_groups_of_four),
		cmocka_unit_test(test_reset_order),
		cmocka_unit_test(test_errata_bits),
		cmocka_unit_test(test_no_ack_dis_without_msix),
		cmocka_unit_test(test_ivar),
		cmocka_unit_test(test_other_reraises),
		cmocka_unit_test(test_phy_power_up),
		cmocka_unit_test(test_auto_rd_timeout),
		cmocka_unit_test(test_gio_timeout),
		cmocka_unit_test(test_rst_stuck),
		cmocka_unit_test(test_firmware_holds_mdio),
		cmocka_unit_test(test_mdic_timeout),
		cmocka_unit_test(test_phy_hang),
		cmocka_unit_test(test_phy_hang_phy_reset),
		cmocka_unit_test(test_tctl_keeps_defaults),
		cmocka_unit_test(test_link_down_tx_queued),
		cmocka_unit_test(test_tx_hang_order),
		cmocka_unit_test(test_failed_reset_keeps_counts),
		cmocka_unit_test(test_tx_csum_context),
	};
	return cmocka_run_group_tests_name("regmodel e1000e", tests, NULL, NULL);
}
