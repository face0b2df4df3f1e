/*
 * IEEE 1588-2008 (PTPv2) messages: parse and build the header (13.3) and
 * the bodies an end-to-end ordinary clock uses (Announce 13.5, Sync and
 * Delay_Req 13.6, Follow_Up 13.7, Delay_Resp 13.8), the peer-delay ones
 * (Pdelay_Req 13.9, Pdelay_Resp 13.10, Pdelay_Resp_Follow_Up 13.11) and management
 * messages (15.4, their TLV in net/ptp_mgmt.h), the TLVs after a body
 * (14.1), the L2 (Annex F), UDP/IPv4 (Annex D) and UDP/IPv6 (Annex E)
 * framing, and the best
 * master clock dataset comparison (9.3.4, figures 27 and 28).
 *
 * Portable: no kernel headers, every multi-byte field is big-endian on the
 * wire and host order in the structs here. Frames are Ethernet II without
 * FCS and without a VLAN tag.
 */
#ifndef NET_PTP_H
#define NET_PTP_H
#include <stddef.h>
#include <stdint.h>

#define PTP_HLEN		34	/* common header, bytes */
#define PTP_VERSION		2
#define PTP_ETHERTYPE		0x88f7
#define PTP_EVENT_PORT		319
#define PTP_GENERAL_PORT	320
#define PTP_IPV4_MCAST		0xe0000181	/* 224.0.1.129 */
#define PTP_IPV4_PDELAY_MCAST	0xe000006b	/* 224.0.0.107, peer-delay messages */
#define PTP_UDP_TTL		1		/* as ptp4l's udp_ttl default (IPv6: the hop limit) */
/* UDP/IPv6 (Annex E): ff0e::181 (ptp4l's udp6_scope 0x0E) and ff02::6b for
 * peer-delay messages; every message carries 2 octets after messageLength,
 * as ptp4l's udp6 sends them (room for a UDP checksum correction). */
extern const uint8_t ptp_ipv6_mcast[16];
extern const uint8_t ptp_ipv6_pdelay_mcast[16];
#define PTP_UDP6_TRAILER	2

/* messageType (13.3.2.2) */
enum ptp_type {
	PTP_SYNC = 0x0, PTP_DELAY_REQ = 0x1, PTP_PDELAY_REQ = 0x2, PTP_PDELAY_RESP = 0x3,
	PTP_FOLLOW_UP = 0x8, PTP_DELAY_RESP = 0x9, PTP_PDELAY_RESP_FOLLOW_UP = 0xa,
	PTP_ANNOUNCE = 0xb, PTP_SIGNALING = 0xc, PTP_MANAGEMENT = 0xd,
};

/* flagField (13.3.2.6): octet 0 in bits 15:8, octet 1 in bits 7:0 */
#define PTP_FLAG_TWO_STEP	0x0200
#define PTP_FLAG_UNICAST	0x0400
#define PTP_FLAG_UTC_VALID	0x0004
#define PTP_FLAG_PTP_TIMESCALE	0x0008
#define PTP_FLAGS_TIME_PROPERTIES 0x003f	/* leap61 ... frequencyTraceable (13.3.2.6) */

/* A TLV type (14.1.1, table 34) this code knows, so that it is not counted
 * unknown: PATH_TRACE (ptp4l sends it with path_trace_enabled) and the
 * organization extension ptp4l uses for follow_up_info. */
#define PTP_TLV_MANAGEMENT		0x0001
#define PTP_TLV_MANAGEMENT_ERROR_STATUS	0x0002
#define PTP_TLV_ORGANIZATION_EXTENSION	0x0003
#define PTP_TLV_PATH_TRACE		0x0008

/* Why a received message was refused, by name for the counters. */
#define PTP_ERRORS(X) \
	X(too_short)		/* fewer than PTP_HLEN bytes, or than its body needs */ \
	X(bad_version)		/* versionPTP is not 2 */ \
	X(bad_length)		/* messageLength beyond the frame or shorter than the body */ \
	X(bad_tlv)		/* a TLV runs past messageLength, or a TLV is shorter than 4 bytes */ \
	X(unsupported_type)	/* signaling or a reserved type */ \
	X(bad_management)	/* management message whose first TLV is not MANAGEMENT (with its \
				 * managementId) or MANAGEMENT_ERROR_STATUS (8 bytes at least) */
