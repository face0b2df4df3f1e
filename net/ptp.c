/* IEEE 1588-2008 messages, framing and dataset comparison; see ptp.h. */
#include <string.h>
#include "net/bytes.h"
#include "net/ipv4.h"
#include "net/ipv6.h"
#include "net/ptp.h"

#define UDP_HLEN 8

const uint8_t ptp_l2_mcast[6] = { 0x01, 0x1b, 0x19, 0x00, 0x00, 0x00 };
const uint8_t ptp_ipv4_mcast_mac[6] = { 0x01, 0x00, 0x5e, 0x00, 0x01, 0x81 };
const uint8_t ptp_l2_pdelay_mcast[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e };
const uint8_t ptp_ipv4_pdelay_mac[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x6b };
const uint8_t ptp_ipv6_mcast_mac[6] = { 0x33, 0x33, 0x00, 0x00, 0x01, 0x81 };
const uint8_t ptp_ipv6_pdelay_mac[6] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x6b };
const uint8_t ptp_ipv6_mcast[16] = { 0xff, 0x0e, [14] = 0x01, [15] = 0x81 };
const uint8_t ptp_ipv6_pdelay_mcast[16] = { 0xff, 0x02, [15] = 0x6b };

static const char *const err_names[PTP_ERR_N] = {
	"ok",
#define PTP_ERR_NAME(name) #name,
	PTP_ERRORS(PTP_ERR_NAME)
};

const char *ptp_err_name(enum ptp_err e)
{
	return (unsigned)e < PTP_ERR_N ? err_names[e] : "?";
}

static struct ptp_ts get_ts(const uint8_t *p)
{
	struct ptp_ts t = { (uint64_t)get16(p) << 32 | get32(p + 2), get32(p + 6) };
	return t;
}

static void put_ts(uint8_t *p, struct ptp_ts t)
{
	put16(p, (uint16_t)(t.sec >> 32));
	put32(p + 2, (uint32_t)t.sec);
	put32(p + 6, t.ns);
}

static void get_port_id(const uint8_t *p, struct ptp_port_id *id)
{
	memcpy(id->clock_id, p, 8);
	id->port = get16(p + 8);
}

static void put_port_id(uint8_t *p, const struct ptp_port_id *id)
{
	memcpy(p, id->clock_id, 8);
	put16(p + 8, id->port);
}

size_t ptp_body_len(uint8_t msg_type)
{
	switch (msg_type) {
	case PTP_SYNC:
	case PTP_DELAY_REQ:
	case PTP_FOLLOW_UP:
		return 10;
	case PTP_DELAY_RESP:
	case PTP_PDELAY_REQ:		/* originTimestamp, 10 reserved bytes */
	case PTP_PDELAY_RESP:
	case PTP_PDELAY_RESP_FOLLOW_UP:
		return 20;
	case PTP_ANNOUNCE:
		return 30;
	case PTP_MANAGEMENT:
		return 14;	/* targetPortIdentity, hops, actionField, reserved */
	default:
		return 0;
	}
}

uint8_t ptp_control(uint8_t msg_type)
{
	switch (msg_type) {
	case PTP_SYNC: return 0;
	case PTP_DELAY_REQ: return 1;
	case PTP_FOLLOW_UP: return 2;
	case PTP_DELAY_RESP: return 3;
	case PTP_MANAGEMENT: return 4;
	default: return 5;
	}
}

static void parse_header(const uint8_t *b, struct ptp_msg *m)
{
	m->msg_type = b[0] & 0xf;
	m->transport_specific = b[0] >> 4;
	m->version = b[1] & 0xf;
	m->length = get16(b + 2);
	m->domain = b[4];
	m->flags = get16(b + 6);
	m->correction = (int64_t)((uint64_t)get32(b + 8) << 32 | get32(b + 12));
	get_port_id(b + 20, &m->source);
	m->seq = get16(b + 30);
	m->control = b[32];
	m->log_interval = (int8_t)b[33];
}

