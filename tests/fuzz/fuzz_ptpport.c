/* Fuzz the ptp app's ordinary clock (apps/ptp: the receive path's
 * counting, the port state machine, foreign masters and the BMCA, the E2E
 * exchange, the servo) on one port, fed PTP frames as masters, slaves and
 * strangers on the wire would send them. The port has a fake hardware
 * clock (phc_ops: SYSTIM is the harness's clock in ns; a frame sent with a
 * timestamp request latches its TX time unless the input withholds it, so
 * Follow_Up and Delay_Req wait for stamps that come late or never; a
 * received frame the NIC stamps goes through the driver's RX path,
 * phc_rx_hwtstamp, as e1000x's ring does for a descriptor with the TS bit:
 * the RX latch's time and attributes, read and matched to the frame).
 * Byte 0 sets ptp_role (% 3), network_transport (bit 2: UDP, bit 6 then
 * picks UDPv6 over UDPv4), time_stamping
 * (bit 3: software), delay_mechanism (bit 4: P2P), transportSpecific (bit
 * 5: 802.1AS, also in the messages op 1 builds); then a program:
 *   op 0  a frame: flags, a length in 7-byte units, the bytes after the
 *         transport's headers (added here); flags 1: versionPTP 2, our
 *         domain and messageLength set; 2: raw, no headers added;
 *   op 1  a message built here (net/ptp.c's ptp_build): type, sender (one
 *         of three masters or ours), sequenceId (or the one the port
 *         waits for), flags, correction, logMessageInterval, a timestamp
 *         near the port's clock or any, Announce fields, and for
 *         Delay_Resp and the peer-delay answers the requesting port (ours
 *         or any; the sequenceId waited for is our Pdelay_Req's): 40 bytes;
 *   op 2  the clock moves on by (next byte) * 20 ms and the idle hook runs;
 *   op 3  timestamps, from the next byte: bit 0: TX stamps withheld from
 *         now on; bit 1: the NIC stamps received frames (TS bit), latching
 *         a time this many ns off the clock (the next 2 bytes, signed) and
 *         the message's source and sequence IDs, in the datasheet's layout
 *         or (bit 3) QEMU 10's (hwtstamp.h); bit 2: the latch holds another
 *         message's sequenceId (rx_hwtstamp_mismatch); bit 4: nothing
 *         latched (TSYNCRXCTL.VALID clear).
 * Checked after every step: rx = the frames used + the named drops,
 * exactly; a frame the NIC stamped carries the stamp, or is counted
 * rx_hwtstamp_mismatch, exactly when a latch was there; the state is one of the nine and a port with a parent is
 * UNCALIBRATED or SLAVE, its parent a foreign master in use; every frame
 * sent is a PTP message of ours that parses back. At the end the pool is
 * full. UBSan stops any overflow in the servo and time arithmetic. */
#include <assert.h>
#include <string.h>
#include "apps/app.h"
#include "apps/ptp/ptp.h"
#include "drivers/net/phc.h"
#include "kernel/cmdline.h"
#include "kernel/cpu.h"
#include "kernel/knobs.h"
#include "net/ifaddr.h"
#include "net/ipv4.h"
#include "tests/fuzz/fakeport.h"
#include "tests/fuzz/fuzz_state.h"

static struct nic port;
static struct ptp_port *pp = &ptp_ports[0];
/* The fake clock: its TX latch, whether stamps are withheld; the RX latch
 * (time, RXSATRL/H) and how the NIC stamps received frames (op 3). */
static uint64_t tx_latch, rx_latch;
static int tx_latched, tx_withheld, rx_latched, rx_mode;
static uint32_t rx_attr[2];
static int64_t rx_skew;
static uint32_t tx_desc;

static uint64_t hw_read_systim(struct nic *nic)
{
	(void)nic;
	return fuzz_tsc;
}

static void hw_set_freq(struct nic *nic, int64_t ppb)
{
	(void)nic, (void)ppb;
}

