/*
 * e1000: Intel 82540EM. Legacy RX and TX descriptors, one queue pair, INTx
 * only (the 82540EM has no MSI capability), ITR and the RX/TX delay timers,
 * 32-bit DMA, the reset through the I/O BAR.
 * 8254x Family SDM rev 4.0: initialisation in section 14, registers in 13.
 */
#include <stdio.h>
#include <string.h>
#include "drivers/net/e1000/regs.h"
#include "drivers/net/e1000x/e1000x.h"
#include "net/ipv4.h"

/* Queue causes: RX only; TX completions are reclaimed by tx_burst and
 * once a second (tx_clean), not by interrupt. */

static int e1000_irq_enable(struct nic *nic, int q)
{
	wr32(to_port(nic)->regs, IMS, ICR_RX_CAUSES);
	return e1000x_rx_pending(nic, q);
}

static void e1000_irq_disable(struct nic *nic, int q)
{
	(void)q;
	wr32(to_port(nic)->regs, IMC, ICR_RX_CAUSES);
}

static void e1000_irq_raise(struct nic *nic, int q)
{
	(void)q;
	wr32(to_port(nic)->regs, ICS, ICR_RXT0);	/* 13.4.19 */
}

/* ITR counts 256 ns units (13.4.18). QEMU's mitigation window never goes
 * below 128 us (docs/qemu-nics.md A.1). */
static void e1000_set_itr(struct nic *nic, int q, uint32_t ints_per_s)
{
	wr32(to_port(nic)->regs, ITR, ints_per_s ? 1000000000u / (ints_per_s * 256u) : 0);
	nic->q[q].itr = ints_per_s;
}

/* Receive initialisation (14.4). QEMU holds received frames for 1 s of
 * virtual time after every RCTL write (docs/qemu-nics.md A.1); they are queued,
 * not lost. */
static int e1000_init_rx(struct e1000x_port *p)
{
	if (e1000x_setup_rxq(p, 0, E1000_RDT, RXF_LEGACY, 0))
		return -1;
	e1000x_ring_regs(p->regs, E1000_RDBAL, p->rxq[0].ring, p->rxq[0].n * (uint32_t)sizeof(union rx_desc));
	wr32(p->regs, E1000_RDT, p->rxq[0].n - 1);
	wr32(p->regs, E1000_RDTR, (uint32_t)p->nic.cfg.rx_int_delay);
	wr32(p->regs, E1000_RADV, (uint32_t)p->nic.cfg.rx_abs_int_delay);
	wr32(p->regs, RXCSUM, RXCSUM_IPOFL | RXCSUM_TUOFL);
	e1000x_set_filters(p->regs, p->nic.mac, 16);
	wr32(p->regs, RCTL, e1000x_rctl_filters() | RCTL_EN | RCTL_BSIZE_2048 | RCTL_SECRC | RCTL_RDMTS_HALF);
	return 0;
}

/*
 * tx_burst of the 82540EM: frames under ETH_ZLEN are padded with zeros
 * here, not by the MAC (TCTL.PSP), as Linux e1000_xmit_frame does
 * (eth_skb_pad: "On PCI/PCI-X HW, if packet size is less than ETH_ZLEN,
 * packets may get corrupted during padding by HW"). Silicon review
 * 2026-12-02 N4: routed TCP ACKs (l3.c trims the padding) and rr's
 * checksum-offloaded answers leave short. Every slot's buffer holds at
 * least 2 * ETH_ZLEN bytes past data; the zeros change no TCP/UDP sum
 * (TUCSE 0 sums to the end).
 */
static int e1000_tx_burst(struct nic *nic, int q, struct pkt **pkts, int n)
{
	for (int i = 0; i < n; i++) {
		struct pkt *p = pkts[i];
		if (p->len < ETH_ZLEN) {
			memset(p->data + p->len, 0, ETH_ZLEN - p->len);
			p->len = ETH_ZLEN;
		}
	}
	return e1000x_tx_burst_legacy(nic, q, pkts, n);
}

/* Transmit initialisation (14.5). */
static int e1000_init_tx(struct e1000x_port *p)
{
	if (e1000x_setup_txq(p, 0, E1000_TDT, 0))
		return -1;
	p->ops.tx_burst = e1000_tx_burst;
	e1000x_ring_regs(p->regs, E1000_TDBAL, p->txq[0].ring, p->txq[0].n * (uint32_t)sizeof(union tx_desc));
	wr32(p->regs, E1000_TIDV, (uint32_t)p->nic.cfg.tx_int_delay);
	wr32(p->regs, E1000_TADV, (uint32_t)p->nic.cfg.tx_abs_int_delay);
	wr32(p->regs, TIPG, 10 | 8u << 10 | 6u << 20);	/* copper IPGT/IPGR1/IPGR2, table 13-77 */
	e1000x_tctl_set(p->regs, TCTL_EN | TCTL_PSP | TCTL_CT(0x0f) | TCTL_COLD(0x40) | TCTL_RTLC);
	return 0;
}

