/*
 * ixgbe: Intel 82599 10 GbE (X520 and the 82599ES/EB/EN device IDs) and
 * X540 and X550 10GBASE-T.
 * Advanced RX and TX descriptors on the shared rings of drivers/net/e1000x
 * (RX in the 82599's error layout, RXF_82599), RSS over up to 16 queue
 * pairs, MSI-X with one vector per queue pair plus one for other causes,
 * MSI and INTx fallbacks. 82599 datasheet rev 3.x: power-up and reset in
 * 4.6.3, link in 4.6.4, statistics 4.6.5 and 8.2.3.23, RX 4.6.7, TX 4.6.8,
 * interrupts 7.3. SFP+ ports identify their module first (sfp.c, under
 * the SW/FW semaphore of swfw.c); the clock and timestamps are ptp.c's.
 * The X540 (Linux's and FreeBSD's ixgbe_x540.c as the reading aid; the
 * X540 datasheet's text was not at hand: docs/drivers.md says what is
 * unverified) is the 82599 but for: no AUTOC, its internal copper PHY
 * over MDIO (phy.c) instead; CTRL.RST alone, under the PHY semaphore;
 * the semaphore's REGSMP; a 384 KB RX packet buffer; its TIMINCA one
 * 31-bit increment (ptp.c). The X550-T2/T1 as the X540 (Linux's
 * mac_ops_X550) but for its PHY identifier and advertisement (phy.c),
 * and its clock (SYSTIME in seconds and ns: ptp.c). The X550EM_x (X552)
 * and X550EM_a (X553) are refused by ID with a message naming what they
 * need (below).
 */
#include <stdio.h>
#include <stdlib.h>
#include "drivers/net/e1000x/e1000x.h"
#include "drivers/net/ixgbe/ixgbe.h"
#include "drivers/net/ixgbe/regs.h"
#include "drivers/pci/pcidecode.h"

#define LMS_SFI (IXGBE_AUTOC_LMS_10G_SERIAL)
#define LMS_KR (IXGBE_AUTOC_LMS_KX4_KX_KR)
#define LMS_KX4 (IXGBE_AUTOC_LMS_KX4_KX_KR | 1u << 7)
#define LMS_CX4 (1u << 13 | 2u << 7)	/* 10G parallel, no AN, CX4 */
#define LMS_XAUI (1u << 13)		/* 10G parallel, no AN, XAUI */

#define X540 IXGBE_MAC_X540
#define X550 IXGBE_MAC_X550

/* What the X550EM parts need beyond the X550-T (Linux ixgbe_x550.c and
 * ixgbe_type.h, read on 3 December 2026): the X552 (X550EM_x, Xeon D)
 * reaches its internal KR/KX4/XFI/SFI link through the IOSF sideband
 * (ixgbe_write_iosf_sb_reg_x550, the KRM registers), its 10GBASE-T an
 * external X557 PHY over MDIO behind that link (ixgbe_setup_ixfi_x550em),
 * and its SYSTIME may run at 400 MHz (FUSES0, ixgbe_ptp.c); the X553
 * (X550EM_a, Atom C3000) moves EEC (0x15FF8) and SW_FW_SYNC (0x15F78)
 * and has its firmware set the PHY and link through host interface
 * commands. None of that is written here, so these are refused by ID. */
#define EM_X_KR "the internal KR link set through the IOSF sideband"
#define EM_X_SFP "SFI set through the IOSF sideband, the module through the X550EM's I2C"
#define EM_X_10GT "the external X557 PHY over MDIO and its iXFI link through the IOSF sideband"
#define EM_X_1GT "the external 1 Gb/s PHY over MDIO and its SGMII link through the IOSF sideband"
#define EM_A "EEC and SW_FW_SYNC at the X550EM_a's offsets, the link and PHY through firmware commands"

static const struct ixgbe_part ixgbe_parts[] = {
	{ 0x10fb, 1, 0, LMS_SFI, "SFI (SFP+)", 0 }, { 0x1507, 1, 0, LMS_SFI, "SFI (SFP+)", 0 },
	{ 0x154d, 1, 0, LMS_SFI, "SFI (SFP+)", 0 }, { 0x1557, 1, 0, LMS_SFI, "SFI (SFP+)", 0 },
	{ 0x1529, 1, 0, LMS_SFI, "SFI (SFP+)", 0 }, { 0x154a, 1, 0, LMS_SFI, "SFI (SFP+)", 0 },
	{ 0x10f7, 1, 0, LMS_KX4, "KX4 backplane", 0 }, { 0x1514, 1, 0, LMS_KX4, "KX4 backplane", 0 },
	{ 0x10f8, 1, 0, LMS_KX4, "KX4/KX/KR backplane", 0 }, { 0x1517, 1, 0, LMS_KR, "KR backplane", 0 },
	{ 0x152a, 1, 0, LMS_KX4, "KX4 backplane", 0 }, { 0x10f9, 1, 0, LMS_CX4, "CX4", 0 },
	{ 0x10fc, 1, 0, LMS_XAUI, "XAUI", 0 },
	{ 0x1528, 1, X540, 0, "10GBASE-T (X540 internal PHY)", 0 },
	{ 0x1560, 1, X540, 0, "10GBASE-T (X540 internal PHY)", 0 },
	{ 0x1563, 1, X550, 0, "10GBASE-T (X550 internal PHY)", 0 },
	{ 0x15d1, 1, X550, 0, "10GBASE-T (X550 internal PHY)", 0 },
	{ 0x151c, 0, 0, 0, "10GBASE-T (external PHY)", "its external PHY over MDIO" },
	{ 0x15aa, 0, 0, 0, "X550EM_x KX4", EM_X_KR }, { 0x15ab, 0, 0, 0, "X550EM_x KR", EM_X_KR },
	{ 0x15b0, 0, 0, 0, "X550EM_x XFI", EM_X_KR }, { 0x15ac, 0, 0, 0, "X550EM_x SFP+", EM_X_SFP },
	{ 0x15ad, 0, 0, 0, "X550EM_x 10GBASE-T", EM_X_10GT }, { 0x15ae, 0, 0, 0, "X550EM_x 1000BASE-T", EM_X_1GT },
	{ 0x15c2, 0, 0, 0, "X550EM_a KR", EM_A }, { 0x15c3, 0, 0, 0, "X550EM_a KR", EM_A },
	{ 0x15c4, 0, 0, 0, "X550EM_a SFP+", EM_A }, { 0x15ce, 0, 0, 0, "X550EM_a SFP+", EM_A },
	{ 0x15c6, 0, 0, 0, "X550EM_a SGMII", EM_A }, { 0x15c7, 0, 0, 0, "X550EM_a SGMII", EM_A },
	{ 0x15c8, 0, 0, 0, "X550EM_a 10GBASE-T", EM_A }, { 0x15e4, 0, 0, 0, "X550EM_a 1000BASE-T", EM_A },
	{ 0x15e5, 0, 0, 0, "X550EM_a 1000BASE-T", EM_A },
};
#define IXGBE_NPARTS (sizeof(ixgbe_parts) / sizeof(ixgbe_parts[0]))
#define IXGBE_MAX_QUEUES 16	/* RSS's limit: RETA entries are 4 bits (7.1.2.8); 128 rings */
#define IXGBE_NRAR 128		/* receive address registers */