#define PTP_ERR_ENUM(name) PTP_ERR_##name,
enum ptp_err { PTP_OK, PTP_ERRORS(PTP_ERR_ENUM) PTP_ERR_N };

struct ptp_port_id {
	uint8_t clock_id[8];
	uint16_t port;
};

/* A timestamp (5.3.3): 48-bit seconds, nanoseconds below 10^9. */
struct ptp_ts {
	uint64_t sec;
	uint32_t ns;
};

/* clockQuality (5.3.7) */
struct ptp_clock_quality {
	uint8_t clock_class;
	uint8_t clock_accuracy;
	uint16_t offset_scaled_log_variance;
};

/* Announce body (13.5). */
struct ptp_announce {
	struct ptp_ts origin;
	int16_t utc_offset;
	uint8_t priority1;
	struct ptp_clock_quality quality;
	uint8_t priority2;
	uint8_t gm_id[8];
	uint16_t steps_removed;
	uint8_t time_source;
};

/* Management message fields (15.4.1) and its first TLV (15.5.2 MANAGEMENT,
 * or 15.5.4 MANAGEMENT_ERROR_STATUS). */
struct ptp_mgmt {
	struct ptp_port_id target;	/* targetPortIdentity; all ones: every clock/port */
	uint8_t starting_hops, hops;	/* startingBoundaryHops, boundaryHops */
	uint8_t action;			/* actionField, enum ptp_mgmt_action (net/ptp_mgmt.h) */
	uint16_t tlv_type;		/* PTP_TLV_MANAGEMENT or PTP_TLV_MANAGEMENT_ERROR_STATUS */
	uint16_t id;			/* managementId */
	uint16_t error;			/* managementErrorId (error status TLV) */
	const uint8_t *data;		/* dataField (error: displayData), in the parsed buffer */
	uint16_t data_len;		/* bytes */
};

/* A parsed message. Only the body of msg_type is meaningful. */
struct ptp_msg {
	uint8_t msg_type;		/* enum ptp_type */
	uint8_t transport_specific;
	uint8_t version;
	uint8_t domain;
	uint16_t length;		/* messageLength, bytes */
	uint16_t flags;
	int64_t correction;		/* correctionField: ns * 2^16 */
	struct ptp_port_id source;
	uint16_t seq;
	uint8_t control;
	int8_t log_interval;		/* logMessageInterval */
	struct ptp_ts ts;		/* origin (Sync, Delay_Req, Pdelay_Req), preciseOrigin
					 * (Follow_Up), receive (Delay_Resp), requestReceipt
					 * (Pdelay_Resp), responseOrigin (Pdelay_Resp_Follow_Up) */
	struct ptp_port_id requesting;	/* Delay_Resp, Pdelay_Resp, Pdelay_Resp_Follow_Up */
	struct ptp_announce announce;	/* Announce */
	struct ptp_mgmt mgmt;		/* Management */
	int32_t rate_offset;		/* Follow_Up: its 802.1AS follow-up information TLV's
					 * cumulativeScaledRateOffset, 0 without one */
	uint16_t tlvs;			/* TLVs after the body */
	uint16_t unknown_tlvs;		/* of which of a type not named above (ignored, 14.1.1) */
};

/* Parse the PTP message at buf (len bytes: the UDP payload or what follows
 * the EtherType; padding after messageLength is ignored) into *m. Returns
 * PTP_OK, or the first check that failed (*m then partly filled). */
enum ptp_err ptp_parse(const uint8_t *buf, size_t len, struct ptp_msg *m);

/* Name of an error for counters: "too_short", ... ("ok" for PTP_OK). */
const char *ptp_err_name(enum ptp_err e);

/* Body bytes after the header for a message type, 0 for types not built or
 * parsed here. */
size_t ptp_body_len(uint8_t msg_type);

/* Write the message m (header and body of m->msg_type; no TLVs except a
 * management message's one, from m->mgmt) into buf (cap bytes).
 * messageLength and controlField are set from the type (m's fields are
 * ignored); versionPTP is 2. Returns the bytes written, or 0 if cap is too
 * small or the type is not one built here. */
