/* Unit tests for net/lpm.c: overlapping prefixes, /0 and /32, deletes that
 * restore the covering route, bad arguments, group exhaustion, and random
 * tables checked against reference lookups that do not use the tables. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "net/lpm.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

static void *host_alloc(void *ctx, size_t bytes)
{
	(void)ctx;
	return malloc(bytes);
}

/* splitmix64: a fixed seed gives the same table on every run. */
static uint64_t rng_state;
static uint32_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ z >> 27) * 0x94d049bb133111ebull;
	return (uint32_t)((z ^ z >> 31) >> 32);
}

static uint32_t mask(int len)
{
	return len == 0 ? 0 : ~0u << (32 - len);
}

static void test_overlapping(void **state)
{
	struct lpm t;
	(void)state;
	assert_int_equal(lpm_init(&t, 24, 16, 64, host_alloc, NULL), 0);
	assert_int_equal(lpm_lookup(&t, IP(10, 1, 2, 3)), LPM_NONE);
	assert_int_equal(lpm_add(&t, IP(10, 0, 0, 0), 8, 1), 0);
	assert_int_equal(lpm_add(&t, IP(10, 1, 0, 0), 16, 2), 0);
	assert_int_equal(lpm_add(&t, IP(10, 1, 2, 0), 24, 3), 0);
	assert_int_equal(lpm_add(&t, IP(10, 1, 2, 128), 25, 4), 0);
	assert_int_equal(lpm_add(&t, IP(10, 1, 2, 129), 32, 5), 0);

	assert_int_equal(lpm_lookup(&t, IP(10, 200, 0, 1)), 1);
	assert_int_equal(lpm_lookup(&t, IP(10, 1, 99, 1)), 2);
	assert_int_equal(lpm_lookup(&t, IP(10, 1, 2, 127)), 3);
	assert_int_equal(lpm_lookup(&t, IP(10, 1, 2, 128)), 4);
	assert_int_equal(lpm_lookup(&t, IP(10, 1, 2, 129)), 5);
	assert_int_equal(lpm_lookup(&t, IP(10, 1, 2, 130)), 4);
	assert_int_equal(lpm_lookup(&t, IP(10, 1, 2, 255)), 4);
	assert_int_equal(lpm_lookup(&t, IP(11, 0, 0, 0)), LPM_NONE);
	assert_int_equal(lpm_lookup(&t, IP(9, 255, 255, 255)), LPM_NONE);
	assert_int_equal(t.max_groups - t.nfree_groups, 1);

	/* A shorter prefix added last must not cover the longer ones. */
	assert_int_equal(lpm_add(&t, IP(0, 0, 0, 0), 0, 9), 0);
	assert_int_equal(lpm_lookup(&t, IP(11, 0, 0, 0)), 9);
	assert_int_equal(lpm_lookup(&t, IP(10, 1, 2, 129)), 5);
	assert_int_equal(lpm_lookup(&t, IP(10, 1, 2, 1)), 3);
	/* Re-adding a prefix replaces its next hop only. */
	assert_int_equal(lpm_add(&t, IP(10, 1, 0, 0), 16, 7), 0);
	assert_int_equal(lpm_lookup(&t, IP(10, 1, 99, 1)), 7);
	assert_int_equal(lpm_lookup(&t, IP(10, 1, 2, 1)), 3);
	assert_int_equal(t.nrules, 6);

	uint32_t a[4] = { IP(10, 1, 2, 129), IP(10, 1, 2, 1), IP(12, 0, 0, 1), IP(10, 2, 0, 0) };
	uint16_t out[4];
	lpm_lookup_burst(&t, a, out, 4);
	assert_int_equal(out[0], 5);
	assert_int_equal(out[1], 3);
	assert_int_equal(out[2], 9);
	assert_int_equal(out[3], 1);
	free(t.mem);
}

