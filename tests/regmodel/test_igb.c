/* The igb driver (82576, I350, I210, I211) against the register model:
 * reset and CFG_DONE order, SW/FW arbitration, queue enable order, WTHRESH,
 * EITR, EIAC/EIAM/IMS, IVAR layouts byte for byte, DROP_EN and RQDPC, the
 * I210 iNVM and PLL work-around, the parts' queue counts. */
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "drivers/net/igb/igb.c"
#include "drivers/net/igb/igb_hw.c"
#include "tests/regmodel/model.h"

extern struct nic *model_nic;

static int probe(enum model_flavour f, uint16_t dev, int queues)
{
	(void)f;
	nic_cfg.queues[0] = queues;
	int r = model_probe(&pci_driver_igb, dev);
	nic_cfg.queues[0] = 1;
	return r;
}

static struct pkt *csum_frame(uint32_t flags)
{
	struct pkt *p = pkt_alloc(model_nic->pool);
	p->len = 55;
	p->flags = flags;
	return p;
}

/* Checksum insertion on the 82576 (desc.h; 82576 7.2.2.2, 7.2.2.3): an
 * advanced context descriptor before the first frame of each kind, into
 * the slot written longest ago: IPv4 TCP in slot 0 (IPLEN 20, MACLEN 14;
 * TUCMD IPV4, L4T TCP; DTYP 0010, DEXT), IPv6 TCP in slot 1 (IPLEN 40,
 * TUCMD.IPV4 clear, IDX 1); advanced data descriptors with POPTS
 * IXSM/TXSM beside PAYLEN and their context's IDX. A third kind (IPv4
 * UDP: L4T UDP) takes slot 0 back; IPv6 TCP still finds slot 1, and the
 * IPv4 header alone any IPv4 context. tx_csum_ctx counts the three
 * contexts; the buffers all come back. */
static void test_tx_csum_context(void **st)
{
	(void)st;
	model_init(M_82576);
	assert_int_equal(probe(M_82576, 0x10c9, 1), 0);
	assert_int_equal(model_nic->tx_csum, 1);
	assert_int_equal(model_nic->tx_csum6, 1);
	uint32_t nfree = model_nic->pool->nfree;
	const uint32_t v4 = PKT_TX_IP_CSUM | PKT_TX_L4_CSUM, v6 = PKT_TX_L4_CSUM | PKT_TX_IP6;
	struct pkt *p[3] = { csum_frame(v4), csum_frame(0), csum_frame(v6) };
	model_nic->tx_csum_on = 1;
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, p, 3), 3);
	struct e1000x_txq *tq = &to_port(model_nic)->txq[0];
	assert_int_equal(tq->ring[0].d.addr, 20 | 14 << 9);
	assert_int_equal(tq->ring[0].d.cmd_type_len, 1u << 10 | 1u << 11 | 2u << 20 | 1u << 29);
	assert_int_equal(tq->ring[0].d.status, 0);
	assert_int_equal(tq->ring[1].d.status, 55u << 14 | 3u << 8);
	assert_int_equal(tq->ring[1].d.cmd_type_len & (0xfu << 20 | 0xffff), 3u << 20 | 55);
	assert_int_equal(tq->ring[2].d.status, 55u << 14);
	assert_int_equal(tq->ring[3].d.addr, 40 | 14 << 9);
	assert_int_equal(tq->ring[3].d.cmd_type_len, 1u << 11 | 2u << 20 | 1u << 29);
	assert_int_equal(tq->ring[3].d.status, 1u << 4);
	assert_int_equal(tq->ring[4].d.status, 55u << 14 | 2u << 8 | 1u << 4);
	assert_int_equal(model_last_write(IGB_TDT(0)), 5);
	struct pkt *q[3] = { csum_frame(v4 | PKT_TX_UDP), csum_frame(v6), csum_frame(PKT_TX_IP_CSUM) };
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, q, 3), 3);
	assert_int_equal(tq->ring[5].d.addr, 20 | 14 << 9);
	assert_int_equal(tq->ring[5].d.cmd_type_len, 1u << 10 | 2u << 20 | 1u << 29);	/* L4T UDP */
	assert_int_equal(tq->ring[5].d.status, 0);
	assert_int_equal(tq->ring[6].d.status, 55u << 14 | 3u << 8);
	assert_int_equal(tq->ring[7].d.status, 55u << 14 | 2u << 8 | 1u << 4);
	assert_int_equal(tq->ring[8].d.status, 55u << 14 | 1u << 8);
	assert_int_equal(model_last_write(IGB_TDT(0)), 9);
	assert_int_equal(model_nic->qsw[0][NS_tx_csum_ctx], 3);
	struct pkt *r = csum_frame(v6 | PKT_TX_UDP);	/* a lone frame needing a context: not tx_one's */
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, &r, 1), 1);
	assert_int_equal(tq->ring[9].d.cmd_type_len, 2u << 20 | 1u << 29);	/* IPV4 clear, L4T UDP */
	assert_int_equal(tq->ring[9].d.status, 1u << 4);
	assert_int_equal(tq->ring[10].d.status, 55u << 14 | 2u << 8 | 1u << 4);
	assert_int_equal(model_nic->qsw[0][NS_tx_csum_ctx], 4);
	tq->ring[10].d.status |= TXD_DD;
	assert_int_equal(e1000x_tx_reclaim(tq), 0);
	assert_int_equal(model_nic->pool->nfree, nfree);
	assert_int_equal(tq->ctx.clones, 0);
}

