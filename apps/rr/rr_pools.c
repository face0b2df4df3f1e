/*
 * lwIP's memory, sized by knobs at init and taken from free pages rather
 * than fixed at build time: the heap pools (rr_heap KiB: segments waiting
 * for their ACK, small responses, ICMP replies; lwippools.h), a quarter in
 * 256-byte blocks, five eighths in 1600-byte and an eighth in 64 KiB ones,
 * at least one each; the TCP PCB pool (rr_conns +
 * RR_PCB_SPARE for listeners' children being closed and TIME-WAIT), TCP
 * segments and PBUF_REF/ROM headers (rr_pbufs each), and rr's custom RX
 * pbufs (one per buffer of every port's RX pools, added as ports join).
 * lwIP builds those pools with a token size (lwipopts.h); they are emptied
 * and refilled here, after lwip_init and before any use.
 */
#include <stdio.h>
#include "apps/rr/rr.h"
#include "kernel/mem.h"	/* before lwIP's headers, which rename lwIP's mem_init */
#include "lwip/init.h"
#include "lwip/memp.h"
#include "lwip/priv/memp_priv.h"

/* Eighths of rr_heap per heap pool, from MEMP_POOL_FIRST (lwippools.h). */
static const uint8_t heap_eighths[] = { 2, 5, 1 };

int rr_pool_fill(const struct memp_desc *desc, uint32_t n, int replace)
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

int rr_lwip_init(void)
{
	static int done;
	if (done)
		return 0;
	lwip_init();
	uint64_t bytes = (uint64_t)rr_cfg.heap_kib * 1024;
	for (unsigned t = MEMP_POOL_FIRST; t <= (unsigned)MEMP_POOL_LAST; t++) {
		const struct memp_desc *d = memp_pools[t];
		uint32_t user = d->size - LWIP_MEM_ALIGN_SIZE(sizeof(struct memp_malloc_helper));
		uint32_t n = (uint32_t)(bytes * heap_eighths[t - MEMP_POOL_FIRST] / 8 / user);
		if (rr_pool_fill(d, n ? n : 1, 1)) {
			printf("rr: no memory for lwIP's heap of %ld KiB (rr_heap=)\n", rr_cfg.heap_kib);
			return -1;
		}
	}
	uint32_t pcbs = (uint32_t)rr_cfg.conns + RR_PCB_SPARE, pbufs = (uint32_t)rr_cfg.pbufs;
	if (rr_pool_fill(memp_pools[MEMP_TCP_PCB], pcbs, 1) || rr_pool_fill(memp_pools[MEMP_TCP_SEG], pbufs, 1) ||
	    rr_pool_fill(memp_pools[MEMP_PBUF], pbufs, 1)) {
		printf("rr: no memory for %u TCP PCBs and %u segments and pbufs (rr_conns=, rr_pbufs=)\n", pcbs,
		       pbufs);
		return -1;
	}
	done = 1;
	return 0;
}
