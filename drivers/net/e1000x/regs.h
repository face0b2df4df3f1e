/*
 * The 8254x register set that e1000 (82540EM), e1000e (82574L) and igb
 * (82576) all keep at the same offsets, their bit fields and the
 * statistics block. Sources: 8254x Family SDM rev 4.0 (section 13), 82574
 * datasheet rev 3.4 (section 10), 82576 datasheet rev 2.63 (section 8).
 * Access types: RW read/write, RO read only, RC clear on read, WO write
 * only, W1C write 1 to clear. Each family's own registers are in its
 * folder's regs.h; descriptor formats in desc.h. At the end, the access
 * helpers (rd32, wr32 and the I/O BAR's io_rd32, io_wr32).
 */
#ifndef E1000X_REGS_H
#define E1000X_REGS_H
#include <stdint.h>

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
#define VET		0x00038	/* VLAN EtherType - RW (reset 0x8100) */
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
#define BMCR_RESET	(1u << 15)	/* PHY software reset, self-clearing */
#define BMCR_PDOWN	(1u << 11)	/* power down */
#define BMCR_ISOLATE	(1u << 10)
#define BMCR_ANENABLE	(1u << 12)
#define BMCR_ANRESTART	(1u << 9)
#define BMCR_FULLDPLX	(1u << 8)
#define BMCR_SPEED1000	(1u << 6)
#define ANAR_10_100_ALL	0x01e1u	/* 10/100 half and full duplex, selector 802.3, no pause */
#define CTRL1000_FD	(1u << 9)	/* advertise 1000BASE-T full duplex */

/* A descriptor ring's registers as offsets in its block, which starts at
 * RDBAL or TDBAL: the same layout on the three families (8254x 13.4.27-31
 * and 13.4.38-42, 82574 10.2.6-7, 82576 8.10 and 8.12). */
#define RING_DBAL	0x00	/* Descriptor Base Address Low - RW */
#define RING_DBAH	0x04	/* Descriptor Base Address High - RW */
#define RING_DLEN	0x08	/* Descriptor Length, bytes - RW */
#define RING_DH		0x10	/* Descriptor Head - RW */
#define RING_DT		0x18	/* Descriptor Tail - RW */

/* ICR / ICS / IMS / IMC causes common to all three */
#define ICR_TXDW	(1u << 0)	/* transmit descriptor written back */
#define ICR_TXQE	(1u << 1)	/* transmit queue empty */
#define ICR_LSC		(1u << 2)	/* link status change */
#define ICR_RXSEQ	(1u << 3)
#define ICR_RXDMT0	(1u << 4)	/* receive descriptor minimum threshold */
#define ICR_RXO		(1u << 6)	/* receiver overrun */
#define ICR_RXT0	(1u << 7)	/* receiver timer interrupt */
/* Queue 0's causes on a single vector (INTx, MSI): igb calls bit 7 RXDW. */
#define ICR_RX_CAUSES	(ICR_RXT0 | ICR_RXDMT0 | ICR_RXO)
#define ICR_MDAC	(1u << 9)
#define ICR_INT_ASSERTED (1u << 31)

/* SWSM of the 82575 and later and of the 82599 (82576 8.2.5, 82599
 * 8.2.3.4.10; at each family's own offset): SMBI is set by the read that
 * finds it clear; SWESMBI is granted against the firmware */
#define SWSM_SMBI	(1u << 0)
#define SWSM_SWESMBI	(1u << 1)

/* RCTL (8254x 13.4.22) */
#define RCTL_EN		(1u << 1)
#define RCTL_SBP	(1u << 2)	/* store bad packets */
#define RCTL_UPE	(1u << 3)	/* unicast promiscuous */
#define RCTL_MPE	(1u << 4)	/* multicast promiscuous */
#define RCTL_LPE	(1u << 5)	/* long packet enable */
#define RCTL_RDMTS_HALF	(0u << 8)
#define RCTL_BAM	(1u << 15)	/* accept broadcast */
#define RCTL_VFE	(1u << 18)	/* VLAN filter enable */
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

/* Bit of a statistics register in e1000x_port.stat_cumulative. */
#define STAT_BIT(reg)	(1ull << (((reg) - CRCERRS) / 4))

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

#endif
