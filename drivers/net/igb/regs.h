/*
 * 82576, I350 and I210/I211 registers beyond the shared set in
 * drivers/net/e1000x/regs.h. Intel 82576EB GbE Controller datasheet rev 2.63
 * section 8; I350 datasheet rev 2.4 section 8; I210 datasheet rev 3.7
 * section 8. Where the later parts differ, the comment says so.
 */
#ifndef IGB_REGS_H
#define IGB_REGS_H

#define IGB_MDICNFG	0x00e04	/* MDI Configuration (I350, I210) - RW */
#define IGB_PHPM	0x00e14	/* PHY Power Management (I350, I210) - RW */
#define IGB_EEER	0x00e30	/* Energy Efficient Ethernet (I350, I210) - RW */
#define IGB_IPCNFG	0x00e38	/* Internal PHY Configuration (I350, I210) - RW */
#define IGB_EEMNGCTL	0x01010	/* Management EEPROM Control (82576, I350): CFG_DONE - RO */
#define IGB_EEMNGCTL_I210 0x12030	/* the same on the I210/I211 - RO */
#define IGB_EEARBC_I210	0x12024	/* EEPROM auto-read bus control (I210) - RW */
#define IGB_INVM_DATA(i) (0x12120 + 4 * (i))	/* iNVM words, 64 (I210/I211) - RO */
#define IGB_SWSM	0x05b50	/* Software Semaphore - RW */
#define IGB_SW_FW_SYNC	0x05b5c	/* Software-Firmware Synchronization - RW */
#define IGB_WUC		0x05800	/* Wake Up Control - RW */
#define IGB_GPIE	0x01514	/* General Purpose Interrupt Enable - RW */
#define IGB_EICS	0x01520	/* Extended Interrupt Cause Set - WO */
#define IGB_EIMS	0x01524	/* Extended Interrupt Mask Set/Read - RW */
#define IGB_EIMC	0x01528	/* Extended Interrupt Mask Clear - WO */
#define IGB_EIAC	0x0152c	/* Extended Interrupt Auto Clear - RW */
#define IGB_EIAM	0x01530	/* Extended Interrupt Auto Mask - RW */
#define IGB_EICR	0x01580	/* Extended Interrupt Cause Read - RC/W1C */
#define IGB_EITR(n)	(0x01680 + 4 * (n))	/* Extended Interrupt Throttle - RW */
#define IGB_IVAR0(i)	(0x01700 + 4 * (i))	/* Interrupt Vector Allocation - RW */
#define IGB_IVAR_MISC	0x01740	/* IVAR for other causes - RW */
#define IGB_RLPML	0x05004	/* Receive Long Packet Maximum Length - RW */
#define IGB_MRQC	0x05818	/* Multiple Receive Queues Command - RW */
#define IGB_RETA(i)	(0x05c00 + 4 * (i))	/* Redirection Table, 32 - RW */
#define IGB_RSSRK(i)	(0x05c80 + 4 * (i))	/* RSS Random Key, 10 - RW */

/* Queue register blocks (8.10, 8.12): 0x40 apart. */
#define IGB_RDBAL(q)	(0x0c000 + 0x40 * (q))
#define IGB_RDBAH(q)	(0x0c004 + 0x40 * (q))
#define IGB_RDLEN(q)	(0x0c008 + 0x40 * (q))
#define IGB_SRRCTL(q)	(0x0c00c + 0x40 * (q))	/* Split and Replication Receive Control - RW */
#define IGB_RDH(q)	(0x0c010 + 0x40 * (q))
#define IGB_RDT(q)	(0x0c018 + 0x40 * (q))
#define IGB_RXDCTL(q)	(0x0c028 + 0x40 * (q))
#define IGB_RQDPC(q)	(0x0c030 + 0x40 * (q))	/* Receive Queue Drop Packet Count - RC (I210: RW) */
#define IGB_TDBAL(q)	(0x0e000 + 0x40 * (q))
#define IGB_TDBAH(q)	(0x0e004 + 0x40 * (q))
#define IGB_TDLEN(q)	(0x0e008 + 0x40 * (q))
#define IGB_TDH(q)	(0x0e010 + 0x40 * (q))
#define IGB_TDT(q)	(0x0e018 + 0x40 * (q))
#define IGB_TXDCTL(q)	(0x0e028 + 0x40 * (q))