static void hw_tstamp_set(struct nic *nic, int rx_msg, int tx, int udp)
{
	(void)nic, (void)rx_msg, (void)tx, (void)udp;
}

static int hw_tx_latched(struct nic *nic)
{
	(void)nic;
	return tx_latched;
}

static int hw_rx_latched(struct nic *nic)
{
	(void)nic;
	return rx_latched;
}

static uint64_t hw_tx_read(struct nic *nic)
{
	(void)nic;
	tx_latched = 0;
	return tx_latch;
}

static uint64_t hw_rx_read(struct nic *nic, uint32_t attr[2])
{
	(void)nic;
	attr[0] = rx_attr[0];
	attr[1] = rx_attr[1];
	rx_latched = 0;
	return rx_latch;
}

static int hw_tx_desc_done(struct nic *nic, int q, uint32_t desc)
{
	(void)nic, (void)q, (void)desc;
	return 1;
}

static const struct phc_ops hw_ops = {
	.name = "fuzz SYSTIM", .max_adj = 62499999, .shift = 0, .bits = 64, .read_systim = hw_read_systim,
	.set_freq = hw_set_freq, .hwtstamp_set = hw_tstamp_set, .tx_latched = hw_tx_latched,
	.rx_latched = hw_rx_latched, .tx_read = hw_tx_read, .rx_read = hw_rx_read,
	.tx_desc_done = hw_tx_desc_done, .udp_rx = 1, .rx_filters = "all",
};
static const uint8_t masters[3][8] = { { 0, 0x1b, 0x19, 0xff, 0xfe, 0, 0, 1 },
				       { 0, 0x1b, 0x19, 0xff, 0xfe, 0, 0, 2 },
				       { 0xec, 0x46, 0x70, 0xff, 0xfe, 0, 0, 3 } };

static int fake_tx(struct nic *nic, int q, struct pkt **pkts, int n)
{
	(void)q;
	for (int i = 0; i < n; i++) {
		struct pkt *p = pkts[i];
		struct ptp_frame f;
		struct ptp_msg m;
		assert(p->len >= 60 && p->len <= p->pool->buf_size && !memcmp(p->data + 6, nic->mac, 6));
		assert(ptp_frame_parse(p->data, p->len, (enum ptp_transport)ptp_conf.transport, &f) == PTP_FRAME_OK);
		assert(ptp_parse(f.msg, f.len, &m) == PTP_OK);
		assert(m.domain == ptp_conf.domain && !memcmp(&m.source, &pp->id, sizeof(m.source)));
		if ((p->flags & PKT_TX_TSTAMP) && phc_tx_request(nic, 0, tx_desc++) && !tx_withheld) {
			tx_latch = fuzz_tsc;
			tx_latched = 1;
		}
		pkt_free(p);
	}
	return n;
}

static const struct nic_ops ops = { .rx_burst = fake_rx, .tx_burst = fake_tx };

static void check(void)
{
	uint64_t n = 0;
	for (int i = 0; i < PC_N; i++)
		n += pp->rx_count[i];
	assert(pp->rx == n);
	assert((unsigned)pp->state < PS_N);
	if (pp->parent >= 0) {
		assert(pp->parent < FOREIGN_MAX && pp->foreign[pp->parent].used);
		assert(pp->state == PS_UNCALIBRATED || pp->state == PS_SLAVE);
	}
}

/* The NIC stamps frame p (op 3's modes): SYSTIM into the RX latch and the
 * attributes of the message after the transport's headers: bytes 22-27
 * and the sequenceId (30-31), or QEMU 10's bytes 24-29 and 32-33. */
