/*
 * Intel 82599 (ixgbe) registers and bits, from the 82599 10 GbE Controller
 * datasheet rev 3.x (the X540's registers are at the same offsets; where
 * it differs, as Linux's ixgbe_x540.c and ixgbe_type.h name them, the
 * X540 datasheet's text not at hand; section numbers below are the
 * 82599's): section 8.2.3 (register descriptions), 7.1.6 and
 * 7.2.3 (descriptors, in drivers/net/e1000x/desc.h: the advanced layouts
 * match the 82576's where the shared rings look, but for the RX errors).
 * Access types: RW read/write, RO read only, RC clear on read, WO write
 * only, RW1C write 1 to clear, SC self-clearing. The access helpers
 * (rd32, wr32, set_flags32, clear_flags32) are e1000x/regs.h's.
 */
#ifndef IXGBE_REGS_H
#define IXGBE_REGS_H
#include <stdint.h>

/* General control (8.2.3.1) */
#define IXGBE_CTRL	0x00000	/* Device Control - RW */
#define IXGBE_STATUS	0x00008	/* Device Status - RO */
#define IXGBE_CTRL_EXT	0x00018	/* Extended Device Control - RW */
#define IXGBE_ESDP	0x00020	/* Extended SDP Control - RW */

#define IXGBE_CTRL_PCIE_MASTER_DISABLE (1u << 2)	/* stop issuing master requests */
#define IXGBE_CTRL_LRST	(1u << 3)	/* link reset, SC */
#define IXGBE_CTRL_RST	(1u << 26)	/* device reset, SC */
#define IXGBE_CTRL_RST_MASK (IXGBE_CTRL_LRST | IXGBE_CTRL_RST)

#define IXGBE_STATUS_LAN_ID(s) (((s) >> 2) & 3)	/* PCI function of the port */
#define IXGBE_STATUS_PCIE_MASTER_ENABLE (1u << 19)	/* master requests may be pending */

/* I2CCTL (8.2.3.1, general registers; 0x28 on the 82599 and X540): the SFP+
 * cage's two-wire bus, driven bit by bit. The *_OUT bits drive the line
 * (1 releases it to the pull-up), the *_IN bits read it back. */
#define IXGBE_I2CCTL	0x00028	/* I2C Control - RW */
#define IXGBE_I2C_CLK_IN	(1u << 0)
#define IXGBE_I2C_CLK_OUT	(1u << 1)
#define IXGBE_I2C_DATA_IN	(1u << 2)
#define IXGBE_I2C_DATA_OUT	(1u << 3)

#define IXGBE_CTRL_EXT_NS_DIS	(1u << 16)	/* no-snoop disable (4.6.7) */
#define IXGBE_CTRL_EXT_DRV_LOAD (1u << 28)	/* driver loaded: firmware keeps off */

/* EEPROM/flash (8.2.3.2) */
#define IXGBE_EEC	0x10010	/* EEPROM/Flash Control - RW */
#define IXGBE_EEC_PRES	(1u << 8)	/* EEPROM present */
#define IXGBE_EEC_ARD	(1u << 9)	/* auto-read done */

/* Software/firmware semaphores (SWSM 0x10140, SW_FW_SYNC 0x10160; the
 * same scheme as the 82575's: SWSM.SMBI between software agents, set by
 * the read that finds it clear; SWSM.SWESMBI against the firmware, set
 * by a write only when the firmware does not hold it; then a resource's
 * software bit in SW_FW_SYNC, taken while its firmware bit is clear). */
