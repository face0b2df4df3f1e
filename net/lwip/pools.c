/*
 * lwIP's memory, sized at init and taken from free pages rather than
 * fixed at build time: the heap pools (rr_heap KiB: segments waiting
 * for their ACK, small responses, ICMP replies; lwippools.h), a quarter in
 * 256-byte blocks, five eighths in 1600-byte and an eighth in 64 KiB ones,
 * at least one each; the TCP PCB pool (as many as the app hands in), TCP
 * segments and PBUF_REF/ROM headers (rr_pbufs each), and the netif's
 * custom RX pbufs (one per buffer of every port's RX pools, added as ports
 * join, netif.c). lwIP builds those pools with a token size (lwipopts.h);
 * they are emptied and refilled here, after lwip_init and before any use.
 */
#include <stdio.h>
#include "kernel/knobs.h"
#include "kernel/mem.h"	/* before lwIP's headers, which rename lwIP's mem_init */
#include "lwip/init.h"
#include "lwip/memp.h"
#include "lwip/priv/memp_priv.h"
#include "net/lwip/lwif.h"

static int64_t heap_kib = 4096, pbufs = 8192;
/* lwIP counts a pool's blocks in 16 bits (stats_mem): no pool over 65535,
 * the heap's 256-byte pool holding rr_heap KiB / 1 KiB blocks. */
static const struct knob_range heap_range[] = { { 64, 65535 } };
static const struct knob_range pbufs_range[] = { { 64, 65535 } };
KNOB(rr_heap, .name = "rr_heap", .type = KNOB_INT, .ranges = heap_range, .nranges = 1, .ival = &heap_kib,
     .help = "rr, mgmt: lwIP's heap (segments awaiting their ACK, small responses, ICMP replies), KiB; default 4096");
KNOB(rr_pbufs, .name = "rr_pbufs", .type = KNOB_INT, .ranges = pbufs_range, .nranges = 1, .ival = &pbufs,
     .help = "rr, mgmt: lwIP's TCP segments, and as many pbuf headers (responses sent by reference); default 8192");

/* Eighths of rr_heap per heap pool, from MEMP_POOL_FIRST (lwippools.h). */
static const uint8_t heap_eighths[] = { 2, 5, 1 };

int lwif_pool_fill(const struct memp_desc *desc, uint32_t n, int replace)
{
	uint8_t *mem = n ? dma_alloc((size_t)n * desc->size, MEM_ALIGNMENT) : NULL;
	if (n && !mem)
		return -1;
	if (replace) {
		*desc->tab = NULL;
		desc->stats->avail = 0;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct memp *m = (struct memp *)(mem + (size_t)i * desc->size);
		m->next = *desc->tab;
		*desc->tab = m;
	}
	desc->stats->avail += n;
	return 0;
}

int lwif_mem_init(const struct lwif_mem *m)
{
	static int done;
	if (done)
		return 0;
	lwip_init();
	uint64_t bytes = (uint64_t)heap_kib * 1024;
	for (unsigned t = MEMP_POOL_FIRST; t <= (unsigned)MEMP_POOL_LAST; t++) {
		const struct memp_desc *d = memp_pools[t];
		uint32_t user = d->size - LWIP_MEM_ALIGN_SIZE(sizeof(struct memp_malloc_helper));
		uint32_t n = (uint32_t)(bytes * heap_eighths[t - MEMP_POOL_FIRST] / 8 / user);
		if (lwif_pool_fill(d, n ? n : 1, 1)) {
			printf("lwip: no memory for lwIP's heap of %ld KiB (rr_heap=)\n", heap_kib);
			return -1;
		}
	}
	uint32_t nseg = (uint32_t)pbufs;
	if (lwif_pool_fill(memp_pools[MEMP_TCP_PCB], m->pcbs, 1) || lwif_pool_fill(memp_pools[MEMP_TCP_SEG], nseg, 1) ||
	    lwif_pool_fill(memp_pools[MEMP_PBUF], nseg, 1)) {
		printf("lwip: no memory for %u TCP PCBs and %u segments and pbufs (rr_conns=, rr_pbufs=)\n", m->pcbs,
		       nseg);
		return -1;
	}
	done = 1;
	return 0;
}