/* GPIE (8.8.15) */
#define GPIE_NSICR	(1u << 0)	/* clear ICR on read without checking INT_ASSERTED */
#define GPIE_MSIX_MODE	(1u << 4)
#define GPIE_EIAME	(1u << 30)	/* auto-mask EIMS bits on MSI-X message */
#define GPIE_PBA	(1u << 31)

/* ICR in non-MSI-X mode: RXDW (receive descriptor write-back) is bit 7 */
#define ICR_RXDW	(1u << 7)
#define ICR_DOUTSYNC	(1u << 28)	/* DMA out of sync */
#define ICR_DRSTA	(1u << 30)	/* device reset asserted: software must reset */

/* EECD on the I210/I211: an external flash was found (else iNVM only) */
#define EECD_FLASH_DETECTED_I210 (1u << 19)

/* EEMNGCTL / EEMNGCTL_I210: the port's configuration cycle done */
#define EEMNGCTL_CFG_DONE(port)	(1u << (18 + (port)))

/* SW_FW_SYNC (8.2.6): software bits 15:0, firmware's the same << 16 */
#define SWFW_PHY_SM(func) ((func) < 2 ? 2u << (func) : 0x20u << ((func) - 2))

/* MDICNFG (I350 8.2.5, I210 8.2.5) */
#define MDICNFG_DESTINATION	(1u << 31)	/* external MDIO */
#define MDICNFG_PHY(v)		(((v) >> 21) & 0x1f)

/* iNVM records (I210 6.3.1): type in bits 2:0, numbered as Linux's enum
 * E1000_INVM_STRUCTURE_TYPE (e1000_i210.h) */
#define INVM_UNINITIALIZED	0
#define INVM_WORD_AUTOLOAD	1
#define INVM_CSR_AUTOLOAD	2	/* one more dword follows */
/* 3: PHY register autoload, the record alone (nothing to skip) */
#define INVM_RSA_KEY_SHA256	4	/* eight more dwords follow */
#define INVM_WORD_ADDR(d)	(((d) >> 9) & 0x7f)
#define INVM_WORD_DATA(d)	((uint16_t)((d) >> 16))
#define INVM_SIZE		64

/* The I210 PLL work-around (Linux igb_pll_workaround_i210) */
#define INVM_AUTOLOAD_WORD	0x0a	/* autoload configuration word */
#define INVM_DEFAULT_AL		0x202f	/* its value when iNVM has none */
#define INVM_PLL_WO_VAL		0x0010
#define PHY_PLL_FREQ_REG	0x0e
#define PHY_PLL_UNCONF		0xff
#define PHY_PAGE_SELECT		22
#define CTRL_EXT_PHYPDEN	(1u << 20)
#define CTRL_EXT_LINK_MODE(v)	(((v) >> 22) & 3)	/* 00 internal copper PHY, else SGMII/SerDes */
/* PHPM: Go Link Disconnect (Linux E1000_82580_PM_GO_LINKD) */
#define PHPM_GO_LINKD		(1u << 5)
/* IPCNFG: EEE advertised in autonegotiation; EEER: LPI entry (Linux
 * E1000_IPCNFG_EEE_*_AN, E1000_EEER_*) */
#define IPCNFG_EEE_100M_AN	(1u << 2)
#define IPCNFG_EEE_1G_AN	(1u << 3)
#define EEER_TX_LPI_EN		(1u << 16)
#define EEER_RX_LPI_EN		(1u << 17)
#define EEER_LPI_FC		(1u << 18)
#define CTRL_EXT_SDLPE		(1u << 18)

/* IVAR bytes: valid bit and vector (8.8.15) */
#define IVAR_VALID	0x80u

/* SRRCTL (8.10.2) */
#define SRRCTL_BSIZEPKT_2K	2u		/* 1 KiB units */
#define SRRCTL_DESCTYPE_ADV_ONEBUF (1u << 25)
#define SRRCTL_TIMESTAMP	(1u << 30)	/* I350/I210: RX timestamp in the buffer */
#define SRRCTL_DROP_EN		(1u << 31)	/* drop when the queue has no descriptor */