static void parse_body(const uint8_t *b, struct ptp_msg *m)
{
	if (m->msg_type == PTP_MANAGEMENT) {
		get_port_id(b, &m->mgmt.target);
		m->mgmt.starting_hops = b[10];
		m->mgmt.hops = b[11];
		m->mgmt.action = b[12] & 0xf;
		return;
	}
	m->ts = get_ts(b);
	if (ptp_has_requesting(m->msg_type))
		get_port_id(b + 10, &m->requesting);
	if (m->msg_type != PTP_ANNOUNCE)
		return;
	struct ptp_announce *a = &m->announce;
	a->origin = m->ts;
	a->utc_offset = (int16_t)get16(b + 10);
	a->priority1 = b[13];
	a->quality.clock_class = b[14];
	a->quality.clock_accuracy = b[15];
	a->quality.offset_scaled_log_variance = get16(b + 16);
	a->priority2 = b[18];
	memcpy(a->gm_id, b + 19, 8);
	a->steps_removed = get16(b + 27);
	a->time_source = b[29];
}

/* TLVs between the body and messageLength (14.1): type, length, value. */
static enum ptp_err parse_tlvs(const uint8_t *p, size_t left, struct ptp_msg *m)
{
	while (left) {
		if (left < 4)
			return PTP_ERR_bad_tlv;
		uint16_t type = get16(p), len = get16(p + 2);
		if ((size_t)len + 4 > left)
			return PTP_ERR_bad_tlv;
		m->tlvs++;
		int mgmt = m->msg_type == PTP_MANAGEMENT &&
			   (type == PTP_TLV_MANAGEMENT || type == PTP_TLV_MANAGEMENT_ERROR_STATUS);
		if (type != PTP_TLV_PATH_TRACE && type != PTP_TLV_ORGANIZATION_EXTENSION && !mgmt)
			m->unknown_tlvs++;
		p += 4 + len;
		left -= 4 + (size_t)len;
	}
	return PTP_OK;
}

/* A management message's first TLV (15.5.2, 15.5.4): p, left bytes up to
 * messageLength, known to hold that TLV whole. */
static enum ptp_err parse_mgmt_tlv(const uint8_t *p, size_t left, struct ptp_mgmt *g)
{
	if (left < 4)
		return PTP_ERR_bad_management;
	uint16_t type = get16(p), len = get16(p + 2);
	size_t head = type == PTP_TLV_MANAGEMENT ? 2 : type == PTP_TLV_MANAGEMENT_ERROR_STATUS ? 8 : 0;
	if (!head || len < head)
		return PTP_ERR_bad_management;
	g->tlv_type = type;
	if (type == PTP_TLV_MANAGEMENT) {
		g->id = get16(p + 4);
	} else {
		g->error = get16(p + 4);
		g->id = get16(p + 6);
	}
	g->data = p + 4 + head;
	g->data_len = (uint16_t)(len - head);
	return PTP_OK;
}

enum ptp_err ptp_parse(const uint8_t *buf, size_t len, struct ptp_msg *m)
{
	memset(m, 0, sizeof(*m));
	if (len < PTP_HLEN)
		return PTP_ERR_too_short;
	parse_header(buf, m);
	if (m->version != PTP_VERSION)
		return PTP_ERR_bad_version;
	size_t body = ptp_body_len(m->msg_type);
	if (!body)
		return PTP_ERR_unsupported_type;
	if (len < PTP_HLEN + body)
		return PTP_ERR_too_short;
	if (m->length > len || m->length < PTP_HLEN + body)
		return PTP_ERR_bad_length;
	parse_body(buf + PTP_HLEN, m);
	const uint8_t *tlv = buf + PTP_HLEN + body;
	enum ptp_err e = parse_tlvs(tlv, m->length - PTP_HLEN - body, m);
	if (e == PTP_OK && m->msg_type == PTP_MANAGEMENT)
		e = parse_mgmt_tlv(tlv, m->length - PTP_HLEN - body, &m->mgmt);
	int at = e == PTP_OK && m->msg_type == PTP_FOLLOW_UP ? ptp_follow_up_rate_offset(buf, len) : -1;
	if (at >= 0)
		m->rate_offset = (int32_t)get32(buf + at);
	return e;
}

