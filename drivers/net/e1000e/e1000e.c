/*
 * e1000e: Intel 82574L. Extended RX descriptors, legacy TX descriptors (an
 * extended data descriptor for a frame that asks for a timestamp, ptp.c),
 * two queue pairs with RSS, MSI-X with one vector per queue pair plus one
 * for other causes, MSI and INTx fallbacks.
 * Intel 82574 GbE Controller Family datasheet rev 3.4: initialisation in
 * section 4.6, interrupts in 7.4, registers in 10.2.
 */
#include <stdio.h>
#include "drivers/net/e1000e/ptp.h"
#include "drivers/net/e1000e/regs.h"
#include "drivers/net/e1000x/e1000x.h"
#include "drivers/pci/pcidecode.h"

#define E1000E_QUEUES 2

/* The causes queue q raises, by interrupt mode (7.4.2): RX only. TX
 * completions are reclaimed by tx_burst and once a second (tx_clean): an
 * interrupt per sent batch would only wake the core for nothing. */
static uint32_t queue_causes(struct e1000x_port *p, int q)
{
	if (p->msix)
		return ICR_RXQ(q);
	return ICR_RX_CAUSES;
}

static int e1000e_irq_enable(struct nic *nic, int q)
{
	wr32(to_port(nic)->regs, IMS, queue_causes(to_port(nic), q));
	return e1000x_rx_pending(nic, q);
}

static void e1000e_irq_disable(struct nic *nic, int q)
{
	wr32(to_port(nic)->regs, IMC, queue_causes(to_port(nic), q));
}

/* ICS sets the causes as if the hardware had (10.2.4.2); in MSI-X mode the
 * queue's cause goes to its vector through IVAR. */
static void e1000e_irq_raise(struct nic *nic, int q)
{
	struct e1000x_port *p = to_port(nic);
	wr32(p->regs, ICS, p->msix ? ICR_RXQ(q) : ICR_RXT0);
}

/* ITR and EITR count 256 ns units (10.2.4.3, 10.2.4.10). QEMU clamps both
 * to at least 500 (128 us), so it never goes above 7812 ints/s. */
static void e1000e_set_itr(struct nic *nic, int q, uint32_t ints_per_s)
{
	struct e1000x_port *p = to_port(nic);
	uint32_t v = ints_per_s ? 1000000000u / (ints_per_s * 256u) : 0;
	wr32(p->regs, p->msix ? E1000E_EITR(q) : ITR, v);
	nic->q[q].itr = ints_per_s;
}

/* Receive setup (4.6.5): rings, extended descriptors, filters, RSS. */
static int e1000e_init_rx(struct e1000x_port *p)
{
	struct nic *nic = &p->nic;
	for (int q = 0; q < nic->nqueues; q++) {
		if (e1000x_setup_rxq(p, q, E1000E_RDT(q), RXF_EXT, E1000E_RXD_STAT_TST))
			return -1;
		e1000x_ring_regs(p->regs, E1000E_RDBAL(q), p->rxq[q].ring,
				 p->rxq[q].n * (uint32_t)sizeof(union rx_desc));
		wr32(p->regs, E1000E_RDT(q), p->rxq[q].n - 1);
	}
	/* Extended descriptors; in MSI-X mode no ACK interrupts, which the
	 * 82574 raises spuriously there (Linux e1000_configure_msix). */
	set_flags32(p->regs, E1000E_RFCTL, RFCTL_EXTEN | (p->msix ? RFCTL_ACK_DIS : 0));
	wr32(p->regs, E1000E_RDTR, (uint32_t)p->nic.cfg.rx_int_delay);
	wr32(p->regs, E1000E_RADV, (uint32_t)p->nic.cfg.rx_abs_int_delay);
	uint32_t rxcsum = RXCSUM_IPOFL | RXCSUM_TUOFL;
	if (nic->nqueues > 1) {
		/* RSS over both queues (7.1.9): a fixed key; RETA bit 7 picks the queue. */
		for (int i = 0; i < 10; i++)
			wr32(p->regs, E1000E_RSSRK(i), nic_rss_key_word(i));
		for (int i = 0; i < 32; i++)
			wr32(p->regs, E1000E_RETA(i), 0x80008000u);
		wr32(p->regs, E1000E_MRQC, MRQC_RSS_EN | MRQC_TCP_IPV4 | MRQC_IPV4 | MRQC_TCP_IPV6 | MRQC_IPV6);
		rxcsum |= RXCSUM_PCSD;
	}
	wr32(p->regs, RXCSUM, rxcsum);
	e1000x_set_filters(p->regs, nic->mac, 16);
	wr32(p->regs, RCTL, e1000x_rctl_filters() | RCTL_EN | RCTL_BSIZE_2048 | RCTL_SECRC | RCTL_RDMTS_HALF);
	return 0;
}

