/*
 * igb: Intel 82576, I350, I210 and I211 (copper). Advanced RX and TX
 * descriptors, RSS over up to 8 queue pairs (I210 4, I211 2), MSI-X with
 * one vector per queue pair plus one for other causes (GPIE.MSIX_MODE),
 * MSI and INTx fallbacks. 82576EB datasheet rev 2.63: initialisation in
 * section 4.5, interrupts in 7.3, registers in 8; the I350 and I210
 * datasheets where they differ. Bring-up below the rings: igb_hw.c.
 */
#include <stdio.h>
#include "drivers/net/igb/igb.h"
#include "drivers/net/igb/ptp.h"
#include "drivers/net/igb/regs.h"

const struct igb_mac_info igb_macs[] = {
	[IGB_82576] = { "82576", 8, 0, 0, 0, 0, IGB_EEMNGCTL },
	[IGB_I350] = { "I350", 8, 1, 1, 0, 1, IGB_EEMNGCTL },
	[IGB_I210] = { "I210", 4, 1, 1, 1, 1, IGB_EEMNGCTL_I210 },
	[IGB_I211] = { "I211", 2, 1, 1, 1, 1, IGB_EEMNGCTL_I210 },
};

static int igb_irq_enable(struct nic *nic, int q)
{
	struct e1000x_port *p = to_port(nic);
	if (p->msix)
		wr32(p->regs, IGB_EIMS, 1u << q);
	else
		wr32(p->regs, IMS, ICR_RX_CAUSES);
	return e1000x_rx_pending(nic, q);
}

static void igb_irq_disable(struct nic *nic, int q)
{
	struct e1000x_port *p = to_port(nic);
	if (p->msix)
		wr32(p->regs, IGB_EIMC, 1u << q);
	else
		wr32(p->regs, IMC, ICR_RX_CAUSES);
}

/* EICS (8.8.10) raises the queue's vector in MSI-X mode; ICS otherwise. */
static void igb_irq_raise(struct nic *nic, int q)
{
	struct e1000x_port *p = to_port(nic);
	if (p->msix)
		wr32(p->regs, IGB_EICS, 1u << q);
	else
		wr32(p->regs, ICS, ICR_RXDW);
}

/*
 * EITR interval in 0.25 us units at bits 14:2 (8.8.14), never 0 (Linux
 * igb_write_itr: 0x4, the shortest), written with CNT_IGNR so the write
 * does not restart the running interval counter. QEMU reads the field as
 * 1.024 us units, so its interrupts come about 4.1x further apart than
 * on silicon, and applies EITR only in MSI-X mode (docs/qemu-nics.md A.3).
 */
static void igb_set_itr(struct nic *nic, int q, uint32_t ints_per_s)
{
	struct e1000x_port *p = to_port(nic);
	uint32_t v = ints_per_s ? 4000000u / ints_per_s : 0;
	if (v > EITR_INTERVAL_MASK)
		v = EITR_INTERVAL_MASK;	/* the longest interval, 8.19 ms: 122 ints/s */
	v &= EITR_INTERVAL_MASK;
	if (v < EITR_INTERVAL_MIN)
		v = EITR_INTERVAL_MIN;
	wr32(p->regs, IGB_EITR(p->msix ? q : 0), v | EITR_CNT_IGNR);
	nic->q[q].itr = ints_per_s;
}

/* Disable queue register block q's queue (RXDCTL/TXDCTL at ctl) and poll it
 * off (4.5.9, 4.5.10): its registers may be written only then. */
static int queue_wait(struct e1000x_port *p, uint32_t ctl, uint32_t want)
{
	if (!wait_reg32(p->regs, p->nic.name, ctl, XDCTL_ENABLE, want, 10000))
		return 0;
	printf("%s: %s queue %u: %sDCTL.ENABLE did not %s within 10 ms\n", p->nic.name,
	       ctl >= IGB_TXDCTL(0) ? "TX" : "RX", (ctl & 0x3ff) / 0x40, ctl >= IGB_TXDCTL(0) ? "TX" : "RX",
	       want ? "set" : "clear");
	return -1;
}

static int queue_disable(struct e1000x_port *p, uint32_t ctl)
{
	wr32(p->regs, ctl, 0);
	return queue_wait(p, ctl, 0);
}

static int queue_enable(struct e1000x_port *p, uint32_t ctl, uint32_t v)
{
	wr32(p->regs, ctl, v | XDCTL_ENABLE);
	return queue_wait(p, ctl, XDCTL_ENABLE);
}