static const struct ixgbe_part *ixgbe_part_of(const struct e1000x_port *p)
{
	return p->part;
}

/* Wait up to us for (reg & mask) == want; 0, or -1 after printing what did not happen. */
static int wait_for(struct e1000x_port *p, uint32_t reg, uint32_t mask, uint32_t want, uint64_t us,
		    const char *what)
{
	if (!wait_reg32(p->regs, p->nic.name, reg, mask, want, us))
		return 0;
	printf("%s: %s\n", p->nic.name, what);
	return -1;
}

/* ---- interrupts (7.3) ---- */

static int ixgbe_irq_enable(struct nic *nic, int q)
{
	struct e1000x_port *p = to_port(nic);
	wr32(p->regs, IXGBE_EIMS, 1u << (p->msix ? q : 0));
	return e1000x_rx_pending(nic, q);
}

static void ixgbe_irq_disable(struct nic *nic, int q)
{
	struct e1000x_port *p = to_port(nic);
	wr32(p->regs, IXGBE_EIMC, 1u << (p->msix ? q : 0));
}

static void ixgbe_irq_raise(struct nic *nic, int q)
{
	struct e1000x_port *p = to_port(nic);
	wr32(p->regs, IXGBE_EICS, 1u << (p->msix ? q : 0));
}

/*
 * EITR (8.2.3.5.12): interval in bits 11:3, 2.048 us units at 10 Gb/s
 * and 1 Gb/s, so the register value is 4,000,000 / ints_per_s as igb's
 * (Linux ixgbe: usecs << 2), masked to 11:3 (8 is the shortest: 500,000
 * ints/s; 0xff8 the longest: 978 ints/s). Unlike e1000e's ITR (256 ns
 * units of the whole register) and igb's EITR (14:2), the 82599's unit is
 * ten times longer at 100 Mb/s (20.48 us): there the value is 400,000 /
 * ints_per_s (shortest 8: 48,828 ints/s), and each vector's is written
 * again at every link up (ixgbe_check_link).
 * CNT_WDIS: the write does not restart the running interval.
 */
static void ixgbe_set_itr(struct nic *nic, int q, uint32_t ints_per_s)
{
	struct e1000x_port *p = to_port(nic);
	uint32_t per_s = nic->speed == 100 ? 400000u : 4000000u;
	uint32_t v = ints_per_s ? per_s / ints_per_s : 0;
	if (v > IXGBE_EITR_ITR_MASK)
		v = IXGBE_EITR_ITR_MASK;
	v &= IXGBE_EITR_ITR_MASK;
	if (ints_per_s && !v)
		v = 8;
	wr32(p->regs, IXGBE_EITR(p->msix ? q : 0), v | IXGBE_EITR_CNT_WDIS);
	nic->q[q].itr = ints_per_s;
}

/* Other causes (MSI-X vector nqueues): with GPIE.OCD they stay in EICR
 * until written 1; LSC goes to the watchdog, ECC asks for a reset. */
static void ixgbe_other_irq(struct trapframe *tf, void *arg)
{
	(void)tf;
	struct e1000x_port *p = arg;
	uint32_t eicr = rd32(p->regs, IXGBE_EICR) & ~IXGBE_EICR_RTX_QUEUE;
	wr32(p->regs, IXGBE_EICR, eicr);
	if (eicr & IXGBE_EICR_LSC)
		p->nic.other_pending = 1;
	if (eicr & IXGBE_EICR_ECC)
		p->reset_pending = 1;
}

/* INTx or MSI: one vector; reading EICR clears it (GPIE.OCD clear). RX
 * queue 0's cause is EICR bit 0 (its IVAR entry). */
static void ixgbe_legacy_irq(struct trapframe *tf, void *arg)
{
	struct e1000x_port *p = arg;
	uint32_t eicr = rd32(p->regs, IXGBE_EICR);
	if (!eicr)
		return;		/* a shared INTx line, not us */
	if (eicr & IXGBE_EICR_LSC)
		p->nic.other_pending = 1;
	if (eicr & IXGBE_EICR_ECC)
		p->reset_pending = 1;
	if (eicr & 1u)
		napi_queue_irq(tf, napi_queue_arg(&p->nic, 0));
}

static int ixgbe_setup_vectors(struct e1000x_port *p)
{
	int msix = nic_setup_vectors(&p->nic, ixgbe_other_irq, p, "other");
	if (msix < 0)
		return -1;
	p->msix = msix;
	if (!msix)
		pci_irq_set_handler(p->nic.pci, 0, ixgbe_legacy_irq, p);
	return 0;
}