static void test_default_and_host_routes(void **state)
{
	struct lpm t;
	(void)state;
	assert_int_equal(lpm_init(&t, 24, 4, 16, host_alloc, NULL), 0);
	assert_int_equal(lpm_add(&t, 0, 0, 0), 0);
	assert_int_equal(lpm_lookup(&t, 0), 0);
	assert_int_equal(lpm_lookup(&t, 0xffffffff), 0);
	assert_int_equal(lpm_add(&t, 0xffffffff, 32, 100), 0);
	assert_int_equal(lpm_add(&t, 0, 32, 101), 0);
	assert_int_equal(lpm_add(&t, IP(192, 168, 0, 1), 32, LPM_NH_MAX), 0);
	assert_int_equal(lpm_lookup(&t, 0xffffffff), 100);
	assert_int_equal(lpm_lookup(&t, 0xfffffffe), 0);
	assert_int_equal(lpm_lookup(&t, 0), 101);
	assert_int_equal(lpm_lookup(&t, 1), 0);
	assert_int_equal(lpm_lookup(&t, IP(192, 168, 0, 1)), LPM_NH_MAX);
	assert_int_equal(lpm_lookup(&t, IP(192, 168, 0, 2)), 0);
	assert_int_equal(t.max_groups - t.nfree_groups, 3);
	/* Deleting the host routes frees their groups; the default stays. */
	assert_int_equal(lpm_del(&t, 0xffffffff, 32), 0);
	assert_int_equal(lpm_del(&t, 0, 32), 0);
	assert_int_equal(lpm_del(&t, IP(192, 168, 0, 1), 32), 0);
	assert_int_equal(t.nfree_groups, t.max_groups);
	assert_int_equal(lpm_lookup(&t, 0xffffffff), 0);
	assert_int_equal(lpm_lookup(&t, IP(192, 168, 0, 1)), 0);
	assert_int_equal(lpm_del(&t, 0, 0), 0);
	assert_int_equal(lpm_lookup(&t, IP(192, 168, 0, 1)), LPM_NONE);
	assert_int_equal(t.nrules, 0);
	free(t.mem);
}

static void test_delete_restores_cover(void **state)
{
	struct lpm t;
	(void)state;
	assert_int_equal(lpm_init(&t, 24, 16, 64, host_alloc, NULL), 0);
	assert_int_equal(lpm_add(&t, IP(10, 0, 0, 0), 8, 1), 0);
	assert_int_equal(lpm_add(&t, IP(10, 1, 0, 0), 16, 2), 0);
	assert_int_equal(lpm_add(&t, IP(10, 1, 2, 0), 24, 3), 0);
	assert_int_equal(lpm_add(&t, IP(10, 1, 2, 128), 25, 4), 0);
	assert_int_equal(lpm_add(&t, IP(10, 1, 2, 129), 32, 5), 0);

	/* The /25 goes: 10.1.2.128..255 fall back to the /24, the /32 stays. */
	assert_int_equal(lpm_del(&t, IP(10, 1, 2, 128), 25), 0);
	assert_int_equal(lpm_lookup(&t, IP(10, 1, 2, 130)), 3);
	assert_int_equal(lpm_lookup(&t, IP(10, 1, 2, 129)), 5);
	/* The /16 goes: the /24 and /32 under it stay, the rest is the /8's. */
	assert_int_equal(lpm_del(&t, IP(10, 1, 0, 0), 16), 0);
	assert_int_equal(lpm_lookup(&t, IP(10, 1, 3, 1)), 1);
	assert_int_equal(lpm_lookup(&t, IP(10, 1, 2, 1)), 3);
	assert_int_equal(lpm_lookup(&t, IP(10, 1, 2, 129)), 5);
	/* The /32 goes: its group is freed, the /24 covers the whole slot. */
	assert_int_equal(lpm_del(&t, IP(10, 1, 2, 129), 32), 0);
	assert_int_equal(t.nfree_groups, t.max_groups);
	assert_int_equal(lpm_lookup(&t, IP(10, 1, 2, 129)), 3);
	assert_int_equal(lpm_del(&t, IP(10, 1, 2, 0), 24), 0);
	assert_int_equal(lpm_lookup(&t, IP(10, 1, 2, 129)), 1);
	/* Not there (any more): a deleted rule, a prefix never added. */
	assert_int_equal(lpm_del(&t, IP(10, 1, 2, 0), 24), LPM_EINVAL);
	assert_int_equal(lpm_del(&t, IP(10, 0, 0, 0), 9), LPM_EINVAL);
	assert_int_equal(lpm_lookup(&t, IP(10, 1, 2, 129)), 1);
	assert_int_equal(lpm_del(&t, IP(10, 0, 0, 0), 8), 0);
	assert_int_equal(lpm_lookup(&t, IP(10, 1, 2, 129)), LPM_NONE);
	free(t.mem);
}