#define IXGBE_SWSM	0x10140	/* Software Semaphore - RW */
#define IXGBE_SW_FW_SYNC 0x10160	/* Software-Firmware Synchronization (Linux: GSSR) - RW */
#define IXGBE_SW_FW_SYNC_SW_EEP_SM (1u << 0)	/* software bits 4:0 */
#define IXGBE_SW_FW_SYNC_SW_PHY_SM0 (1u << 1)	/* the PHY and SFP+ I2C of LAN 0 */
#define IXGBE_SW_FW_SYNC_SW_PHY_SM1 (1u << 2)	/* ... of LAN 1 */
#define IXGBE_SW_FW_SYNC_FW_SHIFT 5	/* the firmware's bit of each: bits 9:5 */
#define IXGBE_SW_FW_SYNC_REGSMP (1u << 31)	/* X540 (SWFW_SYNC): the register semaphore,
						 * set by the read that finds it clear; the
						 * X540's SWSM has no SWESMBI */

/* Interrupts (8.2.3.5) */
#define IXGBE_EICR	0x00800	/* Extended Interrupt Cause - RW1C, RC with GPIE.OCD clear */
#define IXGBE_EICS	0x00808	/* Extended Interrupt Cause Set - WO */
#define IXGBE_EIAC	0x00810	/* Extended Interrupt Auto Clear - RW */
#define IXGBE_EITR(n)	((n) < 24 ? 0x00820 + 4 * (n) : 0x12300 + 4 * ((n) - 24))	/* Throttle - RW */
#define IXGBE_EIMS	0x00880	/* Extended Interrupt Mask Set/Read - RW */
#define IXGBE_EIMC	0x00888	/* Extended Interrupt Mask Clear - WO */
#define IXGBE_EIAM	0x00890	/* Extended Interrupt Auto Mask - RW */
#define IXGBE_GPIE	0x00898	/* General Purpose Interrupt Enable - RW */
#define IXGBE_IVAR(n)	(0x00900 + 4 * (n))	/* Interrupt Vector Allocation, 64 - RW */
#define IXGBE_EIMS_EX(n) (0x00aa0 + 4 * (n))	/* Mask Set of MSI-X vectors 32n..32n+31 - RW */
#define IXGBE_IVAR_MISC	0x00a00	/* IVAR of the other causes - RW */

/* EICR/EIMS bits: in MSI-X mode 15:0 are the vectors' RTxQ causes */
#define IXGBE_EICR_RTX_QUEUE	0x0000ffffu
#define IXGBE_EICR_LSC	(1u << 20)	/* link status change */
#define IXGBE_EICR_GPI_SDP1 (1u << 25)	/* SFP+ module: SDP1 (multispeed fiber) */
#define IXGBE_EICR_GPI_SDP2 (1u << 26)	/* SFP+ module present changed (82599 SFP boards) */
#define IXGBE_EICR_ECC	(1u << 28)	/* uncorrectable ECC error: reset needed */
#define IXGBE_EICR_OTHER (1u << 31)	/* any of 29:16 */
#define IXGBE_EIMS_ALL	0x7fffffffu	/* EIMC: every cause (bit 31 is read-only) */

/* GPIE (8.2.3.5.15) */
#define IXGBE_GPIE_MSIX_MODE (1u << 4)	/* "Multiple_MSIX": one vector per cause group */
#define IXGBE_GPIE_OCD	(1u << 5)	/* EICR: other causes cleared by writing 1 only */
#define IXGBE_GPIE_EIAME (1u << 30)	/* auto-mask EIMS on MSI-X message */
#define IXGBE_GPIE_PBA_SUPPORT (1u << 31)

/* EITR (8.2.3.5.12): interval at bits 11:3 in 2.048 us units at 10 Gb/s
 * and 1 Gb/s, 20.48 us at 100 Mb/s (the register value is 0.256 us, or
 * 2.56 us, per unit of its whole; bits 2:0 reserved). */
#define IXGBE_EITR_ITR_MASK 0x00000ff8u
#define IXGBE_EITR_CNT_WDIS (1u << 31)	/* the write leaves the counter alone */

/* IVAR entry bytes: vector 5:0 and valid bit (8.2.3.5.16). Register n holds
 * RX 2n at 7:0, TX 2n at 15:8, RX 2n+1 at 23:16, TX 2n+1 at 31:24;
 * IVAR_MISC: TCP timer at 7:0, other causes at 15:8. */