static int wbit(int from, uint32_t reg, uint32_t bit)
{
	return model_find_write(from, reg, bit, bit);
}

static void test_reset_and_cfg_done_order(void **st)
{
	(void)st;
	model_init(M_82576);
	assert_int_equal(probe(M_82576, 0x10c9, 1), 0);
	int gio = wbit(0, CTRL, 1u << 2), rst = wbit(0, CTRL, 1u << 26);
	assert_true(gio >= 0 && rst > gio);
	/* auto-read, then the port's CFG_DONE (port 0: bit 18), then the PHY */
	int cfg = -1;
	for (int i = rst; i < M.nlog && cfg < 0; i++)
		if (M.log[i].op == 'R' && M.log[i].reg == 0x1010 && (M.log[i].val & (1u << 18)))
			cfg = i;
	int mdic = model_find_write(rst, MDIC, 0, 0);
	assert_true(cfg > rst && mdic > cfg);
	assert_true(model_find_read(rst, RAL(0)) > rst);
	assert_true(model_peek(CTRL_EXT) & (1u << 28));	/* DRV_LOAD */
	assert_int_equal(M.mdic_unowned, 0);	/* PHY only under SW_FW_SYNC */
	assert_int_equal(model_peek(0x5b5c), 0);	/* SW_FW_SYNC given back */
	assert_int_equal(model_peek(0x5b50) & 3, 0);	/* SWSM released */
	assert_true(M.phy[0] & (1u << 12));
}

/* Port 1 of a dual-port 82576 waits for its own CFG_DONE and PHY semaphore. */
static void test_function_1(void **st)
{
	(void)st;
	model_init(M_82576);
	M.s.fn = 1;
	assert_int_equal(probe(M_82576, 0x10c9, 1), 0);
	assert_true(model_find_write(0, 0x5b5c, 0x4, 0x4) >= 0);	/* PHY1_SM */
	assert_int_equal(model_find_write(0, 0x5b5c, 0x2, 0x2), -1);
	assert_true(model_peek(0x1010) & (1u << 19));
	assert_int_equal(M.mdic_unowned, 0);
}

static void test_cfg_done_timeout(void **st)
{
	(void)st;
	model_init(M_82576);
	M.s.cfg_done_reads = -1;
	assert_int_equal(probe(M_82576, 0x10c9, 1), 0);	/* reported, used anyway (as Linux) */
	assert_true(model_console_has("EEMNGCTL.CFG_DONE of port 0 not set 100 ms after reset"));
	/* no auto-read: reported; RAL0 never loads, so no MAC: refused */
	model_init(M_82576);
	M.s.auto_rd_reads = -1;
	assert_int_equal(probe(M_82576, 0x10c9, 1), -1);
	assert_true(model_console_has("EECD.AUTO_RD not set 20 ms after reset"));
	assert_true(model_console_has("no valid MAC address in RAL0/RAH0 after the NVM load"));
}

