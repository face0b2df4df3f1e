/*
 * What the Intel gigabit families share: the 8254x register set that
 * e1000 (82540EM), e1000e (82574L) and igb (82576) all keep at the same
 * offsets, their bit fields, the statistics block, and the register access
 * helpers. Sources: 8254x Family SDM rev 4.0 (section 13), 82574 datasheet
 * rev 3.4 (section 10), 82576 datasheet rev 2.63 (section 8). Access types:
 * RW read/write, RO read only, RC clear on read, WO write only, W1C write 1
 * to clear.
 */
#ifndef E1000X_H
#define E1000X_H
#include <stdint.h>
#include <stdio.h>
#include "drivers/net/nic.h"
#include "kernel/time.h"

/* General registers */
#define CTRL		0x00000	/* Device Control - RW */
#define STATUS		0x00008	/* Device Status - RO */
#define EECD		0x00010	/* EEPROM/Flash Control - RW */
#define EERD		0x00014	/* EEPROM Read - RW */
#define CTRL_EXT	0x00018	/* Extended Device Control - RW */
#define MDIC		0x00020	/* MDI Control - RW */
#define FCAL		0x00028	/* Flow Control Address Low - RW */
#define FCAH		0x0002c	/* Flow Control Address High - RW */
#define FCT		0x00030	/* Flow Control Type - RW */
#define FCTTV		0x00170	/* Flow Control Transmit Timer Value - RW */
#define ICR		0x000c0	/* Interrupt Cause Read - RC/W1C */
#define ITR		0x000c4	/* Interrupt Throttling Rate - RW (not on igb) */
#define ICS		0x000c8	/* Interrupt Cause Set - WO */
#define IMS		0x000d0	/* Interrupt Mask Set/Read - RW */
#define IMC		0x000d8	/* Interrupt Mask Clear - WO */
#define RCTL		0x00100	/* Receive Control - RW */
#define TCTL		0x00400	/* Transmit Control - RW */
#define TIPG		0x00410	/* Transmit IPG - RW */
#define RXCSUM		0x05000	/* Receive Checksum Control - RW */
#define MTA(i)		(0x05200 + 4 * (i))	/* Multicast Table Array, 128 - RW */
#define RAL(i)		(0x05400 + 8 * (i))	/* Receive Address Low - RW */
#define RAH(i)		(0x05404 + 8 * (i))	/* Receive Address High - RW */
#define VFTA(i)		(0x05600 + 4 * (i))	/* VLAN Filter Table Array - RW */

/* CTRL */
#define CTRL_FD		(1u << 0)	/* full duplex */
#define CTRL_GIO_MASTER_DISABLE (1u << 2)	/* PCIe parts: stop issuing master requests */
#define CTRL_ASDE	(1u << 5)	/* auto-speed detection enable */
#define CTRL_SLU	(1u << 6)	/* set link up */
#define CTRL_FRCSPD	(1u << 11)	/* force speed */
#define CTRL_FRCDPLX	(1u << 12)	/* force duplex */
#define CTRL_RST	(1u << 26)	/* device reset, self-clearing */
#define CTRL_RFCE	(1u << 27)	/* receive flow control enable */
#define CTRL_TFCE	(1u << 28)	/* transmit flow control enable */
#define CTRL_VME	(1u << 30)	/* VLAN mode enable */
#define CTRL_PHY_RST	(1u << 31)

/* STATUS */
#define STATUS_FD	(1u << 0)
#define STATUS_LU	(1u << 1)	/* link up */
#define STATUS_FUNC(s)	(((s) >> 2) & 3)	/* PCI function number (82576 and later) */
#define STATUS_SPEED(s)	(((s) >> 6) & 3)	/* 0: 10, 1: 100, 2/3: 1000 Mb/s */
#define STATUS_GIO_MASTER_ENABLE (1u << 19)	/* PCIe parts: master requests may still be pending */

/* EECD (82574 10.2.2.3, 82576 8.4.1) */
#define EECD_PRES	(1u << 8)	/* NVM present */
#define EECD_AUTO_RD	(1u << 9)	/* NVM auto-read done */

/* CTRL_EXT (82574 10.2.2.5, 82576 8.2.3) */
#define CTRL_EXT_DRV_LOAD (1u << 28)	/* driver loaded: firmware keeps off the port */

/* EERD (8254x 13.4.4; 82574 10.2.2.4 uses the same start/done bits at 0/1
 * but address at 2 and data at 16) */
#define EERD_START	(1u << 0)

