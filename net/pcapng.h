/*
 * pcapng blocks (draft-ietf-opsawg-pcapng, "PCAP Next Generation Dump File
 * Format"), in host byte order (the Section Header Block's byte-order magic
 * says which), for a capture streamed to Wireshark/tshark: one Section
 * Header Block, an Interface Description Block per interface (Ethernet,
 * ns timestamps), Enhanced Packet Blocks with their direction, an Interface
 * Statistics Block at the end. Each function appends one block at b->len
 * and returns its size in bytes, or 0 (b unchanged) when it does not fit.
 */
#ifndef NET_PCAPNG_H
#define NET_PCAPNG_H
#include <stddef.h>
#include <stdint.h>

/* Where blocks go. */
struct pcapng_buf {
	uint8_t *b;
	size_t cap, len;
};

/* epb_flags direction (section 4.3.1): bits 0-1. */
#define PCAPNG_INBOUND 1
#define PCAPNG_OUTBOUND 2

/* Section Header Block, version 1.0, section length unknown; shb_userappl
 * app (may be NULL). */
size_t pcapng_shb(struct pcapng_buf *b, const char *app);
/* Interface Description Block: LINKTYPE_ETHERNET, snaplen bytes, if_name,
 * if_description (may be NULL), if_tsresol 9 (timestamps in ns). */
size_t pcapng_idb(struct pcapng_buf *b, uint32_t snaplen, const char *name, const char *desc);
/* Enhanced Packet Block of interface ifid: ns timestamp, caplen bytes of
 * data of a wirelen-byte frame, epb_flags with dir (PCAPNG_INBOUND or
 * PCAPNG_OUTBOUND). */
size_t pcapng_epb(struct pcapng_buf *b, uint32_t ifid, uint64_t ns, const uint8_t *data, uint32_t caplen,
		  uint32_t wirelen, uint32_t dir);
/* Interface Statistics Block of interface ifid at ns: isb_ifrecv,
 * isb_ifdrop, isb_filteraccept, isb_osdrop (frames). */
size_t pcapng_isb(struct pcapng_buf *b, uint32_t ifid, uint64_t ns, uint64_t ifrecv, uint64_t ifdrop,
		  uint64_t filteraccept, uint64_t osdrop);
#endif