/* Review 2026-12-02 N17: a port refused after its reset lets go as
 * Linux's remove does: CTRL_EXT.DRV_LOAD clear (e1000e_release_hw_control),
 * its vectors freed, bus mastering off. */
static void test_refused_port_released(void **st)
{
	(void)st;
	model_init(M_82576);
	M.s.auto_rd_reads = -1;	/* no MAC: refused after the reset */
	assert_int_equal(probe(M_82576, 0x10c9, 1), -1);
	assert_int_equal(model_peek(CTRL_EXT) & CTRL_EXT_DRV_LOAD, 0);
	assert_int_equal(M.cfg[PCI_COMMAND] & PCI_COMMAND_MASTER, 0);
	model_init(M_82576);
	M.s.queue_enable_polls = -1;	/* refused in hw_init, its MSI-X vectors set up */
	assert_int_equal(probe(M_82576, 0x10c9, 1), -1);
	assert_int_equal(M.irq_frees, 1);
	assert_int_equal(model_peek(CTRL_EXT) & CTRL_EXT_DRV_LOAD, 0);
	assert_int_equal(M.cfg[PCI_COMMAND] & PCI_COMMAND_MASTER, 0);
}

/* QEMU (subsystem 1af4) has neither: no waits, no messages. */
static void test_qemu_skips_nvm_waits(void **st)
{
	(void)st;
	model_init(M_82576);
	M.s.subsys_vendor = 0x1af4;
	M.s.cfg_done_reads = -1;
	M.s.qemu_nvm = 1;
	assert_int_equal(probe(M_82576, 0x10c9, 1), 0);
	assert_false(model_console_has("AUTO_RD"));
	assert_false(model_console_has("CFG_DONE"));
}

static void test_firmware_holds_phy(void **st)
{
	(void)st;
	model_init(M_82576);
	M.s.fw_sync = 0x2u << 16;
	assert_int_equal(probe(M_82576, 0x10c9, 1), 0);
	assert_true(model_console_has("SW_FW_SYNC resource 0x2 held for 1 s (SW_FW_SYNC 0x20000: by the firmware)"));
	assert_int_equal(M.mdic_unowned, 0);
	model_init(M_82576);
	M.s.fw_holds_swesmbi = 1;
	assert_int_equal(probe(M_82576, 0x10c9, 1), 0);
	assert_true(model_console_has("SWSM.SWESMBI not granted in 100 ms"));
	assert_int_equal(M.mdic_unowned, 0);
	model_init(M_82576);
	M.s.smbi_held = 1;
	assert_int_equal(probe(M_82576, 0x10c9, 1), 0);
	assert_true(model_console_has("SWSM.SMBI held by another agent for 100 ms"));
	assert_int_equal(M.mdic_unowned, 0);
}

/* Review 2026-12-02 N15 and N14: on the I350/I210, before the copper link
 * set-up, PHPM.GO_LINKD is cleared (Linux igb_setup_copper_link_82575) and
 * EEE turned off: no LPI advertised (IPCNFG) or entered (EEER) (Linux
 * igb_set_eee_i350 with EEE disabled); the 82576 has neither register. */
static void phy_power(enum model_flavour f, uint16_t dev, int later)
{
	model_init(f);
	assert_int_equal(probe(f, dev, 1), 0);
	int phpm = model_find_write(0, 0xe14, 1u << 5, 0), ipcnfg = model_find_write(0, 0xe38, 3u << 2, 0);
	int eeer = model_find_write(0, 0xe30, 7u << 16, 0), an = model_find_write(0, 0x20, 0x1fu << 16 | 1u << 26 | 1u << 9, 1u << 26 | 1u << 9);
	if (!later) {
		assert_int_equal(phpm, -1);
		assert_int_equal(ipcnfg, -1);
		assert_int_equal(eeer, -1);
		return;
	}
	assert_true(phpm >= 0 && ipcnfg >= 0 && eeer >= 0 && an > phpm && an > ipcnfg && an > eeer);
}

/* Review 2026-12-02 N16: TCTL read-modify-written (igb_setup_tctl): the
 * reset-default upper bits (MULR) kept. */
