/* The e1000 driver (82540EM) against the register model: the reset through
 * the I/O BAR (and QEMU's stub I/O BAR), the EEPROM load wait, 32-bit DMA,
 * the PHY brought up, QEMU's statistics kept off silicon. */
#include <stdarg.h>
#include <stddef.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reset_through_io),
		cmocka_unit_test(test_reset_io_stub),
		cmocka_unit_test(test_dma_below_4g),
		cmocka_unit_test(test_phy_power_up),
		cmocka_unit_test(test_qemu_stats_only_on_qemu),
	};
	return cmocka_run_group_tests_name("regmodel e1000", tests, NULL, NULL);
}