/* The management body and its one TLV (15.4.1, 15.5.2, 15.5.4) at b. */
static void put_mgmt(uint8_t *b, const struct ptp_mgmt *g)
{
	put_port_id(b, &g->target);
	b[10] = g->starting_hops;
	b[11] = g->hops;
	b[12] = g->action & 0xf;
	b[13] = 0;
	uint8_t *t = b + 14;
	int err = g->tlv_type == PTP_TLV_MANAGEMENT_ERROR_STATUS;
	size_t head = err ? 8 : 2;
	put16(t, err ? PTP_TLV_MANAGEMENT_ERROR_STATUS : PTP_TLV_MANAGEMENT);
	put16(t + 2, (uint16_t)(head + g->data_len));
	if (err) {
		put16(t + 4, g->error);
		put16(t + 6, g->id);
		memset(t + 8, 0, 4);
	} else {
		put16(t + 4, g->id);
	}
	if (g->data_len)
		memcpy(t + 4 + head, g->data, g->data_len);
}

/* Bytes of m's message as ptp_build writes it, 0 for types not built. */
static size_t msg_len(const struct ptp_msg *m)
{
	size_t body = ptp_body_len(m->msg_type);
	if (!body)
		return 0;
	if (m->msg_type == PTP_MANAGEMENT)
		body += 4 + (m->mgmt.tlv_type == PTP_TLV_MANAGEMENT_ERROR_STATUS ? 8 : 2) + m->mgmt.data_len;
	return PTP_HLEN + body;
}

size_t ptp_build(uint8_t *buf, size_t cap, const struct ptp_msg *m)
{
	size_t len = msg_len(m);
	if (!len || cap < len || len > 0xffff)
		return 0;
	memset(buf, 0, len);
	buf[0] = (uint8_t)(m->transport_specific << 4 | m->msg_type);
	buf[1] = PTP_VERSION;
	put16(buf + 2, (uint16_t)len);
	buf[4] = m->domain;
	put16(buf + 6, m->flags);
	put32(buf + 8, (uint32_t)((uint64_t)m->correction >> 32));
	put32(buf + 12, (uint32_t)m->correction);
	put_port_id(buf + 20, &m->source);
	put16(buf + 30, m->seq);
	buf[32] = ptp_control(m->msg_type);
	buf[33] = (uint8_t)m->log_interval;
	uint8_t *b = buf + PTP_HLEN;
	if (m->msg_type == PTP_MANAGEMENT) {
		put_mgmt(b, &m->mgmt);
		return len;
	}
	if (m->msg_type != PTP_ANNOUNCE) {
		put_ts(b, m->ts);
		if (ptp_has_requesting(m->msg_type))
			put_port_id(b + 10, &m->requesting);
		return len;
	}
	const struct ptp_announce *a = &m->announce;
	put_ts(b, a->origin);
	put16(b + 10, (uint16_t)a->utc_offset);
	b[13] = a->priority1;
	b[14] = a->quality.clock_class;
	b[15] = a->quality.clock_accuracy;
	put16(b + 16, a->quality.offset_scaled_log_variance);
	b[18] = a->priority2;
	memcpy(b + 19, a->gm_id, 8);
	put16(b + 27, a->steps_removed);
	b[29] = a->time_source;
	return len;
}

/* The follow-up information TLV's type, length, organizationId 00-80-C2
 * and organizationSubType 1 (802.1AS-2011 11.4.4.3, table 11-11). */
static const uint8_t fui_head[10] = { 0x00, 0x03, 0x00, 28, 0x00, 0x80, 0xc2, 0x00, 0x00, 0x01 };
#define FUI_AT (PTP_HLEN + 10)	/* after the Follow_Up's preciseOriginTimestamp */

