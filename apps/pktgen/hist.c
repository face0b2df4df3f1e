/* Log-linear latency histogram; see hist.h. */
#include "apps/pktgen/hist.h"

unsigned pg_hist_index(uint64_t v)
{
	if (v < HIST_SUB)
		return (unsigned)v;
	unsigned e = 63u - (unsigned)__builtin_clzll(v);
	unsigned i = (e - HIST_SUB_BITS + 1) * HIST_SUB + (unsigned)(v >> (e - HIST_SUB_BITS)) - HIST_SUB;
	return i < HIST_BUCKETS ? i : HIST_BUCKETS - 1;
}

uint64_t pg_hist_lo(unsigned i)
{
	if (i < HIST_SUB)
		return i;
	unsigned e = i / HIST_SUB + HIST_SUB_BITS - 1;
	return (uint64_t)(HIST_SUB + i % HIST_SUB) << (e - HIST_SUB_BITS);
}

uint64_t pg_hist_hi(unsigned i)
{
	if (i == HIST_BUCKETS - 1)
		return UINT64_MAX;
	return pg_hist_lo(i + 1) - 1;
}

void pg_hist_add(struct hist *h, uint64_t v)
{
	h->bucket[pg_hist_index(v)]++;
	if (!h->n || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
	h->sum += v;
}

uint64_t pg_hist_quantile(const struct hist *h, unsigned per10k)
{
	if (!h->n)
		return 0;
	uint64_t rank = (h->n * per10k + 9999) / 10000, seen = 0;
	if (!rank)
		rank = 1;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank)
			return pg_hist_hi(i) < h->max ? pg_hist_hi(i) : h->max;
	}
	return h->max;
}