/*
 * Route causes to vectors (7.3.1.2, 8.2.3.5.16), as Linux
 * ixgbe_configure_msix: GPIE first; RX queue q to vector q (without
 * MSI-X to EICR bit 0), TX entries invalid (sent frames raise nothing);
 * other causes to vector nqueues. Queue vectors auto-clear (EIAC) and
 * auto-mask (EIAM, GPIE.EIAME); only the other causes are unmasked here,
 * the queues by the poll loop.
 */
static void ixgbe_program_irq(struct e1000x_port *p)
{
	int nq = p->nic.nqueues;
	uint32_t queues = (1u << nq) - 1;
	if (p->msix)
		wr32(p->regs, IXGBE_GPIE, IXGBE_GPIE_MSIX_MODE | IXGBE_GPIE_OCD | IXGBE_GPIE_EIAME |
			  IXGBE_GPIE_PBA_SUPPORT);
	for (int q = 0; q < nq; q++) {
		int sh = (q & 1) * 16;
		uint32_t v = IXGBE_IVAR_ALLOC_VAL | (p->msix ? (uint32_t)q : 0);
		uint32_t ivar = rd32(p->regs, IXGBE_IVAR(q / 2)) & ~(0xffffu << sh);
		wr32(p->regs, IXGBE_IVAR(q / 2), ivar | v << sh);
	}
	if (p->msix) {
		wr32(p->regs, IXGBE_IVAR_MISC, (IXGBE_IVAR_ALLOC_VAL | (uint32_t)nq) << 8);
		wr32(p->regs, IXGBE_EIAC, queues);
		wr32(p->regs, IXGBE_EIAM, queues);
		/* The other causes' vector unmasked (vector 16 is past
		 * EIMS's 15:0), as Linux ixgbe_irq_enable_queues does. */
		wr32(p->regs, IXGBE_EIMS_EX(0), 1u << nq);
	}
	wr32(p->regs, IXGBE_EIMS, IXGBE_EICR_LSC | IXGBE_EICR_ECC | IXGBE_EICR_OTHER);
}

/* ---- reset (4.6.3) ---- */

/* 4.6.3.1: every cause masked, EICR cleared. */
static void mask_all(struct e1000x_port *p)
{
	wr32(p->regs, IXGBE_EIMC, IXGBE_EIMS_ALL);
	(void)rd32(p->regs, IXGBE_EICR);
}

/* 5.2.5.3.2: RX off, each TX and RX queue disabled with its pending
 * write-backs flushed (SWFLSH) and 1 ms for them, as Linux
 * ixgbe_stop_adapter_generic, then master requests stopped and
 * their completion awaited (80 ms, Linux's bound). 0, or -1 when requests
 * are still pending (reported): the reset is then done twice, as Linux
 * ixgbe_disable_pcie_master asks (IXGBE_FLAGS_DOUBLE_RESET_REQUIRED): the
 * first stops new requests, the second clears what the completions that
 * trickled in meanwhile did. */
static int stop_dma(struct e1000x_port *p)
{
	clear_flags32(p->regs, IXGBE_RXCTRL, IXGBE_RXCTRL_RXEN);
	for (int q = 0; q < p->nic.nqueues; q++) {
		wr32(p->regs, IXGBE_TXDCTL(q), IXGBE_XDCTL_SWFLSH);
		uint32_t rxdctl = rd32(p->regs, IXGBE_RXDCTL(q)) & ~IXGBE_RXDCTL_ENABLE;
		wr32(p->regs, IXGBE_RXDCTL(q), rxdctl | IXGBE_XDCTL_SWFLSH);
	}
	udelay(1000);
	set_flags32(p->regs, IXGBE_CTRL, IXGBE_CTRL_PCIE_MASTER_DISABLE);
	return wait_for(p, IXGBE_STATUS, IXGBE_STATUS_PCIE_MASTER_ENABLE, 0, 80000,
			"STATUS.PCIE_MASTER_ENABLE still set 80 ms after CTRL.PCIE_MASTER_DISABLE: "
			"master requests pending; resetting twice");
}

/* CTRL.RST with LRST (the MAC, link included), RST awaited, then 10 ms
 * before the registers are used (4.6.3.2). The X540 takes RST alone,
 * written under the port's PHY semaphore: the firmware must not be
 * talking to the PHY the reset cuts off (Linux ixgbe_reset_hw_X540).
 * 0, or -1 (printed). */
static int mac_reset(struct e1000x_port *p)
{
	if (ixgbe_is_x540(p)) {
		if (ixgbe_phy_lock(p))
			return -1;
		wr32(p->regs, IXGBE_CTRL, rd32(p->regs, IXGBE_CTRL) | IXGBE_CTRL_RST);
		ixgbe_phy_unlock(p);
	} else
		wr32(p->regs, IXGBE_CTRL, rd32(p->regs, IXGBE_CTRL) | IXGBE_CTRL_RST_MASK);
	udelay(1000);
	if (wait_for(p, IXGBE_CTRL, IXGBE_CTRL_RST_MASK, 0, 100000, "CTRL.RST did not clear within 100 ms"))
		return -1;
	udelay(10000);
	return 0;
}

/*
 * Stop and reset the port (4.6.3.1-4.6.3.2): interrupts masked, DMA
 * stopped, the MAC reset (twice when master requests stayed pending),
 * interrupts masked again; then the EEPROM auto-read (EEC.ARD) and the
 * DMA initialisation (RDRXCTL.DMAIDONE) awaited, and CTRL_EXT.DRV_LOAD
 * set. With read_stats, the statistics are read once RX stopped, before
 * the reset clears them. 0, or -1 after printing which step did not end.
 */
