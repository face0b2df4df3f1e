/*
 * 82574L registers beyond the shared set in drivers/net/e1000x/regs.h.
 * Intel 82574 GbE Controller Family datasheet rev 3.4, section 10.2.
 */
#ifndef E1000E_REGS_H
#define E1000E_REGS_H

#define E1000E_EXTCNF_CTRL 0x00f00	/* Extended Configuration Control - RW */
#define E1000E_GCR	0x05b00	/* PCIe Control - RW */
#define E1000E_GCR2	0x05b64	/* PCIe Control 2 - RW */
#define E1000E_EITR(n)	(0x000e8 + 4 * (n))	/* Extended Interrupt Throttling, MSI-X vector n - RW */
#define E1000E_IAM	0x000e0	/* Interrupt Acknowledge Auto Mask - RW */
#define E1000E_EIAC	0x000dc	/* Extended Interrupt Auto Clear - RW */
#define E1000E_IVAR	0x000e4	/* Interrupt Vector Allocation - RW */
#define E1000E_RFCTL	0x05008	/* Receive Filter Control - RW */
#define E1000E_MRQC	0x05818	/* Multiple Receive Queues Command - RW */
#define E1000E_RETA(i)	(0x05c00 + 4 * (i))	/* Redirection Table, 32 - RW */
#define E1000E_RSSRK(i)	(0x05c80 + 4 * (i))	/* RSS Random Key, 10 - RW */
#define E1000E_RXDCTL(q) (0x02828 + 0x100 * (q))	/* Receive Descriptor Control - RW */
#define E1000E_TXDCTL(q) (0x03828 + 0x100 * (q))	/* Transmit Descriptor Control - RW */
#define E1000E_TARC(q)	(0x03840 + 0x100 * (q))	/* Transmit Arbitration Count - RW */
#define E1000E_RDTR	0x02820	/* RX Interrupt Delay Timer - RW */
#define E1000E_RADV	0x0282c	/* RX Interrupt Absolute Delay Timer - RW */
#define E1000E_TIDV	0x03820	/* TX Interrupt Delay Value - RW */
#define E1000E_TADV	0x0382c	/* TX Interrupt Absolute Delay Value - RW */

/* Queue register blocks (10.2.6, 10.2.7): RDBAL, RDBAH, RDLEN, RDH, RDT. */
#define E1000E_RDBAL(q)	(0x02800 + 0x100 * (q))
#define E1000E_RDBAH(q)	(0x02804 + 0x100 * (q))
#define E1000E_RDLEN(q)	(0x02808 + 0x100 * (q))
#define E1000E_RDH(q)	(0x02810 + 0x100 * (q))
#define E1000E_RDT(q)	(0x02818 + 0x100 * (q))
#define E1000E_TDBAL(q)	(0x03800 + 0x100 * (q))
#define E1000E_TDBAH(q)	(0x03804 + 0x100 * (q))
#define E1000E_TDLEN(q)	(0x03808 + 0x100 * (q))
#define E1000E_TDH(q)	(0x03810 + 0x100 * (q))
#define E1000E_TDT(q)	(0x03818 + 0x100 * (q))

/* CTRL bits Linux e1000_initialize_hw_bits_82571 clears on the 82574 */
#define CTRL_BIT29	(1u << 29)

/* CTRL_EXT (10.2.2.5) */
#define CTRL_EXT_BIT22	(1u << 22)	/* set by e1000_initialize_hw_bits_82571 */
#define CTRL_EXT_BIT23	(1u << 23)	/* cleared by it */
#define CTRL_EXT_IAME	(1u << 27)	/* interrupt acknowledge auto-mask enable */
#define CTRL_EXT_EIAME	(1u << 24)	/* extended interrupt auto-mask enable */
#define CTRL_EXT_PBA_CLR (1u << 31)	/* clear MSI-X pending bits on IMS write */

/* ICR causes of the 82574 in MSI-X mode (10.2.4.1) */
#define ICR_RXQ(q)	(1u << (20 + (q)))
#define ICR_TXQ(q)	(1u << (22 + (q)))
#define ICR_OTHER	(1u << 24)

/* IVAR (10.2.4.9): 3-bit vector + valid bit per cause */
#define IVAR_RXQ(q, v)	((0x8u | (v)) << (4 * (q)))
#define IVAR_TXQ(q, v)	((0x8u | (v)) << (8 + 4 * (q)))
#define IVAR_OTHER(v)	((0x8u | (v)) << 16)

/* RFCTL (10.2.5) */
#define RFCTL_ACK_DIS	(1u << 12)	/* no ACK-triggered interrupts: spurious in MSI-X mode */
#define RFCTL_EXTEN	(1u << 15)	/* extended RX descriptors */

/* EXTCNF_CTRL (10.2.2.6): software owns the MDIO (PHY) against the firmware */
#define EXTCNF_CTRL_MDIO_SW_OWNERSHIP (1u << 5)

/* GCR (10.2.2.11) and GCR2: 82574 errata bits set as Linux does */
#define GCR_BIT22	(1u << 22)
#define GCR_L1_ACT_WITHOUT_L0S_RX (1u << 27)
#define GCR2_BIT0	(1u << 0)	/* unreliable PCIe completions with ASPM: TX timeouts */

/* TARC0 bits of e1000_initialize_hw_bits_82571 for the 82574 */
#define TARC0_BITS_30_27 (0xfu << 27)	/* cleared */
#define TARC0_BIT26	(1u << 26)	/* set */

/* PHY (82574 internal, 10.5): the receive error counter and 1000BASE-T
 * status idle error count, both stuck at all ones when the PHY hangs */
#define PHY_RECEIVE_ERROR_COUNTER 21
#define PHY_IDLE_ERROR_COUNT 0x00ffu	/* in PHY_1000T_STATUS */

/* Management control: firmware forbids PHY resets (Linux E1000_MANC,
 * E1000_MANC_BLK_PHY_RST_ON_IDE) */
#define MANC			0x05820
#define MANC_BLK_PHY_RST_ON_IDE	(1u << 18)

/* RXDCTL / TXDCTL (10.2.6.7, 10.2.7.6) */
#define TXDCTL_GRAN	(1u << 24)
#define TXDCTL_BIT22	(1u << 22)	/* COUNT_DESC: must be 1 */
#define TXDCTL_WTHRESH(n) ((uint32_t)(n) << 16)
#define TXDCTL_HTHRESH(n) ((uint32_t)(n) << 8)
#define TARC_ENABLE	(1u << 10)	/* QEMU transmits only with this set */

/* MRQC (10.2.5): RSS enable and hash fields */
#define MRQC_RSS_EN	0x1u
#define MRQC_TCP_IPV4	(1u << 16)
#define MRQC_IPV4	(1u << 17)
#define MRQC_TCP_IPV6	(1u << 18)
#define MRQC_IPV6_EX	(1u << 19)
#define MRQC_IPV6	(1u << 20)

/* Extended RX status: timestamp taken (82574 7.1.4.2, TST) */
#define E1000E_RXD_STAT_TST (1u << 8)

#endif