/* TXDCTL of both queues: descriptor granularity, COUNT_DESC, write-back
 * and host thresholds 1. The same in both even when one queue is used:
 * the 82574 errata Linux works around in e1000_configure_tx. */
#define TXDCTL_VALUE (TXDCTL_GRAN | TXDCTL_BIT22 | TXDCTL_WTHRESH(1) | TXDCTL_HTHRESH(1))

/* Transmit setup (4.6.6). */
static int e1000e_init_tx(struct e1000x_port *p)
{
	for (int q = 0; q < p->nic.nqueues; q++) {
		if (e1000x_setup_txq(p, q, E1000E_TDT(q), 0))
			return -1;
		e1000x_ring_regs(p->regs, E1000E_TDBAL(q), p->txq[q].ring,
				 p->txq[q].n * (uint32_t)sizeof(union tx_desc));
		set_flags32(p->regs, E1000E_TARC(q), TARC_ENABLE);
	}
	for (int q = 0; q < E1000E_QUEUES; q++)
		wr32(p->regs, E1000E_TXDCTL(q), TXDCTL_VALUE);
	wr32(p->regs, E1000E_TIDV, (uint32_t)p->nic.cfg.tx_int_delay);
	wr32(p->regs, E1000E_TADV, (uint32_t)p->nic.cfg.tx_abs_int_delay);
	wr32(p->regs, TIPG, 8 | 8u << 10 | 6u << 20);
	e1000x_tctl_set(p->regs, TCTL_EN | TCTL_PSP | TCTL_CT(0x0f) | TCTL_COLD(0x3f) | TCTL_RTLC);
	return 0;
}

/* The queue causes EIAC clears when their vectors fire (MSI-X). */
static uint32_t eiac_mask(struct e1000x_port *p)
{
	uint32_t m = 0;
	for (int q = 0; q < p->nic.nqueues; q++)
		m |= queue_causes(p, q);
	return m;
}

/*
 * Other causes (link) in MSI-X mode. Reading ICR clears every cause,
 * queue causes too: one still waiting for its EITR window would never
 * send its message. Raise those again through ICS (Linux
 * e1000_msix_other), then re-arm OTHER, which IAM auto-masked.
 */
static void e1000e_other_irq(struct trapframe *tf, void *arg)
{
	(void)tf;
	struct e1000x_port *p = arg;
	uint32_t icr = rd32(p->regs, ICR), pending = icr & eiac_mask(p);
	if (pending)
		wr32(p->regs, ICS, pending);
	if (icr & ICR_LSC)
		p->nic.other_pending = 1;
	wr32(p->regs, IMS, ICR_OTHER | ICR_LSC);
}

/* Vectors (7.4): one per queue pair plus "other" under MSI-X, else one. */
static int e1000e_setup_vectors(struct e1000x_port *p)
{
	return e1000x_setup_vectors(p, e1000e_other_irq);
}

/* Route causes to vectors (IVAR, 10.2.4.9) and unmask link changes; queue
 * causes stay masked until the poll loop enables them. A queue's MSI-X
 * message clears its EIAC causes from ICR and, with CTRL_EXT.IAME clear,
 * from IMS too (QEMU's reading): the vector masks its queue itself
 * (nic->irq_automask; Linux e1000_intr_msix_rx writes no IMC either).
 * Linux keeps IAM all ones with EIAME set (e1000_configure_rx), masking
 * through IAM: the queue causes are in IAM as well, so either reading of
 * the 82574 masks them (silicon review 2026-12-02 N10, unverified). In QEMU, IAM/EIAC behave as
 * on silicon except that every MSI-X message is followed by a duplicate
 * one EITR window later (docs/qemu-nics.md A.2): harmless here, the handler
 * only marks the queue scheduled. */