static void test_tctl_keeps_defaults(void **st)
{
	(void)st;
	model_init(M_82576);
	assert_int_equal(probe(M_82576, 0x10c9, 1), 0);
	assert_int_equal(model_peek(TCTL), 1u << 28 | TCTL_EN | TCTL_PSP | TCTL_CT(0x0f) | TCTL_COLD(0x3f) | TCTL_RTLC);
}

static void test_phy_power_and_eee(void **st)
{
	(void)st;
	phy_power(M_82576, 0x10c9, 0);
	phy_power(M_I350, 0x1521, 1);
	phy_power(M_I210, 0x1533, 1);
}

/* Review 2026-12-02 N13: an SMBI left set by a previous OS is cleared once
 * on the I210 (Linux igb_get_hw_semaphore_i210, clear_semaphore_once);
 * the 82576 keeps refusing as Linux's igb_get_hw_semaphore does. */
static void test_stale_smbi(void **st)
{
	(void)st;
	model_init(M_I210);
	M.s.smbi_stale = 1;
	assert_int_equal(probe(M_I210, 0x1533, 1), 0);
	assert_true(model_console_has("SWSM.SMBI held for 100 ms: cleared once"));
	assert_false(model_console_has("SWSM.SMBI held by another agent"));
	assert_false(model_console_has("PHY set-up through MDIC failed"));
	assert_int_equal(M.mdic_unowned, 0);
	model_init(M_82576);
	M.s.smbi_stale = 1;
	assert_int_equal(probe(M_82576, 0x10c9, 1), 0);
	assert_false(model_console_has("cleared once"));
	assert_true(model_console_has("SWSM.SMBI held by another agent for 100 ms"));
}

/* Queue disabled (and seen disabled) before its ring registers, enabled with
 * WTHRESH 1, ENABLE seen set before RDT. */
static void test_queue_enable_order(void **st)
{
	(void)st;
	model_init(M_82576);
	assert_int_equal(probe(M_82576, 0x10c9, 1), 0);
	int dis = model_find_write(0, 0xc028, 0xffffffff, 0), bal = model_find_write(0, 0xc000, 0, 0);
	int seen_off = -1;
	for (int i = dis; i < bal; i++)
		if (M.log[i].op == 'R' && M.log[i].reg == 0xc028 && !(M.log[i].val & (1u << 25)))
			seen_off = i;
	assert_true(dis >= 0 && seen_off > dis && bal > seen_off);
	int en = wbit(bal, 0xc028, 1u << 25), rdt = model_find_write(en, 0xc018, 0, 0);
	int seen_on = -1;
	for (int i = en; i < rdt; i++)
		if (M.log[i].op == 'R' && M.log[i].reg == 0xc028 && (M.log[i].val & (1u << 25)))
			seen_on = i;
	assert_true(en > bal && seen_on > en && rdt > seen_on);
	assert_int_equal((M.log[en].val >> 16) & 0x1f, 1);	/* RX WTHRESH */
	int tdis = model_find_write(0, 0xe028, 0xffffffff, 0), tbal = model_find_write(0, 0xe000, 0, 0);
	int ten = wbit(0, 0xe028, 1u << 25);
	assert_true(tdis >= 0 && tbal > tdis && ten > tbal);
	assert_int_equal((M.log[ten].val >> 16) & 0x1f, 1);	/* TX WTHRESH */
}

static void test_queue_enable_timeout(void **st)
{
	(void)st;
	model_init(M_82576);
	M.s.queue_enable_polls = -1;
	assert_int_equal(probe(M_82576, 0x10c9, 1), -1);
	assert_true(model_console_has("RX queue 0: RXDCTL.ENABLE did not clear within 10 ms"));
}

