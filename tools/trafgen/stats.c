/* Sequence tracking and latency histograms (see stats.h). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WORD_BITS 64

int seq_init(struct seq_track *t)
{
	memset(t, 0, sizeof(*t));
	t->seen = calloc(SEQ_WINDOW / WORD_BITS, sizeof(*t->seen));
	return t->seen ? 0 : -1;
}

void seq_free(struct seq_track *t)
{
	free(t->seen);
	t->seen = NULL;
}

static bool bit_test_set(uint64_t *bits, uint64_t seq)
{
	uint64_t i = seq % SEQ_WINDOW, mask = UINT64_C(1) << (i % WORD_BITS);
	bool was = bits[i / WORD_BITS] & mask;

	bits[i / WORD_BITS] |= mask;
	return was;
}

static void bit_clear(uint64_t *bits, uint64_t seq)
{
	uint64_t i = seq % SEQ_WINDOW;

	bits[i / WORD_BITS] &= ~(UINT64_C(1) << (i % WORD_BITS));
}

void seq_add(struct seq_track *t, uint64_t seq)
{
	if (seq >= t->next) {
		/* The window slides up: forget what it held SEQ_WINDOW ago. */
		if (seq - t->next >= SEQ_WINDOW)
			memset(t->seen, 0, SEQ_WINDOW / 8);
		else
			for (uint64_t s = t->next; s <= seq; s++)
				bit_clear(t->seen, s);
		bit_test_set(t->seen, seq);
		t->next = seq + 1;
		t->unique++;
	} else if (t->next - seq <= SEQ_WINDOW && bit_test_set(t->seen, seq)) {
		t->duplicates++;
	} else {
		t->reordered++;
		t->unique++;
	}
}

static unsigned lat_index(uint64_t v)
{
	unsigned e;

	if (v < (1u << LAT_SUB_BITS))
		return (unsigned)v;
	e = 63 - (unsigned)__builtin_clzll(v);
	return ((e - LAT_SUB_BITS + 1) << LAT_SUB_BITS) +
	       (unsigned)(v >> (e - LAT_SUB_BITS)) - (1u << LAT_SUB_BITS);
}

/* The middle of bucket i, in ns. */
static uint64_t lat_mid(unsigned i)
{
	unsigned e = (i >> LAT_SUB_BITS) + LAT_SUB_BITS - 1;
	uint64_t m = (1u << LAT_SUB_BITS) + (i & ((1u << LAT_SUB_BITS) - 1));

	if (i < (1u << LAT_SUB_BITS))
		return i;
	return (m << (e - LAT_SUB_BITS)) + (((UINT64_C(1) << (e - LAT_SUB_BITS)) - 1) / 2);
}

void lat_add(struct lat_hist *h, uint64_t ns)
{
	unsigned i = lat_index(ns);

	h->bucket[i < LAT_BUCKETS ? i : LAT_BUCKETS - 1]++;
	if (h->n == 0 || ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	h->n++;
	h->sum += ns;
}

void lat_merge(struct lat_hist *dst, const struct lat_hist *src)
{
	if (src->n == 0)
		return;
	if (dst->n == 0 || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->n += src->n;
	dst->sum += src->sum;
	for (unsigned i = 0; i < LAT_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
}

uint64_t lat_quantile(const struct lat_hist *h, double q)
{
	uint64_t rank = (uint64_t)ceil(q * (double)h->n), seen = 0, v;

	if (h->n == 0)
		return 0;
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < LAT_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank) {
			v = lat_mid(i);
			return v < h->min ? h->min : v > h->max ? h->max : v;
		}
	}
	return h->max;
}