static void e1000e_program_irq(struct e1000x_port *p)
{
	int nq = p->nic.nqueues;
	p->nic.irq_automask = p->msix;
	if (!p->msix) {
		wr32(p->regs, IMS, ICR_LSC);
		return;
	}
	uint32_t ivar = IVAR_OTHER((uint32_t)nq);
	for (int q = 0; q < nq; q++)
		ivar |= IVAR_RXQ(q, (uint32_t)q) | IVAR_TXQ(q, (uint32_t)q);
	wr32(p->regs, E1000E_IVAR, ivar);
	wr32(p->regs, E1000E_EIAC, eiac_mask(p));
	wr32(p->regs, E1000E_IAM, ICR_OTHER | ICR_LSC | eiac_mask(p));
	set_flags32(p->regs, CTRL_EXT, CTRL_EXT_PBA_CLR | CTRL_EXT_EIAME);
	wr32(p->regs, IMS, ICR_OTHER | ICR_LSC);
}

/*
 * The 82574 bits Linux sets after every reset (e1000_initialize_hw_bits_82571
 * and e1000_init_hw_82571), from the 82574 specification update: TXDCTL
 * COUNT_DESC on both queues, TARC0 bits 30:27 off and 26 on, CTRL bit 29
 * off, CTRL_EXT bit 22 on and 23 off, GCR bit 22 and L1 entry without
 * L0s, GCR2 bit 0 (unreliable PCIe completions with ASPM: TX timeouts).
 */
static void e1000e_hw_bits(struct e1000x_port *p)
{
	volatile uint8_t *r = p->regs;
	set_flags32(r, E1000E_TXDCTL(0), TXDCTL_BIT22);
	set_flags32(r, E1000E_TXDCTL(1), TXDCTL_BIT22);
	wr32(r, E1000E_TARC(0), (rd32(r, E1000E_TARC(0)) & ~TARC0_BITS_30_27) | TARC0_BIT26);
	clear_flags32(r, CTRL, CTRL_BIT29);
	wr32(r, CTRL_EXT, (rd32(r, CTRL_EXT) & ~CTRL_EXT_BIT23) | CTRL_EXT_BIT22);
	set_flags32(r, E1000E_GCR, GCR_BIT22 | GCR_L1_ACT_WITHOUT_L0S_RX);
	set_flags32(r, E1000E_GCR2, GCR2_BIT0);
}

static int e1000e_hw_init(struct e1000x_port *p)
{
	e1000e_hw_bits(p);
	e1000x_copper_link_setup(p);	/* 4.6.4; a failure is printed, the port still comes up */
	e1000x_clear_stats(p);
	if (e1000e_init_rx(p) || e1000e_init_tx(p))
		return -1;
	napi_itr_init(&p->nic);
	e1000e_program_irq(p);
	e1000e_ptp_init(p);
	return 0;
}

/* MDIO ownership against the manageability firmware (EXTCNF_CTRL, 10.2.2.6;
 * Linux e1000_get_hw_semaphore_82573): set the bit until it sticks, 10
 * tries 2 ms apart. */
static int e1000e_phy_acquire(struct e1000x_port *p)
{
	for (int i = 0; i < 10; i++) {
		set_flags32(p->regs, E1000E_EXTCNF_CTRL, EXTCNF_CTRL_MDIO_SW_OWNERSHIP);
		if (rd32(p->regs, E1000E_EXTCNF_CTRL) & EXTCNF_CTRL_MDIO_SW_OWNERSHIP)
			return 0;
		udelay(2000);
	}
	clear_flags32(p->regs, E1000E_EXTCNF_CTRL, EXTCNF_CTRL_MDIO_SW_OWNERSHIP);
	printf("%s: EXTCNF_CTRL.MDIO_SW_OWNERSHIP not granted in 20 ms: the firmware holds the PHY\n",
	       p->nic.name);
	return -1;
}

static void e1000e_phy_release(struct e1000x_port *p)
{
	clear_flags32(p->regs, E1000E_EXTCNF_CTRL, EXTCNF_CTRL_MDIO_SW_OWNERSHIP);
}

/* The MAC reset is issued owning the MDIO (Linux e1000_reset_hw_82571:
 * ownership goes back to the firmware at reset). A refusal is printed and
 * the reset goes on, as in Linux. */
static int e1000e_pre_reset(struct e1000x_port *p)
{
	e1000e_phy_acquire(p);
	return 0;
}

/* After CTRL.RST: give the MDIO back, wait for the NVM auto-read, then the
 * PHY configuration that starts after it (25 ms, as Linux waits). */
static int e1000e_post_reset(struct e1000x_port *p)
{
	e1000e_phy_release(p);
	if (e1000x_wait_auto_rd(p))
		return -1;
	udelay(25000);
	return 0;
}

