/*
 * Reading pcap and pcapng files in memory: one step function walks the
 * records, checking as it goes; pcapfile_open runs it over the whole file,
 * pcapfile_next one record at a time (net/pcapfile.h).
 */
#include <stdio.h>
#include <string.h>
#include "net/pcapfile.h"

#define PCAP_MAGIC_US 0xa1b2c3d4u	/* draft-ietf-opsawg-pcap 4 */
#define PCAP_MAGIC_NS 0xa1b23c4du
#define PCAP_HDR 24
#define PCAP_REC_HDR 16
#define NG_SHB 0x0a0d0d0au		/* draft-ietf-opsawg-pcapng 4.1 */
#define NG_IDB 1u			/* 4.2 */
#define NG_SPB 3u			/* 4.4 */
#define NG_EPB 6u			/* 4.3 */
#define NG_BYTE_ORDER 0x1a2b3c4du
#define NG_OPT_TSRESOL 9		/* if_tsresol, 4.2 */

static uint32_t rd32(const uint8_t *p, int swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static uint16_t rd16(const uint8_t *p, int swap)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return swap ? __builtin_bswap16(v) : v;
}

/* ns of ticks at if_tsresol r: 10^-r s, or 2^-(r & 0x7f) s with bit 7. */
static uint64_t ticks_ns(uint8_t r, uint64_t ticks)
{
	if (r & 0x80)
		return (uint64_t)(((unsigned __int128)ticks * 1000000000u) >> (r & 0x7f));
	uint64_t v = ticks;
	for (int i = r; i < 9; i++)
		v *= 10;
	for (int i = 9; i < r; i++)
		v /= 10;
	return v;
}

#define FAIL(...) do { if (err) snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

/* The frame of r: 0 bytes and beyond 64 KiB are refused. */
static int check_frame(const struct pcapfile_rec *r, char *err, size_t errlen)
{
	if (r->caplen == 0)
		FAIL("offset %zu: frame of 0 bytes", r->off);
	if (r->caplen > PCAPFILE_FRAME_MAX)
		FAIL("offset %zu: frame of %u bytes, beyond %d", r->off, r->caplen, PCAPFILE_FRAME_MAX);
	return 1;
}

/* Classic pcap: the record at c->off. */
static int step_pcap(const struct pcapfile *f, struct pcapfile_cur *c, struct pcapfile_rec *r, char *err,
		     size_t errlen)
{
	size_t left = f->len - c->off;
	if (left == 0)
		return 0;
	if (left < PCAP_REC_HDR)
		FAIL("offset %zu: record header cut short (%zu of %d bytes)", c->off, left, PCAP_REC_HDR);
	const uint8_t *h = f->data + c->off;
	r->off = c->off;
	r->caplen = rd32(h + 8, f->swap);
	r->wirelen = rd32(h + 12, f->swap);
	r->ns = (uint64_t)rd32(h, f->swap) * 1000000000u + (uint64_t)rd32(h + 4, f->swap) * f->frac_ns;
	r->data = h + PCAP_REC_HDR;
	if (check_frame(r, err, errlen) < 0)
		return -1;
	if (r->caplen > left - PCAP_REC_HDR)
		FAIL("offset %zu: record of %u bytes runs past the end of the file (%zu bytes left)", c->off,
		     r->caplen, left - PCAP_REC_HDR);
	c->off += PCAP_REC_HDR + r->caplen;
	return 1;
}

/* An Interface Description Block's body b of n bytes (options included). */
static int ng_idb(struct pcapfile_cur *c, const uint8_t *b, size_t n, size_t off, char *err, size_t errlen)
{
	if (n < 8)
		FAIL("offset %zu: Interface Description Block of %zu bytes", off, n + 12);
	uint16_t link = rd16(b, c->swap);
	if (link != LINKTYPE_ETHERNET)
		FAIL("offset %zu: interface %u has link type %u (accepted: 1, Ethernet)", off, c->nif, link);
	if (c->nif >= PCAPFILE_IF_MAX)
		FAIL("offset %zu: more than %d interfaces in a section", off, PCAPFILE_IF_MAX);
	uint8_t resol = 6;
	for (size_t o = 8; o + 4 <= n;) {
		uint16_t code = rd16(b + o, c->swap), olen = rd16(b + o + 2, c->swap);
		if (code == 0)
			break;
		if (olen > n - o - 4)
			FAIL("offset %zu: option %u of %u bytes runs past its block", off + 8 + o, code, olen);
		if (code == NG_OPT_TSRESOL && olen == 1)
			resol = b[o + 4];
		o += 4 + ((olen + 3u) & ~3u);
	}
	if ((resol & 0x80 ? resol & 0x7f : resol) > 63)
		FAIL("offset %zu: if_tsresol %u out of range", off, resol);
	c->tsresol[c->nif++] = resol;
	return 0;
}