int ptp_put_follow_up_info(uint8_t *buf, size_t cap, size_t *len, int32_t rate_offset)
{
	if (*len + PTP_FOLLOW_UP_INFO_LEN > cap || *len < PTP_HLEN)
		return -1;
	uint8_t *t = buf + *len;
	memcpy(t, fui_head, sizeof(fui_head));
	memset(t + sizeof(fui_head), 0, PTP_FOLLOW_UP_INFO_LEN - sizeof(fui_head));
	put32(t + sizeof(fui_head), (uint32_t)rate_offset);
	*len += PTP_FOLLOW_UP_INFO_LEN;
	put16(buf + 2, (uint16_t)*len);
	return 0;
}

int ptp_follow_up_rate_offset(const uint8_t *msg, size_t len)
{
	size_t ml = get16(msg + 2);
	if (ml < FUI_AT + PTP_FOLLOW_UP_INFO_LEN || ml > len || memcmp(msg + FUI_AT, fui_head, sizeof(fui_head)))
		return -1;
	return FUI_AT + (int)sizeof(fui_head);
}

struct ptp_ts ptp_ts_from_ns(int64_t ns)
{
	struct ptp_ts t = { 0, 0 };
	if (ns <= 0)
		return t;
	t.sec = (uint64_t)ns / 1000000000u;
	t.ns = (uint32_t)((uint64_t)ns % 1000000000u);
	return t;
}

int64_t ptp_ts_to_ns(struct ptp_ts t)
{
	return (int64_t)(t.sec * 1000000000u + t.ns);
}

size_t ptp_frame_hlen(enum ptp_transport t)
{
	return t == PTP_UDP4 ? ETH_HLEN + IPV4_HLEN + UDP_HLEN : t == PTP_UDP6 ? ETH_HLEN + IPV6_HLEN + UDP_HLEN : ETH_HLEN;
}

static enum ptp_frame_kind parse_udp4(const uint8_t *frame, size_t len, struct ptp_frame *f)
{
	const uint8_t *ip = frame + ETH_HLEN;
	size_t left = len - ETH_HLEN;
	if (left < IPV4_HLEN || ip[9] != 17)
		return PTP_FRAME_NONE;
	size_t ihl = (size_t)(ip[0] & 0xf) * 4;
	if (left < ihl + UDP_HLEN)
		return PTP_FRAME_NONE;
	const uint8_t *udp = ip + ihl;
	uint16_t dport = get16(udp + 2);
	if (dport != PTP_EVENT_PORT && dport != PTP_GENERAL_PORT)
		return PTP_FRAME_NONE;
	enum ipv4_check c = ipv4_check(ip, left);	/* TTL 1 is PTP's normal TTL */
	if (c != IPV4_OK && c != IPV4_TTL_EXPIRED)
		return PTP_FRAME_BAD_IP;
	if (get16(ip + 6) & (IPV4_MF | IPV4_OFFSET))
		return PTP_FRAME_BAD_IP;
	size_t tot = get16(ip + 2), ulen = get16(udp + 4);
	if (ulen < UDP_HLEN || ihl + ulen > tot)
		return PTP_FRAME_BAD_IP;
	f->msg = udp + UDP_HLEN;
	f->len = ulen - UDP_HLEN;
	f->src_ip = get32(ip + 12);
	return PTP_FRAME_OK;
}

static enum ptp_frame_kind parse_udp6(const uint8_t *frame, size_t len, struct ptp_frame *f)
{
	const struct ipv6_hdr *ip = (const struct ipv6_hdr *)(frame + ETH_HLEN);
	const uint8_t *udp = (const uint8_t *)(ip + 1);
	if (len < ETH_HLEN + IPV6_HLEN + UDP_HLEN || ip->nexthdr != 17)
		return PTP_FRAME_NONE;
	uint16_t dport = get16(udp + 2);
	if (dport != PTP_EVENT_PORT && dport != PTP_GENERAL_PORT)
		return PTP_FRAME_NONE;
	size_t plen = ntoh16(ip->payload_len), ulen = get16(udp + 4);
	if (frame[ETH_HLEN] >> 4 != 6 || ETH_HLEN + IPV6_HLEN + plen > len || ulen < UDP_HLEN || ulen > plen ||
	    !get16(udp + 6) || ipv6_multicast(ip->saddr) || ipv6_l4_csum(ip, 17, udp, ulen))
		return PTP_FRAME_BAD_IP;
	f->msg = udp + UDP_HLEN;
	f->len = ulen - UDP_HLEN;
	f->src_ip = 0;
	return PTP_FRAME_OK;
}

