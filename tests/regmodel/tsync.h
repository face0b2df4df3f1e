/*
 * The IEEE 1588 block of the register model (tests/regmodel/tsync.c),
 * built into the PTP tests only (MODEL_PTP): SYSTIM running from the
 * model's virtual clock as each part's datasheet has it (82576: INCVALUE
 * every INCPERIOD x 16 ns; 82574: every INCPERIOD x 40 ns; 82599:
 * IncValue every IncPeriod cycles, X540: TIMINCA every cycle, of 6.4 ns
 * at 10 Gb/s or no link, 64 ns at 1 Gb/s, 640 ns at 100 Mb/s; I350: a 40-bit
 * ns count; I210: seconds and ns; the later two 8 ns per 8 ns cycle with
 * TIMINCA's signed 2^-32 ns correction, stopped while TSAUXC bit 31 is
 * set), the latch order (SYSTIML, or SYSTIMR first on the I350/I210), and
 * the TX and RX timestamp latches with their release on TXSTMPH / RXSTMPH.
 * The 82574's SYSTIM read errata as Linux e1000e_read_systim and
 * e1000e_sanitize_systim describe them: SYSTIMH not latched by a SYSTIML
 * read within one INCVALUE of its wrap, and bad bits now and then
 * (M.s.systim_garbage). The I350/I210 pins: target time 0 toggling SDP0,
 * auxiliary time stamp 0 from an input SDP (below).
 */
#ifndef REGMODEL_TSYNC_H
#define REGMODEL_TSYNC_H
#include <stdint.h>
#include "drivers/net/e1000x/ring.h"

/* Power-on state (called at every CTRL.RST). */
void tsync_reset(void);
/* Register access hooks of model.c: 1 if reg is a time sync register. */
int tsync_read(uint32_t reg, uint32_t *v);
int tsync_write(uint32_t reg, uint32_t v);

/* 82574/82576: move the virtual clock to ns (rounded up to a whole
 * INCPERIOD) before SYSTIML next wraps. */
void tsync_to_wrap(uint64_t ns);
/* SYSTIM now as a count (82576/82574 units; I350/I210 ns). */
uint64_t tsync_count(void);
/* SYSTIM now as the part writes it into an RX buffer: SYSTIMH << 32 | SYSTIML. */
uint64_t tsync_raw(void);
/* 82599/X540: the time sync clock's period is about to change (LINKS's
 * speed): SYSTIM counted up to now at the old one. */
void tsync_clock_change(void);
/* Set SYSTIM to count now (the test's starting point). */
void tsync_set(uint64_t count);
/* The NIC sends what lies between its head and TDT (the register at tdt)
 * on ring (n descriptors): a frame that asks for a timestamp (advanced
 * descriptor MAC_TSTAMP; 82574 extended data descriptor TSTAMP) latches
 * TXSTMP when TSYNCTXCTL.ENABLED is set and VALID clear; each
 * descriptor's DD is set. Returns the frames stamped. */
int tsync_tx(volatile union tx_desc *ring, uint32_t n, uint32_t tdt);
/* A PTP event frame passes the RX filter now: latch RXSTMP and the
 * attributes if enabled and not latched. Returns 1 if it latched. */
int tsync_rx_latch(uint32_t satrl, uint32_t satrh);
/* X550: a frame arrives now; 1 with the time it carries in its buffer
 * (SYSTIML in the low half of *raw, SYSTIMH in the high) when
 * TSYNCRXCTL has EN, TYPE 100 (all frames) and TSIP_UT_EN (bit 23), as
 * Linux ixgbe_ptp.c sets the X550 up; with TSIP_UT_EN the RX latch takes
 * nothing (assumed: Linux never reads it there). 0 otherwise. */
int tsync_rx_in_buf(uint64_t *raw);
/* Another PTP event frame passes the RX filter right after the next
 * release of the RX latch (the read of RXSTMPH): it latches then. */
void tsync_rx_latch_at_release(uint32_t satrl, uint32_t satrh);
/* The I350/I210 pins (TSSDP, target time 0, auxiliary time stamp 0;
 * CTRL/CTRL_EXT directions): SDP0's level toggles when SYSTIM reaches
 * TRGTTIM0 while TSAUXC.EN_TT0 is set and SDP0 is an output routed to
 * target time 0 (TSSDP), EN_TT0 then cleared and TSICR.TT0 set; each such
 * level change is logged. TSICR clears on read. */
struct tsync_edge {
	uint64_t count;		/* SYSTIM when the level changed (the target) */
	int level;		/* the level after it */
};
/* SDP0's level changes up to now. */
int tsync_edges(const struct tsync_edge **e);
/* Times EN_TT0 was set with the target already past. */
int tsync_tt_past(void);
/* A rising edge on input pin now: AUXSTMP0 latches SYSTIM (TSAUXC.AUTT0,
 * TSICR.AUTT0) if the pin feeds auxiliary time stamp 0, EN_TS0 is set,
 * the pin is an input and no stamp is held (AUXSTMPH0 read frees it).
 * Returns 1 if it latched. */
int tsync_sdp_edge(int pin);
/* TSYNCTXCTL.VALID / TSYNCRXCTL.VALID. */
int tsync_tx_valid(void);
int tsync_rx_valid(void);
#endif