/* An Enhanced (EPB) or Simple (SPB) Packet Block's body b of n bytes. */
static int ng_packet(struct pcapfile_cur *c, uint32_t type, const uint8_t *b, size_t n, size_t off,
		     struct pcapfile_rec *r, char *err, size_t errlen)
{
	r->off = off;
	if (type == NG_SPB) {
		if (n < 4)
			FAIL("offset %zu: Simple Packet Block of %zu bytes", off, n + 12);
		if (!c->nif)
			FAIL("offset %zu: packet of interface 0, not described", off);
		r->wirelen = rd32(b, c->swap);
		r->caplen = r->wirelen < n - 4 ? r->wirelen : (uint32_t)(n - 4);
		r->data = b + 4;
		r->ns = c->last_ns;
		return check_frame(r, err, errlen);
	}
	if (n < 20)
		FAIL("offset %zu: Enhanced Packet Block of %zu bytes", off, n + 12);
	uint32_t ifid = rd32(b, c->swap);
	if (ifid >= c->nif)
		FAIL("offset %zu: packet of interface %u, not described (%u interfaces)", off, ifid, c->nif);
	r->caplen = rd32(b + 12, c->swap);
	r->wirelen = rd32(b + 16, c->swap);
	r->data = b + 20;
	if (check_frame(r, err, errlen) < 0)
		return -1;
	if (r->caplen > n - 20)
		FAIL("offset %zu: record of %u bytes runs past its block (%zu bytes)", off, r->caplen, n - 20);
	uint64_t ticks = (uint64_t)rd32(b + 4, c->swap) << 32 | rd32(b + 8, c->swap);
	r->ns = ticks_ns(c->tsresol[ifid], ticks);
	c->last_ns = r->ns;
	return 1;
}

/* pcapng: blocks from c->off until a packet. */
static int step_ng(const struct pcapfile *f, struct pcapfile_cur *c, struct pcapfile_rec *r, char *err,
		   size_t errlen)
{
	for (;;) {
		size_t off = c->off, left = f->len - off;
		if (left == 0)
			return 0;
		if (left < 12)
			FAIL("offset %zu: block header cut short (%zu bytes left)", off, left);
		const uint8_t *h = f->data + off;
		uint32_t type = rd32(h, c->swap);
		if (type == NG_SHB) {
			if (left < 28)
				FAIL("offset %zu: Section Header Block cut short (%zu bytes left)", off, left);
			uint32_t bom = rd32(h + 8, 0);
			if (bom != NG_BYTE_ORDER && bom != __builtin_bswap32(NG_BYTE_ORDER))
				FAIL("offset %zu: byte-order magic %#x (accepted: 0x1a2b3c4d either way)", off, bom);
			c->swap = bom != NG_BYTE_ORDER;
			c->nif = 0;
		}
		uint32_t blen = rd32(h + 4, c->swap);
		if (blen % 4 || blen < 12 || (type == NG_SHB && blen < 28))
			FAIL("offset %zu: block length %u (a multiple of 4, at least %d)", off, blen,
			     type == NG_SHB ? 28 : 12);
		if (blen > left)
			FAIL("offset %zu: block of %u bytes runs past the end of the file (%zu bytes left)", off, blen,
			     left);
		if (rd32(h + blen - 4, c->swap) != blen)
			FAIL("offset %zu: block length %u, its trailer says %u", off, blen, rd32(h + blen - 4, c->swap));
		c->off += blen;
		if (type == NG_IDB && ng_idb(c, h + 8, blen - 12, off, err, errlen))
			return -1;
		if (type == NG_EPB || type == NG_SPB)
			return ng_packet(c, type, h + 8, blen - 12, off, r, err, errlen);
	}
}

static int step(const struct pcapfile *f, struct pcapfile_cur *c, struct pcapfile_rec *r, char *err, size_t errlen)
{
	return f->ng ? step_ng(f, c, r, err, errlen) : step_pcap(f, c, r, err, errlen);
}

void pcapfile_rewind(const struct pcapfile *f, struct pcapfile_cur *c)
{
	memset(c, 0, sizeof(*c));
	c->off = f->ng ? 0 : PCAP_HDR;
}

int pcapfile_next(const struct pcapfile *f, struct pcapfile_cur *c, struct pcapfile_rec *r)
{
	return step(f, c, r, NULL, 0) > 0;
}

/* The classic header: byte order, fraction unit, link type. */
static int open_pcap(struct pcapfile *f, uint32_t magic, char *err, size_t errlen)
{
	f->swap = magic == __builtin_bswap32(PCAP_MAGIC_US) || magic == __builtin_bswap32(PCAP_MAGIC_NS);
	f->frac_ns = (f->swap ? __builtin_bswap32(magic) : magic) == PCAP_MAGIC_NS ? 1 : 1000;
	if (f->len < PCAP_HDR)
		FAIL("offset 0: pcap header cut short (%zu of %d bytes)", f->len, PCAP_HDR);
	uint32_t link = rd32(f->data + 20, f->swap) & 0xffff;	/* the upper bits: FCS length */
	if (link != LINKTYPE_ETHERNET)
		FAIL("offset 20: link type %u (accepted: 1, Ethernet)", link);
	return 0;
}

int pcapfile_open(struct pcapfile *f, const void *data, size_t len, char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->data = data;
	f->len = len;
	if (len < 4)
		FAIL("offset 0: %zu bytes, not a pcap or pcapng file", len);
	uint32_t magic = rd32(f->data, 0);
	if (magic == NG_SHB)
		f->ng = 1;
	else if (magic == PCAP_MAGIC_US || magic == PCAP_MAGIC_NS || magic == __builtin_bswap32(PCAP_MAGIC_US) ||
		 magic == __builtin_bswap32(PCAP_MAGIC_NS)) {
		if (open_pcap(f, magic, err, errlen))
			return -1;
	} else
		FAIL("offset 0: magic %#010x (accepted: pcap a1b2c3d4 or a1b23c4d, pcapng 0a0d0d0a)", magic);
	struct pcapfile_cur c;
	struct pcapfile_rec r;
	int k;
	pcapfile_rewind(f, &c);
	while ((k = step(f, &c, &r, err, errlen)) > 0) {
		if (!f->frames++)
			f->first_ns = r.ns;
		f->last_ns = r.ns;
		f->bytes += r.caplen;
		if (r.caplen > f->max_len)
			f->max_len = r.caplen;
	}
	if (k < 0)
		return -1;
	if (!f->frames)
		FAIL("offset %zu: the end, and no frame in the file", len);
	return 0;
}