/* Link, statistics, rings and interrupts after e1000x_reset (14.3-14.5). */
static int e1000_hw_init(struct e1000x_port *p)
{
	if (e1000x_is_qemu(&p->nic))	/* keeps MPC and RNBC instead of clearing them (hw/net/e1000.c) */
		p->stat_cumulative = STAT_BIT(MPC) | STAT_BIT(RNBC);
	set_flags32(p->regs, CTRL, CTRL_ASDE);	/* 14.3: speed from the PHY */
	e1000x_copper_link_setup(p);	/* a failure is printed; the port still works if the link comes */
	e1000x_clear_stats(p);
	if (e1000_init_rx(p) || e1000_init_tx(p))
		return -1;
	napi_itr_init(&p->nic);
	wr32(p->regs, IMS, ICR_LSC);
	return 0;
}

/*
 * The reset write. The 82540EM, like the 82541 and 82544-82546, may not
 * complete a memory write that resets it (Linux e1000_reset_hw: "can't
 * ack the 64-bit write when issuing the reset"), so CTRL is written
 * through the I/O BAR (IOADDR then IODATA, 13.2.1-13.2.2) when one
 * decodes; else through MMIO (QEMU, whose I/O BAR is a stub).
 */
static void e1000_write_rst(struct e1000x_port *p, uint32_t ctrl)
{
	if (!p->io) {
		wr32(p->regs, CTRL, ctrl);
		return;
	}
	io_wr32(p->io + E1000_IOADDR, CTRL);
	io_wr32(p->io + E1000_IODATA, ctrl);
}

/* After CTRL.RST: the 82540EM has no EECD.AUTO_RD; its EEPROM load takes
 * under 5 ms (Linux e1000_get_auto_rd_done waits 5 ms for it). */
static int e1000_post_reset(struct e1000x_port *p)
{
	(void)p;
	udelay(5000);
	return 0;
}

/*
 * At probe: the 82540EM is a 32-bit PCI part (no PCI-X, so no dual address
 * cycles: Linux e1000 sets a 32-bit DMA mask for it), so every ring and
 * receive buffer stays below 4 GiB. The I/O BAR is used for the reset
 * only if IOADDR reads back what was written (13.2.1, RW): QEMU's I/O BAR
 * reads 0 and drops writes, so there the reset goes through MMIO.
 */
static int e1000_attach(struct e1000x_port *p, const struct pci_id *id)
{
	(void)id;
	p->nic.dma_limit = 1ull << 32;
	uint16_t io = pci_map_io(p->nic.pci);
	if (io) {
		io_wr32(io + E1000_IOADDR, STATUS);
		if (io_rd32(io + E1000_IOADDR) == STATUS)
			p->io = io;
	}
	return 0;
}

static const struct nic_ops e1000_ops = {
	E1000X_COMMON_OPS,
	.irq_enable = e1000_irq_enable,
	.irq_disable = e1000_irq_disable,
	.irq_raise = e1000_irq_raise,
	.set_itr = e1000_set_itr,
	.update_stats = e1000x_port_update_stats,
};

/* The 82540EM has INTx only (no MSI, no MSI-X): one vector, every cause,
 * e1000x_legacy_irq. */
static int e1000_setup_vectors(struct e1000x_port *p)
{
	return e1000x_setup_vectors(p, e1000x_legacy_irq);
}

static const struct e1000x_family e1000_family = {
	.driver = "e1000", .ops = &e1000_ops, .max_queues = 1, .int_delays = 1, .pcie = 0,
	.attach = e1000_attach, .setup_vectors = e1000_setup_vectors, .hw_init = e1000_hw_init,
	.write_rst = e1000_write_rst, .post_reset = e1000_post_reset,
};

static int e1000_probe(struct pci_dev *d, const struct pci_id *id)
{
	return e1000x_probe(d, id, &e1000_family);
}

static const struct pci_id e1000_ids[] = {
	{ 0x8086, 0x100e, "82540EM Gigabit Ethernet Controller" },
	{ 0, 0, 0 },
};
PCI_DRIVER(e1000, .name = "e1000", .ids = e1000_ids, .probe = e1000_probe);
