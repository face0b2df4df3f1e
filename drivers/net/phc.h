/*
 * The PTP clock of each port and its packet timestamps (Linux's
 * ptp_clock_info, hwtstamp_config and the driver's TX timestamp work).
 *
 * A port whose driver registers phc_ops has a hardware clock (igb: SYSTIM)
 * and stamps PTP frames in hardware; every other port gets a software
 * clock: TSC time scaled by a frequency adjustment plus an offset, and
 * software timestamps taken by the app at the burst (phc_sw_stamp). Either
 * way the app sees one clock per port, in ns, that adjfreq/adjtime/settime
 * steer, and timestamps in that clock.
 *
 * Cost to other traffic: none beyond the descriptor status bit test that
 * rx_burst already makes (the TS bit selects phc_rx_hwtstamp) and the
 * PKT_TX_TSTAMP flag test in tx_burst. No frame is parsed to decide.
 */
#ifndef PHC_H
#define PHC_H
#include <stdint.h>
#include "drivers/net/hwtstamp.h"
#include "drivers/net/nic.h"

/* What a family provides (all called on the port's core). */
struct phc_ops {
	const char *name;		/* "82576 SYSTIM" */
	int64_t max_adj;		/* largest |ppb| adjfreq accepts */
	int shift;			/* SYSTIM units per ns: 2^shift */
	int bits;			/* SYSTIM's width: 64, or 40 (I350) */
	/* SYSTIM in the datasheet's latch order (low, then high), as a count
	 * (the I210's seconds and ns made one count of ns). */
	uint64_t (*read_systim)(struct nic *nic);
	/* Set TIMINCA for a frequency adjustment of ppb. */
	void (*set_freq)(struct nic *nic, int64_t ppb);
	/* Program RX/TX timestamping: rx_msg is the PTP messageType whose
	 * RX stamp matters most (QEMU's igb stamps only that one; silicon
	 * stamps every V2 event), -1 for RX off; tx 1 to allow TX requests;
	 * udp 1 to stamp UDP/IPv4 port 319 too. Also called after a reset. */
	void (*hwtstamp_set)(struct nic *nic, int rx_msg, int tx, int udp);
	/* TSYNCTXCTL.VALID / TSYNCRXCTL.VALID. */
	int (*tx_latched)(struct nic *nic);
	int (*rx_latched)(struct nic *nic);
	/* Read TXSTMPL then TXSTMPH (which releases the latch). */
	uint64_t (*tx_read)(struct nic *nic);
	/* Read RXSTMPL, RXSATRL, RXSATRH, then RXSTMPH: the latched time,
	 * and the latch released whichever register the device releases on
	 * (silicon RXSTMPH, the last; QEMU RXSATRH); the attributes into
	 * attr[0], attr[1] (see hwts_rx_attr_match). */
	uint64_t (*rx_read)(struct nic *nic, uint32_t attr[2]);
	/* The count of a timestamp the NIC wrote into the RX buffer (I350/I210
	 * SRRCTL.TIMESTAMP: SYSTIML in the low half, SYSTIMH in the high);
	 * NULL where there is none. */
	uint64_t (*rx_buf_cycles)(uint64_t raw);
	/* 1 when TX descriptor desc of queue q is done (written back). */
	int (*tx_desc_done)(struct nic *nic, int q, uint32_t desc);
	/* The SDP pins (I350, I210/I211; NULL elsewhere), each called under
	 * the clock's lock. pps_level: SDP0's output level now (0 or 1).
	 * pps_target: SDP0 drives target time 0, its level toggling when
	 * SYSTIM reaches count (armed again by the next call). extts_set:
	 * auxiliary time stamp 0 on the rising edges of input pin (0-3).
	 * pins_poll: the time sync interrupt causes read (and cleared) now,
	 * PHC_PIN_TT0 / PHC_PIN_AUTT0, with the auxiliary stamp's count in
	 * *aux when AUTT0 is among them. */
	int (*pps_level)(struct nic *nic);
	void (*pps_target)(struct nic *nic, uint64_t count);
	void (*extts_set)(struct nic *nic, int pin);
	uint32_t (*pins_poll)(struct nic *nic, uint64_t *aux);
	int udp_rx;			/* stamps UDP/IPv4 in hardware when asked */
	/* 1: with RX stamping on for UDP too, every PTPv2 event message (Sync,
	 * Delay_Req, Pdelay_Req, Pdelay_Resp) that arrives, over L2 (802.1Q
	 * tag or not), UDP/IPv4 or UDP/IPv6, is stamped and marked in its own
	 * descriptor, and no other frame is: the I350/I210 with the time in
	 * the buffer (TSYNCRXCTL type 101b "all V2 event packets", ETQF and
	 * the port-319 filter; I210 datasheet 7.8.5, table 7-70, 8.15.1).
	 * 0 where one can be missed: a latch that holds one stamp until read
	 * (82576, 82574, 82599, X540: a second event message meanwhile is not
	 * stamped; QEMU's 82576 stamps L2 of one messageType only), or every
	 * frame stamped (X550, TSIP_UT_EN with type all). */
	int rx_each_event;
	const char *rx_filters;		/* `ethtool -T` filter lines */
};