static void test_eitr_and_masks(void **st)
{
	(void)st;
	model_init(M_82576);
	assert_int_equal(probe(M_82576, 0x10c9, 1), 0);
	assert_int_equal(model_peek(0x1680), (4000000u / 20000) | 1u << 31);	/* EITR0 */
	model_nic->ops->set_itr(model_nic, 0, 0);
	assert_int_equal(model_peek(0x1680), 0x80000004);	/* never 0 */
	model_nic->ops->set_itr(model_nic, 0, 100);
	assert_int_equal(model_peek(0x1680), 0x80007ffc);
	assert_int_equal(model_peek(0x152c), 0x3);	/* EIAC: queue 0 and other */
	assert_int_equal(model_peek(0x1530), 0x3);	/* EIAM */
	assert_int_equal(M.eims, 0x2);	/* only other unmasked */
	assert_int_equal(M.ims, 1u << 2 | 1u << 28 | 1u << 30);	/* LSC, DOUTSYNC, DRSTA */
	assert_int_equal(model_peek(0x1740), 0x8100);	/* IVAR_MISC: other on vector 1 */
	/* GPIE.MSIX_MODE before any IVAR write, as Linux igb_configure_msix
	 * ("or our settings won't stick"; review 2026-12-02 N11) */
	int gpie = model_find_write(0, 0x1514, 1u << 4, 1u << 4), ivar = model_find_write(0, 0x1700, 0, 0);
	assert_true(gpie >= 0 && ivar > gpie);
	/* DRSTA on the other vector asks the watchdog for a reset */
	M.icr = 1u << 30;
	M.handlers[1](0, M.args[1]);
	model_nic->ops->watchdog(model_nic);
	assert_int_equal(model_nic->stats[NS_resets], 1);
	assert_true(model_console_has("the NIC asked for a reset"));
}

/* Without MSI-X: every cause on one vector, IVAR entries to vector 0 (QEMU
 * raises TXDW only for a valid entry: the TX entries stay invalid, no TX
 * interrupts), IMS with the link and DRSTA. */
static void test_legacy_mode(void **st)
{
	(void)st;
	model_init(M_82576);
	M.s.int_mode = INT_MODE_MSI;
	assert_int_equal(probe(M_82576, 0x10c9, 4), 0);
	assert_int_equal(model_nic->nqueues, 1);
	assert_int_equal(model_peek(0x1700), 0x00000080);
	assert_int_equal(M.ims, 1u << 2 | 1u << 30);
	assert_int_equal(model_peek(0x1514) & (1u << 4), 0);	/* GPIE.MSIX_MODE off */
	M.icr = 1u << 7;	/* RXDW */
	M.handlers[0](0, M.args[0]);
	assert_int_equal(M.queue_irqs[0], 1);
	M.icr = 0;	/* a shared line, not us */
	M.handlers[0](0, M.args[0]);
	assert_int_equal(M.queue_irqs[0], 1);
}

/* 82576: column-major IVAR0[q] RX byte 0, TX byte 1 (left invalid: no TX
 * interrupts). */
static void test_ivar_82576(void **st)
{
	(void)st;
	model_init(M_82576);
	assert_int_equal(probe(M_82576, 0x10c9, 4), 0);
	assert_int_equal(model_nic->nqueues, 4);
	assert_int_equal(model_peek(0x1700), 0x00000080);
	assert_int_equal(model_peek(0x1704), 0x00000081);
	assert_int_equal(model_peek(0x1708), 0x00000082);
	assert_int_equal(model_peek(0x170c), 0x00000083);
	assert_int_equal(model_peek(0x1740), 0x8400);
	assert_int_equal(model_peek(0x152c), 0x1f);
}

/* I350/I210: row-major IVAR0[q/2], odd queues in the upper half; RX bytes
 * only. */
static void test_ivar_row_major(void **st)
{
	(void)st;
	model_init(M_I350);
	assert_int_equal(probe(M_I350, 0x1521, 4), 0);
	assert_int_equal(model_peek(0x1700), 0x00810080);
	assert_int_equal(model_peek(0x1704), 0x00830082);
	assert_int_equal(model_peek(0x1708), 0);
	model_init(M_I210);
	assert_int_equal(probe(M_I210, 0x1533, 3), 0);
	assert_int_equal(model_peek(0x1700), 0x00810080);
	assert_int_equal(model_peek(0x1704), 0x00000082);
}