/* MDIC (8254x 13.4.7) */
#define MDIC_DATA(d)	((d) & 0xffff)
#define MDIC_REG(r)	((uint32_t)(r) << 16)
#define MDIC_PHY(p)	((uint32_t)(p) << 21)
#define MDIC_OP_WRITE	(1u << 26)
#define MDIC_OP_READ	(2u << 26)
#define MDIC_READY	(1u << 28)
#define MDIC_ERROR	(1u << 30)

/* PHY registers (IEEE 802.3 clause 22) */
#define PHY_BMCR	0
#define PHY_BMSR	1
#define PHY_ANAR	4	/* auto-negotiation advertisement */
#define PHY_1000T_CTRL	9
#define PHY_1000T_STATUS 10
#define BMCR_PDOWN	(1u << 11)	/* power down */
#define BMCR_ISOLATE	(1u << 10)
#define BMCR_ANENABLE	(1u << 12)
#define BMCR_ANRESTART	(1u << 9)
#define BMCR_FULLDPLX	(1u << 8)
#define BMCR_SPEED1000	(1u << 6)
#define ANAR_10_100_ALL	0x01e1u	/* 10/100 half and full duplex, selector 802.3, no pause */
#define CTRL1000_FD	(1u << 9)	/* advertise 1000BASE-T full duplex */

/* ICR / ICS / IMS / IMC causes common to all three */
#define ICR_TXDW	(1u << 0)	/* transmit descriptor written back */
#define ICR_TXQE	(1u << 1)	/* transmit queue empty */
#define ICR_LSC		(1u << 2)	/* link status change */
#define ICR_RXSEQ	(1u << 3)
#define ICR_RXDMT0	(1u << 4)	/* receive descriptor minimum threshold */
#define ICR_RXO		(1u << 6)	/* receiver overrun */
#define ICR_RXT0	(1u << 7)	/* receiver timer interrupt */
#define ICR_MDAC	(1u << 9)
#define ICR_INT_ASSERTED (1u << 31)

/* RCTL (8254x 13.4.22) */
#define RCTL_EN		(1u << 1)
#define RCTL_SBP	(1u << 2)	/* store bad packets */
#define RCTL_UPE	(1u << 3)	/* unicast promiscuous */
#define RCTL_MPE	(1u << 4)	/* multicast promiscuous */
#define RCTL_LPE	(1u << 5)	/* long packet enable */
#define RCTL_RDMTS_HALF	(0u << 8)
#define RCTL_BAM	(1u << 15)	/* accept broadcast */
#define RCTL_BSIZE_2048	(0u << 16)
#define RCTL_SECRC	(1u << 26)	/* strip Ethernet CRC */

/* TCTL (8254x 13.4.33) */
#define TCTL_EN		(1u << 1)
#define TCTL_PSP	(1u << 3)	/* pad short packets */
#define TCTL_CT(x)	((uint32_t)(x) << 4)	/* collision threshold */
#define TCTL_COLD(x)	((uint32_t)(x) << 12)	/* collision distance */
#define TCTL_RTLC	(1u << 24)

/* RXCSUM */
#define RXCSUM_IPOFL	(1u << 8)
#define RXCSUM_TUOFL	(1u << 9)
#define RXCSUM_PCSD	(1u << 13)	/* packet checksum disable: RSS hash in its place */

/* RAH */
#define RAH_AV		(1u << 31)	/* address valid */

/* Statistics block (8254x 13.7; 82574 10.2.5; 82576 8.19), all RC. */
#define CRCERRS		0x04000
#define ALGNERRC	0x04004
#define RXERRC		0x0400c
#define MPC		0x04010
#define SCC		0x04014
#define ECOL		0x04018
#define MCC		0x0401c
#define LATECOL		0x04020
#define COLC		0x04028
#define DC		0x04030
#define TNCRS		0x04034
#define CEXTERR		0x0403c
#define RLEC		0x04040
#define XONRXC		0x04048
#define XONTXC		0x0404c
#define XOFFRXC		0x04050
#define XOFFTXC		0x04054
#define GPRC		0x04074
#define BPRC		0x04078
#define MPRC		0x0407c
#define GPTC		0x04080
#define GORCL		0x04088	/* low then high: reading high clears both */
#define GORCH		0x0408c
#define GOTCL		0x04090
#define GOTCH		0x04094
#define RNBC		0x040a0
#define RUC		0x040a4
#define RFC		0x040a8
#define ROC		0x040ac
#define RJC		0x040b0
#define TPR		0x040d0
#define TPT		0x040d4
#define MPTC		0x040f0
#define BPTC		0x040f4

