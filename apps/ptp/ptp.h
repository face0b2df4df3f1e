/*
 * ptp: an IEEE 1588-2008 ordinary clock on each port app=ptp runs on:
 * end-to-end delay mechanism, two-step, L2, UDP/IPv4 or UDP/IPv6, the best master
 * clock algorithm (role auto) or a fixed role, ptp4l's PI servo steering
 * the port's clock (drivers/net/phc.h) with hardware timestamps where the
 * port has them. Log lines are shaped like ptp4l's.
 *
 * On two or more ports app=ptp is one boundary clock (clock.c).
 *
 * Files: conf.c (knobs), clock.c (the clock over its ports: identity, the
 * state decision across ports, the time base), port.c (state machine, BMCA, messages, servo),
 * pdelay.c (the peer delay mechanism), mgmt.c (answers to management messages: pmc), ptp.c (app hooks,
 * transmit, the `ptp` command), metrics.c (/metrics).
 */
#ifndef APPS_PTP_H
#define APPS_PTP_H
#include <stdint.h>
#include "drivers/net/phc.h"
#include "net/ptp.h"
#include "net/ptp_servo.h"

/* Knobs (conf.c), ptp4l's names where ptp4l has the option. */
struct ptp_conf {
	int64_t role;			/* enum ptp_role */
	int64_t transport;		/* enum ptp_transport (network_transport) */
	int64_t domain;			/* domainNumber */
	int64_t priority1, priority2, clock_class;
	int64_t log_announce, log_sync, log_min_delay_req;	/* log2 s */
	int64_t announce_receipt_timeout;	/* announce intervals */
	int64_t summary_interval;	/* log2 s */
	int64_t time_stamping;		/* 0 hardware (where the port has it), 1 software */
	int64_t transport_specific;	/* transportSpecific: 0 (1588), 1 (802.1AS) */
	int64_t delay_mechanism;	/* enum ptp_delay_mechanism */
	int64_t log_min_pdelay_req;	/* log2 s */
	int64_t neighbor_prop_delay_thresh;	/* ns: 802.1AS asCapable at most this link delay */
};
#define PTP_TS_8021AS 1		/* transportSpecific of 802.1AS (gPTP) */
enum ptp_delay_mechanism { DM_E2E, DM_P2P };
extern struct ptp_conf ptp_conf;
enum ptp_role { ROLE_AUTO, ROLE_MASTER, ROLE_SLAVE };

/* Port states (9.2.5), printed with ptp4l's names. */
#define PTP_STATES(X) X(INITIALIZING) X(FAULTY) X(DISABLED) X(LISTENING) X(PRE_MASTER) \
	X(MASTER) X(PASSIVE) X(UNCALIBRATED) X(SLAVE)
#define PTP_STATE_ENUM(n) PS_##n,
enum port_state { PTP_STATES(PTP_STATE_ENUM) PS_N };

/* Where each received frame ends: used by message type, or one drop. */
#define PTP_RX_USED(X) X(sync) X(follow_up) X(delay_req) X(delay_resp) X(announce) \
	X(announce_own_clock)	/* Announce from another port of this clock (9.5.2.3): a loop, lower portNumber's puts us PASSIVE */ \
	X(arp_request) X(echo_request)	/* UDPv4: to the port's address, answered (RFC 1122 2.3.2.1, 3.2.2.6) */ \
	X(management)		/* a GET answered with its data set (15.3) */ \
	X(pdelay_req) X(pdelay_resp) X(pdelay_resp_follow_up)	/* delay_mechanism=P2P (11.4) */
#define PTP_RX_DROPS(X) \
	X(not_ptp)		/* not PTP over the configured transport */ \
	X(bad_ip)		/* UDP to port 319/320 with a bad IPv4/IPv6/UDP header or UDPv6 checksum */ \
	PTP_ERRORS(X)		/* the parser's reasons (net/ptp.h) */ \
	X(wrong_domain)		/* domainNumber is not ours */ \
	X(wrong_transport_specific)	/* transportSpecific of another profile (802.1AS: 1) */ \
	X(from_self)		/* our own clock identity (but Announce from another of its ports) */ \
	X(wrong_state)		/* e.g. Sync while master, Delay_Req while not master */ \
	X(wrong_delay_mechanism)	/* Pdelay messages with delay_mechanism=E2E, Delay_Req with P2P (as ptp4l) */ \
	X(multiple_peers)	/* a second Pdelay_Resp, from another port, to one Pdelay_Req (802.1AS 11.2.2) */ \
	X(not_from_master)	/* Sync/Follow_Up/Delay_Resp from a port that is not our parent */ \
	X(other_master)		/* Announce from a master that is not the best (kept as a fallback) */ \
	X(no_matching_sync)	/* Follow_Up whose Sync we did not see (sequenceId) */ \
	X(not_our_request)	/* Delay_Resp to another port or an old Delay_Req */ \
	X(bad_timestamp)	/* a timestamp used with ns >= 10^9 or s >= 2^32 (past 2106) */ \
	X(foreign_table_full)	/* Announce from a fifth foreign master */ \
	X(steps_removed_255)	/* Announce with stepsRemoved 255 or more: never considered (9.3.2.5) */ \
	X(mgmt_not_for_us)	/* management: a RESPONSE/ACKNOWLEDGE or error status, or for another clock or port */ \
	X(mgmt_refused)		/* management SET or COMMAND: answered NOT_SUPPORTED (WRONG_LENGTH if empty) */ \
	X(mgmt_unsupported_id)	/* management GET of a managementId not answered here: NOT_SUPPORTED */ \
	X(mgmt_wrong_length)	/* management GET whose dataField is neither empty nor the data set's size */