static void test_part_queue_counts(void **st)
{
	(void)st;
	model_init(M_I210);
	assert_int_equal(probe(M_I210, 0x1533, 8), 0);
	assert_int_equal(model_nic->nqueues, 4);
	model_nic->ops->update_stats(model_nic);
	assert_int_equal(M.absent_reads, 0);	/* TNCRS not read on the I210 */
	model_init(M_I210);
	assert_int_equal(probe(M_I210, 0x1539, 8), 0);	/* I211 */
	assert_int_equal(model_nic->nqueues, 2);
	model_init(M_I350);
	assert_int_equal(probe(M_I350, 0x1521, 8), 0);
	assert_int_equal(model_nic->nqueues, 8);
}

/* Every claimed ID has its part entry, and the other way round. */
static void test_ids_have_parts(void **st)
{
	(void)st;
	size_t n = 0;
	for (const struct pci_id *id = igb_ids; id->vendor; id++, n++) {
		int found = 0;
		for (size_t i = 0; i < IGB_NPARTS; i++)
			found += igb_parts[i].device == id->device;
		assert_int_equal(found, 1);
	}
	assert_int_equal(n, IGB_NPARTS);
}

static void test_serdes_refused(void **st)
{
	(void)st;
	model_init(M_82576);
	assert_int_equal(probe(M_82576, 0x10e7, 1), -1);
	assert_true(model_console_has("82576 SerDes: fiber/SerDes/SGMII link (PCS) not supported"));
	assert_int_equal(M.nlog, 0);	/* not touched */
	model_init(M_I350);
	assert_int_equal(probe(M_I350, 0x1524, 1), -1);
	/* review 2026-12-02 N15: a copper device ID whose NVM set an SGMII
	 * or SerDes link mode (CTRL_EXT.LINK_MODE, as Linux
	 * igb_get_invariants_82575 decides) */
	model_init(M_I350);
	model_poke(0x18, 2u << 22);
	assert_int_equal(probe(M_I350, 0x1546, 1), -1);
	assert_true(model_console_has("I350 DA4: CTRL_EXT.LINK_MODE 2 (SGMII or SerDes) not supported"));
	model_init(M_I210);
	model_poke(0x18, 3u << 22);
	assert_int_equal(probe(M_I210, 0x1533, 1), -1);
	model_init(M_I350);
	assert_int_equal(probe(M_I350, 0x1546, 1), 0);	/* 00: internal copper PHY */
}

/* DROP_EN with more than one queue; RQDPC into rx_queue_N_drops. */
static void test_drop_en_and_rqdpc(void **st)
{
	(void)st;
	model_init(M_82576);
	assert_int_equal(probe(M_82576, 0x10c9, 1), 0);
	assert_int_equal(model_peek(0xc00c) & (1u << 31), 0);
	model_init(M_82576);
	assert_int_equal(probe(M_82576, 0x10c9, 2), 0);
	assert_true(model_peek(0xc00c) & (1u << 31));
	assert_true(model_peek(0xc04c) & (1u << 31));
	model_poke(0xc070, 5);	/* RQDPC1 */
	model_nic->ops->update_stats(model_nic);
	assert_int_equal(model_nic->q[1].rx_drops, 5);
	assert_int_equal(model_nic->q[0].rx_drops, 0);
	assert_int_equal(model_nic->stats[NS_rx_fifo_errors], 5);
	assert_int_equal(model_peek(0xc070), 0);	/* clear on read */
	model_nic->ops->update_stats(model_nic);
	assert_int_equal(model_nic->q[1].rx_drops, 5);
	/* I210: RQDPC does not clear on read; the driver writes 0 */
	model_init(M_I210);
	assert_int_equal(probe(M_I210, 0x1533, 2), 0);
	model_poke(0xc070, 3);
	model_nic->ops->update_stats(model_nic);
	model_nic->ops->update_stats(model_nic);
	assert_int_equal(model_nic->q[1].rx_drops, 3);
}

/* SRRCTL.TIMESTAMP where it exists (I350/I210: on from attach, for PTP),
 * never on the 82576, even when asked. */