size_t ptp_build(uint8_t *buf, size_t cap, const struct ptp_msg *m);

/* The controlField value of a type (13.3.2.10): Sync 0, Delay_Req 1,
 * Follow_Up 2, Delay_Resp 3, Management 4, others 5. */
uint8_t ptp_control(uint8_t msg_type);

/* 1 for event messages (timestamped): Sync, Delay_Req, Pdelay_Req/Resp. */
static inline int ptp_is_event(uint8_t msg_type)
{
	return msg_type < 0x8;
}

/* 1 for the peer-delay messages, which have their own address (Annex D,
 * E, F) and end at the link (11.4). */
static inline int ptp_is_pdelay(uint8_t msg_type)
{
	return msg_type == PTP_PDELAY_REQ || msg_type == PTP_PDELAY_RESP || msg_type == PTP_PDELAY_RESP_FOLLOW_UP;
}

/* 1 for the types whose body carries requestingPortIdentity. */
static inline int ptp_has_requesting(uint8_t msg_type)
{
	return msg_type == PTP_DELAY_RESP || msg_type == PTP_PDELAY_RESP || msg_type == PTP_PDELAY_RESP_FOLLOW_UP;
}

/* 802.1AS-2011 11.4.4.3: the follow-up information TLV (an organization
 * extension, 00-80-C2 subtype 1) a gPTP Follow_Up carries, with
 * cumulativeScaledRateOffset rate_offset ((rateRatio - 1) * 2^41) and
 * the time base, phase and frequency changes 0, appended at buf + *len:
 * messageLength (bytes 2-3) and *len grow by its 32 bytes. Returns 0, or
 * -1 if cap is too small. */
#define PTP_FOLLOW_UP_INFO_LEN 32
int ptp_put_follow_up_info(uint8_t *buf, size_t cap, size_t *len, int32_t rate_offset);

/* Where a Follow_Up's 802.1AS follow-up information TLV keeps its
 * cumulativeScaledRateOffset (Integer32, (rateRatio - 1) * 2^41,
 * 11.4.4.3): offset from the message's first byte, or -1 if msg (len
 * bytes, a parsed Follow_Up) carries no such TLV first after its body. */
int ptp_follow_up_rate_offset(const uint8_t *msg, size_t len);

/* ns * rate, rate given as (rate - 1) * 2^41 (cumulativeScaledRateOffset's
 * unit, 802.1AS-2011 11.4.4.3): ns + ns * off / 2^41, rounded down. */
static inline int64_t ptp_rate_apply(int64_t ns, int64_t off)
{
	return ns + (int64_t)(((__int128)ns * off) >> 41);
}

/* The rate offset of two rates in a row, each given as (rate - 1) * 2^41:
 * (1 + a / 2^41) * (1 + b / 2^41) as the same (rounded down). */
static inline int64_t ptp_rate_compose(int64_t a, int64_t b)
{
	return a + b + (int64_t)(((__int128)a * b) >> 41);
}

/* ns <-> Timestamp. */
struct ptp_ts ptp_ts_from_ns(int64_t ns);
int64_t ptp_ts_to_ns(struct ptp_ts t);

/* The transports (ptp4l's network_transport): L2 sends to 01:1B:19:00:00:00
 * with EtherType 0x88F7; UDPv4 to 224.0.1.129 (MAC 01:00:5E:00:01:81),
 * UDPv6 to ff0e::181 (MAC 33:33:00:00:01:81), event messages on port 319
 * and general ones on 320, TTL (hop limit) 1. Peer-delay messages go to
 * 01:80:C2:00:00:0E, 224.0.0.107 or ff02::6b (Annex F, D, E). */
enum ptp_transport { PTP_L2, PTP_UDP4, PTP_UDP6 };
extern const uint8_t ptp_l2_mcast[6];
extern const uint8_t ptp_ipv4_mcast_mac[6];
extern const uint8_t ptp_l2_pdelay_mcast[6];	/* 01:80:C2:00:00:0E */
extern const uint8_t ptp_ipv4_pdelay_mac[6];	/* 01:00:5E:00:00:6B */
extern const uint8_t ptp_ipv6_mcast_mac[6];	/* 33:33:00:00:01:81 */
extern const uint8_t ptp_ipv6_pdelay_mac[6];	/* 33:33:00:00:00:6B */
/* The destination MAC of transport t's messages: peer-delay ones (pdelay
 * 1) or the others. */