#define IXGBE_IVAR_ALLOC_VAL 0x80u

/* Receive DMA (8.2.3.8), queue n < 64: a block of 0x40 bytes holding
 * RDBAL, RDBAH, RDLEN, RDH, RDT at the RING_* offsets of e1000x/regs.h */
#define IXGBE_RDBAL(n)	(0x01000 + 0x40 * (n))	/* RX Descriptor Base Low - RW */
#define IXGBE_RDT(n)	(0x01018 + 0x40 * (n))	/* RX Descriptor Tail - RW */
#define IXGBE_RXDCTL(n)	(0x01028 + 0x40 * (n))	/* RX Descriptor Control - RW */
#define IXGBE_QPRDC(n)	(0x01430 + 0x40 * (n))	/* Queue Packets RX Drop Count, 16 - RC */
#define IXGBE_SRRCTL(n)	(0x01014 + 0x40 * (n))	/* Split and Replication RX Control - RW */
#define IXGBE_DCA_RXCTRL(n) (0x0100c + 0x40 * (n))	/* RX DCA Control - RW */
#define IXGBE_RDRXCTL	0x02f00	/* RX DMA Control - RW */
#define IXGBE_RXCTRL	0x03000	/* Receive Control - RW */
#define IXGBE_RXPBSIZE(n) (0x03c00 + 4 * (n))	/* RX Packet Buffer Size, 8 - RW */

#define IXGBE_RXDCTL_ENABLE (1u << 25)
#define IXGBE_RXDCTL_VME (1u << 30)	/* strip the VLAN tag of this queue's frames (8.2.3.8.6) */
#define IXGBE_XDCTL_SWFLSH (1u << 26)	/* RXDCTL/TXDCTL: flush the descriptor write-backs */
#define IXGBE_SRRCTL_BSIZEPKT_2K 2u	/* 1 KiB units, bits 4:0 */
#define IXGBE_SRRCTL_DESCTYPE_ADV_ONEBUF (1u << 25)
#define IXGBE_SRRCTL_DROP_EN (1u << 28)
#define IXGBE_DCA_RXCTRL_RELAX_DATA (1u << 12)	/* reserved, reset 1, must be 0 (4.6.7) */
#define IXGBE_DCA_RXCTRL_DATA_WRO_EN (1u << 13)	/* RX data write relaxed ordering */
#define IXGBE_DCA_RXCTRL_HEAD_WRO_EN (1u << 15)	/* RX header write relaxed ordering */
#define IXGBE_RDRXCTL_CRCSTRIP (1u << 1)
#define IXGBE_RDRXCTL_DMAIDONE (1u << 3)	/* DMA init done, RO */
#define IXGBE_RDRXCTL_RSCFRSTSIZE (0x1fu << 17)	/* must be 0 (4.6.7) */
#define IXGBE_RDRXCTL_RSCACKC (1u << 25)	/* must be 1 (4.6.7) */
#define IXGBE_RDRXCTL_FCOE_WRFIX (1u << 26)	/* must be 1 (4.6.7) */
#define IXGBE_RXCTRL_RXEN (1u << 0)
#define IXGBE_RXPBSIZE_512KB (512u << 10)	/* the whole RX packet buffer to TC 0 */
#define IXGBE_RXPBSIZE_384KB (384u << 10)	/* the X540's whole RX packet buffer */

