/* Receive statistics of one stream: sequence tracking (loss, reordering,
 * duplicates) and a latency histogram. */
#ifndef TRAFGEN_STATS_H
#define TRAFGEN_STATS_H

#include <stdbool.h>
#include <stdint.h>

/* Duplicates are recognised among the last SEQ_WINDOW sequence numbers
 * below the highest seen; an older frame counts as reordered, never as a
 * duplicate. */
#define SEQ_WINDOW (1u << 20)

/* Latency histogram, log-linear: exact below 128 ns, then 64 buckets per
 * power of two (a bucket spans at most 1/64 of its value), up to 2^48 ns. */
#define LAT_SUB_BITS 6
#define LAT_BUCKETS ((48 - LAT_SUB_BITS + 1) << LAT_SUB_BITS)

struct seq_track {
	uint64_t unique;      /* distinct sequence numbers seen */
	uint64_t duplicates;  /* frames whose sequence number was seen before */
	uint64_t reordered;   /* new frames below the highest sequence number seen */
	uint64_t next;        /* highest sequence number seen + 1; 0 before any */
	uint64_t *seen;       /* SEQ_WINDOW bits, bit s % SEQ_WINDOW for seq s */
};

struct lat_hist {
	uint64_t n, sum, min, max;     /* ns */
	uint64_t bucket[LAT_BUCKETS];
};

/* Sets up an empty tracker. Returns 0, or -1 when out of memory. */
int seq_init(struct seq_track *t);
void seq_free(struct seq_track *t);

/* Accounts one received frame with sequence number seq: new, reordered or
 * duplicate. */
void seq_add(struct seq_track *t, uint64_t seq);

void lat_add(struct lat_hist *h, uint64_t ns);
void lat_merge(struct lat_hist *dst, const struct lat_hist *src);

/* The latency at quantile q (0 < q <= 1) in ns: the middle of the bucket
 * holding the ceil(q * n)-th smallest sample, clipped to [min, max]. 0 when
 * the histogram is empty. */
uint64_t lat_quantile(const struct lat_hist *h, double q);

#endif