static void test_srrctl_timestamp(void **st)
{
	(void)st;
	model_init(M_I350);
	assert_int_equal(probe(M_I350, 0x1521, 1), 0);
	struct e1000x_port *p = to_port(model_nic);
	assert_true(model_peek(0xc00c) & (1u << 30));
	assert_int_equal(p->rxq[0].tsip_bit, 1u << 15);
	model_init(M_I210);
	assert_int_equal(probe(M_I210, 0x1533, 1), 0);
	assert_true(model_peek(0xc00c) & (1u << 30));
	model_init(M_82576);
	assert_int_equal(probe(M_82576, 0x10c9, 1), 0);
	p = to_port(model_nic);
	assert_int_equal(model_peek(0xc00c) & (1u << 30), 0);
	p->rx_ts_in_buf = 1;
	assert_int_equal(p->family->hw_init(p), 0);
	assert_int_equal(model_peek(0xc00c) & (1u << 30), 0);
	assert_int_equal(p->rxq[0].tsip_bit, 0);
}

/* A frame with TSIP: the 16-byte timestamp header is stripped into tstamp;
 * a frame without it is untouched. */
static void test_rx_timestamp_in_buffer(void **st)
{
	(void)st;
	model_init(M_I350);
	assert_int_equal(probe(M_I350, 0x1521, 1), 0);
	struct e1000x_port *p = to_port(model_nic);
	p->rx_ts_in_buf = 1;
	assert_int_equal(p->family->hw_init(p), 0);
	struct e1000x_rxq *rq = &p->rxq[0];
	uint64_t ts = 0x1122334455667788ull;
	memset(rq->bufs[0]->buf, 0, 8);
	memcpy(rq->bufs[0]->buf + 8, &ts, 8);
	memset(rq->bufs[0]->buf + 16, 0xab, 64);
	rq->ring[0].wb.length = 80;
	rq->ring[0].wb.staterr = RXDEXT_DD | RXDEXT_EOP | RXDADV_STAT_TSIP;
	memset(rq->bufs[1]->buf, 0xcd, 60);
	rq->ring[1].wb.length = 60;
	rq->ring[1].wb.staterr = RXDEXT_DD | RXDEXT_EOP;
	struct pkt *pk[4];
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, pk, 4), 2);
	assert_int_equal(pk[0]->len, 64);
	assert_int_equal(pk[0]->data[0], 0xab);
	assert_true(pk[0]->flags & PKT_RX_TSTAMP);
	assert_int_equal(pk[0]->tstamp, ts);
	assert_int_equal(pk[1]->len, 60);
	assert_int_equal(pk[1]->data[0], 0xcd);
	assert_false(pk[1]->flags & PKT_RX_TSTAMP);
	pkt_free(pk[0]);
	pkt_free(pk[1]);
}

/* I210 iNVM record types as Intel numbers them (enum E1000_INVM_STRUCTURE_TYPE,
 * Linux e1000_i210.h), apart from the driver's header: */
enum { WORD_AL = 1, CSR_AL = 2 /* +1 dword */, PHY_AL = 3 /* no extra dword */, RSA = 4 /* +8 dwords */ };

/* A PHY register autoload record, then a CSR autoload (skip 1), an RSA
 * key (skip 8) whose data looks like a word record, then word records. */
static const uint32_t invm_image[] = {
	PHY_AL, 1 | 0x0a << 9 | 0x2aa0u << 16, CSR_AL, 0x0a << 9 | 1 | 0xdead0000u /* CSR data */,
	RSA, 0, 0, 0, 1 | 0x0a << 9 | 0xdeadu << 16 /* key data */, 0, 0, 0, 0,
	WORD_AL | 0x05 << 9 | 0x1234u << 16, 0, WORD_AL | 0x0b << 9 | 0x5555u << 16,
};

static void invm_poke(void)
{
	for (unsigned i = 0; i < sizeof(invm_image) / 4; i++)
		model_poke(0x12120 + 4 * i, invm_image[i]);
}

/* Review 2026-12-02 N2: each record type skips its own length. */
static void test_invm_read(void **st)
{
	(void)st;
	model_init(M_I210);
	M.s.flashless = 1;
	assert_int_equal(probe(M_I210, 0x157b, 1), 0);
	struct e1000x_port *p = to_port(model_nic);
	invm_poke();
	uint16_t v = 0;
	assert_int_equal(igb_invm_read(p, 0x0a, &v), 0);
	assert_int_equal(v, 0x2aa0);
	assert_int_equal(igb_invm_read(p, 0x05, &v), 0);
	assert_int_equal(v, 0x1234);
	assert_int_equal(igb_invm_read(p, 0x0b, &v), -1);	/* after the end marker */
}