/*
 * SRRCTL (8.10.2): 2 KiB buffers, advanced one-buffer descriptors. With
 * more than one queue, DROP_EN: a queue without descriptors drops its
 * frames (counted in RQDPC) instead of stalling the shared packet buffer
 * and every other queue (Linux igb_configure_rx_ring, flow control off).
 * TIMESTAMP (I350/I210) when p->rx_ts_in_buf (set at attach): the RX
 * timestamp of a PTP frame comes in the buffer's first 16 bytes
 * (descriptor TSIP).
 */
static uint32_t igb_srrctl(struct e1000x_port *p)
{
	uint32_t v = SRRCTL_BSIZEPKT_2K | SRRCTL_DESCTYPE_ADV_ONEBUF;
	if (p->nic.nqueues > 1)
		v |= SRRCTL_DROP_EN;
	if (p->rx_ts_in_buf && igb_mac_of(p)->rx_ts_in_buf)
		v |= SRRCTL_TIMESTAMP;
	return v;
}

/* Receive setup (4.5.9): each queue disabled, its ring and SRRCTL written,
 * enabled with write-back threshold 1 (frames are reported at once, also
 * under busy polling with no interrupt to flush them), ENABLE polled,
 * then RDT. RSS over the queues. */
static int igb_init_rx(struct e1000x_port *p)
{
	struct nic *nic = &p->nic;
	for (int q = 0; q < nic->nqueues; q++) {
		if (e1000x_setup_rxq(p, q, IGB_RDT(q), RXF_EXT, IGB_RXD_STAT_TS))
			return -1;
		p->rxq[q].tsip_bit = igb_srrctl(p) & SRRCTL_TIMESTAMP ? RXDADV_STAT_TSIP : 0;
		if (queue_disable(p, IGB_RXDCTL(q)))
			return -1;
		e1000x_ring_regs(p->regs, IGB_RDBAL(q), p->rxq[q].ring,
				 p->rxq[q].n * (uint32_t)sizeof(union rx_desc));
		wr32(p->regs, IGB_SRRCTL(q), igb_srrctl(p));
		if (queue_enable(p, IGB_RXDCTL(q), XDCTL_PTHRESH(8) | XDCTL_HTHRESH(8) | XDCTL_WTHRESH(1)))
			return -1;
		wr32(p->regs, IGB_RDT(q), p->rxq[q].n - 1);
	}
	uint32_t rxcsum = RXCSUM_IPOFL | RXCSUM_TUOFL;
	if (nic->nqueues > 1) {
		/* RSS (7.1.2.8): a fixed key, RETA entries spread over the queues. */
		for (int i = 0; i < 10; i++)
			wr32(p->regs, IGB_RSSRK(i), nic_rss_key_word(i));
		for (int i = 0; i < 32; i++) {
			uint32_t v = 0;
			for (int b = 0; b < 4; b++)
				v |= (uint32_t)((4 * i + b) % nic->nqueues) << (8 * b);
			wr32(p->regs, IGB_RETA(i), v);
		}
		wr32(p->regs, IGB_MRQC, MRQC_RSS | MRQC_TCP_IPV4 | MRQC_IPV4 | MRQC_TCP_IPV6 | MRQC_IPV6 |
			  MRQC_UDP_IPV4 | MRQC_UDP_IPV6);
		rxcsum |= RXCSUM_PCSD;
	}
	wr32(p->regs, RXCSUM, rxcsum);
	e1000x_set_filters(p->regs, nic->mac, 16);
	/* Long packets up to one buffer (RLPML, 8.10.3): the driver drops what
	 * is over 1518 bytes and counts it (rx_drop_oversize). QEMU's igb drops
	 * longer frames without counting them when LPE is off (ROC only in
	 * VMDq mode), so the check is kept where it can be counted. */
	wr32(p->regs, IGB_RLPML, PKT_BUF_SIZE);
	wr32(p->regs, RCTL, e1000x_rctl_filters() | RCTL_EN | RCTL_BSIZE_2048 | RCTL_SECRC | RCTL_RDMTS_HALF | RCTL_LPE);
	return 0;
}

/* Transmit setup (4.5.10): each queue disabled, ring written, enabled with
 * write-back threshold 1 (Linux uses 1 on the 82576 with MSI-X; here always,
 * or busy polling sees sent descriptors late and the TX-hang check fires),
 * ENABLE polled. */
