/* IPv6 longest-prefix match, a multibit trie: see lpm6.h. */
#include <string.h>
#include "net/lpm6.h"

size_t lpm6_mem_size(uint32_t max_groups)
{
	if (max_groups > LPM6_GROUPS_MAX)
		return 0;
	return 4 * (((size_t)1 << LPM6_ROOT_BITS) + 256 * (size_t)max_groups);
}

int lpm6_init(struct lpm6 *t, uint32_t max_groups, lpm6_alloc_fn alloc, void *ctx)
{
	size_t size = lpm6_mem_size(max_groups);
	if (!size)
		return LPM6_EINVAL;
	uint32_t *m = alloc(ctx, size);
	if (!m)
		return LPM6_ENOSPC;
	memset(m, 0, size);
	*t = (struct lpm6){ .root = m, .groups = m + (1u << LPM6_ROOT_BITS), .max_groups = max_groups,
			    .mem = m, .mem_size = size };
	return 0;
}

/* Groups prefix/len needs that do not exist yet: one per level it passes
 * through (ends below bit len) whose entry is not a child already. */
static uint32_t groups_needed(const struct lpm6 *t, const uint8_t *prefix, int len)
{
	uint32_t n = 0, e = t->root[prefix[0] << 8 | prefix[1]];
	for (int end = 16; end < len; end += 8) {
		if (!(e & LPM6_CHILD))
			return n + (uint32_t)(len - end + 7) / 8;
		e = t->groups[(e & 0xffff) << 8 | prefix[end / 8]];
	}
	return n;
}

/* Write next hop entry v (of prefix length + 1 in bits 16-23) into the n
 * entries from e on, where no longer prefix wrote, through their child
 * groups (one call per group, not per entry: a /0 covers 65,536). */
static void fill(struct lpm6 *t, uint32_t *e, uint32_t n, uint32_t v)
{
	for (uint32_t i = 0; i < n; i++) {
		if (e[i] & LPM6_CHILD)
			fill(t, &t->groups[(e[i] & 0xffff) << 8], 256, v);
		else if ((e[i] >> 16) <= (v >> 16))
			e[i] = v;
	}
}

/* Entry *e as a child group, made from what it held (copied into all 256). */
static uint32_t *descend(struct lpm6 *t, uint32_t *e)
{
	if (!(*e & LPM6_CHILD)) {
		uint32_t g = t->ngroups++;
		for (int i = 0; i < 256; i++)
			t->groups[g << 8 | i] = *e;
		*e = LPM6_CHILD | g;
	}
	return &t->groups[(*e & 0xffff) << 8];
}

int lpm6_add(struct lpm6 *t, const uint8_t prefix[16], int len, uint16_t next_hop)
{
	if (len < 0 || len > 128 || next_hop > LPM6_NH_MAX)
		return LPM6_EINVAL;
	for (int b = len; b < 128; b++)
		if (prefix[b / 8] >> (7 - b % 8) & 1)
			return LPM6_EINVAL;
	if (groups_needed(t, prefix, len) > t->max_groups - t->ngroups)
		return LPM6_ENOSPC;
	uint32_t v = (uint32_t)(len + 1) << 16 | next_hop;
	uint32_t *tbl = t->root, idx = (uint32_t)(prefix[0] << 8 | prefix[1]);
	int end = LPM6_ROOT_BITS;	/* the bit after the current level */
	while (len > end) {
		tbl = descend(t, &tbl[idx]);
		idx = prefix[end / 8];
		end += 8;
	}
	fill(t, &tbl[idx], 1u << (end - len), v);
	return 0;
}