/* Flash-less I210: PLL work-around until the PHY reads configured. */
static void test_pll_workaround(void **st)
{
	(void)st;
	model_init(M_I210);
	M.s.flashless = 1;
	M.s.phy_pll_bad_reads = 2;
	invm_poke();
	model_poke(0x0e04, 1u << 31 | 3u << 21);	/* MDICNFG: external MDIO, as firmware may leave it */
	assert_int_equal(probe(M_I210, 0x157b, 1), 0);
	int w1 = model_find_write(0, 0x12024, 0xffffffff, 0x0a << 4 | (uint32_t)(0x2aa0 | 0x10) << 16);
	int w2 = model_find_write(w1, 0x12024, 0xffffffff, 0x0a << 4 | (uint32_t)0x2aa0 << 16);
	assert_true(w1 >= 0 && w2 > w1);
	assert_int_equal(M.pll_reads, 3);
	assert_int_equal(M.cfg[0xc8 + 4] & 3, 0);	/* back in D0 */
	assert_false(model_console_has("PLL still unconfigured"));
	model_init(M_I210);
	M.s.flashless = 1;
	M.s.phy_pll_bad_reads = 100;
	assert_int_equal(probe(M_I210, 0x157b, 1), 0);
	assert_true(model_console_has("I210 PHY PLL still unconfigured after 5 resets"));
	/* no autoload word in iNVM: Linux's default 0x202f */
	assert_true(model_find_write(0, 0x12024, 0xffffffff, 0x0a << 4 | (uint32_t)(0x202f | 0x10) << 16) >= 0);
	/* with flash: no work-around */
	model_init(M_I210);
	assert_int_equal(probe(M_I210, 0x1533, 1), 0);
	assert_int_equal(model_find_write(0, 0x12024, 0, 0), -1);
}

/* I350/I210 PHY address from MDICNFG when the PHY is external. */
static void test_mdicnfg(void **st)
{
	(void)st;
	model_init(M_I350);
	assert_int_equal(probe(M_I350, 0x1521, 1), 0);
	struct e1000x_port *p = to_port(model_nic);
	assert_int_equal(p->phy_addr, 1);
	model_poke(0x0e04, 1u << 31 | 5u << 21);
	assert_int_equal(igb_phy_addr(p), 5);
	model_poke(0x0e04, 5u << 21);
	assert_int_equal(igb_phy_addr(p), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reset_and_cfg_done_order),
		cmocka_unit_test(test_function_1),
		cmocka_unit_test(test_cfg_done_timeout),
		cmocka_unit_test(test_qemu_skips_nvm_waits),
		cmocka_unit_test(test_firmware_holds_phy),
		cmocka_unit_test(test_queue_enable_order),
		cmocka_unit_test(test_queue_enable_timeout),
		cmocka_unit_test(test_eitr_and_masks),
		cmocka_unit_test(test_legacy_mode),
		cmocka_unit_test(test_ivar_82576),
		cmocka_unit_test(test_ivar_row_major),
		cmocka_unit_test(test_part_queue_counts),
		cmocka_unit_test(test_ids_have_parts),
		cmocka_unit_test(test_serdes_refused),
		cmocka_unit_test(test_drop_en_and_rqdpc),
		cmocka_unit_test(test_srrctl_timestamp),
		cmocka_unit_test(test_rx_timestamp_in_buffer),
		cmocka_unit_test(test_invm_read),
		cmocka_unit_test(test_pll_workaround),
		cmocka_unit_test(test_stale_smbi),
		cmocka_unit_test(test_refused_port_released),
		cmocka_unit_test(test_phy_power_and_eee),
		cmocka_unit_test(test_tctl_keeps_defaults),
		cmocka_unit_test(test_mdicnfg),
		cmocka_unit_test(test_tx_csum_context),
	};
	return cmocka_run_group_tests_name("regmodel igb", tests, NULL, NULL);
}
