/* Packet buffer pools; see pkt.h. */
#include <stdlib.h>
#include "kernel/mem.h"
#include "net/pkt.h"

struct pktpool *pktpool_create(const char *name, uint32_t n, uint32_t slot)
{
	return pktpool_create_below(name, n, slot, 0);
}

struct pktpool *pktpool_create_below(const char *name, uint32_t n, uint32_t slot, uint64_t limit)
{
	struct pktpool *pool = calloc(1, sizeof(*pool));
	struct pkt **stack = calloc(n, sizeof(*stack));
	uint8_t *mem = dma_alloc_below((size_t)n * slot, 4096, limit);
	if (!pool || !stack || !mem) {
		free(pool);
		free(stack);
		return 0;
	}
	uint32_t meta = slot == PKT_SLOT ? PKT_HEADROOM : PKT_SMALL_HEADROOM;
	*pool = (struct pktpool){ .name = name, .size = n, .nfree = n, .slot = slot,
				  .buf_size = slot - meta, .mem = mem, .free = stack };
	for (uint32_t i = 0; i < n; i++) {
		struct pkt *p = (struct pkt *)(mem + (size_t)i * slot);
		p->pool = pool;
		p->buf = (uint8_t *)p + meta;
		stack[i] = p;
	}
	return pool;
}

struct pkt *pkt_alloc(struct pktpool *pool)
{
	return pkt_alloc_inline(pool);
}

int pkt_alloc_bulk(struct pktpool *pool, struct pkt **out, int n)
{
	int i = 0;
	for (; i < n; i++) {
		out[i] = pkt_alloc_inline(pool);
		if (!out[i])
			break;
	}
	return i;
}

void pkt_free(struct pkt *p)
{
	pkt_free_inline(p);
}

/* Not SLP-vectorised: GCC would load the four pointers as two vectors and
 * take them apart again, twice the instructions of four plain loads
 * (GCC's attribute; the fuzzers' clang has no such pass at -O1). */
#ifndef __clang__
__attribute__((optimize("no-tree-slp-vectorize")))
#endif
void pkt_free_bulk(struct pkt **p, int n)
{
	/* One lock per run of packets from the same pool, whose free stack
	 * top is kept in a register meanwhile; a run without clones checks
	 * nothing else. */
	struct pktpool *pool = 0;
	struct pkt **top = 0, **end = p + n, **end3 = n > 3 ? end - 3 : p;	/* p < end3: four left */
	while (p < end) {
		struct pkt *q = *p;
		if (q->clones) {
			q->clones--;
			p++;
			continue;
		}
		if (q->pool != pool) {
			if (pool) {
				pool->nfree = (uint32_t)(top - pool->free);
				pktpool_unlock(pool);
			}
			pool = q->pool;
			pktpool_lock(pool);
			top = pool->free + pool->nfree;
		}
		/* The run: q and those after it from the same pool, no clones;
		 * four at a time from q on (a branch per pool test, one for the
		 * clones), then one at a time (q at least). */
		for (; p < end3; p += 4, top += 4) {
			struct pkt *a = p[0], *b = p[1], *c = p[2], *d = p[3];
			if (a->pool != pool || b->pool != pool || c->pool != pool || d->pool != pool ||
			    (a->clones | b->clones | c->clones | d->clones))
				break;
			top[0] = a;
			top[1] = b;
			top[2] = c;
			top[3] = d;
		}
		while (p < end && (*p)->pool == pool && !(*p)->clones)
			*top++ = *p++;
	}
	if (pool) {
		pool->nfree = (uint32_t)(top - pool->free);
		pktpool_unlock(pool);
	}
}

void pktpool_destroy(struct pktpool *pool)
{
	if (!pool)
		return;
	dma_free(pool->mem, (size_t)pool->size * pool->slot);
	free(pool->free);
	free(pool);
}
