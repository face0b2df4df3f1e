/* Fuzz net/lpm6.c against a reference: a program of adds and lookups from
 * the input (each op 18 bytes: a length byte, a next-hop byte, 16 address
 * bytes); after each add, lookups of the op's address (and of it with
 * every 7th bit flipped) and of every rule's prefix agree with a linear
 * scan of the rules the reference keeps. A fresh table of 64
 * groups per input, so that ENOSPC (the table then unchanged) is reached
 * too. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "net/lpm6.h"

#define RULES 32
static struct { uint8_t p[16]; int len; uint16_t nh; } ref[RULES];
static int nref;

/* One block for every input's table (lpm6_init clears it): a fresh
 * malloc of 320 KiB per input cost ASan an mmap and took 90 % of the time. */
static void *host_alloc(void *ctx, size_t bytes)
{
	static void *mem;
	(void)ctx;
	return mem ? mem : (mem = malloc(bytes));
}

/* Rule i's prefix covers a: its whole bytes equal, then the bits of the
 * byte it ends in. */
static int covers(int i, const uint8_t *a)
{
	int n = ref[i].len;
	for (int k = 0; k < n / 8; k++)
		if (ref[i].p[k] != a[k])
			return 0;
	return n % 8 == 0 || !((ref[i].p[n / 8] ^ a[n / 8]) & (uint8_t)(0xff00 >> n % 8));
}

static uint16_t ref_lookup(const uint8_t *a)
{
	int best = -1;
	for (int i = 0; i < nref; i++)
		if (covers(i, a) && (best < 0 || ref[i].len >= ref[best].len))
			best = i;
	return best < 0 ? LPM6_NONE : ref[best].nh;
}

/* a and, with flips, a with every 7th bit flipped. */
static void check(const struct lpm6 *t, const uint8_t *a, int flips)
{
	uint8_t x[16];
	assert(lpm6_lookup(t, a) == ref_lookup(a));
	for (int b = 0; flips && b < 128; b += 7) {
		memcpy(x, a, 16);
		x[b / 8] ^= (uint8_t)(0x80 >> b % 8);
		assert(lpm6_lookup(t, x) == ref_lookup(x));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct lpm6 t;
	if (lpm6_init(&t, 64, host_alloc, NULL))
		abort();
	nref = 0;
	for (size_t i = 0; i + 18 <= len && nref < RULES; i += 18) {
		const uint8_t *op = data + i;
		int l = op[0] % 130;	/* 129: invalid */
		uint16_t nh = op[1];
		uint8_t p[16];
		memcpy(p, op + 2, 16);
		for (int b = l; b < 128; b++)
			p[b / 8] &= (uint8_t)~(0x80 >> b % 8);
		uint32_t used = t.ngroups;
		int r = lpm6_add(&t, p, l, nh);
		if (l > 128) {
			assert(r == LPM6_EINVAL);
		} else if (r == LPM6_ENOSPC) {
			assert(t.ngroups == used);
		} else {
			assert(r == 0);
			int k = 0;
			while (k < nref && !(ref[k].len == l && !memcmp(ref[k].p, p, 16)))
				k++;
			memcpy(ref[k].p, p, 16);
			ref[k].len = l;
			ref[k].nh = nh;
			nref += k == nref;
		}
		check(&t, op + 2, 1);
		for (int k = 0; k < nref; k++)
			check(&t, ref[k].p, 0);
	}
	return 0;
}