static int ixgbe_reset(struct e1000x_port *p, int read_stats)
{
	mask_all(p);
	int pending = stop_dma(p);
	udelay(1000);
	if (read_stats)
		p->nic.ops->update_stats(&p->nic);
	if (mac_reset(p) || (pending && mac_reset(p)))
		return -1;
	mask_all(p);
	if (wait_for(p, IXGBE_EEC, IXGBE_EEC_ARD, IXGBE_EEC_ARD, 20000,
		     "EEC.ARD not set 20 ms after reset: EEPROM auto-read did not complete") ||
	    wait_for(p, IXGBE_RDRXCTL, IXGBE_RDRXCTL_DMAIDONE, IXGBE_RDRXCTL_DMAIDONE, 20000,
		     "RDRXCTL.DMAIDONE not set 20 ms after reset: DMA initialisation did not complete"))
		return -1;
	set_flags32(p->regs, IXGBE_CTRL_EXT, IXGBE_CTRL_EXT_DRV_LOAD);
	return 0;
}

/* ---- link (4.6.4) ---- */

/* AUTOC2's serial PMA/PMD (SFI on the SFP+ parts, KR on the others),
 * then AUTOC with the part's link mode and parallel PMA/PMD, the EEPROM's
 * other bits kept, then AN_RESTART (it applies the mode, with or without
 * auto-negotiation); the link comes up in the watchdog's LINKS read. The
 * X540's AUTOC is not for software: its PHY negotiates (phy.c). 0, or -1
 * printed. */
static int ixgbe_link_setup(struct e1000x_port *p)
{
	if (ixgbe_is_x540(p))
		return ixgbe_x540_link_setup(p);
	uint32_t serial = ixgbe_part_of(p)->autoc == LMS_SFI ? IXGBE_AUTOC2_10G_SFI : 0;
	uint32_t autoc2 = rd32(p->regs, IXGBE_AUTOC2) & ~IXGBE_AUTOC2_10G_SERIAL_PMA_PMD_MASK;
	wr32(p->regs, IXGBE_AUTOC2, autoc2 | serial);
	uint32_t keep = ~(IXGBE_AUTOC_LMS_MASK | IXGBE_AUTOC_10G_PMA_PMD_MASK | IXGBE_AUTOC_FLU);
	uint32_t autoc = (rd32(p->regs, IXGBE_AUTOC) & keep) | ixgbe_part_of(p)->autoc;
	wr32(p->regs, IXGBE_AUTOC, autoc);
	wr32(p->regs, IXGBE_AUTOC, autoc | IXGBE_AUTOC_AN_RESTART);
	return 0;
}

/* LINKS into nic->link_up/speed; 1 if the state changed (printed). */
static int ixgbe_check_link(struct nic *nic)
{
	static const uint32_t speeds[4] = { 0, 100, 1000, 10000 };
	uint32_t l = rd32(to_port(nic)->regs, IXGBE_LINKS);
	int up = !!(l & IXGBE_LINKS_UP);
	nic->speed = speeds[IXGBE_LINKS_SPEED(l)];
	nic->full_duplex = 1;
	if (up == nic->link_up)
		return 0;
	if (nic->link_up >= 0)
		nic->stats[NS_link_changes]++;
	nic->link_up = up;
	if (up) {
		printf("%s: link up, %u Mb/s, full duplex\n", nic->name, nic->speed);
		ixgbe_ptp_link(to_port(nic));
		for (int q = 0; q < (to_port(nic)->msix ? nic->nqueues : 1); q++)
			ixgbe_set_itr(nic, q, nic->q[q].itr);	/* in the speed's EITR unit */
	} else
		printf("%s: link down\n", nic->name);
	return 1;
}

/* ---- RX and TX (4.6.7, 4.6.8) ---- */

static int queue_wait(struct e1000x_port *p, uint32_t ctl, int q, const char *dir, uint32_t want)
{
	if (!wait_reg32(p->regs, p->nic.name, ctl, IXGBE_RXDCTL_ENABLE, want, 10000))
		return 0;
	printf("%s: %s queue %d: %sDCTL.ENABLE did not %s within 10 ms\n", p->nic.name, dir, q, dir,
	       want ? "set" : "clear");
	return -1;
}

/* RAL/RAH 0 with the port's address for pool 0 (MPSAR), the others and
 * the multicast table cleared; broadcast accepted, promisc=1 every frame. */
static void ixgbe_filters(struct e1000x_port *p)
{
	const uint8_t *m = p->nic.mac;
	wr32(p->regs, IXGBE_RAL(0), (uint32_t)m[0] | m[1] << 8 | m[2] << 16 | (uint32_t)m[3] << 24);
	wr32(p->regs, IXGBE_RAH(0), (uint32_t)m[4] | m[5] << 8 | IXGBE_RAH_AV);
	wr32(p->regs, IXGBE_MPSAR_LO(0), 1);
	for (int i = 1; i < IXGBE_NRAR; i++) {
		wr32(p->regs, IXGBE_RAL(i), 0);
		wr32(p->regs, IXGBE_RAH(i), 0);
	}
	for (int i = 0; i < 128; i++)
		wr32(p->regs, IXGBE_MTA(i), 0);
	wr32(p->regs, IXGBE_MCSTCTRL, IXGBE_MCSTCTRL_MFE);
	wr32(p->regs, IXGBE_FCTRL, IXGBE_FCTRL_BAM | (nic_cfg.promisc ? IXGBE_FCTRL_UPE | IXGBE_FCTRL_MPE : 0));
}

/* RSS (7.1.2.8): a fixed key, RETA entries spread over the queues, the
 * IPv4/IPv6 TCP/UDP hashes; PCSD puts the hash in the descriptor. */
static void ixgbe_rss(struct e1000x_port *p)
{
	int nq = p->nic.nqueues;
	for (int i = 0; i < 10; i++)
		wr32(p->regs, IXGBE_RSSRK(i), nic_rss_key_word(i));
	for (int i = 0; i < 32; i++) {
		uint32_t v = 0;
		for (int b = 0; b < 4; b++)
			v |= (uint32_t)((4 * i + b) % nq) << (8 * b);
		wr32(p->regs, IXGBE_RETA(i), v);
	}
	wr32(p->regs, IXGBE_MRQC, IXGBE_MRQC_RSSEN | IXGBE_MRQC_TCPIPV4 | IXGBE_MRQC_IPV4 | IXGBE_MRQC_TCPIPV6 |
		  IXGBE_MRQC_IPV6 | IXGBE_MRQC_UDPIPV4 | IXGBE_MRQC_UDPIPV6);
	wr32(p->regs, IXGBE_RXCSUM, IXGBE_RXCSUM_PCSD);
}

