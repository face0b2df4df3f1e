/*
 * igb: Intel 82576 (copper). I350 and I210 are not claimed yet: their
 * IVAR layout and PHY set-up differ from the 82576's.
 * Advanced RX and TX descriptors, up to 8 queue pairs with RSS, MSI-X with
 * one vector per queue pair plus one for other causes (GPIE.MSIX_MODE),
 * MSI and INTx fallbacks. Intel 82576EB datasheet rev 2.63: initialisation
 * in section 4.5, interrupts in 7.3, registers in 8.
 */
#include <stdio.h>
#include "drivers/net/e1000x.h"
#include "drivers/net/igb/regs.h"

#define IGB_QUEUES 8

static uint32_t legacy_causes(void)
{
	return ICR_RXDW | ICR_RXDMT0 | ICR_RXO | ICR_TXDW;
}

static void igb_irq_enable(struct nic *nic, int q)
{
	struct e1000x_port *p = to_port(nic);
	if (p->msix)
		wr32(p->regs, IGB_EIMS, 1u << q);
	else
		wr32(p->regs, IMS, legacy_causes());
}

static void igb_irq_disable(struct nic *nic, int q)
{
	struct e1000x_port *p = to_port(nic);
	if (p->msix)
		wr32(p->regs, IGB_EIMC, 1u << q);
	else
		wr32(p->regs, IMC, legacy_causes());
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

/* EITR interval in 0.25 us units at bits 14:2 (8.8.14). QEMU reads the
 * field as 1.024 us units, so its interrupts come about 4.1x further
 * apart than on silicon, and it applies EITR only in MSI-X mode
 * (QEMU-NICS.md A.3). */
static void igb_set_itr(struct nic *nic, int q, uint32_t ints_per_s)
{
	struct e1000x_port *p = to_port(nic);
	uint32_t v = ints_per_s ? 4000000u / ints_per_s : 0;
	if (v > EITR_INTERVAL_MASK)
		v = EITR_INTERVAL_MASK;	/* the longest interval, 8.19 ms: 122 ints/s */
	v &= EITR_INTERVAL_MASK;
	wr32(p->regs, IGB_EITR(p->msix ? q : 0), v);
	nic->q[q].itr = ints_per_s;
}

/* Copper link (4.5.7.2): set link up and restart autonegotiation in the
 * PHY. QEMU's igb keeps STATUS.LU at 0 after reset until this is done
 * (QEMU-NICS.md D); on silicon it restarts the same negotiation. */
static void igb_link_setup(struct e1000x_port *p)
{
	set_flags32(p->regs, CTRL, CTRL_SLU);
	clear_flags32(p->regs, CTRL, CTRL_RFCE | CTRL_TFCE);
	if (e1000x_phy_write(p->regs, PHY_BMCR, BMCR_ANENABLE | BMCR_ANRESTART | BMCR_FULLDPLX | BMCR_SPEED1000))
		printf("%s: PHY write through MDIC failed; link may stay down\n", p->nic.name);
}

/* Receive setup (4.5.9): advanced one-buffer descriptors, queue enable, RSS. */
static int igb_init_rx(struct e1000x_port *p)
{
	struct nic *nic = &p->nic;
	for (int q = 0; q < nic->nqueues; q++) {
		if (e1000x_setup_rxq(p, q, IGB_RDT(q), 0, IGB_RXD_STAT_TS))
			return -1;
		e1000x_ring_regs(p->regs, IGB_RDBAL(q), p->rxq[q].ring,
				 p->rxq[q].n * (uint32_t)sizeof(union rx_desc));
		wr32(p->regs, IGB_SRRCTL(q), SRRCTL_BSIZEPKT_2K | SRRCTL_DESCTYPE_ADV_ONEBUF);
		wr32(p->regs, IGB_RXDCTL(q), XDCTL_ENABLE | 8u | 8u << 8 | 4u << 16);
		if (wait_reg32(p->regs, nic->name, IGB_RXDCTL(q), XDCTL_ENABLE, XDCTL_ENABLE, 10000))
			return -1;
		wr32(p->regs, IGB_RDT(q), p->rxq[q].n - 1);
	}
	uint32_t rxcsum = RXCSUM_IPOFL | RXCSUM_TUOFL;
	if (nic->nqueues > 1) {
		/* RSS (7.1.2.8): a fixed key, RETA entries spread over the queues. */
		for (int i = 0; i < 10; i++)
			wr32(p->regs, IGB_RSSRK(i), 0x6d5a6d5au + (uint32_t)i * 0x01010101u);
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

/* Transmit setup (4.5.10): advanced descriptors, queue enable. */
static int igb_init_tx(struct e1000x_port *p)
{
	for (int q = 0; q < p->nic.nqueues; q++) {
		if (e1000x_setup_txq(p, q, IGB_TDT(q), 1))
			return -1;
		e1000x_ring_regs(p->regs, IGB_TDBAL(q), p->txq[q].ring,
				 p->txq[q].n * (uint32_t)sizeof(union tx_desc));
		wr32(p->regs, IGB_TXDCTL(q), XDCTL_ENABLE | 8u | 1u << 8 | 16u << 16);
	}
	wr32(p->regs, TCTL, TCTL_EN | TCTL_PSP | TCTL_CT(0x0f) | TCTL_COLD(0x3f) | TCTL_RTLC);
	return 0;
}

/* Other causes in MSI-X mode: ICR holds them (cleared on read, GPIE.NSICR). */
static void igb_other_irq(struct trapframe *tf, void *arg)
{
	(void)tf;
	struct e1000x_port *p = arg;
	if (rd32(p->regs, ICR) & ICR_LSC)
		p->nic.other_pending = 1;
	wr32(p->regs, IGB_EIMS, 1u << p->nic.nqueues);
}

/* One vector for every cause (MSI, INTx). */
static void igb_legacy_irq(struct trapframe *tf, void *arg)
{
	struct e1000x_port *p = arg;
	uint32_t icr = rd32(p->regs, ICR);
	if (!icr)
		return;
	if (icr & ICR_LSC)
		p->nic.other_pending = 1;
	if (icr & legacy_causes())
		nic_queue_irq(tf, nic_queue_arg(&p->nic, 0));
}

/* Vectors (7.3): one per queue pair plus "other" under MSI-X, else one. */
static int igb_setup_vectors(struct e1000x_port *p)
{
	return e1000x_setup_vectors(p, igb_other_irq, igb_legacy_irq);
}

/*
 * Route causes to vectors (7.3.2, IVAR0 bytes: RX queue q at byte 0 and
 * TX queue q at byte 1 of IVAR0[q]). The IVAR is written in every mode:
 * QEMU raises TXDW only for a TX queue with a valid IVAR entry, even
 * without MSI-X (QEMU-NICS.md A.3). In MSI-X mode only LSC goes in IMS:
 * any IMS cause also fires the "other" vector.
 */
static void igb_program_irq(struct e1000x_port *p)
{
	int nq = p->nic.nqueues;
	for (int q = 0; q < nq; q++) {
		uint32_t v = p->msix ? (uint32_t)q : 0;
		wr32(p->regs, IGB_IVAR0(q), (IVAR_VALID | v) | (IVAR_VALID | v) << 8);
	}
	if (!p->msix) {
		wr32(p->regs, IMS, ICR_LSC);
		return;
	}
	wr32(p->regs, IGB_GPIE, GPIE_MSIX_MODE | GPIE_EIAME | GPIE_PBA | GPIE_NSICR);
	wr32(p->regs, IGB_IVAR_MISC, (IVAR_VALID | (uint32_t)nq) << 8);
	wr32(p->regs, IGB_EIAC, (1u << nq) - 1);	/* QEMU: written after MSIX_MODE, never cleared */
	wr32(p->regs, IGB_EIAM, (1u << (nq + 1)) - 1);
	wr32(p->regs, IGB_EIMS, 1u << nq);
	wr32(p->regs, IMS, ICR_LSC);
}

static int igb_hw_init(struct e1000x_port *p)
{
	if (e1000x_reset(p))
		return -1;
	igb_link_setup(p);
	e1000x_clear_stats(p);
	if (igb_init_rx(p) || igb_init_tx(p))
		return -1;
	igb_program_irq(p);
	nic_itr_init(&p->nic);
	return 0;
}

static const struct nic_ops igb_ops = {
	.rx_burst = e1000x_port_rx_burst,
	.tx_burst = e1000x_port_tx_burst,
	.irq_enable = igb_irq_enable,
	.irq_disable = igb_irq_disable,
	.irq_raise = igb_irq_raise,
	.rx_pending = e1000x_port_rx_pending,
	.update_stats = e1000x_port_update_stats,
	.watchdog = e1000x_port_watchdog,
	.set_itr = igb_set_itr,
};

static const struct e1000x_family igb_family = {
	.driver = "igb", .ops = &igb_ops, .max_queues = IGB_QUEUES, .eimc = IGB_EIMC,
	.setup_vectors = igb_setup_vectors, .hw_init = igb_hw_init,
};

static int igb_probe(struct pci_dev *d, const struct pci_id *id)
{
	return e1000x_probe(d, id, &igb_family);
}

static const struct pci_id igb_ids[] = {
	{ 0x8086, 0x10c9, "82576 Gigabit Network Connection" },
	{ 0, 0, 0 },
};
PCI_DRIVER(igb, .name = "igb", .ids = igb_ids, .probe = igb_probe);
