/* The e1000 driver (82540EM) against the register model: the reset through
 * the I/O BAR (and QEMU's stub I/O BAR), the EEPROM load wait, 32-bit DMA,
 * the PHY brought up, QEMU's statistics kept off silicon, legacy rings. */
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "drivers/net/e1000/e1000.c"
#include "tests/regmodel/model.h"

#define DEV 0x100e
extern struct nic *model_nic;

static int probe(void)
{
	return model_probe(&pci_driver_e1000, DEV);
}

static void test_reset_through_io(void **st)
{
	(void)st;
	model_init(M_82540EM);
	assert_int_equal(probe(), 0);
	int rst = model_find_write(0, CTRL, 1u << 26, 1u << 26);
	assert_true(rst >= 0);
	assert_int_equal(M.log[rst].via_io, 1);
	/* no PCIe master disable on this PCI part; RX/TX stopped first */
	assert_int_equal(model_find_write(0, CTRL, 1u << 2, 1u << 2), -1);
	assert_true(model_find_write(0, RCTL, 0xffffffff, 0) < rst);
	/* RAL0 read only once the EEPROM load is done (the model hides it 3 ms) */
	assert_memory_equal(model_nic->mac, ((uint8_t[]){ 0x00, 0x1b, 0x21, 0x0a, 0x0b, 0x0c }), 6);
	assert_int_equal(M.resets, 1);
	/* no DRV_LOAD on the 82540EM */
	assert_int_equal(model_peek(CTRL_EXT) & (1u << 28), 0);
}

/* QEMU's I/O BAR reads 0 and drops writes: the reset goes through MMIO. */
static void test_reset_io_stub(void **st)
{
	(void)st;
	model_init(M_82540EM);
	M.s.io_stub = 1;
	assert_int_equal(probe(), 0);
	int rst = model_find_write(0, CTRL, 1u << 26, 1u << 26);
	assert_true(rst >= 0);
	assert_int_equal(M.log[rst].via_io, 0);
	assert_int_equal(M.resets, 1);
}

/* The 82540EM addresses 32 bits: rings and RX buffers below 4 GiB. */
static void test_dma_below_4g(void **st)
{
	(void)st;
	model_init(M_82540EM);
	assert_int_equal(probe(), 0);
	struct e1000x_port *p = to_port(model_nic);
	assert_int_equal(model_nic->dma_limit, 1ull << 32);
	assert_true((uint64_t)p->rxq[0].ring + 128 * 16 <= 1ull << 32);
	assert_true((uint64_t)p->txq[0].ring + 128 * 16 <= 1ull << 32);
	for (uint32_t i = 0; i < p->rxq[0].n; i++)
		assert_true(p->rxq[0].ring[i].read.addr + PKT_BUF_SIZE <= 1ull << 32);
	uint64_t hi = model_peek(0x2804);	/* RDBAH */
	assert_int_equal(hi, 0);
	assert_int_equal(model_peek(0x3804), 0);	/* TDBAH */
}

static void test_phy_power_up(void **st)
{
	(void)st;
	model_init(M_82540EM);
	M.s.phy_bmcr = 0x0940;	/* powered down, autonegotiation off, 1000 forced */
	assert_int_equal(probe(), 0);
	assert_int_equal(M.phy[0] & (1u << 11), 0);
	assert_true(M.phy[0] & (1u << 12));
	assert_int_equal(model_peek(CTRL) & (1u << 11 | 1u << 12), 0);
	assert_true(model_peek(CTRL) & (1u << 6));
}

/* MPC and RNBC taken as cumulative only on QEMU's e1000 (subsystem 1af4). */
static void test_qemu_stats_only_on_qemu(void **st)
{
	(void)st;
	model_init(M_82540EM);
	assert_int_equal(probe(), 0);
	assert_int_equal(to_port(model_nic)->stat_cumulative, 0);
	model_poke(MPC, 7);
	model_nic->ops->update_stats(model_nic);
	model_poke(MPC, 7);	/* silicon: a fresh 7 after the clearing read */
	model_nic->ops->update_stats(model_nic);
	assert_int_equal(model_nic->stats[NS_rx_missed_errors], 14);

	model_init(M_82540EM);
	M.s.subsys_vendor = 0x1af4;
	assert_int_equal(probe(), 0);
	assert_int_equal(to_port(model_nic)->stat_cumulative, STAT_BIT(MPC) | STAT_BIT(RNBC));
}

/* Descriptor i of the RX ring written back in the legacy format
 * (8254x 3.2.3): a frame of len bytes, status byte DD, EOP and st, errors
 * byte err. */
static void rx_done(uint32_t i, uint16_t len, uint8_t st, uint8_t err)
{
	struct e1000x_rxq *rq = &to_port(model_nic)->rxq[0];
	rq->ring[i].legacy.length = len;
	rq->ring[i].legacy.errors = err;
	rq->ring[i].legacy.status = (uint8_t)(RXD_STAT_DD | RXD_STAT_EOP | st);
}

/* The 82540EM's rings are legacy (8254x 3.2.3, 3.3.3), its burst calls
 * the legacy ones, chosen at set-up. A lone frame (rx_one) and a burst
 * (the burst loop) read the legacy write-back: IPCS and TCPCS become the
 * checksum flags, IXSM hides them, IPE is a bad IP checksum, a frame
 * error (CE) is dropped and counted; RDT ends on the last descriptor
 * rearmed. TX: one legacy descriptor per frame (length, EOP, IFCS, IDE for
 * the default tx_int_delay), RS on the burst's last only, the tail past it. */