/* Receive filters (8.2.3.7) */
#define IXGBE_RXCSUM	0x05000	/* Receive Checksum Control - RW */
#define IXGBE_FCTRL	0x05080	/* Filter Control - RW */
#define IXGBE_MCSTCTRL	0x05090	/* Multicast Control - RW */
#define IXGBE_MTA(n)	(0x05200 + 4 * (n))	/* Multicast Table Array, 128 - RW */
#define IXGBE_MRQC	0x05818	/* Multiple Receive Queues Command - RW */
#define IXGBE_RETA(n)	(0x05c00 + 4 * (n))	/* Redirection Table, 32 - RW */
#define IXGBE_RSSRK(n)	(0x05c80 + 4 * (n))	/* RSS Random Key, 10 - RW */
#define IXGBE_RAL(n)	(0x0a200 + 8 * (n))	/* Receive Address Low, 128 - RW */
#define IXGBE_RAH(n)	(0x0a204 + 8 * (n))	/* Receive Address High - RW */
#define IXGBE_MPSAR_LO(n) (0x0a600 + 8 * (n))	/* MAC Pool Select, pools 31:0 - RW */
#define IXGBE_MPSAR_HI(n) (0x0a604 + 8 * (n))	/* pools 63:32 - RW */

#define IXGBE_RXCSUM_PCSD (1u << 13)	/* RSS hash in the descriptor, not the fragment checksum */
#define IXGBE_FCTRL_SBP	(1u << 1)	/* store bad packets */
#define IXGBE_FCTRL_MPE	(1u << 8)	/* multicast promiscuous */
#define IXGBE_FCTRL_UPE	(1u << 9)	/* unicast promiscuous */
#define IXGBE_FCTRL_BAM	(1u << 10)	/* broadcast accept */
#define IXGBE_VLNCTRL	0x05088	/* VLAN Control (8.2.3.7.2): VET 15:0, reset 0x8100 */
#define IXGBE_VLNCTRL_VFE (1u << 30)	/* VLAN filter enable: the VFTA decides */
#define IXGBE_VFTA(n)	(0x0A000 + 4 * (n))	/* VLAN Filter Table Array, 128 x 32 VIDs */
#define IXGBE_MCSTCTRL_MFE (1u << 2)	/* multicast filter (MTA) enable; MO 00: bits 47:36 */
#define IXGBE_MRQC_RSSEN (1u << 0)	/* MRQE 0001: RSS only */
#define IXGBE_MRQC_TCPIPV4 (1u << 16)
#define IXGBE_MRQC_IPV4	(1u << 17)
#define IXGBE_MRQC_IPV6	(1u << 20)
#define IXGBE_MRQC_TCPIPV6 (1u << 21)
#define IXGBE_MRQC_UDPIPV4 (1u << 22)
#define IXGBE_MRQC_UDPIPV6 (1u << 23)
#define IXGBE_RAH_AV	(1u << 31)	/* address valid */

/* MAC (8.2.3.22) */
#define IXGBE_HLREG0	0x04240	/* Highlander Control 0 - RW */
#define IXGBE_MAXFRS	0x04268	/* Max Frame Size - RW */
#define IXGBE_AUTOC	0x042a0	/* Auto-Negotiation Control - RW */
#define IXGBE_LINKS	0x042a4	/* Link Status - RO */
#define IXGBE_AUTOC2	0x042a8	/* Auto-Negotiation Control 2 - RW */

#define IXGBE_HLREG0_TXCRCEN (1u << 0)	/* append the FCS */
#define IXGBE_HLREG0_RXCRCSTRP (1u << 1)	/* strip the FCS */
#define IXGBE_HLREG0_JUMBOEN (1u << 2)
#define IXGBE_HLREG0_TXPADEN (1u << 10)	/* pad short frames to 64 bytes */
#define IXGBE_HLREG0_LPBK (1u << 15)	/* MAC loopback */

#define IXGBE_AUTOC_FLU	(1u << 0)	/* force link up */
#define IXGBE_AUTOC_10G_PMA_PMD_MASK (3u << 7)	/* parallel 10G: 00 XAUI, 01 KX4, 10 CX4 */
#define IXGBE_AUTOC_AN_RESTART (1u << 12)	/* SC */
#define IXGBE_AUTOC_LMS_MASK (7u << 13)	/* link mode select */
#define IXGBE_AUTOC_LMS_10G_SERIAL (3u << 13)	/* 10 Gb/s serial (KR, SFI), no AN */
#define IXGBE_AUTOC_LMS_KX4_KX_KR (4u << 13)	/* backplane auto-negotiation */

