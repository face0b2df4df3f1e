/* Physical page allocator; see palloc.h. */
#include "kernel/palloc.h"

/* Index of the first free page in [i, npages), or npages if none. */
static uint64_t next_free(const struct palloc *pa, uint64_t i)
{
	uint64_t word = i / 64, w;

	if (i >= pa->npages)
		return pa->npages;
	w = ~pa->bitmap[word] & (~(uint64_t)0 << (i % 64));
	while (w == 0) {	/* skip words with every page used */
		if (++word * 64 >= pa->npages)
			return pa->npages;
		w = ~pa->bitmap[word];
	}
	i = word * 64 + (uint64_t)__builtin_ctzll(w);
	return i < pa->npages ? i : pa->npages;
}

/* Index of the first used page in [i, limit), or limit if none. */
static uint64_t next_used(const struct palloc *pa, uint64_t i, uint64_t limit)
{
	uint64_t word = i / 64, w;

	if (i >= limit)
		return limit;
	w = pa->bitmap[word] & (~(uint64_t)0 << (i % 64));
	while (w == 0) {	/* skip words with every page free */
		if (++word * 64 >= limit)
			return limit;
		w = pa->bitmap[word];
	}
	i = word * 64 + (uint64_t)__builtin_ctzll(w);
	return i < limit ? i : limit;
}

/* Set bits in w (SWAR; the kernel has no libgcc for __builtin_popcountll). */
static uint64_t popcount64(uint64_t w)
{
	w -= (w >> 1) & 0x5555555555555555ull;
	w = (w & 0x3333333333333333ull) + ((w >> 2) & 0x3333333333333333ull);
	w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (w * 0x0101010101010101ull) >> 56;
}

/* Bits [i, end) of the word holding page i, as a mask; end is clipped to that word. */
static uint64_t word_mask(uint64_t i, uint64_t end)
{
	uint64_t n = end - i < 64 - i % 64 ? end - i : 64 - i % 64;
	return (n == 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1)) << (i % 64);
}

/* Set (used = 1) or clear the bits of pages [i, end) a word at a time, keeping free_pages. */
static void mark(struct palloc *pa, uint64_t i, uint64_t end, int used)
{
	while (i < end) {
		uint64_t m = word_mask(i, end);
		uint64_t *w = &pa->bitmap[i / 64];
		uint64_t change = used ? m & ~*w : m & *w;
		uint64_t n = popcount64(change);
		*w ^= change;
		pa->free_pages = used ? pa->free_pages - n : pa->free_pages + n;
		i = (i | 63) + 1;
	}
}

static void mark_used(struct palloc *pa, uint64_t i, uint64_t end)
{
	mark(pa, i, end, 1);
}

static void mark_free(struct palloc *pa, uint64_t i, uint64_t end)
{
	if (i < end && i < pa->hint)
		pa->hint = i;
	mark(pa, i, end, 0);
}

/*
 * Page indices [*lo, *hi) of [addr, addr + len) clipped to the managed
 * range: pages touched if outward, else only whole pages. Empty: lo >= hi.
 */
static void page_span(const struct palloc *pa, uint64_t addr, uint64_t len,
		      int outward, uint64_t *lo, uint64_t *hi)
{
	uint64_t end = pa->base + pa->npages * PAGE_SIZE;
	uint64_t a = addr, b = len > UINT64_MAX - addr ? UINT64_MAX : addr + len;

	*lo = *hi = 0;
	if (a < pa->base)
		a = pa->base;
	if (b > end)
		b = end;
	if (a >= b)
		return;
	a -= pa->base;
	b -= pa->base;
	if (outward) {
		*lo = a / PAGE_SIZE;
		*hi = (b + PAGE_SIZE - 1) / PAGE_SIZE;
	} else {
		*lo = (a + PAGE_SIZE - 1) / PAGE_SIZE;
		*hi = b / PAGE_SIZE;
	}
}

/* Lowest index >= i whose address is a multiple of align (may be >= npages). */
static uint64_t align_index(const struct palloc *pa, uint64_t i, uint64_t align)
{
	uint64_t addr = pa->base + i * PAGE_SIZE;
	uint64_t up = (addr + align - 1) & ~(align - 1);

	if (up < addr)
		return pa->npages;
	return (up - pa->base) / PAGE_SIZE;
}

uint64_t palloc_bitmap_words(uint64_t npages)
{
	return (npages + 63) / 64;
}

void palloc_init(struct palloc *pa, uint64_t base, uint64_t npages, uint64_t *bitmap)
{
	uint64_t i;

	pa->base = base;
	pa->npages = npages;
	pa->bitmap = bitmap;
	pa->free_pages = 0;
	pa->hint = 0;
	/* Also sets the bits past npages, so scans can stop on them. */
	for (i = 0; i < palloc_bitmap_words(npages); i++)
		bitmap[i] = ~(uint64_t)0;
}

void palloc_add_range(struct palloc *pa, uint64_t addr, uint64_t len)
{
	uint64_t lo, hi;

	page_span(pa, addr, len, 0, &lo, &hi);
	if (pa->base == 0 && lo == 0)
		lo = 1;		/* physical page 0 stays reserved */
	mark_free(pa, lo, hi);
}

void palloc_reserve_range(struct palloc *pa, uint64_t addr, uint64_t len)
{
	uint64_t lo, hi;

	page_span(pa, addr, len, 1, &lo, &hi);
	mark_used(pa, lo, hi);
}

uint64_t palloc_alloc(struct palloc *pa, uint64_t npages, uint64_t align)
{
	return palloc_alloc_range(pa, npages, align, 0, UINT64_MAX);
}

/* Page index of physical address a, clamped to [0, npages]. */
static uint64_t index_of(const struct palloc *pa, uint64_t a)
{
	if (a <= pa->base)
		return 0;
	uint64_t i = (a - pa->base) / PAGE_SIZE;
	return i < pa->npages ? i : pa->npages;
}

uint64_t palloc_alloc_range(struct palloc *pa, uint64_t npages, uint64_t align, uint64_t lo, uint64_t hi)
{
	uint64_t i, u, first, end = pa->npages;

	if (align == 0)
		align = PAGE_SIZE;
	if (npages == 0 || align < PAGE_SIZE || (align & (align - 1)) != 0)
		return 0;
	pa->hint = next_free(pa, pa->hint);
	if (hi != UINT64_MAX)
		end = index_of(pa, hi);
	first = index_of(pa, lo + PAGE_SIZE - 1 < lo ? lo : lo + PAGE_SIZE - 1);
	i = align_index(pa, first > pa->hint ? next_free(pa, first) : pa->hint, align);
	while (i < end && npages <= end - i) {
		u = next_used(pa, i, i + npages);
		if (u == i + npages) {
			mark_used(pa, i, i + npages);
			if (i == pa->hint)
				pa->hint = i + npages;
			return pa->base + i * PAGE_SIZE;
		}
		i = align_index(pa, next_free(pa, u), align);
	}
	return 0;
}

int palloc_free(struct palloc *pa, uint64_t addr, uint64_t npages)
{
	uint64_t i;

	if (addr == 0 || addr < pa->base || (addr - pa->base) % PAGE_SIZE != 0)
		return -1;
	i = (addr - pa->base) / PAGE_SIZE;
	if (i >= pa->npages || npages > pa->npages - i)
		return -1;
	if (next_free(pa, i) < i + npages)
		return -1;
	mark_free(pa, i, i + npages);
	return 0;
}