#define PTP_COUNT_ENUM(n) PC_##n,
enum ptp_rx_count { PTP_RX_USED(PTP_COUNT_ENUM) PTP_RX_DROPS(PTP_COUNT_ENUM) PC_N };
#define PC_FIRST_DROP PC_not_ptp

/* Events that are not received frames. */
#define PTP_EVENTS(X) \
	X(tx_sync) X(tx_follow_up) X(tx_delay_req) X(tx_delay_resp) X(tx_announce) \
	X(tx_management) X(tx_management_error)	/* answers: a data set, an error status */ \
	X(tx_pdelay_req) X(tx_pdelay_resp) X(tx_pdelay_resp_follow_up) \
	X(pdelay_samples)	/* peer delay exchanges completed: meanLinkDelay samples */ \
	X(rate_ratio_out_of_range)	/* a neighborRateRatio window off 1 by more than PTP_NRR_MAX_PPM: not used */ \
	X(tx_failed)		/* no buffer, or the TX ring refused the frame */ \
	X(rx_hwtstamp) X(rx_swtstamp)	/* event messages stamped in hardware / software */ \
	X(tx_hwtstamp) X(tx_swtstamp) \
	X(tx_tstamp_missing)	/* a hardware TX timestamp that never came: no Follow_Up / no delay */ \
	X(unknown_tlv)		/* TLVs of a type we do not know, skipped (14.1.1) */ \
	X(sample_out_of_range)	/* an offset or delay sample beyond +-2^62 ns: not used */ \
	X(steps)		/* clock steps (servo s1) */
#define PTP_EVENT_ENUM(n) PE_##n,
enum ptp_event { PTP_EVENTS(PTP_EVENT_ENUM) PE_N };

/* logMessageInterval values in use, log2 s: the knobs' range, and what a
 * value from the wire (Announce, Sync, Delay_Resp) is clamped to (a
 * master's 127 or -128 would make the intervals overflow). */
#define PTP_LOG_MIN (-7)
#define PTP_LOG_MAX 7

#define FOREIGN_MAX 4
#define SW_SYNCS_FOR_SWTS 4	/* unstamped Syncs in a row that switch the servo to software constants */

/* A master we hear Announce messages from (9.3.2.4). */
struct foreign {
	int used;
	struct ptp_port_id id;
	struct ptp_dataset ds;
	uint64_t last_ns[2];		/* the last two Announce arrivals */
	int8_t log_interval;		/* its logAnnounceInterval */
	int16_t utc_offset;		/* its timePropertiesDS (8.2.4), passed on by a boundary clock */
	uint8_t time_source;
	uint16_t time_flags;		/* flagField's leap61..frequencyTraceable bits */
};

