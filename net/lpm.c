/* IPv4 longest-prefix match, DIR-24-8 with a configurable stride: see lpm.h. */
#include <string.h>
#include "net/lpm.h"

/* Mask of the top len bits (len 0..32). */
static uint32_t len_mask(int len)
{
	return len == 0 ? 0 : ~0u << (32 - len);
}

static int valid(uint32_t prefix, int len)
{
	return len >= 0 && len <= 32 && (prefix & ~len_mask(len)) == 0;
}

/* Hash slots for max_rules: a power of two, at least twice as many. */
static uint32_t rule_slots(uint32_t max_rules)
{
	uint32_t n = 2;

	while (n < 2 * (uint64_t)max_rules)
		n <<= 1;
	return n;
}

size_t lpm_mem_size(unsigned bits, uint32_t max_groups, uint32_t max_rules)
{
	if (bits < LPM_BITS_MIN || bits > LPM_BITS_MAX || max_groups > LPM_GROUPS_MAX ||
	    max_rules == 0 || max_rules > (1u << 30) ||
	    (uint64_t)max_groups << (32 - bits) > (1ull << 32))
		return 0;
	size_t n1 = (size_t)1 << bits;
	size_t n2 = (size_t)max_groups << (32 - bits);
	return rule_slots(max_rules) * sizeof(struct lpm_rule) +
	       3 * n1 + 3 * n2 + 2 * (size_t)max_groups;
}

int lpm_init(struct lpm *t, unsigned bits, uint32_t max_groups, uint32_t max_rules,
	     lpm_alloc_fn alloc, void *ctx)
{
	size_t size = lpm_mem_size(bits, max_groups, max_rules);

	if (size == 0)
		return LPM_EINVAL;
	uint8_t *m = alloc(ctx, size);
	if (!m)
		return LPM_ENOSPC;
	memset(t, 0, sizeof(*t));
	t->mem = m;
	t->mem_size = size;
	t->bits = bits;
	t->shift = 32 - bits;
	t->mask2 = (uint32_t)(((uint64_t)1 << t->shift) - 1);
	t->max_groups = max_groups;
	t->max_rules = max_rules;
	t->rules_mask = rule_slots(max_rules) - 1;

	size_t n1 = (size_t)1 << bits, n2 = (size_t)max_groups << t->shift;
	t->rules = (struct lpm_rule *)m;
	m += (t->rules_mask + 1) * sizeof(struct lpm_rule);
	t->tbl1 = (uint16_t *)m;
	m += 2 * n1;
	t->tbl2 = (uint16_t *)m;
	m += 2 * n2;
	t->free_groups = (uint16_t *)m;
	m += 2 * (size_t)max_groups;
	t->depth1 = m;
	t->depth2 = m + n1;

	memset(t->rules, 0, (t->rules_mask + 1) * sizeof(struct lpm_rule));
	for (size_t i = 0; i < n1; i++)
		t->tbl1[i] = LPM_NONE;
	memset(t->depth1, 0, n1);
	for (uint32_t g = 0; g < max_groups; g++)	/* group 0 on top */
		t->free_groups[g] = (uint16_t)(max_groups - 1 - g);
	t->nfree_groups = max_groups;
	return 0;
}

/* Rule hash: linear probing, deletion by backward shift (no tombstones).
 * The key is mixed by MurmurHash3's finaliser: prefixes end in zero bits. */
static uint32_t rule_hash(const struct lpm *t, uint32_t prefix, int len)
{
	uint32_t h = prefix ^ (uint32_t)len * 0x9e3779b9u;

	h = (h ^ h >> 16) * 0x85ebca6bu;
	h = (h ^ h >> 13) * 0xc2b2ae35u;
	return (h ^ h >> 16) & t->rules_mask;
}

static struct lpm_rule *rule_find(const struct lpm *t, uint32_t prefix, int len)
{
	for (uint32_t i = rule_hash(t, prefix, len);; i = (i + 1) & t->rules_mask) {
		struct lpm_rule *r = &t->rules[i];
		if (!r->used)
			return NULL;
		if (r->prefix == prefix && r->len == len)
			return r;
	}
}

static void rule_insert(struct lpm *t, uint32_t prefix, int len, uint16_t nh)
{
	uint32_t i = rule_hash(t, prefix, len);

	while (t->rules[i].used)
		i = (i + 1) & t->rules_mask;
	t->rules[i] = (struct lpm_rule){ prefix, nh, (uint8_t)len, 1 };
	t->nrules++;
}

static void rule_remove(struct lpm *t, struct lpm_rule *r)
{
	uint32_t hole = (uint32_t)(r - t->rules);

	t->rules[hole].used = 0;
	for (uint32_t i = (hole + 1) & t->rules_mask; t->rules[i].used;
	     i = (i + 1) & t->rules_mask) {
		uint32_t home = rule_hash(t, t->rules[i].prefix, t->rules[i].len);
		/* Move i into the hole unless its home lies cyclically in (hole, i]. */
		if (((i - home) & t->rules_mask) >= ((i - hole) & t->rules_mask)) {
			t->rules[hole] = t->rules[i];
			t->rules[i].used = 0;
			hole = i;
		}
	}
	t->nrules--;
}