static void rx_latch_frame(const struct pkt *p)
{
	size_t off = ptp_frame_hlen((enum ptp_transport)ptp_conf.transport), at = rx_mode & 8 ? 24 : 22;
	uint8_t m[34] = { 0 };
	if (p->len > off)
		memcpy(m, p->data + off, p->len - off < sizeof(m) ? p->len - off : sizeof(m));
	rx_attr[0] = (uint32_t)m[at] | (uint32_t)m[at + 1] << 8 | (uint32_t)m[at + 2] << 16 | (uint32_t)m[at + 3] << 24;
	rx_attr[1] = (uint32_t)m[at + 4] | (uint32_t)m[at + 5] << 8 | (uint32_t)m[at + 8] << 16 |
		     (uint32_t)m[at + 9] << 24;
	if (rx_mode & 4)
		rx_attr[1] ^= 0x10000;	/* another message's sequenceId */
	rx_latch = (uint64_t)((int64_t)fuzz_tsc + rx_skew);
	rx_latched = !(rx_mode & 16);
}

static void frame_in(struct pkt *p)
{
	fake_port_rx(&port, p);
	check();
}

/* A frame of message msg (n bytes) with the transport's headers. */
static void msg_in(const uint8_t *msg, size_t n, uint8_t type, int raw)
{
	struct pkt *p = pkt_alloc(port.pool);
	if (!p)
		return;
	enum ptp_transport t = (enum ptp_transport)ptp_conf.transport;
	size_t hl = raw ? 0 : ptp_frame_hlen(t);
	if (n > 1514 - hl)
		n = 1514 - hl;
	memset(p->data, 0, 60);
	memcpy(p->data + hl, msg, n);
	p->len = (uint16_t)(hl + n);
	if (!raw) {
		uint8_t src[6] = { 2, 0, 0, 0, 0, 0x99 };
		static const uint8_t ip4[4] = { 10, 1, 0, 99 }, ip6[16] = { 0xfd, 0, 0, 1, [15] = 0x63 };
		size_t len = ptp_frame_build(p->data, t, src, t == PTP_UDP6 ? ip6 : ip4, type, n);
		p->len = (uint16_t)(len > p->len ? len : p->len);
	}
	if (p->len < 60)
		p->len = 60;
	p->flags = 0;
	p->port = 0;
	p->queue = 0;
	if (rx_mode & 2) {	/* stamped exactly when the latch was there and not another frame's */
		uint64_t mismatch = port.qsw[0][NS_rx_hwtstamp_mismatch];
		rx_latch_frame(p);
		int latched = rx_latched;
		phc_rx_hwtstamp(&port, p);
		assert(!rx_latched && !!(p->flags & PKT_RX_TSTAMP) + port.qsw[0][NS_rx_hwtstamp_mismatch] - mismatch ==
		       (uint64_t)latched);
	}
	frame_in(p);
}

static uint64_t be(const uint8_t *b, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | b[i];
	return v;
}

/* A message from 40 bytes v. */
static void built_in(const uint8_t *v)
{
	static const uint8_t types[] = { PTP_SYNC, PTP_FOLLOW_UP, PTP_DELAY_REQ, PTP_DELAY_RESP, PTP_ANNOUNCE,
					 PTP_PDELAY_REQ, PTP_PDELAY_RESP, PTP_PDELAY_RESP_FOLLOW_UP };
	struct ptp_msg m;
	uint8_t buf[128];
	memset(&m, 0, sizeof(m));
	m.msg_type = types[v[0] % sizeof(types)];
	m.domain = (uint8_t)ptp_conf.domain;
	m.transport_specific = (uint8_t)ptp_conf.transport_specific;
	if (v[1] % 4 < 3)
		memcpy(m.source.clock_id, masters[v[1] % 4], 8);
	else
		m.source = pp->id;
	m.source.port = 1;
	m.seq = (uint16_t)be(v + 2, 2);
	if (v[1] & 4)	/* the sequenceId the port waits for */
		m.seq = m.msg_type == PTP_DELAY_RESP ? pp->dreq_seq : ptp_has_requesting(m.msg_type) ? pp->pd.seq :
			pp->sync_seq;
	m.flags = v[1] & 8 ? PTP_FLAG_TWO_STEP : 0;
	m.correction = (int64_t)be(v + 4, 8);
	if (v[1] & 16)
		m.correction >>= 40;	/* a few ns */
	m.log_interval = (int8_t)v[12];
	int64_t now = phc_gettime(pp->clk);
	if (v[1] & 32)
		m.ts = ptp_ts_from_ns(now + (int16_t)be(v + 13, 2) * 1000);
	else
		m.ts = (struct ptp_ts){ be(v + 13, 6) & 0xffffffffffffull, (uint32_t)be(v + 19, 4) };
	m.requesting = pp->id;
	if (v[1] & 64)
		memcpy(m.requesting.clock_id, v + 23, 8);
	m.announce.priority1 = v[23];
	m.announce.quality.clock_class = v[24];
	m.announce.quality.clock_accuracy = v[25];
	m.announce.quality.offset_scaled_log_variance = (uint16_t)be(v + 26, 2);
	m.announce.priority2 = v[28];
	memcpy(m.announce.gm_id, v[1] & 128 ? v + 29 : m.source.clock_id, 8);
	m.announce.steps_removed = (uint16_t)be(v + 37, 2);
	m.announce.time_source = v[39];
	size_t n = ptp_build(buf, sizeof(buf), &m);
	assert(n);
	msg_in(buf, n, m.msg_type, 0);
}

