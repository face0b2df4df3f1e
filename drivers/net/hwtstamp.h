/*
 * The register-free logic of IEEE 1588 hardware timestamping, shared by
 * the families and unit-tested against a register model
 * (tests/unit/test_hwtstamp.c): the SYSTIM time counter (a free-running
 * count in units of 2^-shift ns, extended past its wrap, with the offset
 * that settime/adjtime set in software as Linux does for the 82576 and
 * 82574), the TIMINCA increment for a frequency adjustment, the one TX
 * timestamp the hardware holds at a time, and the RX latch lock-up check.
 */
#ifndef HWTSTAMP_H
#define HWTSTAMP_H
#include <stddef.h>
#include <stdint.h>

/*
 * SYSTIM as a clock (Linux's cyclecounter/timecounter): ns = base_ns +
 * (cycles - base_cycles) >> shift, with the difference taken as signed in
 * the counter's width (bits), so a timestamp latched slightly before the
 * last read converts correctly and the counter's wrap (82576: 2^64 units,
 * 9.8 hours at shift 19; I350: 2^40 ns, 18.3 minutes) is crossed as long
 * as systim_tc_read runs more often than every half wrap (the port's
 * housekeeping reads it every second).
 */
struct systim_tc {
	uint64_t base_cycles;	/* SYSTIM at the last read */
	int64_t base_ns;	/* clock time then, ns */
	int shift;		/* SYSTIM units per ns = 2^shift */
	int bits;		/* counter width: 64, or 40 (I350) */
	/* Before the last forward jump of the count (systim_tc_jump): values
	 * below split convert through the base in force before it. */
	int has_prev;
	uint64_t prev_cycles, split;
	int64_t prev_ns;
};
/* Start at ns = start_ns for the reading cycles of a bits-wide counter. */
void systim_tc_init(struct systim_tc *tc, int shift, int bits, uint64_t cycles, int64_t start_ns);
/* A new reading of the counter: move the base there, return its ns. */
int64_t systim_tc_read(struct systim_tc *tc, uint64_t cycles);
/* ns of a latched counter value (RX/TX timestamp), without moving the base. */
int64_t systim_tc_cyc2ns(const struct systim_tc *tc, uint64_t cycles);
/* The counter value at which the clock will read ns (through the current
 * base, in the counter's width): a target time for the NIC. */
uint64_t systim_tc_ns2cyc(const struct systim_tc *tc, int64_t ns);
/* The count jumped forward between two readings, before (converted by
 * the current base) and after, while after_ns passed on the clock: go on
 * from after_ns at after, and keep converting latched values taken before
 * the jump (below the midpoint of the two readings) as they were. */
void systim_tc_jump(struct systim_tc *tc, uint64_t before, uint64_t after, int64_t after_ns);
/* Shift the clock by delta ns (adjtime; settime is adjtime by the difference). */
void systim_tc_adjust(struct systim_tc *tc, int64_t delta_ns);

/* TIMINCA increment value for a frequency adjustment of ppb parts per
 * billion from the nominal base (82576: 16 << 19 per 16 ns; 82574:
 * 40 << 18 per 40 ns): base + base * ppb / 1e9, rounded, limited to the
 * 24-bit field (82576 8.16.3, 82574 10.2.12.3). */
uint32_t timinca_incvalue(uint32_t base, int64_t ppb);

/* A TIMINCA that corrects a clock of fixed period: SYSTIM advances one
 * period every cycle, plus (ISGN clear) or minus (ISGN, bit 31) INCVALUE
 * (bits 30:0) units of 2^-32 ns. The 82580 and later (I350, I210
 * datasheets: TIMINCA) with an 8 ns period (period 8 << 32), the X550
 * with 12.5 ns (Linux ixgbe_ptp_adjfreq_X550: 25 << 31). For ppb:
 * |ppb| x period / 1e9, rounded, limited to 31 bits (62.5 ms/s at 8 ns);
 * period in 2^-32 ns, at most 2^36 (16 ns). */
#define TIMINCA_ISGN	(1u << 31)
uint32_t timinca_isgn(int64_t ppb, uint64_t period);

/* A time held as seconds (high 32 bits: SYSTIMH) and ns (low: SYSTIML),
 * as the I210 and the X550 latch it and write it into an RX buffer, as
 * one count of ns. */
uint64_t systim_sec_ns(uint64_t raw);

/* The TX timestamp slot (82576 7.9.3.2: one frame at a time is stamped;
 * TSYNCTXCTL.VALID stays set, and later requests are ignored, until
 * TXSTMPH is read). */
enum hwts_tx_state {
	HWTS_TX_IDLE,		/* nothing asked */
	HWTS_TX_INFLIGHT,	/* a frame was sent with the request */
	HWTS_TX_ORPHAN,		/* timed out while its frame was not yet sent: it may still latch */
};

#define HWTS_TX_READY 4