#define IXGBE_AUTOC2_10G_SERIAL_PMA_PMD_MASK (3u << 16)	/* serial 10G: 00 KR, 01 XFI, 10 SFI */
#define IXGBE_AUTOC2_10G_SFI (2u << 16)

/* MDIO of the PHY, IEEE 802.3 clause 45 frames (8.2.3.22.11-12; on the
 * X540 the internal 10GBASE-T PHY): MSCA holds the frame, MDICMD starts it
 * and clears when it is done; a read's data comes back in MSRWD 31:16. An
 * access is an address frame (the register), then a read or write frame. */
#define IXGBE_MSCA	0x0425c	/* MDI Single Command and Address - RW */
#define IXGBE_MSRWD	0x04260	/* MDI Single Read and Write Data - RW */
#define IXGBE_MSCA_DEVADD(d) ((uint32_t)(d) << 16)	/* MMD, 20:16 */
#define IXGBE_MSCA_PHYADD(a) ((uint32_t)(a) << 21)	/* port address, 25:21 */
#define IXGBE_MSCA_OP_ADDR (0u << 26)	/* OPCODE 27:26: address frame */
#define IXGBE_MSCA_OP_WRITE (1u << 26)
#define IXGBE_MSCA_OP_READ (3u << 26)
#define IXGBE_MSCA_MDICMD (1u << 30)	/* start; clears when the frame is done */
#define IXGBE_MSRWD_RDDATA(v) ((uint16_t)((v) >> 16))

/* Clause 45 PHY registers (IEEE 802.3 45.2; MMD.register) the X540's
 * link set-up uses: the PHY identifier (PMA/PMD 1.2-3, the X540's
 * 0x01540200 with the revision in 3:0, Linux X540_PHY_ID) and
 * auto-negotiation (MMD 7): 7.0 control with enable and restart
 * (45.2.7.1), 7.16 advertisement with 100BASE-TX full duplex at bit 8
 * (Annex 28B), 7.32 10GBASE-T control with 10GBASE-T ability at bit 12
 * (45.2.7.10), and 7.0xC400, a vendor provisioning register with
 * 1000BASE-T full duplex at bit 15 (Linux:
 * IXGBE_MII_AUTONEG_VENDOR_PROVISION_1_REG, IXGBE_MII_1GBASE_T_ADVERTISE). */
#define MDIO_MMD_PMAPMD	1
#define MDIO_MMD_AN	7
#define MDIO_DEVID1	2
#define MDIO_DEVID2	3
#define MDIO_AN_CTRL1	0x0000
#define MDIO_AN_CTRL1_RESTART (1u << 9)
#define MDIO_AN_CTRL1_ENABLE (1u << 12)
#define MDIO_AN_ADVERTISE 0x0010
#define MDIO_AN_ADV_100FULL (1u << 8)
#define MDIO_AN_10GBT_CTRL 0x0020
#define MDIO_AN_10GBT_CTRL_ADV10G (1u << 12)
#define MDIO_AN_VENDOR_PROV1 0xc400
#define MDIO_AN_VENDOR_PROV1_1000FULL (1u << 15)
#define MDIO_AN_VENDOR_PROV1_NBASET (3u << 10)	/* X550: 2.5GBASE-T bit 10, 5GBASE-T bit 11
						 * (Linux IXGBE_MII_2_5GBASE_T_ADVERTISE, _5G) */
#define X540_PHY_ID	0x01540200u	/* PHY identifier, revision bits 3:0 masked */
#define X550_PHY_ID	0x01540220u	/* the X550's (Linux X550_PHY_ID2/3: 0x01540223, 0x01540221) */

