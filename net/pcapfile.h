/*
 * Reading a pcap or pcapng file held in memory (replay's Multiboot2
 * module): classic pcap (draft-ietf-opsawg-pcap: magic 0xa1b2c3d4 with
 * microseconds, 0xa1b23c4d with nanoseconds, either byte order) and pcapng
 * (draft-ietf-opsawg-pcapng: sections of either byte order, Interface
 * Description Blocks with if_tsresol, Enhanced and Simple Packet Blocks;
 * other blocks skipped as the draft says). Ethernet only (LINKTYPE_ETHERNET).
 * pcapfile_open walks the whole file once and refuses it, with the offset,
 * for anything that would stop a replay half-way; pcapfile_next then
 * cannot fail.
 */
#ifndef NET_PCAPFILE_H
#define NET_PCAPFILE_H
#include <stddef.h>
#include <stdint.h>

#define PCAPFILE_IF_MAX 16		/* pcapng interfaces per section */
#define PCAPFILE_FRAME_MAX 65536	/* longest frame taken, bytes */
#define LINKTYPE_ETHERNET 1

/* Where a walk is: offset, and the current pcapng section's byte order
 * and interfaces' timestamp resolutions (if_tsresol, 6 when absent). */
struct pcapfile_cur {
	size_t off;
	int swap;		/* 1: the section's byte order is not the host's */
	uint32_t nif;
	uint8_t tsresol[PCAPFILE_IF_MAX];
	uint64_t last_ns;	/* the previous frame's time (a Simple Packet Block has none) */
};

/* A checked file. */
struct pcapfile {
	const uint8_t *data;
	size_t len;
	int ng;			/* 1: pcapng, 0: classic pcap */
	int swap;		/* classic pcap: 1 when the file's byte order is not the host's */
	uint32_t frac_ns;	/* classic pcap: ns per unit of the fraction (1000 or 1) */
	uint64_t frames;	/* packet records in the file */
	uint64_t bytes;		/* their captured bytes */
	uint64_t first_ns, last_ns;	/* the first and the last record's times */
	uint32_t max_len;	/* longest captured frame */
};

/* One packet record. data points into the file. */
struct pcapfile_rec {
	const uint8_t *data;
	uint32_t caplen;	/* bytes captured (and sent) */
	uint32_t wirelen;	/* bytes the frame had on the wire */
	uint64_t ns;		/* its time, ns since the epoch */
	size_t off;		/* offset of the record in the file */
};

/*
 * Check data[0..len) whole and fill f. Returns 0, or -1 with a message in
 * err (errlen bytes, NUL included) giving the offset and the fault:
 * "offset 40: record of 1000 bytes runs past the end of the file (60 bytes
 * left)", a file too short or not pcap/pcapng (the magics accepted), a link
 * type other than Ethernet, a frame of 0 bytes or beyond 64 KiB, a pcapng
 * block length that is not a multiple of 4, disagrees with its trailer or
 * runs past the file, a packet of an interface not described, a file with
 * no frame.
 */
int pcapfile_open(struct pcapfile *f, const void *data, size_t len, char *err, size_t errlen);
/* c at the first record of f. */
void pcapfile_rewind(const struct pcapfile *f, struct pcapfile_cur *c);
/* The record at c, and c past it: 1, or 0 at the end of the file. f was
 * checked by pcapfile_open, so nothing else can come. */
int pcapfile_next(const struct pcapfile *f, struct pcapfile_cur *c, struct pcapfile_rec *r);
#endif
