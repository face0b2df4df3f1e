/* Fuzz net/lpm.c against a reference: a program of add/delete/lookup
 * operations from the input; after each, lookups of addresses the input
 * names and of the edges of every rule agree with a linear scan of the
 * rules the reference keeps. The router's stride (20 bits) with 4 groups
 * and 16 rules, so that ENOSPC paths are reached too; it is made once and
 * every input deletes what it added, which must leave it empty again.
 * Prefixes are /12../32 (and an invalid /33): a shorter one rewrites 2^8
 * first-level entries or more per add and would slow the search 100-fold;
 * tests/unit/test_lpm.c covers /0../11. Inputs of at most 64 operations
 * (run.py's -max_len): enough to fill and empty every rule and group. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "net/bytes.h"
#include "net/lpm.h"

#define RULES 16
static struct { uint32_t prefix; uint8_t len, used; uint16_t nh; } ref[RULES];

static void *host_alloc(void *ctx, size_t bytes)
{
	(void)ctx;
	return malloc(bytes);
}

static uint32_t mask(int len)
{
	return len ? ~0u << (32 - len) : 0;
}

static uint16_t ref_lookup(uint32_t a)
{
	int best = -1;
	uint16_t nh = LPM_NONE;
	for (int i = 0; i < RULES; i++)
		if (ref[i].used && (a & mask(ref[i].len)) == ref[i].prefix && ref[i].len > best) {
			best = ref[i].len;
			nh = ref[i].nh;
		}
	return nh;
}

static int ref_find(uint32_t prefix, int len)
{
	for (int i = 0; i < RULES; i++)
		if (ref[i].used && ref[i].prefix == prefix && ref[i].len == len)
			return i;
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct lpm t;
	if (!t.mem && lpm_init(&t, 20, 4, RULES, host_alloc, NULL))
		abort();
	memset(ref, 0, sizeof(ref));
	for (size_t i = 0; i + 7 <= len; i += 7) {
		const uint8_t *op = data + i;
		int l = 12 + op[1] % 22;	/* 33: invalid */
		uint32_t a = get32(op + 2);
		uint16_t nh = (uint16_t)(op[6] * 127u);	/* <= LPM_NH_MAX */
		if (op[0] % 3 == 0) {
			uint32_t p = a & mask(l > 32 ? 32 : l);
			int r = lpm_add(&t, l > 32 ? a : p, l, nh);
			if (l > 32) {
				assert(r == LPM_EINVAL);
				continue;
			}
			int k = ref_find(p, l);
			if (r == 0) {
				if (k < 0)
					for (k = 0; ref[k].used; k++)
						assert(k + 1 < RULES);
				ref[k].prefix = p;
				ref[k].len = (uint8_t)l;
				ref[k].nh = nh;
				ref[k].used = 1;
			} else {
				assert(r == LPM_ENOSPC && k < 0);
			}
		} else if (op[0] % 3 == 1) {
			uint32_t p = a & mask(l > 32 ? 32 : l);
			int r = lpm_del(&t, p, l);
			int k = l > 32 ? -1 : ref_find(p, l);
			assert((r == 0) == (k >= 0));
			if (k >= 0)
				ref[k].used = 0;
		}
		assert(lpm_lookup(&t, a) == ref_lookup(a));
		for (int k = 0; k < RULES; k++) {
			if (!ref[k].used)
				continue;
			uint32_t lo = ref[k].prefix, hi = lo | ~mask(ref[k].len);
			assert(lpm_lookup(&t, lo) == ref_lookup(lo));
			assert(lpm_lookup(&t, hi) == ref_lookup(hi));
			assert(lpm_lookup(&t, lo - 1) == ref_lookup(lo - 1));
			assert(lpm_lookup(&t, hi + 1) == ref_lookup(hi + 1));
		}
	}
	uint32_t addrs[8];
	uint16_t out[8];
	for (int i = 0; i < 8; i++)
		addrs[i] = (uint32_t)i * 0x20000001u + (len ? data[len - 1] : 0);
	lpm_lookup_burst(&t, addrs, out, 8);
	for (int i = 0; i < 8; i++)
		assert(out[i] == ref_lookup(addrs[i]));
	for (int k = 0; k < RULES; k++)
		if (ref[k].used)
			assert(lpm_del(&t, ref[k].prefix, ref[k].len) == 0);
	assert(t.nrules == 0 && t.nfree_groups == t.max_groups);
	assert(lpm_lookup(&t, addrs[0]) == LPM_NONE && lpm_lookup(&t, ~addrs[1]) == LPM_NONE);
	return 0;
}
