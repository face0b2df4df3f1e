/* Register-free timestamping logic; see hwtstamp.h. */
#include "drivers/net/hwtstamp.h"

/* a - b as a signed count in the counter's width. */
static int64_t cyc_diff(const struct systim_tc *tc, uint64_t a, uint64_t b)
{
	int unused = 64 - tc->bits;
	return (int64_t)((a - b) << unused) >> unused;
}

void systim_tc_init(struct systim_tc *tc, int shift, int bits, uint64_t cycles, int64_t start_ns)
{
	tc->shift = shift;
	tc->bits = bits;
	tc->base_cycles = cycles;
	tc->base_ns = start_ns;
	tc->has_prev = 0;
}

int64_t systim_tc_cyc2ns(const struct systim_tc *tc, uint64_t cycles)
{
	if (tc->has_prev && cyc_diff(tc, cycles, tc->split) < 0)
		return tc->prev_ns + (cyc_diff(tc, cycles, tc->prev_cycles) >> tc->shift);
	int64_t d = cyc_diff(tc, cycles, tc->base_cycles);
	/* Arithmetic shift of a signed difference: rounds toward minus infinity. */
	return tc->base_ns + (d >> tc->shift);
}

uint64_t systim_tc_ns2cyc(const struct systim_tc *tc, int64_t ns)
{
	uint64_t c = tc->base_cycles + ((uint64_t)(ns - tc->base_ns) << tc->shift);
	return tc->bits < 64 ? c & ((1ull << tc->bits) - 1) : c;
}

int64_t systim_tc_read(struct systim_tc *tc, uint64_t cycles)
{
	int64_t d = cyc_diff(tc, cycles, tc->base_cycles);
	/* Keep the fraction below a nanosecond in the base, so that repeated
	 * reads do not lose it. */
	int64_t ns = d >> tc->shift;
	tc->base_ns += ns;
	tc->base_cycles += (uint64_t)ns << tc->shift;
	return tc->base_ns;
}

void systim_tc_jump(struct systim_tc *tc, uint64_t before, uint64_t after, int64_t after_ns)
{
	tc->prev_cycles = tc->base_cycles;
	tc->prev_ns = tc->base_ns;
	tc->split = before + (after - before) / 2;
	tc->has_prev = 1;
	tc->base_cycles = after;
	tc->base_ns = after_ns;
}

void systim_tc_adjust(struct systim_tc *tc, int64_t delta_ns)
{
	tc->base_ns += delta_ns;
	tc->prev_ns += delta_ns;
}

uint32_t timinca_incvalue(uint32_t base, int64_t ppb)
{
	int neg = ppb < 0;
	uint64_t mag = (uint64_t)(neg ? -ppb : ppb);
	uint64_t d = ((uint64_t)base * mag + 500000000u) / 1000000000u;
	int64_t v = (int64_t)base + (neg ? -(int64_t)d : (int64_t)d);
	if (v < 1)
		v = 1;
	if (v > 0xffffff)
		v = 0xffffff;
	return (uint32_t)v;
}

uint32_t timinca_isgn(int64_t ppb, uint64_t period)
{
	uint64_t mag = (uint64_t)(ppb < 0 ? -ppb : ppb);
	if (mag > 100000000)
		mag = 100000000;	/* past the field already; keeps mag x period in 64 bits */
	uint64_t v = (mag * period + 500000000u) / 1000000000u;
	if (v > 0x7fffffff)
		v = 0x7fffffff;
	return (uint32_t)v | (ppb < 0 ? TIMINCA_ISGN : 0);
}

uint64_t systim_sec_ns(uint64_t raw)
{
	return (raw >> 32) * 1000000000u + (uint32_t)raw;
}