/*
 * Receive (4.6.7) with RXCTRL.RXEN clear: the packet buffer to TC 0
 * (4.6.11.3.4, no DCB; 512 KB, the X540's 384 KB as Linux
 * ixgbe_reset_hw_X540 writes it), FCS stripped in the MAC and DMA, the RDRXCTL bits
 * 4.6.7 requires, filters, RSS; per queue (the X550's descriptor TSIP
 * marking a time after the frame: ptp.c): disabled, ring, SRRCTL (2 KiB,
 * advanced one-buffer, DROP_EN with more than one queue), DCA_RXCTRL's
 * reserved bit 12 cleared and relaxed ordering of data and header writes
 * off (as Linux ixgbe_start_hw_gen2: a write-back must not pass the
 * frame it describes), enabled with write-back threshold 1, ENABLE
 * polled, RDT; CTRL_EXT.NS_DIS; RXEN last.
 */
static int ixgbe_init_rx(struct e1000x_port *p)
{
	struct nic *nic = &p->nic;
	clear_flags32(p->regs, IXGBE_RXCTRL, IXGBE_RXCTRL_RXEN);
	wr32(p->regs, IXGBE_RXPBSIZE(0), ixgbe_is_x540(p) ? IXGBE_RXPBSIZE_384KB : IXGBE_RXPBSIZE_512KB);
	for (int i = 1; i < 8; i++)
		wr32(p->regs, IXGBE_RXPBSIZE(i), 0);
	uint32_t rdrxctl = rd32(p->regs, IXGBE_RDRXCTL) & ~IXGBE_RDRXCTL_RSCFRSTSIZE;
	wr32(p->regs, IXGBE_RDRXCTL, rdrxctl | IXGBE_RDRXCTL_CRCSTRIP | IXGBE_RDRXCTL_RSCACKC |
		  IXGBE_RDRXCTL_FCOE_WRFIX);
	ixgbe_filters(p);
	if (nic->nqueues > 1)
		ixgbe_rss(p);
	for (int q = 0; q < nic->nqueues; q++) {
		if (e1000x_setup_rxq(p, q, IXGBE_RDT(q), RXF_82599, IXGBE_RXDADV_STAT_TS))
			return -1;
		p->rxq[q].tsip_bit = ixgbe_mac_of(p) == IXGBE_MAC_X550 ? RXDADV_STAT_TSIP : 0;
		wr32(p->regs, IXGBE_RXDCTL(q), 0);
		if (queue_wait(p, IXGBE_RXDCTL(q), q, "RX", 0))
			return -1;
		e1000x_ring_regs(p->regs, IXGBE_RDBAL(q), p->rxq[q].ring,
				 p->rxq[q].n * (uint32_t)sizeof(union rx_desc));
		wr32(p->regs, IXGBE_SRRCTL(q), IXGBE_SRRCTL_BSIZEPKT_2K | IXGBE_SRRCTL_DESCTYPE_ADV_ONEBUF |
			  (nic->nqueues > 1 ? IXGBE_SRRCTL_DROP_EN : 0));
		clear_flags32(p->regs, IXGBE_DCA_RXCTRL(q), IXGBE_DCA_RXCTRL_RELAX_DATA | IXGBE_DCA_RXCTRL_DATA_WRO_EN |
			      IXGBE_DCA_RXCTRL_HEAD_WRO_EN);
		wr32(p->regs, IXGBE_RXDCTL(q), IXGBE_XDCTL_WTHRESH(1) | IXGBE_RXDCTL_ENABLE);
		if (queue_wait(p, IXGBE_RXDCTL(q), q, "RX", IXGBE_RXDCTL_ENABLE))
			return -1;
		wr32(p->regs, IXGBE_RDT(q), p->rxq[q].n - 1);
	}
	set_flags32(p->regs, IXGBE_CTRL_EXT, IXGBE_CTRL_EXT_NS_DIS);
	set_flags32(p->regs, IXGBE_RXCTRL, IXGBE_RXCTRL_RXEN);
	return 0;
}

/*
 * Transmit (4.6.8): the packet buffer to TC 0, DTXMXSZRQ as without DCB,
 * the descriptor arbiter off while the rings are written (RTTDCS.ARBDIS),
 * rings and thresholds (write-back threshold 1, as igb: busy polling sees
 * sent descriptors at once), descriptor write-back relaxed ordering off
 * (DCA_TXCTRL, Linux ixgbe_start_hw_gen2), the arbiter on, DMATXCTL.TE
 * set keeping its VLAN EtherType (read-modify-write, as Linux
 * ixgbe_configure_tx), then each queue's ENABLE (only after TE, 4.6.8)
 * polled.
 */
static int ixgbe_init_tx(struct e1000x_port *p)
{
	wr32(p->regs, IXGBE_TXPBSIZE(0), IXGBE_TXPBSIZE_160KB);
	for (int i = 1; i < 8; i++)
		wr32(p->regs, IXGBE_TXPBSIZE(i), 0);
	wr32(p->regs, IXGBE_DTXMXSZRQ, 0xfff);
	set_flags32(p->regs, IXGBE_RTTDCS, IXGBE_RTTDCS_ARBDIS);
	for (int q = 0; q < p->nic.nqueues; q++) {
		if (e1000x_setup_txq(p, q, IXGBE_TDT(q), 1))
			return -1;
		e1000x_ring_regs(p->regs, IXGBE_TDBAL(q), p->txq[q].ring,
				 p->txq[q].n * (uint32_t)sizeof(union tx_desc));
		wr32(p->regs, IXGBE_TXDCTL(q), IXGBE_XDCTL_PTHRESH(32) | IXGBE_XDCTL_HTHRESH(1) |
			  IXGBE_XDCTL_WTHRESH(1));
		clear_flags32(p->regs, IXGBE_DCA_TXCTRL(q), IXGBE_DCA_TXCTRL_DESC_WRO_EN);
	}
	clear_flags32(p->regs, IXGBE_RTTDCS, IXGBE_RTTDCS_ARBDIS);
	set_flags32(p->regs, IXGBE_DMATXCTL, IXGBE_DMATXCTL_TE);
	for (int q = 0; q < p->nic.nqueues; q++) {
		set_flags32(p->regs, IXGBE_TXDCTL(q), IXGBE_TXDCTL_ENABLE);
		if (queue_wait(p, IXGBE_TXDCTL(q), q, "TX", IXGBE_TXDCTL_ENABLE))
			return -1;
	}
	return 0;
}

