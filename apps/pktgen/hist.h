/*
 * Log-linear latency histogram (HdrHistogram's layout with 16 sub-buckets
 * per power of two): values below 16 ns have a bucket each; above, every
 * power-of-two range [2^e, 2^(e+1)) is cut into 16 equal buckets, so a
 * bucket is at most 1/16 (6.25 %) of its value wide. Values from 2^48 ns
 * (3.3 days) up land in the last bucket. Portable (unit-tested on the host).
 */
#ifndef PKTGEN_HIST_H
#define PKTGEN_HIST_H
#include <stdint.h>

#define HIST_SUB_BITS	4
#define HIST_SUB	(1u << HIST_SUB_BITS)
#define HIST_BUCKETS	((48 - HIST_SUB_BITS + 1) * HIST_SUB)	/* 720 */

struct hist {
	uint64_t n;		/* samples */
	uint64_t sum, min, max;	/* ns */
	uint64_t bucket[HIST_BUCKETS];
};

/* Bucket index of value v (ns). */
unsigned pg_hist_index(uint64_t v);
/* Smallest and largest value (ns) bucket i holds. */
uint64_t pg_hist_lo(unsigned i);
uint64_t pg_hist_hi(unsigned i);
/* Count one sample of v ns. */
void pg_hist_add(struct hist *h, uint64_t v);
/*
 * The value at quantile per10k / 10000 (5000 = p50, 9990 = p99.9): the
 * upper edge of the bucket that holds the ceil(n * per10k / 10000)-th
 * smallest sample, no more than max. 0 when empty.
 */
uint64_t pg_hist_quantile(const struct hist *h, unsigned per10k);
#endif