#define PHC_PIN_TT0	1u	/* pins_poll: the target time was reached */
#define PHC_PIN_AUTT0	2u	/* pins_poll: an auxiliary time stamp was taken */

/* A PHC <-> TSC cross-timestamp: the narrowest of a few SYSTIM reads
 * bracketed by TSC reads. */
struct phc_xtstamp {
	uint64_t tsc;		/* TSC at the middle of the read */
	int64_t ns;		/* clock time then */
	uint64_t window;	/* TSC cycles between the bracketing reads */
};

struct phc {
	struct nic *nic;
	const struct phc_ops *ops;	/* NULL: software clock */
	int rx_on, tx_on, udp_on;	/* hardware timestamping in force */
	int rx_msg;
	int64_t ppb;			/* frequency adjustment in force */
	struct systim_tc tc;		/* hardware clock */
	int64_t sw_base_ns;		/* software clock at sw_base_tsc */
	uint64_t sw_base_tsc;
	struct phc_xtstamp xt;		/* the last cross-timestamp */
	double ns_per_tsc;		/* clock ns per TSC cycle, at ppb */
	struct hwts_tx tx;
	struct hwts_rx rx;
	int tx_q;			/* queue and descriptor of the frame granted last */
	uint32_t tx_desc;
	uint64_t cnt_timeouts, cnt_stale;	/* already added to nic->stats */
	volatile int lock;		/* see phc.c */
	uint64_t timinca_jumps;		/* SYSTIM discontinuities at a TIMINCA write, absorbed */
	/* Pins (phc_pins_*): the PPS on SDP0 and the external time stamp input */
	int pps_on;
	int64_t pps_next_ns;		/* clock time of SDP0's next toggle */
	uint64_t pps_edges;		/* rising edges so far (toggles at whole seconds) */
	uint64_t pps_late;		/* toggles re-armed too late, skipped (phase kept) */
	int extts_pin;			/* SDP stamped, -1 none */
	uint64_t extts_events;		/* auxiliary time stamps taken */
	int64_t extts_last_ns;		/* the last one, clock time */
};

extern struct phc phcs[NIC_MAX_PORTS];

/* A driver registers its port's hardware clock (at probe; again after a
 * reset, when it restores the timestamping set-up in force). */
void phc_register(struct nic *nic, const struct phc_ops *ops);
/* The clock of a port (software unless registered). */
struct phc *phc_of(struct nic *nic);
/* 1 if the port stamps frames in hardware. */
int phc_is_hw(const struct phc *c);
/* 1 if the port's descriptors mark every PTP event message it receives
 * and no other frame, now (phc_ops.rx_each_event, RX and UDP stamping on):
 * a burst whose rx_tstamped did not move holds none. */
int phc_rx_each_event(const struct phc *c);