enum ptp_frame_kind ptp_frame_parse(const uint8_t *frame, size_t len, enum ptp_transport t,
				    struct ptp_frame *f)
{
	if (len < ETH_HLEN)
		return PTP_FRAME_NONE;
	uint16_t type = get16(frame + 12);
	if (t == PTP_L2) {
		if (type != PTP_ETHERTYPE)
			return PTP_FRAME_NONE;
		f->msg = frame + ETH_HLEN;
		f->len = len - ETH_HLEN;
		f->src_ip = 0;
		return PTP_FRAME_OK;
	}
	if (t == PTP_UDP6)
		return type == ETHERTYPE_IPV6 ? parse_udp6(frame, len, f) : PTP_FRAME_NONE;
	return type == ETHERTYPE_IPV4 ? parse_udp4(frame, len, f) : PTP_FRAME_NONE;
}

const uint8_t *ptp_mcast_mac(enum ptp_transport t, int pdelay)
{
	static const uint8_t *const mac[3][2] = {
		[PTP_L2] = { ptp_l2_mcast, ptp_l2_pdelay_mcast },
		[PTP_UDP4] = { ptp_ipv4_mcast_mac, ptp_ipv4_pdelay_mac },
		[PTP_UDP6] = { ptp_ipv6_mcast_mac, ptp_ipv6_pdelay_mac },
	};
	return mac[t][!!pdelay];
}

/* The IPv6 and UDP headers of a UDPv6 frame (ptp_frame_build). */
static size_t build_udp6(uint8_t *frame, const uint8_t src_ip[16], int pd, uint16_t port, size_t msg_len)
{
	struct ipv6_hdr *ip = (struct ipv6_hdr *)(frame + ETH_HLEN);
	uint8_t *udp = (uint8_t *)(ip + 1);
	size_t ulen = UDP_HLEN + msg_len + PTP_UDP6_TRAILER;
	memset(udp + UDP_HLEN + msg_len, 0, PTP_UDP6_TRAILER);
	put32((uint8_t *)&ip->vtc_flow, 6u << 28);
	put16((uint8_t *)&ip->payload_len, (uint16_t)ulen);
	ip->nexthdr = 17;
	ip->hop_limit = PTP_UDP_TTL;
	memcpy(ip->saddr, src_ip, 16);
	memcpy(ip->daddr, pd ? ptp_ipv6_pdelay_mcast : ptp_ipv6_mcast, 16);
	put16(udp, port);
	put16(udp + 2, port);
	put16(udp + 4, (uint16_t)ulen);
	put16(udp + 6, 0);
	uint16_t c = ipv6_l4_csum(ip, 17, udp, ulen);
	put16(udp + 6, c ? c : 0xffff);	/* a sum of 0 is sent as all ones (RFC 8200 8.1) */
	return ETH_HLEN + IPV6_HLEN + ulen;
}

