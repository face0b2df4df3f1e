/* Unit tests for net/lpm6.c: /0 and /128, nested prefixes added in either
 * order, a prefix re-added, bad arguments, group exhaustion, and random
 * tables checked against a linear search of the rules. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "net/addr.h"
#include "net/lpm6.h"

static void *host_alloc(void *ctx, size_t bytes)
{
	(void)ctx;
	return malloc(bytes);
}

/* The 16 bytes of text s (a test's own, always valid). */
static const uint8_t *A(const char *s)
{
	static uint8_t a[4][16];
	static int i;
	uint8_t *r = a[i++ % 4];
	assert_int_equal(addr6_parse(&s, r), 0);
	return r;
}

static void test_basic(void **state)
{
	struct lpm6 t;
	(void)state;
	assert_int_equal(lpm6_init(&t, 64, host_alloc, NULL), 0);
	assert_int_equal(lpm6_lookup(&t, A("2001:db8::1")), LPM6_NONE);
	assert_int_equal(lpm6_add(&t, A("2001:db8:1::"), 48, 3), 0);
	assert_int_equal(lpm6_add(&t, A("2001:db8:1:2::5"), 128, 4), 0);
	assert_int_equal(lpm6_add(&t, A("2001:db8::"), 32, 2), 0);	/* shorter, after */
	assert_int_equal(lpm6_add(&t, A("::"), 0, 1), 0);
	assert_int_equal(lpm6_lookup(&t, A("2001:db8:1:2::5")), 4);
	assert_int_equal(lpm6_lookup(&t, A("2001:db8:1:2::4")), 3);
	assert_int_equal(lpm6_lookup(&t, A("2001:db8:1:ffff::")), 3);
	assert_int_equal(lpm6_lookup(&t, A("2001:db8:2::1")), 2);
	assert_int_equal(lpm6_lookup(&t, A("2001:db9::")), 1);
	assert_int_equal(lpm6_lookup(&t, A("::")), 1);
	/* Re-added: the new next hop. */
	assert_int_equal(lpm6_add(&t, A("2001:db8:1::"), 48, 7), 0);
	assert_int_equal(lpm6_lookup(&t, A("2001:db8:1:2::4")), 7);
	assert_int_equal(lpm6_lookup(&t, A("2001:db8:1:2::5")), 4);
	/* Odd lengths within a level. */
	assert_int_equal(lpm6_add(&t, A("2001:db8:8000::"), 33, 9), 0);
	assert_int_equal(lpm6_lookup(&t, A("2001:db8:ffff::")), 9);
	assert_int_equal(lpm6_lookup(&t, A("2001:db8:7fff::")), 2);
	free(t.mem);
}

static void test_bad(void **state)
{
	struct lpm6 t;
	(void)state;
	assert_int_equal(lpm6_init(&t, LPM6_GROUPS_MAX + 1, host_alloc, NULL), LPM6_EINVAL);
	assert_int_equal(lpm6_init(&t, 6, host_alloc, NULL), 0);
	assert_int_equal(lpm6_add(&t, A("2001:db8::"), 129, 1), LPM6_EINVAL);
	assert_int_equal(lpm6_add(&t, A("2001:db8::"), -1, 1), LPM6_EINVAL);
	assert_int_equal(lpm6_add(&t, A("2001:db8::1"), 64, 1), LPM6_EINVAL);
	assert_int_equal(lpm6_add(&t, A("2001:db8::"), 28, 1), LPM6_EINVAL);
	assert_int_equal(lpm6_add(&t, A("2001:db8::"), 32, LPM6_NONE), LPM6_EINVAL);
	/* A /64 takes 6 groups; a /72 beside it one more, which is not left:
	 * refused whole, the table as it was. */
	assert_int_equal(lpm6_add(&t, A("2001:db8:0:1::"), 64, 1), 0);
	assert_int_equal(t.ngroups, 6);
	assert_int_equal(lpm6_add(&t, A("2001:db8:0:1:ff00::"), 72, 2), LPM6_ENOSPC);
	assert_int_equal(t.ngroups, 6);
	assert_int_equal(lpm6_lookup(&t, A("2001:db8:0:1:ff00::1")), 1);
	assert_int_equal(lpm6_add(&t, A("2001:db8:0:10::"), 60, 2), 0);	/* in the /64's groups */
	assert_int_equal(lpm6_lookup(&t, A("2001:db8:0:1f::1")), 2);
	assert_int_equal(lpm6_lookup(&t, A("2001:db8:0:1::1")), 1);
	assert_int_equal(lpm6_lookup(&t, A("2001:db8:0:20::1")), LPM6_NONE);
	free(t.mem);
}

/* rand(3) with a fixed seed: the same tables on every run. */
static uint32_t rnd(void)
{
	return (uint32_t)rand();
}

struct rule {
	uint8_t p[16];
	int len;
	uint16_t nh;
};

static int covers(const struct rule *r, const uint8_t *a)
{
	for (int b = 0; b < r->len; b++)
		if ((r->p[b / 8] ^ a[b / 8]) >> (7 - b % 8) & 1)
			return 0;
	return 1;
}

/* The reference: the longest rule covering a (the last added of equals),
 * by a search of them all. */
static uint16_t linear(const struct rule *r, int n, const uint8_t *a)
{
	int best = -1;
	for (int i = 0; i < n; i++)
		if (covers(&r[i], a) && (best < 0 || r[i].len >= r[best].len))
			best = i;
	return best < 0 ? LPM6_NONE : r[best].nh;
}

#define RULES	300

static void test_random(void **state)
{
	static struct rule r[RULES];
	(void)state;
	srand(6);
	for (int table = 0; table < 10; table++) {
		struct lpm6 t;
		int n = 0;
		assert_int_equal(lpm6_init(&t, 4096, host_alloc, NULL), 0);
		for (int i = 0; i < RULES; i++) {
			struct rule *x = &r[n];
			/* Most under a few /16s and an earlier rule, so that they
			 * nest; lengths of every kind, /48 and /64 the most. */
			if (n && rnd() % 2)
				memcpy(x->p, r[rnd() % (unsigned)n].p, 16);
			else
				for (int k = 0; k < 16; k++)
					x->p[k] = (uint8_t)rnd();
			x->p[0] = 0x20;
			x->p[1] = (uint8_t)(rnd() % 4);
			for (int k = (int)(rnd() % 4); k > 0; k--)
				x->p[rnd() % 16] = (uint8_t)rnd();
			static const int common[] = { 32, 48, 56, 64, 64, 128 };
			x->len = rnd() % 2 ? common[rnd() % 6] : (int)(rnd() % 129);
			for (int b = x->len; b < 128; b++)
				x->p[b / 8] &= (uint8_t)~(0x80 >> b % 8);
			x->nh = (uint16_t)(rnd() % 1000);
			assert_int_equal(lpm6_add(&t, x->p, x->len, x->nh), 0);
			n++;
		}
		for (int k = 0; k < 10000; k++) {
			uint8_t a[16];
			if (k % 2)	/* near a rule: its prefix with random bits after */
				memcpy(a, r[rnd() % RULES].p, 16);
			for (int j = 0; j < 16; j++)
				if (!(k % 2) || rnd() % 4 == 0)
					a[j] = (uint8_t)(j == 0 ? 0x20 : rnd());
			if (lpm6_lookup(&t, a) != linear(r, n, a)) {
				char s[IPV6_STR_MAX];
				fail_msg("table %d: %s gives %u, not %u", table, addr6_fmt(s, a), lpm6_lookup(&t, a),
					 linear(r, n, a));
			}
		}
		free(t.mem);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