static void test_invalid(void **state)
{
	struct lpm t;
	(void)state;
	assert_int_equal(lpm_init(&t, 25, 16, 64, host_alloc, NULL), LPM_EINVAL);
	assert_int_equal(lpm_init(&t, 7, 16, 64, host_alloc, NULL), LPM_EINVAL);
	assert_int_equal(lpm_init(&t, 24, LPM_GROUPS_MAX + 1, 64, host_alloc, NULL), LPM_EINVAL);
	assert_int_equal(lpm_init(&t, 24, 16, 0, host_alloc, NULL), LPM_EINVAL);
	assert_int_equal(lpm_init(&t, 8, 257, 1, host_alloc, NULL), LPM_EINVAL);	/* > 2^32 entries */
	assert_int_equal(lpm_init(&t, 24, 16, 4, host_alloc, NULL), 0);
	assert_int_equal(lpm_add(&t, IP(10, 0, 0, 0), 33, 1), LPM_EINVAL);
	assert_int_equal(lpm_add(&t, IP(10, 0, 0, 0), -1, 1), LPM_EINVAL);
	assert_int_equal(lpm_add(&t, IP(10, 0, 0, 1), 8, 1), LPM_EINVAL);	/* host bits set */
	assert_int_equal(lpm_add(&t, IP(10, 1, 2, 128), 24, 1), LPM_EINVAL);
	assert_int_equal(lpm_add(&t, 1, 0, 1), LPM_EINVAL);
	assert_int_equal(lpm_add(&t, IP(10, 0, 0, 0), 8, LPM_NONE), LPM_EINVAL);
	assert_int_equal(lpm_add(&t, IP(10, 0, 0, 0), 8, 0xffff), LPM_EINVAL);
	assert_int_equal(lpm_del(&t, IP(10, 0, 0, 1), 8), LPM_EINVAL);
	assert_int_equal(lpm_del(&t, IP(10, 0, 0, 0), 40), LPM_EINVAL);
	assert_int_equal(t.nrules, 0);
	assert_int_equal(lpm_lookup(&t, IP(10, 0, 0, 0)), LPM_NONE);
	/* max_rules = 4: a fifth rule is refused, replacing one is not. */
	for (int i = 0; i < 4; i++)
		assert_int_equal(lpm_add(&t, IP(20 + i, 0, 0, 0), 8, (uint16_t)i), 0);
	assert_int_equal(lpm_add(&t, IP(30, 0, 0, 0), 8, 1), LPM_ENOSPC);
	assert_int_equal(lpm_lookup(&t, IP(30, 0, 0, 0)), LPM_NONE);
	assert_int_equal(lpm_add(&t, IP(20, 0, 0, 0), 8, 9), 0);
	assert_int_equal(lpm_lookup(&t, IP(20, 0, 0, 0)), 9);
	free(t.mem);
}

static void test_group_exhaustion(void **state)
{
	struct lpm t;
	(void)state;
	assert_int_equal(lpm_init(&t, 24, 2, 64, host_alloc, NULL), 0);
	assert_int_equal(lpm_add(&t, IP(10, 0, 0, 0), 25, 1), 0);
	assert_int_equal(lpm_add(&t, IP(10, 0, 0, 128), 25, 2), 0);	/* same group */
	assert_int_equal(lpm_add(&t, IP(10, 0, 1, 0), 30, 3), 0);
	assert_int_equal(t.nfree_groups, 0);
	assert_int_equal(lpm_add(&t, IP(10, 0, 2, 7), 32, 4), LPM_ENOSPC);
	assert_int_equal(lpm_lookup(&t, IP(10, 0, 2, 7)), LPM_NONE);
	assert_int_equal(t.nrules, 3);
	/* Short prefixes need no group; a freed group is used again. */
	assert_int_equal(lpm_add(&t, IP(10, 0, 2, 0), 24, 5), 0);
	assert_int_equal(lpm_del(&t, IP(10, 0, 1, 0), 30), 0);
	assert_int_equal(lpm_add(&t, IP(10, 0, 2, 7), 32, 4), 0);
	assert_int_equal(lpm_lookup(&t, IP(10, 0, 2, 7)), 4);
	assert_int_equal(lpm_lookup(&t, IP(10, 0, 2, 8)), 5);
	assert_int_equal(lpm_lookup(&t, IP(10, 0, 0, 200)), 2);
	free(t.mem);
}

