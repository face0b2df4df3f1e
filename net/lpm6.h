/*
 * IPv6 longest-prefix match for the L3 router: a multibit trie with
 * controlled prefix expansion (Srinivasan, Varghese, "Fast Address Lookups
 * Using Controlled Prefix Expansion", 1999), the idea of DPDK's rte_lpm6
 * with a smaller first level.
 *
 * Tables. The root has 2^16 entries indexed by the address's first two
 * bytes; below it, groups of 256 entries each indexed by one more byte
 * (bits 16-23, 24-31, ... 120-127: at most 15 levels). An entry is a next
 * hop with the length of the prefix that wrote it, or a child group. A
 * prefix of length len is written into every entry of the level holding
 * bit len - 1 that it covers (2^(level's end - len) entries), and into the
 * child groups below them where no longer prefix wrote. A lookup reads one
 * entry per level down to the first that is not a child: 3 reads for a
 * /32, 7 for a /64, 15 for a /128.
 *
 * Memory (bytes; lpm6_mem_size): 4 * (2^16 + 256 * max_groups). A /64
 * needs up to 6 groups of its own, a /128 up to 14; prefixes that share
 * their first bytes share groups.
 *
 * Rules are added only (the router builds its table once, at init): no
 * delete, and a second add of the same prefix replaces its next hop.
 * Not thread-safe; lookups must not run during an add.
 */
#ifndef NET_LPM6_H
#define NET_LPM6_H
#include <stddef.h>
#include <stdint.h>

#define LPM6_NONE	0xFFFFu		/* lookup result: no route */
#define LPM6_NH_MAX	0xFFFEu		/* largest next-hop index */
#define LPM6_ROOT_BITS	16
#define LPM6_GROUPS_MAX	65536u

/* Error returns of lpm6_init and lpm6_add. */
#define LPM6_EINVAL	(-1)	/* bad argument */
#define LPM6_ENOSPC	(-2)	/* no group left (the table is then unchanged) */

/* An entry: bit 31 child, bits 16-23 the prefix length + 1 that wrote a
 * next hop (0: none), bits 0-15 the next hop or the child group. */
#define LPM6_CHILD	0x80000000u

/* Gives `bytes` bytes of memory, at least 4-byte aligned, or NULL. */
typedef void *(*lpm6_alloc_fn)(void *ctx, size_t bytes);

struct lpm6 {
	uint32_t *root;		/* 2^16 entries */
	uint32_t *groups;	/* max_groups * 256 entries */
	uint32_t ngroups;	/* groups in use */
	uint32_t max_groups;
	void *mem;		/* the one block lpm6_init allocated */
	size_t mem_size;
};

/* Bytes lpm6_init allocates for max_groups groups (0 if too many). */
size_t lpm6_mem_size(uint32_t max_groups);

/* An empty table (every lookup gives LPM6_NONE) with room for max_groups
 * groups (0..LPM6_GROUPS_MAX), from one alloc(ctx, lpm6_mem_size(...))
 * call (t->mem, the caller's to free). Returns 0, LPM6_EINVAL for a bad
 * max_groups, LPM6_ENOSPC if alloc failed. */
int lpm6_init(struct lpm6 *t, uint32_t max_groups, lpm6_alloc_fn alloc, void *ctx);

/* Route prefix/len (16 bytes, network order) to next_hop (0..LPM6_NH_MAX);
 * the same prefix again gets the new next hop. Returns 0; LPM6_EINVAL if
 * len > 128, a bit beyond len is set or next_hop > LPM6_NH_MAX;
 * LPM6_ENOSPC if the groups it needs are not left. */
int lpm6_add(struct lpm6 *t, const uint8_t prefix[16], int len, uint16_t next_hop);

/* Next hop of the longest prefix matching addr (network order), or
 * LPM6_NONE. */
static inline uint16_t lpm6_lookup(const struct lpm6 *t, const uint8_t addr[16])
{
	uint32_t e = t->root[addr[0] << 8 | addr[1]];
	for (int i = 2; e & LPM6_CHILD; i++)
		e = t->groups[(e & 0xffff) << 8 | addr[i]];
	return e >> 16 ? (uint16_t)e : LPM6_NONE;
}
#endif
