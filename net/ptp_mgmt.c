/* IEEE 1588 management data sets on the wire; see ptp_mgmt.h. */
#include <string.h>
#include "net/bytes.h"
#include "net/ptp_mgmt.h"

static int64_t get64(const uint8_t *p)
{
	return (int64_t)((uint64_t)get32(p) << 32 | get32(p + 4));
}

static void put64(uint8_t *p, int64_t v)
{
	put32(p, (uint32_t)((uint64_t)v >> 32));
	put32(p + 4, (uint32_t)v);
}

static void get_quality(const uint8_t *p, struct ptp_clock_quality *q)
{
	q->clock_class = p[0];
	q->clock_accuracy = p[1];
	q->offset_scaled_log_variance = get16(p + 2);
}

static void put_quality(uint8_t *p, const struct ptp_clock_quality *q)
{
	p[0] = q->clock_class;
	p[1] = q->clock_accuracy;
	put16(p + 2, q->offset_scaled_log_variance);
}

static void get_pid(const uint8_t *p, struct ptp_port_id *id)
{
	memcpy(id->clock_id, p, 8);
	id->port = get16(p + 8);
}

static void put_pid(uint8_t *p, const struct ptp_port_id *id)
{
	memcpy(p, id->clock_id, 8);
	put16(p + 8, id->port);
}

int ptp_mgmt_data_len(uint16_t id)
{
	switch (id) {
	case PTP_MID_NULL_MANAGEMENT: return 0;
	case PTP_MID_DEFAULT_DATA_SET: return 20;
	case PTP_MID_CURRENT_DATA_SET: return 18;
	case PTP_MID_PARENT_DATA_SET: return 32;
	case PTP_MID_PORT_DATA_SET: return 26;
	case PTP_MID_TIME_STATUS_NP: return 50;
	default: return -1;
	}
}

/* One coder per data set: put 0 decodes p into d, put 1 encodes d into p. */
static void code_default(uint8_t *p, struct ptp_default_ds *d, int put)
{
	if (put) {
		p[0] = (uint8_t)((d->two_step ? 1 : 0) | (d->slave_only ? 2 : 0));
		p[1] = 0;
		put16(p + 2, d->number_ports);
		p[4] = d->priority1;
		put_quality(p + 5, &d->quality);
		p[9] = d->priority2;
		memcpy(p + 10, d->clock_id, 8);
		p[18] = d->domain;
		p[19] = 0;
		return;
	}
	d->two_step = p[0] & 1;
	d->slave_only = (p[0] >> 1) & 1;
	d->number_ports = get16(p + 2);
	d->priority1 = p[4];
	get_quality(p + 5, &d->quality);
	d->priority2 = p[9];
	memcpy(d->clock_id, p + 10, 8);
	d->domain = p[18];
}

static void code_current(uint8_t *p, struct ptp_current_ds *d, int put)
{
	if (put) {
		put16(p, d->steps_removed);
		put64(p + 2, d->offset_from_master);
		put64(p + 10, d->mean_path_delay);
		return;
	}
	d->steps_removed = get16(p);
	d->offset_from_master = get64(p + 2);
	d->mean_path_delay = get64(p + 10);
}

static void code_parent(uint8_t *p, struct ptp_parent_ds *d, int put)
{
	if (put) {
		put_pid(p, &d->parent);
		p[10] = d->parent_stats;
		p[11] = 0;
		put16(p + 12, d->observed_variance);
		put32(p + 14, (uint32_t)d->observed_rate);
		p[18] = d->gm_priority1;
		put_quality(p + 19, &d->gm_quality);
		p[23] = d->gm_priority2;
		memcpy(p + 24, d->gm_id, 8);
		return;
	}
	get_pid(p, &d->parent);
	d->parent_stats = p[10];
	d->observed_variance = get16(p + 12);
	d->observed_rate = (int32_t)get32(p + 14);
	d->gm_priority1 = p[18];
	get_quality(p + 19, &d->gm_quality);
	d->gm_priority2 = p[23];
	memcpy(d->gm_id, p + 24, 8);
}