/* Random rules; a reference that knows nothing of the tables. */
struct rule {
	uint32_t prefix;
	int len;
	uint16_t nh;
	int live;
};

/* A random length shaped like a routing table: mostly /16../24. */
static int random_len(void)
{
	uint32_t r = rnd() % 100;

	if (r < 3)
		return 8 + (int)(rnd() % 8);
	if (r < 80)
		return 16 + (int)(rnd() % 9);
	return 25 + (int)(rnd() % 8);
}

/* Naive reference: the longest live rule covering addr, by linear scan. */
static uint16_t ref_linear(const struct rule *r, size_t n, uint32_t addr)
{
	int best = -1;
	uint16_t nh = LPM_NONE;

	for (size_t i = 0; i < n; i++) {
		if (r[i].live && r[i].len > best && (addr & mask(r[i].len)) == r[i].prefix) {
			best = r[i].len;
			nh = r[i].nh;
		}
	}
	return nh;
}

/* Make n distinct random rules, the first four /0, /2, /4, /6; a small
 * open-addressing set of len << 32 | prefix, plus one, finds duplicates. */
static struct rule *random_rules(size_t n)
{
	size_t slots = 1;
	while (slots < 4 * n)
		slots <<= 1;
	uint64_t *set = calloc(slots, sizeof(*set));
	struct rule *r = calloc(n, sizeof(*r));

	assert_non_null(set);
	assert_non_null(r);
	for (size_t i = 0; i < n;) {
		int len = i < 4 ? (int)i * 2 : random_len();
		uint32_t p = rnd() & mask(len);
		uint64_t key = ((uint64_t)len << 32 | p) + 1;
		size_t h = (size_t)(key * 0x9e3779b97f4a7c15ull >> 40) & (slots - 1);
		while (set[h] && set[h] != key)
			h = (h + 1) & (slots - 1);
		if (set[h])
			continue;
		set[h] = key;
		r[i++] = (struct rule){ p, len, (uint16_t)(rnd() % (LPM_NH_MAX + 1)), 1 };
	}
	free(set);
	return r;
}

/* Against the linear scan: 2,000 rules, 200,000 addresses, before and after
 * deleting half of the rules; two strides. */
static void check_small_table(unsigned bits)
{
	enum { N = 2000 };
	struct lpm t;
	struct rule *r = random_rules(N);

	assert_int_equal(lpm_init(&t, bits, 2048, N, host_alloc, NULL), 0);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(lpm_add(&t, r[i].prefix, r[i].len, r[i].nh), 0);
	for (int round = 0; round < 2; round++) {
		for (int k = 0; k < 100000; k++) {
			uint32_t a = rnd();
			assert_int_equal(lpm_lookup(&t, a), ref_linear(r, N, a));
		}
		for (size_t i = 0; i < N; i++) {
			uint32_t first = r[i].prefix, last = first | ~mask(r[i].len);
			assert_int_equal(lpm_lookup(&t, first), ref_linear(r, N, first));
			assert_int_equal(lpm_lookup(&t, last), ref_linear(r, N, last));
		}
		for (size_t i = 0; i < N && round == 0; i += 2) {
			assert_int_equal(lpm_del(&t, r[i].prefix, r[i].len), 0);
			r[i].live = 0;
		}
	}
	free(t.mem);
	free(r);
}

static void test_random_small_dir24(void **state)
{
	(void)state;
	rng_state = 1;
	check_small_table(24);
}

static void test_random_small_dir20(void **state)
{
	(void)state;
	rng_state = 2;
	check_small_table(20);
}

/* Reference for 100,000 rules: per length, the live rules sorted by prefix,
 * searched from /32 down. A linear scan per address would take 10^11 steps. */
