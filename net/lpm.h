/*
 * IPv4 longest-prefix match for the L3 router: DIR-24-8 (Gupta, Lin,
 * McKeown, "Routing Lookups in Hardware at Memory Access Speeds", 1998),
 * the scheme of DPDK's rte_lpm, with a configurable first-level stride.
 *
 * Tables. The first table has 2^bits 16-bit entries, indexed by the top
 * `bits` bits of the address (bits = 24 is DIR-24-8). An entry holds either
 * a next hop (bit 15 clear: 0..LPM_NH_MAX, or LPM_NONE) or, for a first-level
 * slot that a prefix longer than `bits` falls into, LPM_EXT | group: the
 * index of a second-level group of 2^(32 - bits) entries indexed by the low
 * bits of the address. Second-level entries are next hops only. A lookup is
 * one load, or two when the first has LPM_EXT set.
 *
 * Memory (bytes; lpm_mem_size computes it):
 *   first level    3 * 2^bits            (2-byte entry + 1-byte depth)
 *   second level   3 * 2^(32-bits) * max_groups
 *   rules          8 * 2 * max_rules (rounded up to a power of two)
 * The depth bytes say which rule wrote each entry; only add and delete read
 * them, so the fast path touches the 2-byte entries alone.
 *
 * For bits = 24 the first level is 32 MiB of entries plus 16 MiB of depths,
 * 48 MiB: too much for the 32 MiB guest of the design target. That is why
 * the stride is a parameter rather than a second scheme: bits = 20 costs
 * 3 MiB at the first level and 12 KiB per second-level group (4096 entries),
 * bits = 16 costs 192 KiB and 192 KiB per group. The lookup code is the same
 * (a shift by a variable), so a small guest pays one more cache miss only
 * for addresses under prefixes longer than `bits`. Use 24 where memory
 * allows, 18..20 in a 32 MiB guest with up to a few hundred long prefixes.
 *
 * Rules (prefix, length, next hop) are kept in an open-addressing hash so
 * that a delete restores the longest remaining prefix that covers the
 * deleted one, and an add of an existing prefix replaces its next hop.
 * Add and delete are control-plane calls, not for the fast path: they
 * rewrite every table entry under the prefix (2^(bits - len) entries for a
 * short prefix). Not thread-safe, and lookups must not run during an
 * update: the stores are not ordered for concurrent readers.
 */
#ifndef NET_LPM_H
#define NET_LPM_H
#include <stddef.h>
#include <stdint.h>

#define LPM_NONE	0x7FFFu		/* lookup result: no route */
#define LPM_NH_MAX	0x7FFEu		/* largest next-hop index */
#define LPM_EXT		0x8000u		/* first-level entry: low 15 bits are a group */
#define LPM_BITS_MIN	8		/* first-level stride range, bits */
#define LPM_BITS_MAX	24
#define LPM_GROUPS_MAX	32768u		/* 15-bit group index */

/* Error returns of lpm_init, lpm_add and lpm_del. */
#define LPM_EINVAL	(-1)	/* bad argument; lpm_del: no such rule */
#define LPM_ENOSPC	(-2)	/* no second-level group or rule slot left */

/* Gives `bytes` bytes of memory, at least 8-byte aligned, or NULL. The
 * kernel passes its page allocator, the host tests malloc. */
typedef void *(*lpm_alloc_fn)(void *ctx, size_t bytes);

struct lpm_rule {
	uint32_t prefix;	/* host order, bits beyond len zero */
	uint16_t next_hop;
	uint8_t len;		/* 0..32 */
	uint8_t used;
};

struct lpm {
	uint16_t *tbl1;		/* 2^bits entries */
	uint16_t *tbl2;		/* max_groups * 2^shift entries */
	unsigned shift;		/* 32 - bits: address bits below the first level */
	uint32_t mask2;		/* 2^shift - 1 */
	unsigned bits;
	uint8_t *depth1;	/* per entry: rule length + 1 that wrote it, 0 = none */
	uint8_t *depth2;
	uint16_t *free_groups;	/* stack of unused group indices */
	uint32_t nfree_groups;
	uint32_t max_groups;
	struct lpm_rule *rules;	/* hash, rules_mask + 1 slots */
	uint32_t rules_mask;
	uint32_t nrules;
	uint32_t max_rules;
	void *mem;		/* the one block lpm_init allocated */
	size_t mem_size;	/* its size, bytes */
};

/* Bytes lpm_init will allocate for these parameters (0 if they are bad). */
size_t lpm_mem_size(unsigned bits, uint32_t max_groups, uint32_t max_rules);

/* Make an empty table (every lookup gives LPM_NONE) with a first level of
 * 2^bits entries (LPM_BITS_MIN..LPM_BITS_MAX), room for max_groups
 * second-level groups (0..LPM_GROUPS_MAX) and max_rules rules (>= 1). Memory
 * comes from one alloc(ctx, lpm_mem_size(...)) call and is t->mem; nothing
 * else allocates, and the caller frees t->mem when done with the table.
 * Returns 0, LPM_EINVAL for bad parameters, LPM_ENOSPC if alloc failed. */
int lpm_init(struct lpm *t, unsigned bits, uint32_t max_groups, uint32_t max_rules,
	     lpm_alloc_fn alloc, void *ctx);

/* Route prefix/len (prefix in host order, 10.1.0.0 = 0x0a010000) to
 * next_hop (0..LPM_NH_MAX); an existing rule for prefix/len gets the new
 * next hop. Returns 0; LPM_EINVAL if len > 32, a bit beyond len is set in
 * prefix, or next_hop > LPM_NH_MAX; LPM_ENOSPC if the rule needs a
 * second-level group or a rule slot and none is left (the table is then
 * unchanged). */
int lpm_add(struct lpm *t, uint32_t prefix, int len, uint16_t next_hop);

/* Remove prefix/len; addresses under it go back to the longest remaining
 * rule that covers them. A group left without prefixes longer than `bits`
 * is freed. Returns 0, or LPM_EINVAL if there is no such rule (or len and
 * prefix are invalid as for lpm_add). */
int lpm_del(struct lpm *t, uint32_t prefix, int len);

/* Next hop of the longest prefix matching addr (host order), or LPM_NONE. */
static inline uint16_t lpm_lookup(const struct lpm *t, uint32_t addr)
{
	uint16_t e = t->tbl1[addr >> t->shift];

	if (e & LPM_EXT)
		e = t->tbl2[((uint32_t)(e & ~LPM_EXT) << t->shift) | (addr & t->mask2)];
	return e;
}

/* lpm_lookup for n addresses: out[i] = lpm_lookup(t, addrs[i]). The first
 * level of the whole burst is read before any second level, so the misses
 * of a burst overlap. */
void lpm_lookup_burst(const struct lpm *t, const uint32_t *addrs, uint16_t *out, unsigned n);

#endif
