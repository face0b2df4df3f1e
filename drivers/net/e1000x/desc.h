/*
 * Descriptor formats of e1000, e1000e and igb.
 * RX: legacy descriptors (8254x 3.2.3) or the 16-byte extended (82574
 * 7.1.4.2) / advanced one-buffer (82576 7.1.5) format, whose read and
 * write-back layouts are the same where this code looks.
 * TX: legacy (8254x 3.3.3) or advanced data descriptors (82576 7.2.2.3).
 * Both report DD in bit 0 of byte 12.
 */
#ifndef E1000X_DESC_H
#define E1000X_DESC_H
#include <stdint.h>

union rx_desc {
	struct { uint64_t addr, hdr_addr; } read;
	struct {
		uint32_t info;		/* MRQ / packet type (unused here) */
		uint32_t rss_hash;
		uint32_t staterr;	/* status 19:0, errors 31:20 */
		uint16_t length;
		uint16_t vlan;
	} wb;
	struct {			/* legacy */
		uint64_t addr;
		uint16_t length, csum;
		uint8_t status, errors;
		uint16_t special;
	} legacy;
};

/* Extended/advanced write-back status and error bits (82574 7.1.4.2, 82576 7.1.5.2) */
#define RXDEXT_DD	(1u << 0)
#define RXDEXT_EOP	(1u << 1)
#define RXDEXT_VP	(1u << 3)	/* 802.1Q tag stripped into the vlan field (CTRL.VME) */
#define RXDEXT_UDPCS	(1u << 4)
#define RXDEXT_TCPCS	(1u << 5)
#define RXDEXT_IPCS	(1u << 6)
#define RXDADV_STAT_TSIP (1u << 15)	/* I350/I210, X550: timestamp in packet buffer */
#define RX_TS_HDR_LEN	16	/* I350/I210: a header, 8 reserved bytes, SYSTIML, SYSTIMH */
#define RX_TS_TAIL_LEN	8	/* X550 (82599 format): SYSTIML, SYSTIMH after the frame,
				 * counted in the length (Linux IXGBE_TS_HDR_LEN) */
#define RXDEXT_ERR_CE	(1u << 24)
#define RXDEXT_ERR_SE	(1u << 25)
#define RXDEXT_ERR_SEQ	(1u << 26)
#define RXDEXT_ERR_CXE	(1u << 28)
#define RXDEXT_ERR_TCPE	(1u << 29)
#define RXDEXT_ERR_IPE	(1u << 30)
#define RXDEXT_ERR_RXE	(1u << 31)
#define RXDEXT_ERR_FRAME (RXDEXT_ERR_CE | RXDEXT_ERR_SE | RXDEXT_ERR_SEQ | RXDEXT_ERR_CXE | RXDEXT_ERR_RXE)
/* The 82599's advanced write-back has its errors elsewhere (82599 7.1.6.2):
 * HBO 23, RXE 29 (a MAC error: CRC, length, undersize, oversize; frames
 * with it are posted only with FCTRL.SBP), L4E 30, IPE 31. */
#define RXDADV_82599_ERR_HBO	(1u << 23)
#define RXDADV_82599_ERR_RXE	(1u << 29)
#define RXDADV_82599_ERR_L4E	(1u << 30)
#define RXDADV_82599_ERR_IPE	(1u << 31)
#define RXDADV_82599_ERR_FRAME	(RXDADV_82599_ERR_HBO | RXDADV_82599_ERR_RXE)

union tx_desc {
	struct {
		uint64_t addr;
		uint32_t cmd_type_len;	/* legacy: length 15:0, cso, cmd 31:24 */
		uint32_t status;	/* DD in bit 0 (legacy: status byte; advanced: STA) */
	} d;
};
#define TXD_DD		(1u << 0)
/* Advanced data descriptor (82576 7.2.2.3) */
#define ADVTXD_DTYP_DATA (3u << 20)
#define ADVTXD_DCMD_EOP	(1u << 24)
#define ADVTXD_DCMD_IFCS (1u << 25)
#define ADVTXD_DCMD_RS	(1u << 27)
#define ADVTXD_DCMD_DEXT (1u << 29)
#define ADVTXD_MAC_TSTAMP (1u << 19)
#define ADVTXD_PAYLEN_SHIFT 14
/* 82574 extended (TCP/IP) data descriptor, the only 82574 format that can
 * ask for a TX timestamp (82574 7.8.2; Linux e1000e E1000_TXD_*): the
 * legacy layout's length and command bits, plus DEXT and DTYP 0001 in the
 * command dword and TSTAMP in the status dword (no checksum options). */
#define TXD_DEXT	(1u << 29)
#define TXD_DTYP_DATA	(1u << 20)
#define TXD_EXTCMD_TSTAMP (1u << 4)

/* Checksum insertion (tx.c, tx_ctx_write): a context for the frames
 * that ask, after 14 bytes of Ethernet an IPv4 header of 20 bytes or an
 * IPv6 one of 40, TCP or UDP after it. The NIC sums an IPv4 header into
 * IPCSO, and the TCP or UDP header and data (the checksum field holding
 * the pseudo-header sum) into TUCSO.
 * 8254x and 82574: TCP/IP context descriptor (8254x SDM 3.3.6: IPCSS,
 * IPCSO, IPCSE, zero for IPv6; TUCSS 34 or 54, TUCSO 16 (TCP) or 6 (UDP)
 * after it, TUCSE 0; TUCMD with DEXT, IP for IPv4, TCP for TCP; DTYP
 * 0000), then TCP/IP data descriptors (3.3.7: DEXT, DTYP 0001, POPTS.IXSM
 * and TXSM in bits 15:8 of the status dword); one context, no index.
 * 82576 (and 82599): advanced context descriptors (82576 7.2.2.2: MACLEN,
 * IPLEN; TUCMD.IPV4 for IPv4, L4T TCP (else UDP); DTYP 0010; IDX in
 * mss_l4len_idx bits 6:4), POPTS in bits 15:8 of the data descriptor's
 * olinfo and the IDX of its context in bits 6:4: two slots per queue. */
#define TXCTX_IPCSS	14
#define TXCTX_IPCSO	(14 + 10)
#define TXCTX_IPCSE	(14 + 20 - 1)
#define TXD_TUCMD_TCP	(1u << 24)
#define TXD_TUCMD_IP	(1u << 25)
#define ADVTXD_MACLEN_SHIFT 9
#define ADVTXD_TUCMD_IPV4 (1u << 10)
#define ADVTXD_TUCMD_L4T_TCP (1u << 11)
#define ADVTXD_DTYP_CTXT (2u << 20)
#define ADVTXD_IDX_SHIFT 4	/* IDX, in mss_l4len_idx and a data descriptor's olinfo */
#define TXD_POPTS_SHIFT	8	/* POPTS: IXSM bit 0, TXSM bit 1 */

/* Legacy RX descriptor status and error bits (8254x 3.2.3.1, 3.2.3.2): the e1000 format. */
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

/* Legacy TX descriptor command and status bits (8254x 3.3.3.1): e1000 and e1000e. */
#define TXD_CMD_EOP	(1u << 0)
#define TXD_CMD_IFCS	(1u << 1)	/* insert FCS */
#define TXD_CMD_RS	(1u << 3)	/* report status */
#define TXD_CMD_IDE	(1u << 7)	/* interrupt delay enable */
#define TXD_STAT_DD	(1u << 0)
#endif