struct bylen {
	uint32_t *prefix;
	uint16_t *nh;
	size_t n;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void ref_build(struct bylen *b, const struct rule *r, size_t n)
{
	uint64_t *keys = malloc(n * sizeof(*keys));	/* prefix << 16 | nh */
	assert_non_null(keys);
	for (int len = 0; len <= 32; len++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (r[i].live && r[i].len == len)
				keys[m++] = (uint64_t)r[i].prefix << 16 | r[i].nh;
		qsort(keys, m, sizeof(*keys), cmp_u64);
		b[len].prefix = malloc((m + 1) * sizeof(uint32_t));
		b[len].nh = malloc((m + 1) * sizeof(uint16_t));
		b[len].n = m;
		for (size_t i = 0; i < m; i++) {
			b[len].prefix[i] = (uint32_t)(keys[i] >> 16);
			b[len].nh[i] = (uint16_t)keys[i];
		}
	}
	free(keys);
}

static void ref_free(struct bylen *b)
{
	for (int len = 0; len <= 32; len++) {
		free(b[len].prefix);
		free(b[len].nh);
	}
}

static uint16_t ref_sorted(const struct bylen *b, uint32_t addr)
{
	for (int len = 32; len >= 0; len--) {
		uint32_t p = addr & mask(len);
		size_t lo = 0, hi = b[len].n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (b[len].prefix[mid] < p)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < b[len].n && b[len].prefix[lo] == p)
			return b[len].nh[lo];
	}
	return LPM_NONE;
}

/* The sorted reference itself, against the linear scan. */
static void test_reference_agrees(void **state)
{
	enum { N = 3000 };
	struct bylen b[33];
	(void)state;
	rng_state = 3;
	struct rule *r = random_rules(N);
	ref_build(b, r, N);
	for (int k = 0; k < 20000; k++) {
		uint32_t a = k & 1 ? rnd() : r[rnd() % N].prefix | (rnd() & 0xff);
		assert_int_equal(ref_sorted(b, a), ref_linear(r, N, a));
	}
	ref_free(b);
	free(r);
}

/* 100,000 rules; 1,000,000 random addresses and every prefix's first and
 * last address; then half the rules deleted, and then all of them. */
static void test_random_100k(void **state)
{
	enum { N = 100000 };
	struct lpm t;
	struct bylen b[33];
	(void)state;
	rng_state = 4;
	struct rule *r = random_rules(N);

	assert_int_equal(lpm_init(&t, 24, LPM_GROUPS_MAX, N, host_alloc, NULL), 0);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(lpm_add(&t, r[i].prefix, r[i].len, r[i].nh), 0);
	assert_int_equal(t.nrules, N);
	print_message("100k routes: %u groups, %zu bytes\n",
		      t.max_groups - t.nfree_groups, t.mem_size);

	ref_build(b, r, N);
	for (int k = 0; k < 1000000; k++) {
		uint32_t a = rnd();
		assert_int_equal(lpm_lookup(&t, a), ref_sorted(b, a));
	}
	for (size_t i = 0; i < N; i++) {
		uint32_t first = r[i].prefix, last = first | ~mask(r[i].len);
		assert_int_equal(lpm_lookup(&t, first), ref_sorted(b, first));
		assert_int_equal(lpm_lookup(&t, last), ref_sorted(b, last));
	}
	ref_free(b);

	for (size_t i = 0; i < N; i += 2) {
		assert_int_equal(lpm_del(&t, r[i].prefix, r[i].len), 0);
		r[i].live = 0;
	}
	ref_build(b, r, N);
	uint32_t a[32];
	uint16_t out[32];
	for (int k = 0; k < 200000 / 32; k++) {
		for (int j = 0; j < 32; j++)
			a[j] = j & 1 ? rnd() : r[rnd() % N].prefix | (rnd() & 0xfff);
		lpm_lookup_burst(&t, a, out, 32);
		for (int j = 0; j < 32; j++)
			assert_int_equal(out[j], ref_sorted(b, a[j]));
	}
	ref_free(b);

	for (size_t i = 1; i < N; i += 2)
		assert_int_equal(lpm_del(&t, r[i].prefix, r[i].len), 0);
	assert_int_equal(t.nrules, 0);
	assert_int_equal(t.nfree_groups, t.max_groups);
	for (int k = 0; k < 100000; k++)
		assert_int_equal(lpm_lookup(&t, rnd()), LPM_NONE);
	free(t.mem);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overlapping),
		cmocka_unit_test(test_default_and_host_routes),
		cmocka_unit_test(test_delete_restores_cover),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_group_exhaustion),
		cmocka_unit_test(test_random_small_dir24),
		cmocka_unit_test(test_random_small_dir20),
		cmocka_unit_test(test_reference_agrees),
		cmocka_unit_test(test_random_100k),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