enum hwts_action hwts_tx_request(struct hwts_tx *t, uint64_t now_ns, int latched, int *clear)
{
	*clear = 0;
	if (t->state == HWTS_TX_INFLIGHT || (t->state == HWTS_TX_ORPHAN && !latched)) {
		/* One in flight; or a timed-out frame that may still latch (unless
		 * poll sees its descriptor done first). */
		t->skipped++;
		return HWTS_SKIP;
	}
	if (latched) {
		/* A late stamp of a timed-out frame, or one nobody asked for:
		 * never hand it to this frame. */
		*clear = 1;
		t->stale++;
	}
	t->state = HWTS_TX_INFLIGHT;
	t->start_ns = now_ns;
	t->seq++;
	if (!t->seq)
		t->seq = 1;	/* 0 means "none" to ready[] */
	return HWTS_GRANT;
}

enum hwts_action hwts_tx_poll(struct hwts_tx *t, uint64_t now_ns, int latched, int frame_done)
{
	switch (t->state) {
	case HWTS_TX_INFLIGHT:
		if (latched)
			return HWTS_READ;
		if (now_ns - t->start_ns <= t->timeout_ns)
			return HWTS_NOTHING;
		t->timeouts++;
		t->state = frame_done ? HWTS_TX_IDLE : HWTS_TX_ORPHAN;
		return HWTS_NOTHING;
	case HWTS_TX_ORPHAN:
		if (latched) {
			t->stale++;
			t->state = HWTS_TX_IDLE;
			return HWTS_CLEAR;
		}
		if (frame_done)
			t->state = HWTS_TX_IDLE;
		return HWTS_NOTHING;
	default:
		if (!latched)
			return HWTS_NOTHING;
		t->stale++;
		return HWTS_CLEAR;
	}
}

void hwts_tx_done(struct hwts_tx *t, uint64_t cycles)
{
	t->ready[t->seq % HWTS_TX_READY].seq = t->seq;
	t->ready[t->seq % HWTS_TX_READY].taken = 0;
	t->ready[t->seq % HWTS_TX_READY].cycles = cycles;
	t->state = HWTS_TX_IDLE;
}

int hwts_tx_take(struct hwts_tx *t, uint32_t seq, uint64_t *cycles)
{
	if (!seq || t->ready[seq % HWTS_TX_READY].seq != seq || t->ready[seq % HWTS_TX_READY].taken)
		return 0;
	*cycles = t->ready[seq % HWTS_TX_READY].cycles;
	t->ready[seq % HWTS_TX_READY].taken = 1;
	return 1;
}

int hwts_tx_peek(const struct hwts_tx *t, uint32_t seq, uint64_t *cycles)
{
	if (!seq || t->ready[seq % HWTS_TX_READY].seq != seq)
		return 0;
	*cycles = t->ready[seq % HWTS_TX_READY].cycles;
	return 1;
}

int hwts_rx_check(struct hwts_rx *r, int latched)
{
	int release = latched && r->latched_at_check && r->frames == r->frames_at_check;
	if (release)
		r->cleared++;
	r->latched_at_check = latched && !release;
	r->frames_at_check = r->frames;
	return release;
}

/* The attributes of a message read from byte off on: 4 bytes, 2, then 2
 * at seq, each in wire order from bit 0 up. HWTS_ATTR_ALL if all match,
 * HWTS_ATTR_SEQ if the sequenceId (RXSATRH 31:16) alone does, else 0. */
static int attr_at(const uint8_t *m, size_t off, size_t seq, uint32_t satrl, uint32_t satrh)
{
	uint32_t lo = (uint32_t)m[off] | (uint32_t)m[off + 1] << 8 | (uint32_t)m[off + 2] << 16 |
		      (uint32_t)m[off + 3] << 24;
	uint32_t hi = (uint32_t)m[off + 4] | (uint32_t)m[off + 5] << 8 | (uint32_t)m[seq] << 16 |
		      (uint32_t)m[seq + 1] << 24;
	if (hi >> 16 != satrh >> 16)
		return 0;
	return lo == satrl && hi == satrh ? HWTS_ATTR_ALL : HWTS_ATTR_SEQ;
}

int hwts_rx_attr_match(const uint8_t *msg, size_t len, uint32_t satrl, uint32_t satrh)
{
	if (len < 34)
		return 0;
	int a = attr_at(msg, 22, 30, satrl, satrh), b = attr_at(msg, 24, 32, satrl, satrh);
	return a > b ? a : b;
}