static void setup(void)
{
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 0x10 };
	fake_port(&port, &ops, mac, 0, 64);
	phc_register(&port, &hw_ops);
	int errs = cmdline_parse("app=ptp ip0=10.1.0.1/24", __knobs_start, KNOBS_COUNT, 0, 0);
	assert(errs == 0);
	assert(apps_start() == 0);
	kstate_save();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	if (!len)
		return 0;
	if (!port.pool)
		setup();
	kstate_restore();
	fuzz_tsc = 1000000000ull;
	tx_latched = tx_withheld = rx_latched = rx_mode = 0;
	rx_skew = 0;
	ptp_conf.role = data[0] % 3;
	ptp_conf.transport = data[0] >> 2 & 1 ? PTP_UDP4 + (data[0] >> 6 & 1) : PTP_L2;
	ptp_conf.time_stamping = data[0] >> 3 & 1;
	ptp_conf.delay_mechanism = data[0] >> 4 & 1;
	ptp_conf.transport_specific = data[0] >> 5 & 1;
	ptp_port_init(pp, &port);	/* the clock's one port (ptp_clock, kept from setup) */
	ptp_port_to_state(pp, PS_LISTENING, "INIT_COMPLETE");
	pp->ip = ifaddrs[0].v4.addr;
	size_t i = 1;
	while (i < len) {
		uint8_t op = data[i++] % 4;
		if (op == 0) {
			uint8_t flags = i < len ? data[i++] : 0;
			size_t n = 7 * (size_t)(i < len ? data[i++] : 0);
			uint8_t m[7 * 255];
			memset(m, 0, n);
			memcpy(m, data + i, n < len - i ? n : len - i);
			i += n < len - i ? n : len - i;
			if ((flags & 1) && n >= PTP_HLEN) {
				m[1] = PTP_VERSION;
				m[2] = (uint8_t)(n >> 8), m[3] = (uint8_t)n;
				m[4] = (uint8_t)ptp_conf.domain;
			}
			msg_in(m, n, m[0] & 15, flags & 2);
		} else if (op == 1) {
			uint8_t v[40] = { 0 };
			memcpy(v, data + i, len - i < 40 ? len - i : 40);
			i += len - i < 40 ? len - i : 40;
			built_in(v);
		} else if (op == 2) {
			fuzz_tsc += (i < len ? data[i++] : 0) * 20000000ull;
			app_of_port(0)->idle();
			check();
		} else {
			uint8_t v[3] = { 0 };
			memcpy(v, data + i, len - i < 3 ? len - i : 3);
			i += len - i < 3 ? len - i : 3;
			tx_withheld = v[0] & 1;
			rx_mode = v[0] & 30;
			rx_skew = (int16_t)(v[1] << 8 | v[2]);
		}
	}
	assert(port.pool->nfree == port.pool->size);
	return 0;
}