const uint8_t *ptp_mcast_mac(enum ptp_transport t, int pdelay);

/* Where the PTP message starts in a received frame. */
struct ptp_frame {
	const uint8_t *msg;	/* first byte of the PTP header */
	size_t len;		/* bytes from there to the end of the frame (or UDP payload) */
	uint32_t src_ip;	/* UDPv4: sender address, host order */
};

/* Outcome of ptp_frame_parse. */
enum ptp_frame_kind {
	PTP_FRAME_NONE,		/* not PTP over this transport */
	PTP_FRAME_OK,
	PTP_FRAME_BAD_IP,	/* IPv4/IPv6 UDP to port 319/320 with a bad header, length or
				 * (IPv6) UDP checksum */
};

/* Find the PTP message in frame (len bytes) for transport t: L2 by
 * EtherType; UDPv4 by IPv4 (header checked, no fragments) and UDP
 * destination port 319 or 320; UDPv6 by an IPv6 header whose next header
 * is UDP (no extension headers, as ptp4l sends) to port 319 or 320, the
 * UDP checksum checked (mandatory, RFC 8200 8.1: 0 is bad). */
enum ptp_frame_kind ptp_frame_parse(const uint8_t *frame, size_t len, enum ptp_transport t,
				    struct ptp_frame *f);

/* Put the headers in front of a PTP message of msg_len bytes already at
 * frame + ptp_frame_hlen(t): Ethernet from src_mac to the transport's
 * multicast MAC; for UDPv4 an IPv4 header from src_ip (4 bytes, network
 * order; checksummed, DF, TTL 1) and a UDP header (port 319 for events,
 * else 320; checksum 0, allowed in IPv4); for UDPv6 an IPv6 header from
 * src_ip (16 bytes; hop limit 1) and a UDP header with its checksum, the
 * message followed by PTP_UDP6_TRAILER zero bytes. src_ip is not read for
 * L2 (0 will do). Returns the frame length, padded with zeros to 60 bytes. */
size_t ptp_frame_build(uint8_t *frame, enum ptp_transport t, const uint8_t src_mac[6],
		       const uint8_t *src_ip, uint8_t msg_type, size_t msg_len);
/* Bytes of headers before the PTP message: 14 (L2), 42 (UDPv4) or 62 (UDPv6). */
size_t ptp_frame_hlen(enum ptp_transport t);

/* What the best master clock algorithm compares (9.3.4): a clock's
 * Announce as received (or our own defaultDS as if announced), the port
 * identity of the sender and of the receiver. */
struct ptp_dataset {
	uint8_t priority1;
	struct ptp_clock_quality quality;
	uint8_t priority2;
	uint8_t gm_id[8];
	uint16_t steps_removed;
	struct ptp_port_id sender;
	struct ptp_port_id receiver;
};

/* The dataset an Announce m carries (9.3.4: the grandmaster's attributes,
 * stepsRemoved, the sender's portIdentity), received on port `receiver`. */
void ptp_dataset_of(struct ptp_dataset *d, const struct ptp_msg *m, const struct ptp_port_id *receiver);

/* Dataset comparison (9.3.4, figures 27 and 28): > 0 if a is better than b,
 * < 0 if b is better, 0 if they are the same. |result| 2 means better by
 * the grandmaster's attributes or by topology (steps removed differ by more
 * than one), 1 better by topology only (a tie-break on identities). */
int ptp_dataset_cmp(const struct ptp_dataset *a, const struct ptp_dataset *b);

/* clockIdentity from a MAC (EUI-48 to EUI-64, 7.5.2.2.2 as ptp4l does it):
 * the three OUI bytes, 0xFF, 0xFE, the three other bytes. */
void ptp_clock_id_from_mac(uint8_t id[8], const uint8_t mac[6]);
#endif