/* One port of the clock (of an ordinary clock, its only one). */
struct ptp_port {
	struct nic *nic;
	struct phc *clk;
	int hw;				/* hardware timestamps in use */
	enum port_state state;
	struct ptp_port_id id;		/* our portIdentity: clock id from the MAC, port 1 */
	uint32_t ip;			/* UDPv4 source address (ipN=), host order */
	uint8_t ip6[16];		/* UDPv6 source address: ipN='s first IPv6 one, else link-local */
	uint64_t state_since;
	uint16_t seq_sync, seq_announce, seq_delay_req;
	uint64_t next_announce, next_sync, next_delay_req, next_summary;
	struct foreign foreign[FOREIGN_MAX];
	int parent;			/* index in foreign[], -1 none */
	uint16_t own_port;		/* portNumber of this clock's port last heard announcing here, 0 none */
	uint64_t own_ns;		/* when (now_ns) */
	/* slave: the Sync/Follow_Up pair and the Delay_Req exchange */
	int sync_valid;
	uint16_t sync_seq;
	int64_t t2, sync_corr;		/* ns, correction ns */
	int8_t sync_log_interval;
	int dreq_state;			/* 0 none, 1 sent, waiting for t3 and Delay_Resp */
	uint16_t dreq_seq;
	uint32_t dreq_txseq;		/* phc TX request, 0: software stamp */
	int64_t pair_t1c, pair_t2;	/* the last complete Sync: t1 + corrections, t2 */
	int32_t up_rate_offset;		/* the parent's last Follow_Up's cumulativeScaledRateOffset
					 * (802.1AS 11.4.4.3), 0 without the TLV */
	int have_pair;
	int64_t t1c, t2c, t3, t4c;	/* the pair a Delay_Req goes with; t3; t4 - correction */
	int have_t3, have_t4;
	int8_t log_min_delay_req;
	struct delay_filter df;
	int64_t path_delay;
	int have_delay;
	struct pi_servo servo;
	enum servo_state sstate;
	int64_t last_offset;
	double last_freq;
	/* peer delay (pdelay.c): our request, the answer to the neighbour's */
	struct {
		int state;		/* 1: Pdelay_Req sent, waiting */
		uint16_t seq;
		uint32_t txseq;		/* phc TX request for t1, 0: software stamp */
		int have_t1, have_resp, have_fup;
		int64_t t1, t2, t3c, t4, corr;	/* ns; t3c: t3 + both corrections; corr: the Resp's */
		struct ptp_port_id peer;	/* the port that answered */
	} pd;
	uint16_t seq_pdelay;
	uint64_t next_pdelay;
	struct delay_filter pdf;
	int64_t peer_delay;		/* meanLinkDelay, ns (median) */
	int have_peer_delay;
	int multiple_peers;		/* the last exchange had two responders */
	/* neighborRateRatio (802.1AS-2011 10.2.5.7, 11.2.15.2.3): the
	 * neighbour's clock rate over this port's, (t3c - t3c') / (t4 - t4')
	 * over PTP_NRR_SPAN completed exchanges, as (ratio - 1) * 2^41 (the
	 * unit of cumulativeScaledRateOffset); 0 (ratio 1) until measured */
#define PTP_NRR_SPAN 8		/* exchanges per neighborRateRatio window */
#define PTP_NRR_MAX_PPM 200	/* a window's ratio beyond 1 +- this: out of range */
	int64_t nrr_t3c, nrr_t4;	/* the window's first exchange */
	int nrr_n;			/* exchanges in the window so far, 0: none */
	int64_t nrr;
	int have_nrr;
	int presp_pending;		/* a Pdelay_Resp whose Follow_Up waits for t3 */
	uint16_t presp_seq;
	uint32_t presp_txseq;
	int64_t presp_t3, presp_corr;
	struct ptp_port_id presp_req;
	/* master: Sync waiting for its TX timestamp */
	int fup_pending;
	uint16_t fup_seq;
	uint32_t fup_txseq;
	uint64_t burst_tsc;		/* TSC at the receive burst (software stamps) */
	int sw_syncs;			/* Sync messages in a row without a hardware stamp */
	int servo_sw;			/* servo on software constants although the port is hw */
	struct series_stats s_offset, s_freq, s_delay;
	uint64_t rx_count[PC_N];
	uint64_t ev[PE_N];
	uint64_t rx;			/* frames received */
};

extern struct ptp_port ptp_ports[NIC_MAX_PORTS];
extern const char *const ptp_state_names[PS_N];

/* The clock over the ports (clock.c): an ordinary clock on one port, a
 * boundary clock (IEEE 1588-2008 10.1) on several. */
struct ptp_clock {
	int nports;			/* numberPorts */
	struct ptp_port *port[NIC_MAX_PORTS];	/* portNumber k + 1 */
};
extern struct ptp_clock ptp_clock;
/* Add pp (initialised) as the clock's next port: a second port makes the
 * clock a boundary clock, every port then taking the first one's
 * clockIdentity and its own portNumber (1..N in port order, as ptp4l). */
void ptp_clock_add(struct ptp_port *pp);
/* The port following the clock's parent (UNCALIBRATED or SLAVE), or NULL. */
struct ptp_port *ptp_clock_slave(void);
/* The parent's Announce record (the slave port's), or NULL: the clock is
 * its own grandmaster. */
const struct foreign *ptp_clock_parent(void);
/* The time a port serves: ns of pp's clock as ns of the clock's time base,
 * the slave port's clock (else the first port's); pp's own ns on an
 * ordinary clock. Through the TSC cross-timestamps (phc_convert). */
