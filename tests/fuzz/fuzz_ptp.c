/* Fuzz the PTP parsers (net/ptp.c, IEEE 1588-2008 13.3-13.8, 14.1, 15.4,
 * Annex D, E and F; net/ptp_mgmt.c, 15.5.3): byte 0 picks the transport
 * (modulo 3: L2, UDPv4, UDPv6), the rest is a frame. ptp_frame_parse must point inside the frame; a message
 * ptp_parse accepts has version 2, a type built here and a messageLength
 * that fits the frame and the body; building it again and parsing that
 * gives the same fields back; the dataset comparison of an accepted
 * Announce with one made from the frame's last bytes is antisymmetric; a
 * management data set decoded, encoded and decoded again is the same. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "net/ptp.h"
#include "net/ptp_mgmt.h"

/* A management message rebuilt: its one TLV, the same fields and data. */
static void check_mgmt(const struct ptp_msg *m, const struct ptp_msg *b, size_t n)
{
	const struct ptp_mgmt *x = &m->mgmt, *y = &b->mgmt;
	size_t head = x->tlv_type == PTP_TLV_MANAGEMENT_ERROR_STATUS ? 8 : 2;
	assert(n == PTP_HLEN + 14 + 4 + head + x->data_len && b->tlvs == 1);
	assert(!memcmp(&x->target, &y->target, sizeof(x->target)) && x->action == y->action);
	assert(x->starting_hops == y->starting_hops && x->hops == y->hops && x->tlv_type == y->tlv_type);
	assert(x->id == y->id && x->error == y->error && x->data_len == y->data_len);
	assert(!x->data_len || !memcmp(x->data, y->data, x->data_len));
	struct ptp_mgmt_data d, e;
	uint8_t buf[64];
	if (ptp_mgmt_data_get(x->data, x->data_len, x->id, &d))
		return;
	size_t dl = ptp_mgmt_data_put(buf, sizeof(buf), &d);
	assert(dl == x->data_len || (!dl && x->id == PTP_MID_NULL_MANAGEMENT));
	if (dl) {
		assert(ptp_mgmt_data_get(buf, dl, x->id, &e) == 0);
		assert(!memcmp(&d, &e, sizeof(d)));
	}
}

static void check_rebuild(const struct ptp_msg *m)
{
	static uint8_t buf[PTP_HLEN + 14 + 12 + 65536];
	struct ptp_msg b;
	size_t n = ptp_build(buf, sizeof(buf), m);
	int mgmt = m->msg_type == PTP_MANAGEMENT;
	assert(mgmt || n == PTP_HLEN + ptp_body_len(m->msg_type));
	assert(ptp_build(buf, n - 1, m) == 0);
	assert(ptp_parse(buf, n, &b) == PTP_OK);
	if (mgmt) {
		check_mgmt(m, &b, n);
		return;
	}
	assert(b.msg_type == m->msg_type && b.domain == m->domain && b.flags == m->flags);
	assert(b.correction == m->correction && b.seq == m->seq && b.log_interval == m->log_interval);
	assert(!memcmp(&b.source, &m->source, sizeof(b.source)) && b.length == n && b.tlvs == 0);
	if (m->msg_type == PTP_ANNOUNCE)
		assert(!memcmp(&b.announce, &m->announce, sizeof(b.announce)));
	else
		assert(b.ts.sec == m->ts.sec && b.ts.ns == m->ts.ns);
	if (ptp_has_requesting(m->msg_type))
		assert(!memcmp(&b.requesting, &m->requesting, sizeof(b.requesting)));
}

/* Dataset comparison of m's Announce against one made from 24 bytes b:
 * equal to itself, antisymmetric, |result| at most 2. */
static void check_cmp(const struct ptp_msg *m, const uint8_t *b)
{
	struct ptp_dataset x, y;
	const struct ptp_port_id receiver = { .port = 1 };
	ptp_dataset_of(&x, m, &receiver);
	y = x;
	y.priority1 = b[0];
	y.quality.clock_class = b[1];
	y.quality.clock_accuracy = b[2];
	y.quality.offset_scaled_log_variance = (uint16_t)(b[3] << 8 | b[4]);
	y.priority2 = b[5];
	if (b[6] & 1)
		memcpy(y.gm_id, b + 7, 8);
	y.steps_removed = (uint16_t)(b[15] << 8 | b[16]);
	memcpy(y.sender.clock_id, b + 16, 8);
	int r = ptp_dataset_cmp(&x, &y);
	assert(ptp_dataset_cmp(&x, &x) == 0 && r == -ptp_dataset_cmp(&y, &x) && r >= -2 && r <= 2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	if (!len)
		return 0;
	enum ptp_transport t = (enum ptp_transport)(data[0] % 3);
	size_t flen = len - 1;
	uint8_t *frame = malloc(flen ? flen : 1);
	memcpy(frame, data + 1, flen);
	struct ptp_frame f;
	struct ptp_msg m;
	enum ptp_frame_kind k = ptp_frame_parse(frame, flen, t, &f);
	assert(k == PTP_FRAME_NONE || k == PTP_FRAME_OK || k == PTP_FRAME_BAD_IP);
	if (k == PTP_FRAME_OK) {
		assert(f.msg >= frame && f.msg + f.len <= frame + flen);
		enum ptp_err e = ptp_parse(f.msg, f.len, &m);
		assert((unsigned)e < PTP_ERR_N && ptp_err_name(e)[0] != '?');
		if (e == PTP_OK) {
			assert(m.version == PTP_VERSION && ptp_body_len(m.msg_type));
			assert(m.length <= f.len && m.length >= PTP_HLEN + ptp_body_len(m.msg_type));
			assert(m.unknown_tlvs <= m.tlvs);
			check_rebuild(&m);
			if (m.msg_type == PTP_ANNOUNCE && flen >= 24)
				check_cmp(&m, frame + flen - 24);
		}
	}
	/* The same bytes as a bare message (what follows the EtherType). */
	if (ptp_parse(frame, flen, &m) == PTP_OK)
		check_rebuild(&m);
	free(frame);
	return 0;
}