#define IXGBE_LINKS_UP	(1u << 30)
#define IXGBE_LINKS_SPEED(l) (((l) >> 28) & 3)	/* 01 100 Mb/s, 10 1 Gb/s, 11 10 Gb/s
						 * (the X540's copper speeds too) */

/* Transmit (8.2.3.9) */
#define IXGBE_DMATXCTL	0x04a80	/* DMA TX Control - RW */
#define IXGBE_RTTDCS	0x04900	/* DCB TX Descriptor Plane Control - RW */
#define IXGBE_TDBAL(n)	(0x06000 + 0x40 * (n))	/* TX Descriptor Base Low, 128 - RW */
#define IXGBE_TDT(n)	(0x06018 + 0x40 * (n))	/* TX Descriptor Tail - RW */
#define IXGBE_TXDCTL(n)	(0x06028 + 0x40 * (n))	/* TX Descriptor Control - RW */
#define IXGBE_DCA_TXCTRL(n) (0x0600c + 0x40 * (n))	/* TX DCA Control - RW */
#define IXGBE_DTXMXSZRQ	0x08100	/* DMA TX Max Total Read Request - RW */
#define IXGBE_TXPBSIZE(n) (0x0cc00 + 4 * (n))	/* TX Packet Buffer Size, 8 - RW */

#define IXGBE_DMATXCTL_TE (1u << 0)	/* transmit enable; VT (31:16) the VLAN EtherType, 0x8100 */
#define IXGBE_DCA_TXCTRL_DESC_WRO_EN (1u << 11)	/* TX descriptor write-back relaxed ordering */
#define IXGBE_RTTDCS_ARBDIS (1u << 6)	/* descriptor arbiter off while TX is set up */
#define IXGBE_TXDCTL_ENABLE (1u << 25)
#define IXGBE_XDCTL_PTHRESH(n) ((uint32_t)(n))	/* RXDCTL/TXDCTL thresholds */
#define IXGBE_XDCTL_HTHRESH(n) ((uint32_t)(n) << 8)
#define IXGBE_XDCTL_WTHRESH(n) ((uint32_t)(n) << 16)
#define IXGBE_TXPBSIZE_160KB (160u << 10)	/* the whole TX packet buffer to TC 0 */

/* Time sync (8.2.3.26, 7.9): VALID bit 0 and EN bit 4 in both controls */
#define IXGBE_TSYNCRXCTL 0x05188	/* RX Time Sync Control - RW */
#define IXGBE_RXSTMPL	0x051e8	/* RX Timestamp Low - RO */
#define IXGBE_RXSTMPH	0x051a4	/* RX Timestamp High - RO: its read releases the latch */
#define IXGBE_RXSATRL	0x051a0	/* RX Timestamp Attributes Low - RO */
#define IXGBE_RXSATRH	0x051a8	/* RX Timestamp Attributes High - RO */
#define IXGBE_TSYNCTXCTL 0x08c00	/* TX Time Sync Control - RW */
#define IXGBE_TXSTMPL	0x08c04	/* TX Timestamp Low - RO */
#define IXGBE_TXSTMPH	0x08c08	/* TX Timestamp High - RO: its read releases the latch */
#define IXGBE_SYSTIML	0x08c0c	/* System Time Low - RO: its read latches SYSTIMH */
#define IXGBE_SYSTIMH	0x08c10	/* System Time High - RO */
#define IXGBE_TIMINCA	0x08c14	/* Increment Attributes - RW */
#define IXGBE_TSAUXC	0x08c20	/* X550: Time Sync Auxiliary Control - RW (Linux ixgbe_type.h) */
#define IXGBE_SYSTIMR	0x08c58	/* X550: System Time Residue - RO: its read latches SYSTIML/H */
#define IXGBE_ETQF(n)	(0x05128 + 4 * (n))	/* EType Queue Filter, 8 - RW */

#define IXGBE_TSYNC_VALID (1u << 0)	/* a timestamp is latched */
#define IXGBE_TSYNC_EN	(1u << 4)
#define IXGBE_TSYNCRXCTL_TYPE_EVENT_V2 (5u << 1)	/* TYPE 101: PTP V2 event messages, L2 and UDP */
#define IXGBE_TSYNCRXCTL_TYPE_ALL (4u << 1)	/* TYPE 100: every frame (X550, Linux TYPE_ALL) */
#define IXGBE_TSYNCRXCTL_TYPE_MASK (7u << 1)
#define IXGBE_TSYNCRXCTL_TSIP_UT_EN (1u << 23)	/* X550: each stamped untagged frame carries its
						 * time in its buffer, descriptor TSIP, no latch
						 * (Linux ixgbe_type.h; with TYPE_ALL only) */
#define IXGBE_TIMINCA_INCPER_SHIFT 24	/* 82599: IncPeriod 31:24, IncValue 23:0 (the X540's
						 * TIMINCA is the increment, 31 bits) */
