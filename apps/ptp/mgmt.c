/*
 * Management (IEEE 1588-2008 clause 15) for the clock of a port (clock.c),
 * answered as ptp4l answers linuxptp's pmc from the network: GET of
 * DEFAULT_DATA_SET, CURRENT_DATA_SET, PARENT_DATA_SET, PORT_DATA_SET,
 * TIME_STATUS_NP and NULL_MANAGEMENT with the data set; SET and COMMAND
 * refused with MANAGEMENT_ERROR_STATUS NOT_SUPPORTED (ptp4l allows them
 * only on its local UNIX socket; an empty SET gets WRONG_LENGTH, as
 * there). The answer goes to the transport's multicast address, as ptp4l's.
 */
#include <string.h>
#include "apps/ptp/ptp.h"
#include "net/ptp_mgmt.h"

#define TIME_INTERVAL(ns) ((ns) * 65536)	/* TimeInterval: ns * 2^16 (5.3.2) */

static void default_ds(const struct ptp_port *pp, struct ptp_default_ds *d)
{
	struct ptp_dataset own;
	ptp_own_dataset(pp, &own);
	d->two_step = 1;
	d->slave_only = ptp_conf.role == ROLE_SLAVE;
	d->number_ports = (uint16_t)ptp_clock.nports;
	d->priority1 = own.priority1;
	d->quality = own.quality;
	d->priority2 = own.priority2;
	memcpy(d->clock_id, pp->id.clock_id, 8);
	d->domain = (uint8_t)ptp_conf.domain;
}

/* The grandmaster the clock follows (through its slave port), or its own
 * clock as one. */
static const struct ptp_dataset *grandmaster(const struct ptp_port *pp, struct ptp_dataset *own)
{
	const struct foreign *f = ptp_clock_parent();
	if (f)
		return &f->ds;
	ptp_own_dataset(pp, own);
	own->sender.port = 0;	/* parentPortIdentity of a grandmaster: its clock, port 0 (8.2.3.2) */
	return own;
}

/* The port whose servo readings are the clock's: the slave port, else pp. */
static const struct ptp_port *servo_port(const struct ptp_port *pp)
{
	const struct ptp_port *s = ptp_clock_slave();
	return s ? s : pp;
}

static void current_ds(const struct ptp_port *pp, struct ptp_current_ds *d)
{
	struct ptp_dataset own;
	const struct ptp_dataset *gm = grandmaster(pp, &own);
	d->steps_removed = gm == &own ? 0 : (uint16_t)(gm->steps_removed + 1);
	d->offset_from_master = TIME_INTERVAL(servo_port(pp)->last_offset);
	d->mean_path_delay = TIME_INTERVAL(servo_port(pp)->path_delay);
}

static void parent_ds(const struct ptp_port *pp, struct ptp_parent_ds *d)
{
	struct ptp_dataset own;
	const struct ptp_dataset *gm = grandmaster(pp, &own);
	d->parent = gm->sender;
	d->observed_variance = 0xffff;		/* not measured (8.2.3.5), as ptp4l */
	d->observed_rate = 0x7fffffff;		/* not measured (8.2.3.6) */
	d->gm_priority1 = gm->priority1;
	d->gm_quality = gm->quality;
	d->gm_priority2 = gm->priority2;
	memcpy(d->gm_id, gm->gm_id, 8);
}

static void port_ds(const struct ptp_port *pp, struct ptp_port_ds *d)
{
	d->id = pp->id;
	d->state = (uint8_t)(pp->state + 1);	/* table 8 counts INITIALIZING from 1 */
	d->log_min_delay_req = pp->log_min_delay_req;
	d->log_announce = (int8_t)ptp_conf.log_announce;
	d->announce_receipt_timeout = (uint8_t)ptp_conf.announce_receipt_timeout;
	d->log_sync = (int8_t)ptp_conf.log_sync;
	d->delay_mechanism = ptp_conf.delay_mechanism == DM_P2P ? PTP_DELAY_P2P : PTP_DELAY_E2E;
	d->peer_mean_path_delay = ptp_conf.delay_mechanism == DM_P2P ? TIME_INTERVAL(pp->peer_delay) : 0;
	d->log_min_pdelay_req = (int8_t)ptp_conf.log_min_pdelay_req;
	d->version = PTP_VERSION;
}

static void time_status(const struct ptp_port *pp, struct ptp_time_status_np *d)
{
	struct ptp_dataset own;
	const struct ptp_dataset *gm = grandmaster(pp, &own);
	const struct ptp_port *s = servo_port(pp);
	d->master_offset = s->last_offset;
	d->ingress_time = s->have_pair ? s->pair_t2 : 0;
	d->gm_present = gm != &own;
	memcpy(d->gm_id, gm->gm_id, 8);
}

/* The data set of a GET into d; 0, or -1 for an id not answered here. */
static int dataset(const struct ptp_port *pp, uint16_t id, struct ptp_mgmt_data *d)
{
	memset(d, 0, sizeof(*d));
	d->id = id;
	switch (id) {
	case PTP_MID_NULL_MANAGEMENT: return 0;
	case PTP_MID_DEFAULT_DATA_SET: default_ds(pp, &d->dflt); return 0;
	case PTP_MID_CURRENT_DATA_SET: current_ds(pp, &d->cur); return 0;
	case PTP_MID_PARENT_DATA_SET: parent_ds(pp, &d->parent); return 0;
	case PTP_MID_PORT_DATA_SET: port_ds(pp, &d->port); return 0;
	case PTP_MID_TIME_STATUS_NP: time_status(pp, &d->tsn); return 0;
	default: return -1;
	}
}

static void reply(struct ptp_port *pp, const struct ptp_msg *m, uint16_t err, const uint8_t *data, uint16_t len)
{
	struct ptp_msg r;
	ptp_mgmt_reply(&r, m, &pp->id, (uint8_t)ptp_conf.domain, err, data, len);
	if (!ptp_send(pp, &r, 0, 0))
		pp->ev[err ? PE_tx_management_error : PE_tx_management]++;
}

enum ptp_rx_count ptp_mgmt_rx(struct ptp_port *pp, const struct ptp_msg *m)
{
	const struct ptp_mgmt *g = &m->mgmt;
	int act = g->action;
	if ((act != PTP_MGMT_GET && act != PTP_MGMT_SET && act != PTP_MGMT_COMMAND) ||
	    g->tlv_type != PTP_TLV_MANAGEMENT || !ptp_mgmt_targets(m, pp->id.clock_id, pp->id.port))
		return PC_mgmt_not_for_us;
	if (act != PTP_MGMT_GET) {
		int empty = act == PTP_MGMT_SET && !g->data_len && g->id != PTP_MID_NULL_MANAGEMENT;
		reply(pp, m, empty ? PTP_MGMT_ERR_WRONG_LENGTH : PTP_MGMT_ERR_NOT_SUPPORTED, 0, 0);
		return PC_mgmt_refused;
	}
	struct ptp_mgmt_data d;
	if (dataset(pp, g->id, &d)) {
		reply(pp, m, PTP_MGMT_ERR_NOT_SUPPORTED, 0, 0);
		return PC_mgmt_unsupported_id;
	}
	int want = ptp_mgmt_data_len(g->id);
	if (g->data_len && g->data_len != want) {
		reply(pp, m, PTP_MGMT_ERR_WRONG_LENGTH, 0, 0);
		return PC_mgmt_wrong_length;
	}
	uint8_t data[64];
	size_t n = want ? ptp_mgmt_data_put(data, sizeof(data), &d) : 0;
	reply(pp, m, 0, data, (uint16_t)n);
	return PC_management;
}