/* ---- statistics (4.6.5, 8.2.3.23) ---- */

/* A 36-bit octet counter: the low register, then bits 35:32; both clear on read. */
static uint64_t rd36(volatile uint8_t *base, uint32_t lo)
{
	uint64_t l = rd32(base, lo);
	return l | (uint64_t)(rd32(base, lo + 4) & IXGBE_STAT_HI_MASK) << 32;
}

/* The statistics registers into the `ethtool -S` counters as Linux
 * ixgbe_update_stats and ixgbe_get_stats64 name them: rx_errors is
 * crcerrs + rlec, rx_missed_errors the eight MPC; QPRDC (frames a queue
 * without descriptors dropped, DROP_EN) per queue and in rx_fifo_errors,
 * as igb's RQDPC (Linux: rx_no_dma_resources). */
static void ixgbe_update_stats(struct nic *nic)
{
	volatile uint8_t *b = to_port(nic)->regs;
	uint64_t *s = nic->stats;
	nic_stats_fold(nic);
	uint64_t crc = rd32(b, IXGBE_CRCERRS), rlec = rd32(b, IXGBE_RLEC), mprc = rd32(b, IXGBE_MPRC), mpc = 0;
	for (int i = 0; i < 8; i++)
		mpc += rd32(b, IXGBE_MPC(i));
	s[NS_rx_packets] += rd32(b, IXGBE_GPRC);
	s[NS_tx_packets] += rd32(b, IXGBE_GPTC);
	s[NS_rx_bytes] += rd36(b, IXGBE_GORCL);
	s[NS_tx_bytes] += rd36(b, IXGBE_GOTCL);
	s[NS_rx_broadcast] += rd32(b, IXGBE_BPRC);
	s[NS_tx_broadcast] += rd32(b, IXGBE_BPTC);
	s[NS_rx_multicast] += mprc;
	s[NS_multicast] += mprc;
	s[NS_tx_multicast] += rd32(b, IXGBE_MPTC);
	s[NS_rx_crc_errors] += crc;
	s[NS_rx_length_errors] += rlec;
	s[NS_rx_errors] += crc + rlec;
	s[NS_rx_short_length_errors] += rd32(b, IXGBE_RUC);
	s[NS_rx_long_length_errors] += rd32(b, IXGBE_ROC);
	s[NS_rx_missed_errors] += mpc;
	s[NS_rx_flow_control_xon] += rd32(b, IXGBE_LXONRXCNT);
	s[NS_rx_flow_control_xoff] += rd32(b, IXGBE_LXOFFRXCNT);
	s[NS_tx_flow_control_xon] += rd32(b, IXGBE_LXONTXC);
	s[NS_tx_flow_control_xoff] += rd32(b, IXGBE_LXOFFTXC);
	for (int q = 0; q < nic->nqueues; q++) {
		uint32_t n = rd32(b, IXGBE_QPRDC(q));
		nic->q[q].rx_drops += n;
		s[NS_rx_fifo_errors] += n;
	}
}

/* Zero the counters after a reset (the reads clear the registers). */
static void ixgbe_clear_stats(struct e1000x_port *p)
{
	ixgbe_update_stats(&p->nic);
	for (int i = 0; i < NIC_STAT_N; i++)
		p->nic.stats[i] = 0;
}

/* ---- bring-up and recovery ---- */

/* Everything after ixgbe_reset (4.6.3 on): link, statistics cleared, RX,
 * TX, interrupts, ITR, the clock. 0 or -1 (printed). */
static int ixgbe_hw_init(struct e1000x_port *p)
{
	if (ixgbe_link_setup(p))
		return -1;
	ixgbe_clear_stats(p);
	wr32(p->regs, IXGBE_HLREG0, (rd32(p->regs, IXGBE_HLREG0) & ~(IXGBE_HLREG0_LPBK | IXGBE_HLREG0_JUMBOEN)) |
		  IXGBE_HLREG0_RXCRCSTRP | IXGBE_HLREG0_TXCRCEN | IXGBE_HLREG0_TXPADEN);
	if (ixgbe_init_rx(p) || ixgbe_init_tx(p))
		return -1;
	ixgbe_program_irq(p);
	napi_itr_init(&p->nic);
	ixgbe_ptp_init(p);
	return 0;
}

/* TX hang or a reset asked for: stop and reset the port before its
 * buffers go back to the pool, set it up again, keep the counters. */
/* The VLAN filter and stripping for the VLANs in p->vids, as vlan_strip
 * says: VLNCTRL.VFE with a VFTA bit per VID and VID 0's (8.2.3.7.2; VET
 * 0x8100, its reset value) and RXDCTL.VME on every queue (8.2.3.8.6: the
 * 82599 strips per queue, where the 82598 had VLNCTRL.VME), as Linux's
 * ixgbe_vlan_strip_enable and ixgbe_vlan_promisc_disable; cleared with
 * vlan_strip 0, the VFTA kept. The stripped TCI is in the advanced
 * write-back's VLAN field with status VP (7.1.6.2), as igb's. VFE only
 * with vlan_filter. */