#define IXGBE_TSAUXC_DISABLE_SYSTIME (1u << 31)	/* X550: SYSTIME stopped */
#define IXGBE_ETQF_FILTER_EN (1u << 31)
#define IXGBE_ETQF_1588	(1u << 30)	/* frames of this EtherType to the time sync block */
#define IXGBE_RXDADV_STAT_TS (1u << 16)	/* RX descriptor: the frame was timestamped (7.1.6.2);
						 * the X550's TSIP (bit 15, its time after the frame)
						 * is e1000x/desc.h's RXDADV_STAT_TSIP */

/* Statistics (8.2.3.23): RC; GORC, GOTC are 36 bits (low register, then
 * bits 35:32 in the high one) */
#define IXGBE_CRCERRS	0x04000	/* CRC Error Count - RC */
#define IXGBE_ILLERRC	0x04004	/* Illegal Byte Error Count - RC */
#define IXGBE_ERRBC	0x04008	/* Error Byte Count - RC */
#define IXGBE_MPC(n)	(0x03fa0 + 4 * (n))	/* Missed Packets, per packet buffer, 8 - RC */
#define IXGBE_RLEC	0x04040	/* Receive Length Error Count - RC */
#define IXGBE_LXONTXC	0x03f60	/* Link XON Transmitted - RC */
#define IXGBE_LXOFFTXC	0x03f68	/* Link XOFF Transmitted - RC */
#define IXGBE_LXONRXCNT	0x041a4	/* Link XON Received - RC */
#define IXGBE_LXOFFRXCNT 0x041a8	/* Link XOFF Received - RC */
#define IXGBE_GPRC	0x04074	/* Good Packets Received - RC */
#define IXGBE_BPRC	0x04078	/* Broadcast Packets Received - RC */
#define IXGBE_MPRC	0x0407c	/* Multicast Packets Received - RC */
#define IXGBE_GPTC	0x04080	/* Good Packets Transmitted - RC */
#define IXGBE_GORCL	0x04088	/* Good Octets Received, 31:0 - RC */
#define IXGBE_GORCH	0x0408c	/* ... 35:32 - RC */
#define IXGBE_GOTCL	0x04090	/* Good Octets Transmitted, 31:0 - RC */
#define IXGBE_GOTCH	0x04094	/* ... 35:32 - RC */
#define IXGBE_RUC	0x040a4	/* Receive Undersize Count - RC */
#define IXGBE_RFC	0x040a8	/* Receive Fragment Count - RC */
#define IXGBE_ROC	0x040ac	/* Receive Oversize Count - RC */
#define IXGBE_RJC	0x040b0	/* Receive Jabber Count - RC */
#define IXGBE_MPTC	0x040f0	/* Multicast Packets Transmitted - RC */
#define IXGBE_BPTC	0x040f4	/* Broadcast Packets Transmitted - RC */
#define IXGBE_STAT_HI_MASK 0xfu	/* GORCH, GOTCH: bits 35:32 */
#endif
