/*
 * Physical page allocator: one bit per 4 KiB page (1 = used), first fit
 * from low addresses. It never touches the memory it manages, so it can
 * run on fake physical addresses in host tests. Physical page 0 is never
 * handed out: it is always treated as reserved. Not thread-safe.
 */
#ifndef KERNEL_PALLOC_H
#define KERNEL_PALLOC_H
#include <stdint.h>

#define PAGE_SIZE 4096u

struct palloc {
	uint64_t base;		/* physical address of page 0, page-aligned */
	uint64_t npages;	/* pages managed */
	uint64_t *bitmap;	/* palloc_bitmap_words(npages) words, 1 = used */
	uint64_t free_pages;	/* pages currently free */
	uint64_t hint;		/* no page below this index is free */
};

/* uint64_t words of bitmap needed for npages pages. */
uint64_t palloc_bitmap_words(uint64_t npages);

/*
 * Manage [base, base + npages * PAGE_SIZE) with bitmap (room for
 * palloc_bitmap_words(npages) words). base must be page-aligned. All
 * pages start used; add the usable ones with palloc_add_range().
 */
void palloc_init(struct palloc *pa, uint64_t base, uint64_t npages, uint64_t *bitmap);

/*
 * Mark free the whole pages inside [addr, addr + len) (rounding inward).
 * The part outside the managed range, and physical page 0, are ignored.
 */
void palloc_add_range(struct palloc *pa, uint64_t addr, uint64_t len);

/*
 * Mark used every managed page touching [addr, addr + len) (rounding
 * outward), whether it was free or allocated.
 */
void palloc_reserve_range(struct palloc *pa, uint64_t addr, uint64_t len);

/*
 * Allocate npages physically contiguous pages starting at a multiple of
 * align bytes (a power of two >= PAGE_SIZE, or 0 for PAGE_SIZE); the
 * lowest such run wins. Returns the physical address, or 0 if there is
 * none, npages is 0, or align is invalid.
 */
uint64_t palloc_alloc(struct palloc *pa, uint64_t npages, uint64_t align);

/*
 * As palloc_alloc, but the run must lie inside [lo, hi): it starts at or
 * above lo (rounded up to a page) and ends at or below hi (UINT64_MAX: no
 * bound). For DMA that a device can address only below 4 GiB, or memory
 * wanted above it. Returns the address, or 0 if there is no such run.
 */
uint64_t palloc_alloc_range(struct palloc *pa, uint64_t npages, uint64_t align, uint64_t lo, uint64_t hi);

/*
 * Free npages pages at addr. Returns 0, or -1 and changes nothing if addr
 * is not page-aligned, any page is outside the managed range or already
 * free. The bitmap cannot tell allocated pages from reserved ones: freeing
 * a reserved page succeeds (except physical page 0, which is refused).
 */
int palloc_free(struct palloc *pa, uint64_t addr, uint64_t npages);

#endif