/* RXDCTL / TXDCTL (8.10.10, 8.12.13) */
#define XDCTL_PTHRESH(n) ((uint32_t)(n))
#define XDCTL_HTHRESH(n) ((uint32_t)(n) << 8)
#define XDCTL_WTHRESH(n) ((uint32_t)(n) << 16)
#define XDCTL_ENABLE	(1u << 25)

/* MRQC (8.10.20): RSS without VMDq, hash fields */
#define MRQC_RSS	0x2u
#define MRQC_TCP_IPV4	(1u << 16)
#define MRQC_IPV4	(1u << 17)
#define MRQC_TCP_IPV6	(1u << 18)
#define MRQC_IPV6	(1u << 20)
#define MRQC_UDP_IPV4	(1u << 22)
#define MRQC_UDP_IPV6	(1u << 23)

/* EITR interval: bits 14:2, in 0.25 us (8.8.14) */
#define EITR_INTERVAL_MASK 0x7ffcu
#define EITR_INTERVAL_MIN 0x4u		/* never 0 (Linux igb_write_itr) */
#define EITR_CNT_IGNR	(1u << 31)	/* the write does not change the counter */

/* IEEE 1588 (8.16): time sync registers */
#define IGB_TSYNCTXCTL	0x0b614	/* TX Time Sync Control - RW */
#define IGB_TXSTMPL	0x0b618	/* TX Timestamp Value Low - RO */
#define IGB_TXSTMPH	0x0b61c	/* TX Timestamp Value High - RO (read releases the latch) */
#define IGB_TSYNCRXCTL	0x0b620	/* RX Time Sync Control - RW */
#define IGB_RXSTMPL	0x0b624	/* RX Timestamp Low - RO */
#define IGB_RXSTMPH	0x0b628	/* RX Timestamp High - RO (read releases the latch) */
#define IGB_RXSATRL	0x0b62c	/* RX Timestamp Attributes Low - RO */
#define IGB_RXSATRH	0x0b630	/* RX Timestamp Attributes High - RO */
#define IGB_SYSTIML	0x0b600	/* System Time Low - RW */
#define IGB_SYSTIMH	0x0b604	/* System Time High - RW */
#define IGB_TIMINCA	0x0b608	/* Increment Attributes - RW */
#define IGB_SYSTIMR	0x0b6f8	/* System Time Residue (I350, I210): read first, latches SYSTIML/H - RO */
#define IGB_TSAUXC	0x0b640	/* Auxiliary Control (I350, I210) - RW */
#define IGB_TRGTTIML(n)	(0x0b644 + 8 * (n))	/* Target Time n Low (I350, I210) - RW */
#define IGB_TRGTTIMH(n)	(0x0b648 + 8 * (n))	/* Target Time n High - RW */
#define IGB_AUXSTMPL(n)	(0x0b65c + 8 * (n))	/* Auxiliary Time Stamp n Low (I350, I210) - RO */
#define IGB_AUXSTMPH(n)	(0x0b660 + 8 * (n))	/* Auxiliary Time Stamp n High - RO (read releases it) */
#define IGB_TSICR	0x0b66c	/* Time Sync Interrupt Cause (I350, I210) - clear on read */
#define IGB_TSSDP	0x003c0	/* Time Sync SDP Configuration (I350, I210) - RW */
#define IGB_RXPBS	0x02404	/* RX Packet Buffer Size (I210: CFG_TS_EN) - RW */
#define IGB_TSYNCRXCFG	0x05f50	/* RX Time Sync Configuration - RW */
#define IGB_ETQF(n)	(0x05cb0 + 4 * (n))	/* EType Queue Filter - RW */
#define IGB_SPQF(n)	(0x05960 + 4 * (n))	/* Source Port Queue Filter - RW */
#define IGB_FTQF(n)	(0x059e0 + 4 * (n))	/* Five-Tuple Queue Filter - RW */
#define IGB_IMIR(n)	(0x05a80 + 4 * (n))	/* Immediate Interrupt RX (destination port) - RW */
#define IGB_IMIREXT(n)	(0x05aa0 + 4 * (n))	/* Immediate Interrupt RX Extended - RW */