/* Write nh/depth into entries [from, from + n) of a level whose current
 * depth passes: an add (replace = 0) takes entries of depth <= depth, a
 * delete (replace = old depth) only those the deleted rule wrote. */
static void fill(uint16_t *e, uint8_t *d, size_t from, size_t n, uint16_t nh,
		 uint8_t depth, uint8_t replace)
{
	for (size_t i = from; i < from + n; i++) {
		if (replace ? d[i] == replace : d[i] <= depth) {
			e[i] = nh;
			d[i] = depth;
		}
	}
}

/* Apply a rule (or, with replace, undo one) whose length is <= bits. */
static void set_short(struct lpm *t, uint32_t prefix, int len, uint16_t nh,
		      uint8_t depth, uint8_t replace)
{
	size_t first = prefix >> t->shift, n = (size_t)1 << (t->bits - len);
	size_t gsize = (size_t)t->mask2 + 1;

	for (size_t i = first; i < first + n; i++) {
		if (t->tbl1[i] & LPM_EXT) {
			size_t g = t->tbl1[i] & ~LPM_EXT;
			fill(t->tbl2, t->depth2, g * gsize, gsize, nh, depth, replace);
		} else {
			fill(t->tbl1, t->depth1, i, 1, nh, depth, replace);
		}
	}
}

/* Apply or undo a rule whose length is > bits; its first-level slot must
 * already point at a group. */
static void set_long(struct lpm *t, uint32_t prefix, int len, uint16_t nh,
		     uint8_t depth, uint8_t replace)
{
	size_t g = t->tbl1[prefix >> t->shift] & ~LPM_EXT;
	size_t from = (g << t->shift) | (prefix & t->mask2);

	fill(t->tbl2, t->depth2, from, (size_t)1 << (32 - len), nh, depth, replace);
}

int lpm_add(struct lpm *t, uint32_t prefix, int len, uint16_t next_hop)
{
	if (!valid(prefix, len) || next_hop > LPM_NH_MAX)
		return LPM_EINVAL;
	struct lpm_rule *r = rule_find(t, prefix, len);
	uint32_t slot = prefix >> t->shift;
	int need_group = len > (int)t->bits && !(t->tbl1[slot] & LPM_EXT);

	if ((!r && t->nrules == t->max_rules) || (need_group && t->nfree_groups == 0))
		return LPM_ENOSPC;
	if (r)
		r->next_hop = next_hop;
	else
		rule_insert(t, prefix, len, next_hop);
	if (need_group) {	/* the group starts as a copy of the slot */
		uint16_t g = t->free_groups[--t->nfree_groups];
		size_t gsize = (size_t)t->mask2 + 1;
		for (size_t i = 0; i < gsize; i++)
			t->tbl2[g * gsize + i] = t->tbl1[slot];
		memset(t->depth2 + g * gsize, t->depth1[slot], gsize);
		t->tbl1[slot] = LPM_EXT | g;
	}
	if (len <= (int)t->bits)
		set_short(t, prefix, len, next_hop, (uint8_t)(len + 1), 0);
	else
		set_long(t, prefix, len, next_hop, (uint8_t)(len + 1), 0);
	return 0;
}

/* Free the group of first-level slot if no rule longer than bits is left
 * in it: all its entries then hold the same covering route. */
static void collapse(struct lpm *t, uint32_t slot)
{
	size_t gsize = (size_t)t->mask2 + 1, g = t->tbl1[slot] & ~LPM_EXT;
	const uint8_t *d = t->depth2 + g * gsize;

	for (size_t i = 0; i < gsize; i++)
		if (d[i] > t->bits + 1)
			return;
	t->tbl1[slot] = t->tbl2[g * gsize];
	t->depth1[slot] = d[0];
	t->free_groups[t->nfree_groups++] = (uint16_t)g;
}

int lpm_del(struct lpm *t, uint32_t prefix, int len)
{
	if (!valid(prefix, len))
		return LPM_EINVAL;
	struct lpm_rule *r = rule_find(t, prefix, len);
	if (!r)
		return LPM_EINVAL;
	rule_remove(t, r);

	uint16_t nh = LPM_NONE;		/* the longest shorter rule covering it */
	uint8_t depth = 0;
	for (int l = len - 1; l >= 0; l--) {
		const struct lpm_rule *c = rule_find(t, prefix & len_mask(l), l);
		if (c) {
			nh = c->next_hop;
			depth = (uint8_t)(l + 1);
			break;
		}
	}
	if (len <= (int)t->bits) {
		set_short(t, prefix, len, nh, depth, (uint8_t)(len + 1));
	} else {
		set_long(t, prefix, len, nh, depth, (uint8_t)(len + 1));
		collapse(t, prefix >> t->shift);
	}
	return 0;
}

void lpm_lookup_burst(const struct lpm *t, const uint32_t *addrs, uint16_t *out, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		out[i] = t->tbl1[addrs[i] >> t->shift];
	for (unsigned i = 0; i < n; i++)
		if (out[i] & LPM_EXT)
			out[i] = t->tbl2[((uint32_t)(out[i] & ~LPM_EXT) << t->shift) |
					 (addrs[i] & t->mask2)];
}