int64_t ptp_clock_ns(struct ptp_port *pp, int64_t ns);
/* Announce m from another port of this clock heard on pp at now (IEEE
 * 1588-2008 9.5.2.3: two ports of the clock on one segment, a loop): not
 * a foreign master; of the two the port with the higher portNumber goes
 * PASSIVE while it hears the other (within announceReceiptTimeout), so
 * one of them serves the segment. Counted as announce_own_clock. */
void ptp_clock_own_announce(struct ptp_port *pp, const struct ptp_msg *m, uint64_t now);
/* 802.1AS-2011 11.4.4.3: the cumulativeScaledRateOffset master port pp
 * sends in its Follow_Up's TLV, (rateRatio - 1) * 2^41 with rateRatio the
 * grandmaster's frequency over pp's clock's (the one its Pdelay answers
 * are stamped in, which the neighbour's neighborRateRatio measures): 0
 * while this clock is the grandmaster; else through the slave port s,
 * the parent's own offset (its Follow_Up's TLV) times s's
 * neighborRateRatio times s's clock's rate over pp's (their frequency
 * adjustments: phc_convert's model, each clock's TSC rate scaled by its
 * ppb), clamped to an Integer32. */
int32_t ptp_clock_rate_offset(const struct ptp_port *pp);
/* State decision (9.3.3, figure 26) over all ports: Erbest per port, Ebest
 * of the clock, each port SLAVE (the one holding Ebest), MASTER or PASSIVE. */
void ptp_clock_decide(uint64_t now);

/* port.c */
void ptp_port_init(struct ptp_port *pp, struct nic *nic);
/* Erbest (9.3.2.3): index in pp->foreign[] of the best qualified foreign
 * master, -1 none. Forgets long silent ones. */
int ptp_port_erbest(struct ptp_port *pp, uint64_t now);
/* Follow foreign[best] (UNCALIBRATED on RS_SLAVE if not following yet). */
void ptp_port_follow(struct ptp_port *pp, int best);
/* Enter state s on event (ptp4l's name), printed as ptp4l does. */
void ptp_port_to_state(struct ptp_port *pp, enum port_state s, const char *event);
/* A console line as ptp4l's: "ptp[s.ms]: port0: what". */
void ptp_port_say(const struct ptp_port *pp, const char *what);
/* 2^log2s seconds in ns. */
uint64_t ptp_interval_ns(int log2s);
/* One received PTP message with its timestamp (ns of the port clock). */
void ptp_port_rx(struct ptp_port *pp, const struct ptp_msg *m, int64_t ts);
/* Timers and pending TX timestamps; returns 1 if it did anything. */
int ptp_port_tick(struct ptp_port *pp, uint64_t now);
/* Our defaultDS as a BMCA dataset (9.3.4: D0). */
void ptp_own_dataset(const struct ptp_port *pp, struct ptp_dataset *d);
/* 1 while the port follows a master (UNCALIBRATED or SLAVE). */
int ptp_following(const struct ptp_port *pp);
/* Port identity as ptp4l prints it: 3aa283.fffe.e0fd80-1 (port < 0: no suffix). */
void ptp_fmt_id(char *buf, size_t len, const uint8_t id[8], int port);

/* ptp.c: send message m (header fields set by the caller) from pp; event
 * messages get a TX timestamp: *txseq the phc request (0 if a software
 * stamp was taken, in *sw_ts). Returns 0, or -1 counted in tx_failed. */
int ptp_send(struct ptp_port *pp, struct ptp_msg *m, uint32_t *txseq, int64_t *sw_ts);
/* mgmt.c: answer management message m (15.3) for pp's clock as ptp4l
 * does; returns the counter it ends in. */
enum ptp_rx_count ptp_mgmt_rx(struct ptp_port *pp, const struct ptp_msg *m);
/* pdelay.c: a Pdelay message with its receive time; returns the counter
 * it ends in. pdelay_tick: requests at logMinPdelayReqInterval, pending
 * TX stamps; 1 if it did anything. */
enum ptp_rx_count ptp_pdelay_rx(struct ptp_port *pp, const struct ptp_msg *m, int64_t ts);
int ptp_pdelay_tick(struct ptp_port *pp, uint64_t now);
/* 802.1AS 10.2.4.1 asCapable: 1 unless transportSpecific is 802.1AS's
 * and the link's delay is unmeasured, above neighborPropDelayThresh, or
 * answered by two ports. A master port sends Sync and Announce only then. */
int ptp_as_capable(const struct ptp_port *pp);
/* metrics.c: the ptp app's /metrics families (struct app .metrics, net/prom.h). */
struct prom;
void ptp_metrics(struct prom *o);
#endif