static void ixgbe_vlan_apply(struct e1000x_port *p)
{
	int on = p->nic.cfg.vlan_strip != 0;
	if (!p->nvids)
		return;
	e1000x_vp_on(p);
	if (on) {
		set_flags32(p->regs, IXGBE_VFTA(0), 1u);
		for (int i = 0; i < p->nvids; i++)
			set_flags32(p->regs, IXGBE_VFTA(p->vids[i] >> 5), 1u << (p->vids[i] & 31));
	}
	wr32(p->regs, IXGBE_VLNCTRL, 0x8100u | (on && p->nic.cfg.vlan_filter ? IXGBE_VLNCTRL_VFE : 0));
	for (int q = 0; q < p->nic.nqueues; q++) {
		uint32_t rxdctl = rd32(p->regs, IXGBE_RXDCTL(q)) & ~IXGBE_RXDCTL_VME;
		wr32(p->regs, IXGBE_RXDCTL(q), rxdctl | (on ? IXGBE_RXDCTL_VME : 0));
	}
}

/* nic_ops.vlan_rx_add_vid: as e1000x's, on the 82599's registers. */
static int ixgbe_vlan_rx_add_vid(struct nic *nic, uint16_t vid)
{
	struct e1000x_port *p = to_port(nic);
	if (e1000x_vid_keep(p, vid))
		return -1;
	ixgbe_vlan_apply(p);
	return nic->cfg.vlan_strip ? 0 : -1;
}

/* nic_ops.vlan_strip_set: 0, or -1 with no VID kept. */
static int ixgbe_vlan_strip_set(struct nic *nic)
{
	struct e1000x_port *p = to_port(nic);
	if (!p->nvids)
		return -1;
	ixgbe_vlan_apply(p);
	return 0;
}

static void ixgbe_recover(struct e1000x_port *p, const char *why)
{
	struct nic *nic = &p->nic;
	uint64_t keep[NIC_STAT_N];
	nic_reset_begin(nic, why);
	int err = ixgbe_reset(p, 1);
	for (int q = 0; q < nic->nqueues; q++) {
		e1000x_rxq_release(&p->rxq[q]);
		e1000x_txq_release(&p->txq[q]);
	}
	nic_stats_fold(nic);
	if (!err) {
		for (int i = 0; i < NIC_STAT_N; i++)
			keep[i] = nic->stats[i];
		err = ixgbe_hw_init(p);
		for (int i = 0; i < NIC_STAT_N; i++)
			nic->stats[i] += keep[i];
		if (!err) {
			e1000x_port_set_mc(nic);
			ixgbe_vlan_apply(p);
		}
	}
	p->reset_pending = 0;
	nic_reset_end(nic, err);
}

#define TX_TIMEOUT_NS 2000000000ull

static void ixgbe_watchdog(struct nic *nic)
{
	struct e1000x_port *p = to_port(nic);
	nic->other_pending = 0;
	ixgbe_check_link(nic);
	if (e1000x_down_with_tx_queued(p))
		ixgbe_recover(p, "link down with TX work queued");
	for (int q = 0; q < nic->nqueues; q++)
		if (e1000x_tx_hung(&p->txq[q], TX_TIMEOUT_NS)) {
			nic->stats[NS_tx_timeout_count]++;
			ixgbe_recover(p, "TX hang (no descriptor done for 2000 ms with work pending)");
			break;
		}
	if (p->reset_pending)
		ixgbe_recover(p, p->reset_pending == 2 ? "reset asked for from the shell" :
			      "the NIC asked for a reset (EICR.ECC)");
	napi_watchdog(nic);
}

static const struct nic_ops ixgbe_ops = {
	.irq_enable = ixgbe_irq_enable,
	.irq_disable = ixgbe_irq_disable,
	.irq_raise = ixgbe_irq_raise,
	.rx_pending = e1000x_rx_pending,
	.update_stats = ixgbe_update_stats,
	.watchdog = ixgbe_watchdog,
	.tx_clean = e1000x_port_tx_clean,
	.reset = e1000x_port_request_reset,
	.set_itr = ixgbe_set_itr,
	.set_mc = e1000x_port_set_mc,
	.vlan_rx_add_vid = ixgbe_vlan_rx_add_vid,
	.vlan_strip_set = ixgbe_vlan_strip_set,
};

/* RAL0/RAH0 as the EEPROM load left them; 0, or -1 if invalid. */
static int ixgbe_read_mac(struct e1000x_port *p)
{
	uint32_t lo = rd32(p->regs, IXGBE_RAL(0)), hi = rd32(p->regs, IXGBE_RAH(0));
	uint8_t *mac = p->nic.mac;
	for (int i = 0; i < 4; i++)
		mac[i] = (uint8_t)(lo >> (8 * i));
	mac[4] = (uint8_t)hi;
	mac[5] = (uint8_t)(hi >> 8);
	if (!(hi & IXGBE_RAH_AV) || (mac[0] & 1) || !(lo | (hi & 0xffff))) {
		printf("%s: no valid MAC address in RAL0/RAH0 after the EEPROM load\n", p->nic.name);
		return -1;
	}
	return 0;
}

/* A port refused after its reset lets go of the device as Linux's remove
 * does: DRV_LOAD clear, vectors freed, bus mastering off. Returns -1. */
static int ixgbe_refuse(struct e1000x_port *p)
{
	struct pci_dev *d = p->nic.pci;
	clear_flags32(p->regs, IXGBE_CTRL_EXT, IXGBE_CTRL_EXT_DRV_LOAD);
	if (d->nvec)
		pci_irq_free(d);
	pci_write16(d, PCI_COMMAND, (uint16_t)(pci_read16(d, PCI_COMMAND) & ~PCI_COMMAND_MASTER));
	nic_unregister(&p->nic);
	return -1;
}

static const struct ixgbe_part *ixgbe_find_part(const struct pci_id *id)
{
	for (size_t i = 0; i < IXGBE_NPARTS; i++)
		if (ixgbe_parts[i].device == id->device)
			return &ixgbe_parts[i];
	return 0;
}