struct hwts_tx {
	enum hwts_tx_state state;
	uint64_t start_ns;	/* when the request was granted */
	uint64_t timeout_ns;	/* tx_timestamp_timeout */
	uint32_t seq;		/* requests granted so far; the one in flight is seq */
	/* Stamps read but not yet taken, at seq % HWTS_TX_READY: an app may
	 * send its next stamped frame before it takes the last one's stamp
	 * (a PTP master's Pdelay_Resp right after its Sync). */
	struct {
		uint32_t seq;		/* the request it belongs to; 0: none */
		uint8_t taken;		/* hwts_tx_take had it (hwts_tx_peek still may) */
		uint64_t cycles;	/* its TXSTMP value, for the caller to convert */
	} ready[HWTS_TX_READY];
	uint64_t skipped, timeouts, stale;	/* tx_hwtstamp_skipped, _timeouts, _stale */
};

/* What the caller must do after hwts_tx_request or hwts_tx_poll. */
enum hwts_action {
	HWTS_NOTHING,
	HWTS_GRANT,		/* request: set the descriptor's timestamp bit */
	HWTS_SKIP,		/* request: send without it (counted tx_hwtstamp_skipped) */
	HWTS_READ,		/* poll: read TXSTMPL/H (releases the latch), then hwts_tx_done */
	HWTS_CLEAR,		/* read TXSTMPH to release a latch that is not ours (counted stale) */
};

/*
 * A frame asks for a TX timestamp at now_ns; latched is TSYNCTXCTL.VALID
 * read now. Returns HWTS_GRANT or HWTS_SKIP; *clear is set to 1 when a
 * stale latch must be released first (read TXSTMPH before sending), which
 * is counted in stale.
 */
enum hwts_action hwts_tx_request(struct hwts_tx *t, uint64_t now_ns, int latched, int *clear);
/*
 * Poll at now_ns: latched is TSYNCTXCTL.VALID, frame_done 1 when the
 * descriptor of the frame granted last is done. Returns HWTS_READ (ours
 * is latched: read it and call hwts_tx_done), HWTS_CLEAR (a late stamp of
 * a timed-out frame: release it; counted stale), or HWTS_NOTHING (waiting,
 * or idle; a request older than timeout_ns is dropped and counted in
 * timeouts).
 */
enum hwts_action hwts_tx_poll(struct hwts_tx *t, uint64_t now_ns, int latched, int frame_done);
/* The latched value of the granted request after HWTS_READ. */
void hwts_tx_done(struct hwts_tx *t, uint64_t cycles);
/* The caller's side: if the stamp of request seq is ready, put its
 * counter value in *cycles, mark it taken and return 1; else 0 (also when
 * taken already, or when HWTS_TX_READY later stamps came in before it
 * was taken). */
int hwts_tx_take(struct hwts_tx *t, uint32_t seq, uint64_t *cycles);
/* The same without taking it (a capture's copy of the frame, which the
 * app's hwts_tx_take may come before or after): 1 and *cycles while the
 * stamp of request seq is among the last HWTS_TX_READY, taken or not. */
int hwts_tx_peek(const struct hwts_tx *t, uint32_t seq, uint64_t *cycles);

/*
 * RX latch lock-up (82576 7.9.3.1: the RX timestamp registers latch on a
 * PTP frame before the address filter and ring checks; a frame that never
 * reaches software leaves them latched and no later frame is stamped).
 * Checked once per housekeeping period: latched at two checks in a row
 * with no stamped frame received in between means a lock-up.
 */
struct hwts_rx {
	uint64_t frames;	/* stamped frames received (descriptor TS bit) */
	uint64_t frames_at_check;
	int latched_at_check;
	uint64_t cleared;	/* rx_hwtstamp_cleared */
};
/* latched: TSYNCRXCTL.VALID now. Returns 1 when the caller must release
 * the latch (read RXSTMPL/H and RXSATRL/H); counted in cleared. */
int hwts_rx_check(struct hwts_rx *r, int latched);

/*
 * Do the RX timestamp attributes belong to the PTP message msg (len
 * bytes, from its header)? RXSATRL/H hold the source ID and sequence ID
 * of the stamped message (82576 8.16, 82574 10.2.12): as the
 * datasheet lays them out, and as QEMU's model means to, bytes 22-25 of
 * the message in RXSATRL (byte 22 lowest), bytes 26-27 in RXSATRH 15:0 and
 * the sequenceId (bytes 30-31) in RXSATRH 31:16. QEMU 10 reads them
 * through an unpacked struct whose padding moves them 2 bytes on: bytes
 * 24-27, 28-29 and 32-33 (docs/qemu-nics.md C.3, tools/qemu-probes/ptp_igb.py). Either
 * layout matches. Returns HWTS_ATTR_ALL when all of them match in a
 * layout, HWTS_ATTR_SEQ when only the sequenceId does (the source ID's
 * bytes are unverified on silicon: silicon review 2026-12-02 N6), 0 when
 * not even that, or for a message shorter than its header.
 */
#define HWTS_ATTR_SEQ 1
#define HWTS_ATTR_ALL 2
int hwts_rx_attr_match(const uint8_t *msg, size_t len, uint32_t satrl, uint32_t satrh);
#endif
