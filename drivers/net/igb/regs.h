/*
 * 82576 registers beyond the shared set in drivers/net/e1000x.h.
 * Intel 82576EB GbE Controller datasheet rev 2.63, section 8.
 */
#ifndef IGB_REGS_H
#define IGB_REGS_H

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

/* IVAR bytes: valid bit and vector (8.8.15) */
#define IVAR_VALID	0x80u

/* SRRCTL (8.10.2) */
#define SRRCTL_BSIZEPKT_2K	2u		/* 1 KiB units */
#define SRRCTL_DESCTYPE_ADV_ONEBUF (1u << 25)

/* RXDCTL / TXDCTL (8.10.10, 8.12.13) */
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

/* Advanced RX write-back: timestamp in this frame's register (7.1.5.2, TS) */
#define IGB_RXD_STAT_TS	(1u << 16)

#endif