/* Probe: the part (refused by ID when its link set-up is not written),
 * the port registered, reset, MAC, the SFP+ module (SFI parts: none or
 * an unsupported one leaves the port out) or the X540's PHY, vectors,
 * pools, hw_init. */
static int ixgbe_probe(struct pci_dev *d, const struct pci_id *id)
{
	const struct ixgbe_part *part = ixgbe_find_part(id);
	if (!part || !part->supported) {
		printf("ixgbe: %04x:%04x %s: %s link set-up not written here (%s); device left alone\n",
		       id->vendor, id->device, id->name, part ? part->link : "unknown",
		       part ? part->missing : "no part entry");
		return -1;
	}
	struct e1000x_port *p = calloc(1, sizeof(*p));
	if (!p)
		return -1;
	struct nic *nic = &p->nic;
	p->ops = ixgbe_ops;
	p->part = part;
	*nic = (struct nic){ .driver = "ixgbe", .model = id->name, .pci = d, .ops = &p->ops, .link_up = -1,
			     .max_queues = IXGBE_MAX_QUEUES, .tx_csum = 1 };
	nic_config_init(nic);
	nic->nqueues = nic->cfg.queues < IXGBE_MAX_QUEUES ? (int)nic->cfg.queues : IXGBE_MAX_QUEUES;
	p->regs = (volatile uint8_t *)pci_map_bar(d, 0);
	if (!p->regs || nic_register(nic) < 0) {
		free(p);
		return -1;
	}
	d->priv = p;
	if (ixgbe_reset(p, 0) || ixgbe_read_mac(p))
		return ixgbe_refuse(p);
	if (part->autoc == LMS_SFI) {
		enum ixgbe_sfp sfp = ixgbe_sfp_identify(p, (int)ixgbe_allow_unsupported_sfp);
		if (sfp == IXGBE_SFP_NONE || sfp == IXGBE_SFP_UNSUPPORTED)
			return ixgbe_refuse(p);
	}
	if (part->mac != IXGBE_MAC_82599 && ixgbe_x540_phy_identify(p))
		return ixgbe_refuse(p);
	if (ixgbe_setup_vectors(p) || nic_pools_create(nic) || ixgbe_hw_init(p)) {
		ixgbe_reset(p, 0);
		return ixgbe_refuse(p);
	}
	printf("%s: %s link\n", nic->name, part->link);
	ixgbe_check_link(nic);
	e1000x_print_probe(p);
	return 0;
}

static const struct pci_id ixgbe_ids[] = {
	{ 0x8086, 0x10fb, "82599ES 10-Gigabit SFI/SFP+ Network Connection" },
	{ 0x8086, 0x1507, "82599 10 Gigabit Network Connection (SFP+ EM)" },
	{ 0x8086, 0x154d, "82599 10 Gigabit Network Connection (SFP+ SF2)" },
	{ 0x8086, 0x1557, "82599EN 10-Gigabit SFI/SFP+ Network Connection" },
	{ 0x8086, 0x1529, "82599 10 Gigabit Dual Port Network Connection (SFP+ FCoE)" },
	{ 0x8086, 0x154a, "82599ES 10-Gigabit SFI/SFP+ Network Connection (quad port)" },
	{ 0x8086, 0x10f7, "82599EB 10-Gigabit KX4 Network Connection" },
	{ 0x8086, 0x1514, "82599EB 10 Gigabit KX4 Network Connection (mezzanine)" },
	{ 0x8086, 0x10f8, "82599EB 10 Gigabit Dual Port Backplane Connection" },
	{ 0x8086, 0x1517, "82599ES 10 Gigabit KR Network Connection" },
	{ 0x8086, 0x152a, "82599 10 Gigabit Dual Port Backplane Connection (FCoE)" },
	{ 0x8086, 0x10f9, "82599EB 10 Gigabit CX4 Network Connection" },
	{ 0x8086, 0x10fc, "82599EB 10 Gigabit XAUI/BX4 Network Connection" },
	{ 0x8086, 0x151c, "82599 10 Gigabit TN Network Connection" },
	{ 0x8086, 0x1528, "Ethernet Controller X540-AT2" },
	{ 0x8086, 0x1560, "Ethernet Controller X540" },
	{ 0x8086, 0x1563, "Ethernet Controller X550-T2" },
	{ 0x8086, 0x15d1, "Ethernet Controller X550-T1" },
	{ 0x8086, 0x15aa, "Ethernet Connection X552 10 GbE Backplane (KX4)" },
	{ 0x8086, 0x15ab, "Ethernet Connection X552 10 GbE Backplane" },
	{ 0x8086, 0x15b0, "Ethernet Connection X552 10 GbE (XFI)" },
	{ 0x8086, 0x15ac, "Ethernet Connection X552 10 GbE SFP+" },
	{ 0x8086, 0x15ad, "Ethernet Connection X552/X557-AT 10GBASE-T" },
	{ 0x8086, 0x15ae, "Ethernet Connection X552 1000BASE-T" },
	{ 0x8086, 0x15c2, "Ethernet Connection X553 Backplane" },
	{ 0x8086, 0x15c3, "Ethernet Connection X553 Backplane (L)" },
	{ 0x8086, 0x15c4, "Ethernet Connection X553 10 GbE SFP+ (N)" },
	{ 0x8086, 0x15ce, "Ethernet Connection X553 10 GbE SFP+" },
	{ 0x8086, 0x15c6, "Ethernet Connection X553 1GbE (SGMII)" },
	{ 0x8086, 0x15c7, "Ethernet Connection X553 1GbE (SGMII, L)" },
	{ 0x8086, 0x15c8, "Ethernet Connection X553/X557-AT 10GBASE-T" },
	{ 0x8086, 0x15e4, "Ethernet Connection X553 1GbE" },
	{ 0x8086, 0x15e5, "Ethernet Connection X553 1GbE (L)" },
	{ 0, 0, 0 },
};
PCI_DRIVER(ixgbe, .name = "ixgbe", .ids = ixgbe_ids, .probe = ixgbe_probe);