static int igb_init_tx(struct e1000x_port *p)
{
	for (int q = 0; q < p->nic.nqueues; q++) {
		if (e1000x_setup_txq(p, q, IGB_TDT(q), 1))
			return -1;
		if (queue_disable(p, IGB_TXDCTL(q)))
			return -1;
		e1000x_ring_regs(p->regs, IGB_TDBAL(q), p->txq[q].ring,
				 p->txq[q].n * (uint32_t)sizeof(union tx_desc));
		if (queue_enable(p, IGB_TXDCTL(q), XDCTL_PTHRESH(8) | XDCTL_HTHRESH(1) | XDCTL_WTHRESH(1)))
			return -1;
	}
	e1000x_tctl_set(p->regs, TCTL_EN | TCTL_PSP | TCTL_CT(0x0f) | TCTL_COLD(0x3f) | TCTL_RTLC);
	return 0;
}

/* Other causes in MSI-X mode: ICR holds them (cleared on read, GPIE.NSICR).
 * DRSTA: the device was reset under us; the watchdog resets the port. */
static void igb_other_irq(struct trapframe *tf, void *arg)
{
	(void)tf;
	struct e1000x_port *p = arg;
	uint32_t icr = rd32(p->regs, ICR);
	if (icr & ICR_LSC)
		p->nic.other_pending = 1;
	if (icr & ICR_DRSTA)
		p->reset_pending = 1;
	wr32(p->regs, IGB_EIMS, 1u << p->nic.nqueues);
}

/* Vectors (7.3): one per queue pair plus "other" under MSI-X, else one. */
static int igb_setup_vectors(struct e1000x_port *p)
{
	return e1000x_setup_vectors(p, igb_other_irq);
}

/*
 * IVAR entry of queue q (8.8.15): on the 82576 a column-major table,
 * IVAR0[q & 7] with RX at byte 0 and TX at byte 1 (queues 8-15 at bytes 2
 * and 3); on the 82580 and later row-major, IVAR0[q / 2] with queue q & 1
 * in the upper half (I350/I210 8.8.15). Returns the register and sets
 * *shift to the RX byte's position; the TX byte is 8 bits above.
 */
static uint32_t igb_ivar_reg(const struct e1000x_port *p, int q, int *shift)
{
	if (igb_macs[igb_part_of(p)->mac].ivar_row_major) {
		*shift = (q & 1) * 16;
		return IGB_IVAR0(q / 2);
	}
	*shift = (q & 8) * 2;
	return IGB_IVAR0(q & 7);
}

/*
 * Route causes to vectors (7.3.2): RX queue q to vector q; the TX queues'
 * entries stay invalid, so sent frames raise nothing (QEMU raises TXDW
 * only for a TX queue with a valid IVAR entry, even without MSI-X:
 * docs/qemu-nics.md A.3). In MSI-X mode as Linux igb_irq_enable:
 * every vector auto-clears (EIAC) and auto-masks (EIAM); only "other" is
 * unmasked here (queues by the poll loop); IMS holds LSC, DOUTSYNC and
 * DRSTA, which all fire "other".
 */
static void igb_program_irq(struct e1000x_port *p)
{
	int nq = p->nic.nqueues;
	/* GPIE first, as Linux igb_configure_msix, igc and DPDK do ("or our
	 * settings won't stick"; silicon review 2026-12-02 N11) */
	if (p->msix)
		wr32(p->regs, IGB_GPIE, GPIE_MSIX_MODE | GPIE_EIAME | GPIE_PBA | GPIE_NSICR);
	for (int q = 0; q < nq; q++) {
		int sh;
		uint32_t reg = igb_ivar_reg(p, q, &sh), v = p->msix ? (uint32_t)q : 0;
		uint32_t ivar = rd32(p->regs, reg) & ~(0xffffu << sh);
		wr32(p->regs, reg, ivar | (IVAR_VALID | v) << sh);
	}
	if (!p->msix) {
		wr32(p->regs, IMS, ICR_LSC | ICR_DRSTA);
		return;
	}
	uint32_t all = (1u << (nq + 1)) - 1;
	wr32(p->regs, IGB_IVAR_MISC, (IVAR_VALID | (uint32_t)nq) << 8);
	set_flags32(p->regs, IGB_EIAC, all);	/* QEMU: written after MSIX_MODE, never cleared */
	set_flags32(p->regs, IGB_EIAM, all);
	wr32(p->regs, IGB_EIMS, 1u << nq);
	wr32(p->regs, IMS, ICR_LSC | ICR_DOUTSYNC | ICR_DRSTA);
}

/*
 * I350/I210/I211 PHY power state before the link set-up: PHPM.GO_LINKD
 * cleared (the PHY may be left disconnected; Linux
 * igb_setup_copper_link_82575: silicon review 2026-12-02 N15) and EEE
 * off, neither advertised (IPCNFG) nor entered (EEER), as Linux
 * igb_set_eee_i350 does with EEE disabled: an LPI wake (about 16.5 us at
 * 1G, I210 3.7.7.5) is latency and PTP path asymmetry on an appliance
 * that measures both (N14, unverified: the reset defaults come from the
 * NVM). The autonegotiation restart after it applies the advertisement.
 */