/* QEMU's NICs carry subsystem vendor 1af4 (Red Hat; igb, and e1000 as
 * 1af4:1100), which no Intel board uses: where QEMU lacks a silicon step
 * (igb EECD.AUTO_RD, CFG_DONE) the driver tests this, and only this. */
#define QEMU_SUBSYS_VENDOR 0x1af4
static inline int e1000x_is_qemu(const struct nic *nic)
{
	return nic->pci->subsys_vendor == QEMU_SUBSYS_VENDOR;
}

/* Bit of a statistics register in e1000x_port.stat_cumulative. */
#define STAT_BIT(reg)	(1ull << (((reg) - CRCERRS) / 4))

/* Legacy RX descriptor (8254x 3.2.3): also the e1000 format. */
struct rx_desc_legacy {
	uint64_t addr;
	uint16_t length;
	uint16_t csum;
	uint8_t status;
	uint8_t errors;
	uint16_t special;
};
#define RXD_STAT_DD	(1u << 0)	/* descriptor done */
#define RXD_STAT_EOP	(1u << 1)	/* end of packet */
#define RXD_STAT_IXSM	(1u << 2)	/* ignore checksum indication */
#define RXD_STAT_TCPCS	(1u << 5)
#define RXD_STAT_IPCS	(1u << 6)
#define RXD_ERR_CE	(1u << 0)	/* CRC or alignment error */
#define RXD_ERR_SE	(1u << 1)
#define RXD_ERR_SEQ	(1u << 2)
#define RXD_ERR_CXE	(1u << 4)
#define RXD_ERR_TCPE	(1u << 5)
#define RXD_ERR_IPE	(1u << 6)
#define RXD_ERR_RXE	(1u << 7)
#define RXD_ERR_FRAME	(RXD_ERR_CE | RXD_ERR_SE | RXD_ERR_SEQ | RXD_ERR_CXE | RXD_ERR_RXE)

/* Legacy TX descriptor (8254x 3.3.3): e1000 and e1000e. */
struct tx_desc_legacy {
	uint64_t addr;
	uint16_t length;
	uint8_t cso;
	uint8_t cmd;
	uint8_t status;
	uint8_t css;
	uint16_t special;
};
#define TXD_CMD_EOP	(1u << 0)
#define TXD_CMD_IFCS	(1u << 1)	/* insert FCS */
#define TXD_CMD_RS	(1u << 3)	/* report status */
#define TXD_CMD_IDE	(1u << 7)	/* interrupt delay enable */
#define TXD_STAT_DD	(1u << 0)

#include "drivers/net/e1000x_ring.h"

struct e1000x_family;

/*
 * A port of any of the three families: the generic struct nic first, then
 * what the shared code needs. e1000x_reset stops and resets the port; the
 * family's hw_init then sets up everything but the PCI vectors. Both run
 * at probe and to recover from a TX hang.
 */
struct e1000x_port {
	struct nic nic;
	volatile uint8_t *regs;
	uint16_t io;		/* I/O BAR port base, 0 if none or not used */
	struct e1000x_rxq rxq[NIC_MAX_QUEUES];
	struct e1000x_txq txq[NIC_MAX_QUEUES];
	int msix;		/* 1 when each queue pair has its own MSI-X vector */
	const struct e1000x_family *family;
	const void *part;	/* the family's per-device data (struct igb_part...) */
	uint64_t stat_cumulative;	/* statistics registers that do not clear on read, by STAT_BIT */
	uint64_t absent_stats;		/* statistics registers the part lacks (not read), by STAT_BIT */
	uint32_t stat_last[64];		/* their last raw values, by (reg - 0x4000) / 4 */
	uint8_t phy_addr;	/* MDIO address of the PHY (1 on the internal copper PHYs) */
	int phy_hang_count;	/* 82574: watchdogs in a row that found the PHY hung */
	volatile int reset_pending;	/* the watchdog resets the port: 1 a cause (igb DRSTA)
				   asked for it, 2 the shell did */
	int rx_ts_in_buf;	/* set before hw_init (PTP): RX timestamps in the buffer
				 * (igb I350/I210 SRRCTL.TIMESTAMP), see e1000x_rxq.tsip_bit */
};

static inline struct e1000x_port *to_port(struct nic *nic)
{
	return (struct e1000x_port *)nic;
}