static void test_legacy_rings(void **st)
{
	(void)st;
	model_init(M_82540EM);
	assert_int_equal(probe(), 0);
	assert_ptr_equal(model_nic->ops->rx_burst, e1000x_rx_burst_legacy);
	assert_ptr_equal(model_nic->ops->tx_burst, e1000_tx_burst);
	struct e1000x_rxq *rq = &to_port(model_nic)->rxq[0];
	struct pkt *pk[4];
	rx_done(0, 60, RXD_STAT_IPCS | RXD_STAT_TCPCS, 0);
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, pk, 4), 1);
	assert_int_equal(model_last_write(E1000_RDT), 0);
	assert_int_equal(rq->ring[0].legacy.status & RXD_STAT_DD, 0);
	rx_done(1, 61, RXD_STAT_IXSM | RXD_STAT_IPCS | RXD_STAT_TCPCS, 0);
	rx_done(2, 62, RXD_STAT_IPCS, RXD_ERR_IPE);
	rx_done(3, 63, 0, RXD_ERR_CE);
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, pk + 1, 3), 2);
	assert_int_equal(model_last_write(E1000_RDT), 3);
	assert_int_equal(rq->next, 4);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(pk[k]->len, 60 + k);
		assert_int_equal(pk[k]->port, model_nic->port);
		assert_int_equal(pk[k]->queue, 0);
		assert_ptr_equal(pk[k]->data, pk[k]->buf);
	}
	assert_int_equal(pk[0]->flags, PKT_RX_IP_CSUM_OK | PKT_RX_L4_CSUM_OK);
	assert_int_equal(pk[1]->flags, 0);
	assert_int_equal(pk[2]->flags, PKT_RX_IP_CSUM_BAD);
	uint64_t *sw = model_nic->qsw[0];
	assert_int_equal(model_nic->q[0].polls, 2);
	assert_int_equal(model_nic->q[0].rx_packets, 3);
	assert_int_equal(model_nic->q[0].rx_bytes, 60 + 61 + 62);
	assert_int_equal(sw[NS_rx_drop_desc_error], 1);
	assert_int_equal(sw[NS_rx_csum_offload_good], 1);
	assert_int_equal(sw[NS_rx_csum_offload_errors], 1);

	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, pk, 3), 3);
	struct e1000x_txq *tq = &to_port(model_nic)->txq[0];
	for (int k = 0; k < 3; k++) {
		uint32_t rs = k == 2 ? TXD_CMD_RS : 0;
		assert_int_equal(tq->ring[k].d.cmd_type_len, (TXD_CMD_EOP | TXD_CMD_IFCS | TXD_CMD_IDE | rs) << 24 | (60u + (uint32_t)k));
		assert_ptr_equal(tq->ring[k].d.addr, pk[k]->buf);
	}
	assert_int_equal(model_last_write(E1000_TDT), 3);
	assert_int_equal(model_nic->q[0].tx_packets, 3);
}

/* Review 2026-12-02 N4: frames under 60 bytes leave padded with zeros in
 * software (Linux e1000_xmit_frame, eth_skb_pad), never by the MAC: a
 * 54-byte TCP ACK with checksum insertion and a 46-byte UDP datagram as
 * the router trims it. */
static void test_short_frames_padded(void **st)
{
	(void)st;
	model_init(M_82540EM);
	assert_int_equal(probe(), 0);
	model_nic->tx_csum_on = 1;
	struct pkt *pk[3];
	uint16_t lens[3] = { 54, 46, 61 };
	for (int k = 0; k < 3; k++) {
		pk[k] = pkt_alloc_inline(model_nic->pool);
		memset(pk[k]->data, 0xa5, 128);
		pk[k]->len = lens[k];
	}
	pk[0]->flags = PKT_TX_IP_CSUM | PKT_TX_L4_CSUM;
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, pk, 3), 3);
	struct e1000x_txq *tq = &to_port(model_nic)->txq[0];
	uint32_t want[3] = { 60, 60, 61 };
	for (int k = 0; k < 3; k++) {
		volatile union tx_desc *d = &tq->ring[k + 1];	/* after the checksum context */
		assert_int_equal(d->d.cmd_type_len & 0xffff, want[k]);
		for (unsigned b = lens[k]; b < want[k]; b++)
			assert_int_equal(pk[k]->data[b], 0);
		assert_int_equal(pk[k]->data[want[k]], 0xa5);
	}
	assert_int_equal(tq->ring[1].d.status >> TXD_POPTS_SHIFT & 3, 3);	/* IXSM, TXSM kept */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reset_through_io),
		cmocka_unit_test(test_reset_io_stub),
		cmocka_unit_test(test_dma_below_4g),
		cmocka_unit_test(test_phy_power_up),
		cmocka_unit_test(test_qemu_stats_only_on_qemu),
		cmocka_unit_test(test_legacy_rings),
		cmocka_unit_test(test_short_frames_padded),
	};
	return cmocka_run_group_tests_name("regmodel e1000", tests, NULL, NULL);
}
