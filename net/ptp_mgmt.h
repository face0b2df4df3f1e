/*
 * IEEE 1588-2008 management (clause 15) as linuxptp's pmc asks and ptp4l
 * answers: the managementId values and errors, and the data sets a clock
 * answers GET with, encoded and decoded as on the wire (15.5.3; linuxptp's
 * TIME_STATUS_NP, tlv.h). Portable: the message itself is parsed and built
 * by net/ptp.c (struct ptp_mgmt).
 */
#ifndef NET_PTP_MGMT_H
#define NET_PTP_MGMT_H
#include <stddef.h>
#include <stdint.h>
#include "net/ptp.h"

/* actionField (15.4.1.6, table 38) */
enum ptp_mgmt_action { PTP_MGMT_GET, PTP_MGMT_SET, PTP_MGMT_RESPONSE, PTP_MGMT_COMMAND, PTP_MGMT_ACKNOWLEDGE };

/* managementId (15.5.2.3, table 40) and linuxptp's implementation-specific ones. */
#define PTP_MID_NULL_MANAGEMENT		0x0000
#define PTP_MID_DEFAULT_DATA_SET	0x2000
#define PTP_MID_CURRENT_DATA_SET	0x2001
#define PTP_MID_PARENT_DATA_SET		0x2002
#define PTP_MID_PORT_DATA_SET		0x2004
#define PTP_MID_TIME_STATUS_NP		0xc000

/* managementErrorId (15.5.4.1.4, table 72) */
#define PTP_MGMT_ERR_WRONG_LENGTH	0x0003
#define PTP_MGMT_ERR_NOT_SUPPORTED	0x0006
#define PTP_MGMT_ERR_NO_SUCH_ID		0x0002

/* delayMechanism (8.2.5.4.4, table 9) */
#define PTP_DELAY_E2E 0x01
#define PTP_DELAY_P2P 0x02

/* defaultDS (15.5.3.3.1): 20 bytes. */
struct ptp_default_ds {
	uint8_t two_step, slave_only;	/* flags TSC (bit 0), SO (bit 1) */
	uint16_t number_ports;
	uint8_t priority1;
	struct ptp_clock_quality quality;
	uint8_t priority2;
	uint8_t clock_id[8];
	uint8_t domain;
};

/* currentDS (15.5.3.4.1): 18 bytes; TimeIntervals are ns * 2^16. */
struct ptp_current_ds {
	uint16_t steps_removed;
	int64_t offset_from_master, mean_path_delay;
};

/* parentDS (15.5.3.5.1): 32 bytes. */
struct ptp_parent_ds {
	struct ptp_port_id parent;
	uint8_t parent_stats;		/* PS flag */
	uint16_t observed_variance;	/* observedParentOffsetScaledLogVariance */
	int32_t observed_rate;		/* observedParentClockPhaseChangeRate */
	uint8_t gm_priority1;
	struct ptp_clock_quality gm_quality;
	uint8_t gm_priority2;
	uint8_t gm_id[8];
};

/* portDS (15.5.3.7.1): 26 bytes. */
struct ptp_port_ds {
	struct ptp_port_id id;
	uint8_t state;			/* portState, 1 INITIALIZING ... 9 SLAVE (table 8) */
	int8_t log_min_delay_req;
	int64_t peer_mean_path_delay;	/* ns * 2^16 */
	int8_t log_announce;
	uint8_t announce_receipt_timeout;
	int8_t log_sync;
	uint8_t delay_mechanism;	/* PTP_DELAY_E2E or PTP_DELAY_P2P */
	int8_t log_min_pdelay_req;
	uint8_t version;
};

/* linuxptp's TIME_STATUS_NP (tlv.h struct time_status_np): 50 bytes. */
struct ptp_time_status_np {
	int64_t master_offset;		/* ns */
	int64_t ingress_time;		/* ns of the last Sync's receipt */
	int32_t cumulative_scaled_rate_offset;
	int32_t scaled_last_gm_phase_change;
	uint16_t gm_time_base_indicator;
	uint8_t last_gm_phase_change[12];	/* ScaledNs: 96 bits, as received */
	int32_t gm_present;		/* 1 when the grandmaster is another clock */
	uint8_t gm_id[8];
};

/* One data set of a management TLV, by its managementId. */
struct ptp_mgmt_data {
	uint16_t id;
	union {
		struct ptp_default_ds dflt;
		struct ptp_current_ds cur;
		struct ptp_parent_ds parent;
		struct ptp_port_ds port;
		struct ptp_time_status_np tsn;
	};
};

/* Bytes of the dataField for managementId id (GET requests carry it empty
 * or zero-filled at that size, as pmc does); 0 for NULL_MANAGEMENT, -1 for
 * an id not handled here. */
int ptp_mgmt_data_len(uint16_t id);

/* Encode d into buf (cap bytes): the dataField. Returns its length, 0 if
 * cap is too small or d->id is not handled here. */
size_t ptp_mgmt_data_put(uint8_t *buf, size_t cap, const struct ptp_mgmt_data *d);

/* Decode a dataField of managementId id (len bytes) into *d. Returns 0, or
 * -1 if len is not the data set's length or the id is not handled here. */
int ptp_mgmt_data_get(const uint8_t *buf, size_t len, uint16_t id, struct ptp_mgmt_data *d);

/* 1 if a management message m is for a clock with identity id and port
 * number port (15.3.1: targetPortIdentity equal or all ones). */
int ptp_mgmt_targets(const struct ptp_msg *m, const uint8_t id[8], uint16_t port);

/* The reply to management request req (15.3.2; as ptp4l's
 * port_management_reply): header from src in domain, same sequenceId,
 * controlField 4, logMessageInterval 0x7f; targetPortIdentity the
 * requester; startingBoundaryHops and boundaryHops both the request's
 * startingBoundaryHops - boundaryHops; RESPONSE (ACKNOWLEDGE to a
 * COMMAND); the TLV: MANAGEMENT with data (len bytes) when err is 0, else
 * MANAGEMENT_ERROR_STATUS with err and no displayData. */
void ptp_mgmt_reply(struct ptp_msg *out, const struct ptp_msg *req, const struct ptp_port_id *src,
		    uint8_t domain, uint16_t err, const uint8_t *data, uint16_t len);
#endif