/* What differs between the families. The hooks marked optional may be 0. */
struct e1000x_family {
	const char *driver;		/* "e1000e" */
	const struct nic_ops *ops;
	int max_queues;
	uint32_t eimc;			/* extended interrupt mask clear register, 0 if none */
	int pcie;			/* 1: CTRL.GIO_MASTER_DISABLE and DRV_LOAD exist */
	/* Optional, at probe before the port is registered: per-device set-up
	 * (p->part, queue count, DMA limit, PCI errata); 0, or -1 after
	 * printing why the device is refused. */
	int (*attach)(struct e1000x_port *p, const struct pci_id *id);
	/* Get the PCI vectors and set p->msix; may lower nic.nqueues. */
	int (*setup_vectors)(struct e1000x_port *p);
	/* Everything after e1000x_reset: link, rings, filters, interrupts. */
	int (*hw_init)(struct e1000x_port *p);
	/* Optional: right before CTRL.RST (82574: take MDIO ownership). */
	int (*pre_reset)(struct e1000x_port *p);
	/* Optional: write CTRL with RST set (82540EM: through the I/O BAR). */
	void (*write_rst)(struct e1000x_port *p, uint32_t ctrl);
	/* After CTRL.RST cleared: wait for the NVM load and the PHY set-up
	 * (auto-read, PHY configuration time, CFG_DONE). 0 or -1. */
	int (*post_reset)(struct e1000x_port *p);
	/* Optional: own the PHY (MDIO) against firmware; 0 or -1. */
	int (*phy_acquire)(struct e1000x_port *p);
	void (*phy_release)(struct e1000x_port *p);
	/* Optional: once a second, after the link check: 1 asks for a reset
	 * (82574 PHY hang). */
	int (*check_hang)(struct e1000x_port *p);
};

/* Probe a port of family f: map BAR0, attach, register the port, reset,
 * read the MAC, get vectors, make the pools, hw_init. 0, or -1 after
 * printing why. */
int e1000x_probe(struct pci_dev *d, const struct pci_id *id, const struct e1000x_family *f);
/* Vectors from the PCI layer: queue pair q on vector q (nic_queue_irq) and
 * other causes on vector nqueues when MSI-X gives them all (p->msix = 1);
 * else every cause on one vector (legacy) and one queue. 0 or -1. */
int e1000x_setup_vectors(struct e1000x_port *p, irq_handler_t other, irq_handler_t legacy);
/*
 * Stop and reset the port (8254x 14.3 and 14.8, 82574 4.6.1-4.6.2, 82576
 * 4.3.1 and 4.5.1): interrupts masked; on PCIe parts bus mastering
 * stopped (CTRL.GIO_MASTER_DISABLE, STATUS.GIO_MASTER_ENABLE polled
 * clear) so no DMA is in flight; RX and TX off; CTRL.RST; the family's
 * post_reset (NVM auto-read, PHY configuration); interrupts masked and
 * ICR cleared again; CTRL_EXT.DRV_LOAD on PCIe parts. Buffers the rings
 * hold may be given back only after this. 0, or -1 after printing which
 * step did not complete.
 */
int e1000x_reset(struct e1000x_port *p);
/* Wait for EECD.AUTO_RD after a reset (82574 4.6.2, 82576 4.5.1): 0, or -1
 * after printing. */
int e1000x_wait_auto_rd(struct e1000x_port *p);
/* Copper link by auto-negotiation (8254x 14.3, 82574 4.6.4, 82576
 * 4.5.7.2): CTRL.SLU, no forced speed or duplex, flow control off; the
 * PHY powered up (BMCR.PDOWN and ISOLATE cleared: a previous driver may
 * have left it down), advertising 10/100/1000 full and 10/100 half, and
 * auto-negotiation restarted. 0, or -1 after printing. */
int e1000x_copper_link_setup(struct e1000x_port *p);

/* nic_ops shared by the families. */
int e1000x_port_rx_burst(struct nic *nic, int q, struct pkt **pkts, int n);
int e1000x_port_tx_burst(struct nic *nic, int q, struct pkt **pkts, int n);
int e1000x_port_rx_pending(struct nic *nic, int q);
void e1000x_port_update_stats(struct nic *nic);
void e1000x_port_tx_clean(struct nic *nic, int q);
void e1000x_port_request_reset(struct nic *nic);
/* Link check, TX hang recovery (count tx_timeout_count, reset, restore,
 * carry on), ITR simplified mode (napi_watchdog). */
void e1000x_port_watchdog(struct nic *nic);
/* Zero the counters after a reset (reading the statistics registers clears them). */
void e1000x_clear_stats(struct e1000x_port *p);
/* Set up rings as far as the shared code goes; the family writes the
 * registers. Returns 0 or -1 (no memory). */
