/* Physical memory map clean-up; see memmap.h. */
#include <string.h>
#include "kernel/memmap.h"

#define MAP_PAGE 4096u

static uint64_t end_of(const struct mem_region *m)
{
	return m->base + m->len;
}

/* Overlap strength: any type beats MEM_USABLE, then the higher number. */
static uint64_t rank(uint32_t type)
{
	return type == MEM_USABLE ? 0 : (uint64_t)type + 1;
}

static void remove_at(struct mem_region *r, int *n, int i)
{
	memmove(&r[i], &r[i + 1], (size_t)(*n - i - 1) * sizeof(*r));
	(*n)--;
}

/* Insert m into r[from..*n) by base, after equal bases; -1 if *n == max. */
static int insert_sorted(struct mem_region *r, int *n, int max, int from,
			 struct mem_region m)
{
	int i = *n;

	if (*n >= max)
		return -1;
	while (i > from && r[i - 1].base > m.base) {
		r[i] = r[i - 1];
		i--;
	}
	r[i] = m;
	(*n)++;
	return 0;
}

/*
 * Make sorted r[0..n) disjoint and merged. Everything before index i is
 * final: it ends at or before r[i].base, and later changes only raise
 * bases past i. Returns the new count or -1.
 */
static int resolve(struct mem_region *r, int n, int max)
{
	struct mem_region *a, *b, m;
	int i = 0;

	while (i + 1 < n) {
		a = &r[i];
		b = &r[i + 1];
		if (b->base > end_of(a) || (b->base == end_of(a) && b->type != a->type)) {
			i++;
		} else if (b->type == a->type) {
			if (end_of(b) > end_of(a))
				a->len = end_of(b) - a->base;
			remove_at(r, &n, i + 1);
		} else if (rank(a->type) > rank(b->type)) {
			/* a wins: b keeps only what lies past a's end. */
			m = *b;
			remove_at(r, &n, i + 1);
			if (end_of(&m) > end_of(a)) {
				m.len = end_of(&m) - end_of(a);
				m.base = end_of(a);
				insert_sorted(r, &n, max, i + 1, m);
			}
		} else {
			/* b wins: a keeps what lies before b, and after b's end. */
			if (end_of(a) > end_of(b)) {
				m = *a;
				m.base = end_of(b);
				m.len = end_of(a) - end_of(b);
				if (insert_sorted(r, &n, max, i + 1, m) != 0)
					return -1;
			}
			a->len = b->base - a->base;
			if (a->len == 0) {
				remove_at(r, &n, i);
				if (i > 0)
					i--;	/* r[i-1] may now merge with b */
			}
		}
	}
	return n;
}

/* Shrink usable regions to whole pages, dropping empty ones. */
static int page_align_usable(struct mem_region *r, int n)
{
	uint64_t lo, hi;
	int i = 0;

	while (i < n) {
		if (r[i].type != MEM_USABLE) {
			i++;
			continue;
		}
		hi = end_of(&r[i]) & ~(uint64_t)(MAP_PAGE - 1);
		lo = (r[i].base + MAP_PAGE - 1) & ~(uint64_t)(MAP_PAGE - 1);
		if (r[i].base > hi || lo >= hi) {
			remove_at(r, &n, i);
			continue;
		}
		r[i].base = lo;
		r[i].len = hi - lo;
		i++;
	}
	return n;
}

int memmap_sanitize(struct mem_region *r, int n, int max)
{
	int i, k = 0;

	if (n > max)
		return -1;
	/* Drop empty regions, clip at 2^64 - 1 and insertion-sort by base. */
	for (i = 0; i < n; i++) {
		if (r[i].len > UINT64_MAX - r[i].base)
			r[i].len = UINT64_MAX - r[i].base;
		if (r[i].len == 0)
			continue;
		insert_sorted(r, &k, max, 0, r[i]);
	}
	n = resolve(r, k, max);
	if (n < 0)
		return -1;
	return page_align_usable(r, n);
}

int memmap_reserve(struct mem_region *r, int n, int max, uint64_t base, uint64_t len)
{
	int i, need = n + 2;

	if (len > UINT64_MAX - base)
		len = UINT64_MAX - base;
	if (len == 0)
		return n;
	/*
	 * Worst case: one usable region split in two, plus the new region
	 * split once more around each stronger region inside it. Checked
	 * first so that a failure leaves r untouched.
	 */
	for (i = 0; i < n; i++)
		if (rank(r[i].type) > rank(MEM_RESERVED) &&
		    r[i].base < base + len && end_of(&r[i]) > base)
			need++;
	if (need > max)
		return -1;
	r[n].base = base;
	r[n].len = len;
	r[n].type = MEM_RESERVED;
	r[n].pad = 0;
	return memmap_sanitize(r, n + 1, max);
}

uint64_t memmap_usable_bytes(const struct mem_region *r, int n)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < n; i++)
		if (r[i].type == MEM_USABLE)
			sum += r[i].len;
	return sum;
}

int memmap_count_type(const struct mem_region *r, int n, uint32_t type)
{
	int i, count = 0;

	for (i = 0; i < n; i++)
		if (r[i].type == type)
			count++;
	return count;
}

uint64_t memmap_top(const struct mem_region *r, int n, uint32_t type)
{
	uint64_t top = 0;
	int i;

	for (i = 0; i < n; i++)
		if (r[i].type == type && end_of(&r[i]) > top)
			top = end_of(&r[i]);
	return top;
}

const char *memmap_type_name(uint32_t type)
{
	switch (type) {
	case MEM_USABLE:
		return "usable";
	case MEM_RESERVED:
		return "reserved";
	case MEM_ACPI:
		return "acpi";
	case MEM_NVS:
		return "nvs";
	case MEM_BAD:
		return "bad";
	default:
		return "unknown";
	}
}