size_t ptp_frame_build(uint8_t *frame, enum ptp_transport t, const uint8_t src_mac[6],
		       const uint8_t *src_ip, uint8_t msg_type, size_t msg_len)
{
	int pd = ptp_is_pdelay(msg_type);
	uint16_t port = ptp_is_event(msg_type) ? PTP_EVENT_PORT : PTP_GENERAL_PORT;
	memcpy(frame, ptp_mcast_mac(t, pd), 6);
	memcpy(frame + 6, src_mac, 6);
	put16(frame + 12, t == PTP_UDP4 ? ETHERTYPE_IPV4 : t == PTP_UDP6 ? ETHERTYPE_IPV6 : PTP_ETHERTYPE);
	size_t len = ptp_frame_hlen(t) + msg_len;
	if (t == PTP_UDP6)
		len = build_udp6(frame, src_ip, pd, port, msg_len);
	if (t == PTP_UDP4) {
		uint8_t *ip = frame + ETH_HLEN, *udp = ip + IPV4_HLEN;
		memset(ip, 0, IPV4_HLEN);
		ip[0] = 0x45;
		put16(ip + 2, (uint16_t)(IPV4_HLEN + UDP_HLEN + msg_len));
		put16(ip + 6, 0x4000);	/* DF, as Linux sends it */
		ip[8] = PTP_UDP_TTL;
		ip[9] = 17;
		memcpy(ip + 12, src_ip, 4);
		put32(ip + 16, pd ? PTP_IPV4_PDELAY_MCAST : PTP_IPV4_MCAST);
		put16(ip + 10, inet_csum(ip, IPV4_HLEN));
		put16(udp, port);
		put16(udp + 2, port);
		put16(udp + 4, (uint16_t)(UDP_HLEN + msg_len));
		put16(udp + 6, 0);
	}
	if (len < ETH_ZLEN) {
		memset(frame + len, 0, ETH_ZLEN - len);
		len = ETH_ZLEN;
	}
	return len;
}

static int port_id_cmp(const struct ptp_port_id *a, const struct ptp_port_id *b)
{
	int d = memcmp(a->clock_id, b->clock_id, 8);
	if (d)
		return d;
	return a->port < b->port ? -1 : a->port > b->port;
}

/* Figure 28: the same grandmaster, compared by topology. */
static int cmp_topology(const struct ptp_dataset *a, const struct ptp_dataset *b)
{
	unsigned sa = a->steps_removed, sb = b->steps_removed;
	if (sa + 1 < sb)
		return 2;
	if (sb + 1 < sa)
		return -2;
	if (sa < sb) {
		int d = port_id_cmp(&b->receiver, &b->sender);
		return d < 0 ? 2 : d > 0 ? 1 : 0;
	}
	if (sa > sb) {
		int d = port_id_cmp(&a->receiver, &a->sender);
		return d < 0 ? -2 : d > 0 ? -1 : 0;
	}
	int d = port_id_cmp(&a->sender, &b->sender);
	if (d)
		return d < 0 ? 1 : -1;
	if (a->receiver.port != b->receiver.port)
		return a->receiver.port < b->receiver.port ? 1 : -1;
	return 0;
}

/* Lower wins: +2 when a's value is lower, -2 when b's, 0 when equal. */
static int lower(unsigned a, unsigned b)
{
	return a < b ? 2 : a > b ? -2 : 0;
}

void ptp_dataset_of(struct ptp_dataset *d, const struct ptp_msg *m, const struct ptp_port_id *receiver)
{
	d->priority1 = m->announce.priority1;
	d->quality = m->announce.quality;
	d->priority2 = m->announce.priority2;
	memcpy(d->gm_id, m->announce.gm_id, 8);
	d->steps_removed = m->announce.steps_removed;
	d->sender = m->source;
	d->receiver = *receiver;
}

int ptp_dataset_cmp(const struct ptp_dataset *a, const struct ptp_dataset *b)
{
	int d = memcmp(a->gm_id, b->gm_id, 8);
	if (!d)
		return cmp_topology(a, b);
	int r;
	if ((r = lower(a->priority1, b->priority1)) ||
	    (r = lower(a->quality.clock_class, b->quality.clock_class)) ||
	    (r = lower(a->quality.clock_accuracy, b->quality.clock_accuracy)) ||
	    (r = lower(a->quality.offset_scaled_log_variance, b->quality.offset_scaled_log_variance)) ||
	    (r = lower(a->priority2, b->priority2)))
		return r;
	return d < 0 ? 2 : -2;
}

void ptp_clock_id_from_mac(uint8_t id[8], const uint8_t mac[6])
{
	memcpy(id, mac, 3);
	id[3] = 0xff;
	id[4] = 0xfe;
	memcpy(id + 5, mac + 3, 3);
}