static void igb_phy_power(struct e1000x_port *p)
{
	if (igb_part_of(p)->mac < IGB_I350)
		return;
	clear_flags32(p->regs, IGB_PHPM, PHPM_GO_LINKD);
	clear_flags32(p->regs, IGB_IPCNFG, IPCNFG_EEE_1G_AN | IPCNFG_EEE_100M_AN);
	clear_flags32(p->regs, IGB_EEER, EEER_TX_LPI_EN | EEER_RX_LPI_EN | EEER_LPI_FC);
}

/* Copper link (4.5.7.2), then rings and interrupts. QEMU's igb keeps
 * STATUS.LU at 0 after reset until autonegotiation is restarted
 * (docs/qemu-nics.md D); silicon renegotiates the same way. */
static int igb_hw_init(struct e1000x_port *p)
{
	igb_phy_power(p);
	e1000x_copper_link_setup(p);
	e1000x_clear_stats(p);
	if (igb_init_rx(p) || igb_init_tx(p))
		return -1;
	igb_program_irq(p);
	napi_itr_init(&p->nic);
	igb_ptp_init(p);
	return 0;
}

/* Statistics: the shared block, and RQDPC per queue into rx_queue_N_drops
 * and rx_fifo_errors (Linux igb_update_stats; the I210's RQDPC does not
 * clear on read, so it is written 0). */
static void igb_update_stats(struct nic *nic)
{
	struct e1000x_port *p = to_port(nic);
	e1000x_update_stats(p);
	for (int q = 0; q < nic->nqueues; q++) {
		uint32_t n = rd32(p->regs, IGB_RQDPC(q));
		if (igb_mac_of(p)->rqdpc_rw)
			wr32(p->regs, IGB_RQDPC(q), 0);
		nic->q[q].rx_drops += n;
		nic->stats[NS_rx_fifo_errors] += n;
	}
}

static const struct nic_ops igb_ops = {
	E1000X_COMMON_OPS, .vlan_rx_add_vid = e1000x_port_vlan_rx_add_vid, .vlan_strip_set = e1000x_port_vlan_strip_set,
	.irq_enable = igb_irq_enable,
	.irq_disable = igb_irq_disable,
	.irq_raise = igb_irq_raise,
	.set_itr = igb_set_itr,
	.update_stats = igb_update_stats,
};

static const struct igb_part igb_parts[] = {
	{ 0x10c9, IGB_82576, 1, "82576" }, { 0x10e6, IGB_82576, 0, "82576 fiber" },
	{ 0x10e7, IGB_82576, 0, "82576 SerDes" }, { 0x10e8, IGB_82576, 1, "82576 quad copper" },
	{ 0x1526, IGB_82576, 1, "82576 quad copper ET2" }, { 0x150a, IGB_82576, 1, "82576NS" },
	{ 0x1518, IGB_82576, 0, "82576NS SerDes" }, { 0x150d, IGB_82576, 0, "82576 SerDes quad" },
	{ 0x1521, IGB_I350, 1, "I350 copper" }, { 0x1522, IGB_I350, 0, "I350 fiber" },
	{ 0x1523, IGB_I350, 0, "I350 SerDes" }, { 0x1524, IGB_I350, 0, "I350 SGMII" },
	{ 0x1546, IGB_I350, 1, "I350 DA4" },
	{ 0x1533, IGB_I210, 1, "I210 copper" }, { 0x1534, IGB_I210, 1, "I210 copper OEM1" },
	{ 0x1535, IGB_I210, 1, "I210 copper IT" }, { 0x1536, IGB_I210, 0, "I210 fiber" },
	{ 0x1537, IGB_I210, 0, "I210 SerDes" }, { 0x1538, IGB_I210, 0, "I210 SGMII" },
	{ 0x157b, IGB_I210, 1, "I210 copper flash-less" }, { 0x157c, IGB_I210, 0, "I210 SerDes flash-less" },
	{ 0x1539, IGB_I211, 1, "I211 copper" },
};
#define IGB_NPARTS (sizeof(igb_parts) / sizeof(igb_parts[0]))

/* At probe: the part, its queue count; fiber, SerDes and SGMII variants
 * need the PCS link set-up, which this driver does not do: refused. */