/* Clock time, ns. */
int64_t phc_gettime(struct phc *c);
/* Frequency adjustment, ppb (clamped to the clock's max_adj). */
void phc_adjfreq(struct phc *c, int64_t ppb);
/* Step by delta ns; set to ns. */
void phc_adjtime(struct phc *c, int64_t delta);
void phc_settime(struct phc *c, int64_t ns);
/* Take a new cross-timestamp (narrowest window of 4 reads) into c->xt. */
void phc_cross(struct phc *c);
/* TSC -> clock ns and back, through the last cross-timestamp and the rate. */
int64_t phc_from_tsc(const struct phc *c, uint64_t tsc);
uint64_t phc_to_tsc(const struct phc *c, int64_t ns);
/* A software timestamp: the clock at the TSC value taken at the burst. */
int64_t phc_sw_stamp(struct phc *c, uint64_t tsc);
/* ns of clock from as ns of clock to: through the TSC and the two clocks'
 * cross-timestamps (each re-taken if older than 10 ms), so two ports'
 * stamps compare on one time base. Error: the two cross-timestamps'
 * windows plus each clock's drift from its rate since its last one. */
int64_t phc_convert(struct phc *from, int64_t ns, struct phc *to);

/* Turn hardware timestamping on for an app (SIOCSHWTSTAMP): see
 * phc_ops.hwtstamp_set. No effect on a software clock. */
void phc_hwtstamp(struct phc *c, int rx_msg, int tx, int udp);

/* Fast-path hooks of the rings, called only when the descriptor's TS bit /
 * the packet's PKT_TX_TSTAMP flag is set. They set PKT_RX_TSTAMP and
 * p->tstamp (clock ns) when the time is there: phc_rx_hwtstamp from the
 * latch registers, if their sequence ID is the frame's PTP message's
 * (else counted rx_hwtstamp_mismatch, on the frame's queue; a source ID
 * that differs is counted rx_hwtstamp_source_mismatch, stamp kept);
 * phc_rx_buf_tstamp from raw, the value the NIC put in front of the frame
 * (descriptor TSIP). */
void phc_rx_hwtstamp(struct nic *nic, struct pkt *p);
void phc_rx_buf_tstamp(struct nic *nic, struct pkt *p, uint64_t raw);
/* Returns 1 if the frame going into descriptor desc of queue q may carry
 * the timestamp request (else it is sent without one). */
int phc_tx_request(struct nic *nic, int q, uint32_t desc);

/* Requests granted so far: compare before and after tx_burst to learn
 * whether the frame got one; then phc_tx_tstamp with the new value. */
static inline uint32_t phc_tx_seq(const struct phc *c)
{
	return c->tx.seq;
}
/* The TX timestamp of request seq: 1 and *ns when it has come, 0 while
 * waiting, -1 when it never will (timed out). Polls the registers. */
int phc_tx_tstamp(struct phc *c, uint32_t seq, int64_t *ns);
/* The same without taking the stamp (the app still takes it, before or
 * after): for a capture's copy of the stamped frame. */
int phc_tx_tstamp_peek(struct phc *c, uint32_t seq, int64_t *ns);

/* Once a second per port (core 0): the counter's wrap, the
 * cross-timestamp, the RX latch lock-up (rx_hwtstamp_cleared). */
void phc_housekeeping(struct nic *nic);
/* The boot line: which ports stamp in hardware. */
void phc_report(void);
/* `ethtool -T <port>`. */
void phc_ethtool_T(struct nic *nic);

/* The pins: ptp_pps (a pulse per second on SDP0, rising at each whole
 * second of the port's clock) and ptp_extts (rising edges on that SDP
 * stamped), set at phc_register on parts with pins; again after a clock
 * step (phc_adjtime, phc_settime) for the PPS, and after a reset. */
extern int64_t phc_pps_knob, phc_extts_knob;
/* 1 if the port's clock has SDP pins (I350, I210/I211). */
int phc_has_pins(const struct phc *c);
/* Take the port's time sync causes: SDP0's next toggle armed (or counted
 * late and skipped to the next one in phase), an external stamp counted. */
void phc_pins_poll_port(struct phc *c);
/* Core 0's loop: phc_pins_poll_port on each port with a pin set, every
 * 10 ms of TSC (now); nothing when no pin is set. */
void phc_pins_poll(uint64_t now);
/* The boot line of a port's pins (phc_report): what ptp_pps/ptp_extts
 * set there, or why not. */
void phc_pins_report(struct phc *c);
/* `phc_ctl <port> pins`: the pins' state and counts, as testptp -l / -e. */
void phc_pins_show(struct phc *c);

/* tx_timestamp_timeout knob, ms. */
extern int64_t phc_tx_timeout_ms;
#endif