/* PHY software reset (BMCR.RESET: Linux e1000e_phy_sw_reset, the commit
 * of the 82574's PHY set-up), unless firmware blocks PHY resets
 * (MANC.BLK_PHY_RST_ON_IDE: Linux e1000e_check_reset_block_generic).
 * CTRL.RST leaves the PHY alone. */
static void e1000e_phy_reset(struct e1000x_port *p)
{
	uint16_t bmcr;
	if (rd32(p->regs, MANC) & MANC_BLK_PHY_RST_ON_IDE) {
		printf("%s: PHY reset blocked by firmware (MANC.BLK_PHY_RST_ON_IDE): MAC reset only\n", p->nic.name);
		return;
	}
	if (!e1000x_phy_read(p, PHY_BMCR, &bmcr))
		e1000x_phy_write(p, PHY_BMCR, (uint16_t)(bmcr | BMCR_RESET));
	udelay(1);
}

#define PHY_HANG_MAX_RESETS 3

/*
 * The 82574 PHY hang (Linux e1000_check_phy_82574): the receive error
 * counter stuck at 0xffff and the idle error count at 0xff. Two watchdogs
 * in a row reset the PHY and the port (silicon review 2026-12-02 N3:
 * the port alone left the PHY hung); at most PHY_HANG_MAX_RESETS port
 * resets in a row while the PHY stays hung.
 */
static int e1000e_check_hang(struct e1000x_port *p)
{
	uint16_t rxerr = 0, st = 0;
	int hung = !e1000x_phy_read(p, PHY_RECEIVE_ERROR_COUNTER, &rxerr) && rxerr == 0xffff &&
		   !e1000x_phy_read(p, PHY_1000T_STATUS, &st) &&
		   (st & PHY_IDLE_ERROR_COUNT) == PHY_IDLE_ERROR_COUNT;
	p->phy_hang_count = hung ? p->phy_hang_count + 1 : 0;
	if (!hung)
		p->phy_hang_resets = 0;
	if (p->phy_hang_count < 2 || p->phy_hang_resets > PHY_HANG_MAX_RESETS)
		return 0;
	if (p->phy_hang_resets++ == PHY_HANG_MAX_RESETS) {
		printf("%s: PHY still hung after %d resets: no more until it recovers\n", p->nic.name,
		       PHY_HANG_MAX_RESETS);
		return 0;
	}
	e1000e_phy_reset(p);
	return 1;
}

/* ASPM L0s and L1 off on the link (82574 errata; Linux e1000e
 * FLAG2_DISABLE_ASPM_L0S | L1): PCI config space survives CTRL.RST, so once. */
static int e1000e_attach(struct e1000x_port *p, const struct pci_id *id)
{
	(void)id;
	p->absent_stats = STAT_BIT(TNCRS);	/* not in the 82574's statistics (10.2.5) */
	pci_aspm_disable(p->nic.pci, PCI_EXP_LNKCTL_ASPM_L0S | PCI_EXP_LNKCTL_ASPM_L1);
	return 0;
}

static const struct nic_ops e1000e_ops = {
	E1000X_COMMON_OPS, .vlan_rx_add_vid = e1000x_port_vlan_rx_add_vid, .vlan_strip_set = e1000x_port_vlan_strip_set,
	.irq_enable = e1000e_irq_enable,
	.irq_disable = e1000e_irq_disable,
	.irq_raise = e1000e_irq_raise,
	.set_itr = e1000e_set_itr,
	.update_stats = e1000x_port_update_stats,
};

static const struct e1000x_family e1000e_family = {
	.driver = "e1000e", .ops = &e1000e_ops, .max_queues = E1000E_QUEUES, .int_delays = 1, .pcie = 1,
	.attach = e1000e_attach, .setup_vectors = e1000e_setup_vectors, .hw_init = e1000e_hw_init,
	.pre_reset = e1000e_pre_reset, .post_reset = e1000e_post_reset,
	.phy_acquire = e1000e_phy_acquire, .phy_release = e1000e_phy_release,
	.check_hang = e1000e_check_hang,
};

static int e1000e_probe(struct pci_dev *d, const struct pci_id *id)
{
	return e1000x_probe(d, id, &e1000e_family);
}

static const struct pci_id e1000e_ids[] = {
	{ 0x8086, 0x10d3, "82574L Gigabit Network Connection" },
	{ 0, 0, 0 },
};
PCI_DRIVER(e1000e, .name = "e1000e", .ids = e1000e_ids, .probe = e1000e_probe);
