/*
 * pcapng blocks (pcapng.h). A block: type, total length, body, options
 * (code, length, value padded to 32 bits; opt_endofopt last), total length.
 */
#include <string.h>
#include "net/pcapng.h"

#define SHB 0x0a0d0d0a
#define IDB 0x00000001
#define ISB 0x00000005
#define EPB 0x00000006
#define LINKTYPE_ETHERNET 1

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* Bytes an option of n value bytes takes. */
static size_t opt_size(size_t n)
{
	return 4 + pad4(n);
}

static void put(struct pcapng_buf *b, const void *p, size_t n)
{
	memcpy(b->b + b->len, p, n);
	b->len += n;
}

static void put32(struct pcapng_buf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void put_opt(struct pcapng_buf *b, uint16_t code, const void *v, size_t n)
{
	uint16_t h[2] = { code, (uint16_t)n };
	put(b, h, 4);
	put(b, v, n);
	memset(b->b + b->len, 0, pad4(n) - n);
	b->len += pad4(n) - n;
}

/* Open a block of size bytes (trailer included): 0 if it does not fit. */
static int open_block(struct pcapng_buf *b, uint32_t type, size_t size)
{
	if (size > b->cap - b->len || size > UINT32_MAX)
		return 0;
	put32(b, type);
	put32(b, (uint32_t)size);
	return 1;
}

/* opt_endofopt and the trailing total length. */
static size_t close_block(struct pcapng_buf *b, size_t size)
{
	put32(b, 0);
	put32(b, (uint32_t)size);
	return size;
}

size_t pcapng_shb(struct pcapng_buf *b, const char *app)
{
	size_t alen = app ? strlen(app) : 0;
	size_t size = 12 + 16 + (app ? opt_size(alen) : 0) + 4;
	uint64_t section_len = UINT64_MAX;	/* not known: a stream */
	uint16_t version[2] = { 1, 0 };
	if (!open_block(b, SHB, size))
		return 0;
	put32(b, 0x1a2b3c4d);
	put(b, version, 4);
	put(b, &section_len, 8);
	if (app)
		put_opt(b, 4, app, alen);	/* shb_userappl */
	return close_block(b, size);
}

size_t pcapng_idb(struct pcapng_buf *b, uint32_t snaplen, const char *name, const char *desc)
{
	size_t nlen = strlen(name), dlen = desc ? strlen(desc) : 0;
	size_t size = 12 + 8 + opt_size(nlen) + (desc ? opt_size(dlen) : 0) + opt_size(1) + 4;
	uint16_t link[2] = { LINKTYPE_ETHERNET, 0 };
	uint8_t tsresol = 9;	/* 10^-9 s */
	if (!open_block(b, IDB, size))
		return 0;
	put(b, link, 4);
	put32(b, snaplen);
	put_opt(b, 2, name, nlen);	/* if_name */
	if (desc)
		put_opt(b, 3, desc, dlen);	/* if_description */
	put_opt(b, 9, &tsresol, 1);	/* if_tsresol */
	return close_block(b, size);
}

size_t pcapng_epb(struct pcapng_buf *b, uint32_t ifid, uint64_t ns, const uint8_t *data, uint32_t caplen,
		  uint32_t wirelen, uint32_t dir)
{
	size_t size = 12 + 20 + pad4(caplen) + opt_size(4) + 4;
	uint32_t body[5] = { ifid, (uint32_t)(ns >> 32), (uint32_t)ns, caplen, wirelen };
	if (!open_block(b, EPB, size))
		return 0;
	put(b, body, sizeof(body));
	put(b, data, caplen);
	memset(b->b + b->len, 0, pad4(caplen) - caplen);
	b->len += pad4(caplen) - caplen;
	put_opt(b, 2, &dir, 4);	/* epb_flags */
	return close_block(b, size);
}

size_t pcapng_isb(struct pcapng_buf *b, uint32_t ifid, uint64_t ns, uint64_t ifrecv, uint64_t ifdrop,
		  uint64_t filteraccept, uint64_t osdrop)
{
	size_t size = 12 + 12 + 4 * opt_size(8) + 4;
	uint32_t body[3] = { ifid, (uint32_t)(ns >> 32), (uint32_t)ns };
	if (!open_block(b, ISB, size))
		return 0;
	put(b, body, sizeof(body));
	put_opt(b, 4, &ifrecv, 8);	/* isb_ifrecv */
	put_opt(b, 5, &ifdrop, 8);	/* isb_ifdrop */
	put_opt(b, 6, &filteraccept, 8);	/* isb_filteraccept */
	put_opt(b, 7, &osdrop, 8);	/* isb_osdrop */
	return close_block(b, size);
}