static void code_port(uint8_t *p, struct ptp_port_ds *d, int put)
{
	if (put) {
		put_pid(p, &d->id);
		p[10] = d->state;
		p[11] = (uint8_t)d->log_min_delay_req;
		put64(p + 12, d->peer_mean_path_delay);
		p[20] = (uint8_t)d->log_announce;
		p[21] = d->announce_receipt_timeout;
		p[22] = (uint8_t)d->log_sync;
		p[23] = d->delay_mechanism;
		p[24] = (uint8_t)d->log_min_pdelay_req;
		p[25] = d->version;
		return;
	}
	get_pid(p, &d->id);
	d->state = p[10];
	d->log_min_delay_req = (int8_t)p[11];
	d->peer_mean_path_delay = get64(p + 12);
	d->log_announce = (int8_t)p[20];
	d->announce_receipt_timeout = p[21];
	d->log_sync = (int8_t)p[22];
	d->delay_mechanism = p[23];
	d->log_min_pdelay_req = (int8_t)p[24];
	d->version = p[25] & 0xf;
}

static void code_tsn(uint8_t *p, struct ptp_time_status_np *d, int put)
{
	if (put) {
		put64(p, d->master_offset);
		put64(p + 8, d->ingress_time);
		put32(p + 16, (uint32_t)d->cumulative_scaled_rate_offset);
		put32(p + 20, (uint32_t)d->scaled_last_gm_phase_change);
		put16(p + 24, d->gm_time_base_indicator);
		memcpy(p + 26, d->last_gm_phase_change, 12);
		put32(p + 38, (uint32_t)d->gm_present);
		memcpy(p + 42, d->gm_id, 8);
		return;
	}
	d->master_offset = get64(p);
	d->ingress_time = get64(p + 8);
	d->cumulative_scaled_rate_offset = (int32_t)get32(p + 16);
	d->scaled_last_gm_phase_change = (int32_t)get32(p + 20);
	d->gm_time_base_indicator = get16(p + 24);
	memcpy(d->last_gm_phase_change, p + 26, 12);
	d->gm_present = (int32_t)get32(p + 38);
	memcpy(d->gm_id, p + 42, 8);
}

static void code(uint8_t *p, struct ptp_mgmt_data *d, int put)
{
	switch (d->id) {
	case PTP_MID_DEFAULT_DATA_SET: code_default(p, &d->dflt, put); break;
	case PTP_MID_CURRENT_DATA_SET: code_current(p, &d->cur, put); break;
	case PTP_MID_PARENT_DATA_SET: code_parent(p, &d->parent, put); break;
	case PTP_MID_PORT_DATA_SET: code_port(p, &d->port, put); break;
	case PTP_MID_TIME_STATUS_NP: code_tsn(p, &d->tsn, put); break;
	default: break;
	}
}

size_t ptp_mgmt_data_put(uint8_t *buf, size_t cap, const struct ptp_mgmt_data *d)
{
	int n = ptp_mgmt_data_len(d->id);
	if (n <= 0 || (size_t)n > cap)
		return 0;
	struct ptp_mgmt_data copy = *d;
	code(buf, &copy, 1);
	return (size_t)n;
}

int ptp_mgmt_data_get(const uint8_t *buf, size_t len, uint16_t id, struct ptp_mgmt_data *d)
{
	int n = ptp_mgmt_data_len(id);
	memset(d, 0, sizeof(*d));
	d->id = id;
	if (n < 0 || (size_t)n != len)
		return -1;
	code((uint8_t *)buf, d, 0);	/* decoding only reads buf */
	return 0;
}

int ptp_mgmt_targets(const struct ptp_msg *m, const uint8_t id[8], uint16_t port)
{
	static const uint8_t all[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	const struct ptp_port_id *t = &m->mgmt.target;
	return (!memcmp(t->clock_id, all, 8) || !memcmp(t->clock_id, id, 8)) &&
	       (t->port == 0xffff || t->port == port);
}

void ptp_mgmt_reply(struct ptp_msg *out, const struct ptp_msg *req, const struct ptp_port_id *src,
		    uint8_t domain, uint16_t err, const uint8_t *data, uint16_t len)
{
	memset(out, 0, sizeof(*out));
	out->msg_type = PTP_MANAGEMENT;
	out->transport_specific = req->transport_specific;
	out->domain = domain;
	out->source = *src;
	out->seq = req->seq;
	out->log_interval = 0x7f;
	struct ptp_mgmt *g = &out->mgmt;
	g->target = req->source;
	g->starting_hops = (uint8_t)(req->mgmt.starting_hops - req->mgmt.hops);
	g->hops = g->starting_hops;
	g->action = req->mgmt.action == PTP_MGMT_COMMAND ? PTP_MGMT_ACKNOWLEDGE : PTP_MGMT_RESPONSE;
	g->tlv_type = err ? PTP_TLV_MANAGEMENT_ERROR_STATUS : PTP_TLV_MANAGEMENT;
	g->id = req->mgmt.id;
	g->error = err;
	g->data = err ? 0 : data;
	g->data_len = err ? 0 : len;
}