int e1000x_setup_rxq(struct e1000x_port *p, int q, uint32_t rdt, int legacy, uint32_t ts_bit);
int e1000x_setup_txq(struct e1000x_port *p, int q, uint32_t tdt, int adv);
/* Print the port's one-line probe summary. */
void e1000x_print_probe(struct e1000x_port *p);

/*
 * Register access: MMIO through these only. The host register-model build
 * (tests/regmodel/, E1000X_HOST_MODEL) sends every access to the model.
 */
#ifdef E1000X_HOST_MODEL
uint32_t model_rd32(volatile uint8_t *base, uint32_t reg);
void model_wr32(volatile uint8_t *base, uint32_t reg, uint32_t v);
uint32_t model_inl(uint16_t port);
void model_outl(uint16_t port, uint32_t v);
static inline uint32_t rd32(volatile uint8_t *base, uint32_t reg) { return model_rd32(base, reg); }
static inline void wr32(volatile uint8_t *base, uint32_t reg, uint32_t v) { model_wr32(base, reg, v); }
static inline uint32_t io_rd32(uint16_t port) { return model_inl(port); }
static inline void io_wr32(uint16_t port, uint32_t v) { model_outl(port, v); }
#else
#include "kernel/cpu.h"
static inline uint32_t rd32(volatile uint8_t *base, uint32_t reg)
{
	return *(volatile uint32_t *)(base + reg);
}

static inline void wr32(volatile uint8_t *base, uint32_t reg, uint32_t v)
{
	*(volatile uint32_t *)(base + reg) = v;
}

/* I/O BAR access (8254x 13.2: IOADDR at +0, IODATA at +4). */
static inline uint32_t io_rd32(uint16_t port) { return inl(port); }
static inline void io_wr32(uint16_t port, uint32_t v) { outl(port, v); }
#endif

static inline void set_flags32(volatile uint8_t *base, uint32_t reg, uint32_t flags)
{
	wr32(base, reg, rd32(base, reg) | flags);
}

static inline void clear_flags32(volatile uint8_t *base, uint32_t reg, uint32_t flags)
{
	wr32(base, reg, rd32(base, reg) & ~flags);
}

/* Wait up to timeout_us for (reg & mask) == want; 0, or -1 after printing
 * the value last seen. */
int wait_reg32(volatile uint8_t *base, const char *who, uint32_t reg, uint32_t mask,
	       uint32_t want, uint64_t timeout_us);

/* Read the MAC address from RAL0/RAH0 (loaded from the EEPROM at reset).
 * Returns 0, or -1 if RAH0.AV is clear or the address is zero/multicast. */
int e1000x_read_mac(volatile uint8_t *base, uint8_t mac[6]);
/* Program RAL0/RAH0 with mac, clear the other receive addresses and the
 * multicast table (nregs receive address registers). */
void e1000x_set_filters(volatile uint8_t *base, const uint8_t mac[6], int nregs);
/* Point a descriptor ring's register block at ring (bytes long), head and
 * tail 0. The block at blk is the same in every family: BAL +0x0, BAH +0x4,
 * LEN +0x8, H +0x10, T +0x18 (8254x 13.4.27-13.4.31 and 13.4.39-13.4.43,
 * 82574 10.2.6/10.2.7, 82576 8.10/8.12). */
void e1000x_ring_regs(volatile uint8_t *base, uint32_t blk, const volatile void *ring, uint32_t bytes);
/* RCTL acceptance bits from the promisc knob: broadcast always (BAM);
 * with promisc=1 every unicast and multicast too (UPE, MPE). */
uint32_t e1000x_rctl_filters(void);
/* nic_ops.set_mc: set the Multicast Table Array bit of every group in nic->mc. */
void e1000x_port_set_mc(struct nic *nic);
/* PHY register access through MDIC (8254x 13.4.7) to the PHY at
 * p->phy_addr, inside the family's phy_acquire/phy_release. Return 0, or
 * -1 after printing (ownership refused, MDIC error or timeout). */
int e1000x_phy_read(struct e1000x_port *p, uint32_t reg, uint16_t *v);
int e1000x_phy_write(struct e1000x_port *p, uint32_t reg, uint16_t v);
/* Add the statistics registers into p->nic.stats. */
void e1000x_update_stats(struct e1000x_port *p);
/* Read STATUS into nic->link_up/speed/full_duplex; returns 1 if the link
 * state changed (printing it), else 0. */
int e1000x_check_link(struct nic *nic, volatile uint8_t *base);
#endif