static int igb_attach(struct e1000x_port *p, const struct pci_id *id)
{
	for (size_t i = 0; i < IGB_NPARTS; i++)
		if (igb_parts[i].device == id->device)
			p->part = &igb_parts[i];
	const struct igb_part *part = p->part;
	if (!part)
		return -1;	/* igb_ids and igb_parts list the same devices */
	if (!part->copper) {
		printf("igb: %04x:%04x %s: fiber/SerDes/SGMII link (PCS) not supported; device left alone\n",
		       id->vendor, id->device, part->name);
		return -1;
	}
	/* The I350/I210 boards' link as the NVM set it (CTRL_EXT.LINK_MODE),
	 * as Linux igb_get_invariants_82575 decides: a copper device ID wired
	 * for SGMII or SerDes is refused too (silicon review 2026-12-02 N15).
	 * The 82576 (QEMU's igb) goes by its device ID. */
	uint32_t mode = part->mac >= IGB_I350 ? CTRL_EXT_LINK_MODE(rd32(p->regs, CTRL_EXT)) : 0;
	if (mode) {
		printf("igb: %04x:%04x %s: CTRL_EXT.LINK_MODE %u (SGMII or SerDes) not supported; device left alone\n",
		       id->vendor, id->device, part->name, mode);
		return -1;
	}
	if (part->mac >= IGB_I210)	/* TNCRS invalid on the I210/I211 (Linux igb_update_stats) */
		p->absent_stats = STAT_BIT(TNCRS);
	/* RX timestamps in the buffer where the part has them (igb/ptp.c):
	 * only PTP event frames carry one, so other frames cost nothing. */
	p->rx_ts_in_buf = igb_macs[part->mac].rx_ts_in_buf;
	if (p->nic.nqueues > igb_macs[part->mac].queues)
		p->nic.nqueues = igb_macs[part->mac].queues;
	return 0;
}

static const struct e1000x_family igb_family = {
	.driver = "igb", .ops = &igb_ops, .max_queues = 8, .eimc = IGB_EIMC, .pcie = 1, .icr_reset = ICR_DRSTA,
	.attach = igb_attach, .setup_vectors = igb_setup_vectors, .hw_init = igb_hw_init,
	.post_reset = igb_post_reset, .phy_acquire = igb_phy_acquire, .phy_release = igb_phy_release,
};

static int igb_probe(struct pci_dev *d, const struct pci_id *id)
{
	return e1000x_probe(d, id, &igb_family);
}

static const struct pci_id igb_ids[] = {
	{ 0x8086, 0x10c9, "82576 Gigabit Network Connection" },
	{ 0x8086, 0x10e6, "82576 Gigabit Network Connection (fiber)" },
	{ 0x8086, 0x10e7, "82576 Gigabit Network Connection (SerDes)" },
	{ 0x8086, 0x10e8, "82576 Gigabit Network Connection (quad copper)" },
	{ 0x8086, 0x1526, "82576 Gigabit Network Connection (quad copper ET2)" },
	{ 0x8086, 0x150a, "82576NS Gigabit Network Connection" },
	{ 0x8086, 0x1518, "82576NS SerDes Gigabit Network Connection" },
	{ 0x8086, 0x150d, "82576 Gigabit Backplane Connection (SerDes quad)" },
	{ 0x8086, 0x1521, "I350 Gigabit Network Connection" },
	{ 0x8086, 0x1522, "I350 Gigabit Fiber Network Connection" },
	{ 0x8086, 0x1523, "I350 Gigabit Backplane Connection" },
	{ 0x8086, 0x1524, "I350 Gigabit Connection (SGMII)" },
	{ 0x8086, 0x1546, "I350 Gigabit Network Connection (DA4)" },
	{ 0x8086, 0x1533, "I210 Gigabit Network Connection" },
	{ 0x8086, 0x1534, "I210 Gigabit Network Connection (OEM1)" },
	{ 0x8086, 0x1535, "I210 Gigabit Network Connection (IT)" },
	{ 0x8086, 0x1536, "I210 Gigabit Fiber Network Connection" },
	{ 0x8086, 0x1537, "I210 Gigabit Backplane Connection" },
	{ 0x8086, 0x1538, "I210 Gigabit Network Connection (SGMII)" },
	{ 0x8086, 0x157b, "I210 Gigabit Network Connection (flash-less)" },
	{ 0x8086, 0x157c, "I210 Gigabit Backplane Connection (flash-less)" },
	{ 0x8086, 0x1539, "I211 Gigabit Network Connection" },
	{ 0, 0, 0 },
};
PCI_DRIVER(igb, .name = "igb", .ids = igb_ids, .probe = igb_probe);