/* TSYNCTXCTL / TSYNCRXCTL (8.16.1, 8.16.2) */
#define TSYNCTXCTL_VALID	(1u << 0)
#define TSYNCTXCTL_ENABLED	(1u << 4)
#define TSYNCRXCTL_VALID	(1u << 0)
#define TSYNCRXCTL_TYPE_MASK	(7u << 1)
#define TSYNCRXCTL_TYPE_EVENT_V2 (5u << 1)	/* V2 event messages, L2 and L4 */
#define TSYNCRXCTL_ENABLED	(1u << 4)
/* TSYNCRXCFG (8.16.4): V2 messageId in bits 15:8 */
#define TSYNCRXCFG_V2_MSGID_SHIFT 8
/* TIMINCA (8.16.3): INCPERIOD in bits 31:24, INCVALUE in 23:0 */
#define TIMINCA_INCPERIOD_SHIFT	24
#define IGB_82576_TSYNC_SHIFT	19	/* SYSTIM fraction bits with INCVALUE 16 << 19 */
/* TSAUXC (I350/I210 time sync registers): SYSTIM stopped while set (its reset value) */
#define TSAUXC_DISABLE_SYSTIME	(1u << 31)
#define TSAUXC_EN_TT0		(1u << 0)	/* target time 0 armed; cleared when SYSTIM reaches it */
#define TSAUXC_EN_TS0		(1u << 8)	/* auxiliary time stamp 0 taken on its SDP's edges */
#define TSAUXC_AUTT0		(1u << 9)	/* AUXSTMP0 holds a stamp (until AUXSTMPH0 is read) */
/* TSICR causes */
#define TSICR_TT0		(1u << 3)	/* SYSTIM reached target time 0 */
#define TSICR_AUTT0		(1u << 5)	/* auxiliary time stamp 0 taken */
/* TSSDP: which SDP feeds auxiliary time stamp 0, which signal SDP0 drives */
#define TSSDP_AUX0_SEL(pin)	((uint32_t)(pin))	/* bits 1:0 */
#define TSSDP_AUX0_SEL_MASK	3u
#define TSSDP_AUX0_TS_SDP_EN	(1u << 2)
#define TSSDP_SDP_SEL_MASK(pin)	(3u << (6 + 3 * (pin)))	/* 0: target time 0 (level toggles) */
#define TSSDP_SDP_EN(pin)	(1u << (8 + 3 * (pin)))	/* the pin is the time sync unit's output */
/* SDP direction (1: output) and SDP0's level: SDP0/1 in CTRL, SDP2/3 in CTRL_EXT */
#define CTRL_SDP0_DATA		(1u << 18)
#define CTRL_SDP0_DIR		(1u << 22)
#define CTRL_SDP1_DIR		(1u << 23)
#define CTRL_EXT_SDP2_DIR	(1u << 10)
#define CTRL_EXT_SDP3_DIR	(1u << 11)
/* RXPBS (I210): the 16-byte timestamp header in the RX buffer */
#define RXPBS_CFG_TS_EN		(1u << 31)
/* ETQF (8.10.19) */
#define ETQF_FILTER_ENABLE	(1u << 26)
#define ETQF_1588		(1u << 30)
/* FTQF (8.10.22), IMIREXT (8.10.24) */
#define FTQF_VF_BP		(1u << 15)
#define FTQF_1588_TIME_STAMP	(1u << 27)
#define FTQF_MASK		0xf0000000u	/* mask every field */
#define FTQF_MASK_PROTO_BP	(1u << 28)
#define FTQF_MASK_SOURCE_PORT_BP (1u << 29)
#define IMIREXT_SIZE_BP		(1u << 12)
#define IMIREXT_CTRL_BP		(1u << 19)

/* Advanced RX write-back: timestamp in this frame's register (7.1.5.2, TS) */
#define IGB_RXD_STAT_TS	(1u << 16)

#endif
