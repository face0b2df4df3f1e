/* Unit tests for net/ptp.c: IEEE 1588 messages parsed from real ptp4l
 * traffic (tests/unit/data/ptp4l-*.pcap, linuxptp 3.1.1; counts by type
 * as scapy 2.5.0 reads the same files), rebuilt byte for byte, malformed
 * variants refused by name, framing, the BMCA dataset comparison, and
 * management: linuxptp 3.1.1's pmc asking ptp4l (ptp4l-pmc-*.pcap, made by
 * tools/ptp_captures.sh), every answer of ptp4l rebuilt from its request by
 * ptp_mgmt_reply byte for byte; peer delay and 802.1AS captures parsed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>
#include "net/ipv4.h"
#include "net/ipv6.h"
#include "net/ptp.h"
#include "net/ptp_mgmt.h"

#define MAX_FRAMES 256

struct capture {
	int n;
	size_t len[MAX_FRAMES];
	uint8_t frame[MAX_FRAMES][256];
};

/* A classic pcap file (little-endian, Ethernet): the frames. */
static void load(const char *path, struct capture *c)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	uint8_t gh[24], rh[16];
	assert_int_equal(fread(gh, 1, 24, f), 24);
	assert_int_equal(gh[0], 0xd4);	/* magic a1b2c3d4, little-endian */
	c->n = 0;
	while (fread(rh, 1, 16, f) == 16) {
		uint32_t incl = (uint32_t)rh[8] | rh[9] << 8 | rh[10] << 16 | (uint32_t)rh[11] << 24;
		assert_true(incl <= sizeof(c->frame[0]) && c->n < MAX_FRAMES);
		assert_int_equal(fread(c->frame[c->n], 1, incl, f), incl);
		c->len[c->n++] = incl;
	}
	fclose(f);
}

static const uint8_t master_id[8] = { 0x3a, 0xa2, 0x83, 0xff, 0xfe, 0xe0, 0xfd, 0x80 };
static const uint8_t slave_id[8] = { 0xee, 0x91, 0x18, 0xff, 0xfe, 0x2a, 0x0a, 0x34 };

/* Parse every PTP frame of a capture; count by type; rebuild each. */
static void parse_all(const char *path, enum ptp_transport t, int want[16], int others)
{
	static struct capture c;
	int got[16] = { 0 }, other = 0;
	load(path, &c);
	for (int i = 0; i < c.n; i++) {
		struct ptp_frame fr;
		struct ptp_msg m;
		if (ptp_frame_parse(c.frame[i], c.len[i], t, &fr) != PTP_FRAME_OK) {
			other++;
			continue;
		}
		assert_int_equal(ptp_parse(fr.msg, fr.len, &m), PTP_OK);
		assert_int_equal(m.domain, 0);
		assert_int_equal(m.tlvs, 0);
		got[m.msg_type]++;
		assert_true(!memcmp(m.source.clock_id, master_id, 8) || !memcmp(m.source.clock_id, slave_id, 8));
		uint8_t out[128];
		size_t n = ptp_build(out, sizeof(out), &m);
		assert_int_equal(n, m.length);
		assert_memory_equal(out, fr.msg, n);
	}
	for (int i = 0; i < 16; i++)
		assert_int_equal(got[i], want[i]);
	assert_int_equal(other, others);
}

static void test_l2_capture(void **state)
{
	(void)state;
	int want[16] = { [PTP_SYNC] = 13, [PTP_DELAY_REQ] = 8, [PTP_FOLLOW_UP] = 13,
			 [PTP_DELAY_RESP] = 8, [PTP_ANNOUNCE] = 7 };
	parse_all("tests/unit/data/ptp4l-l2-e2e-twostep.pcap", PTP_L2, want, 5);	/* 5 IPv6 ND */
}

static void test_udp4_capture(void **state)
{
	(void)state;
	int want[16] = { [PTP_SYNC] = 12, [PTP_DELAY_REQ] = 7, [PTP_FOLLOW_UP] = 12,
			 [PTP_DELAY_RESP] = 7, [PTP_ANNOUNCE] = 7 };
	parse_all("tests/unit/data/ptp4l-udp4-e2e-twostep.pcap", PTP_UDP4, want, 8);	/* IGMP, IPv6 */
}

/* ptp4l -6 against ptp4l -6 -s, with pmc -6 (tools/ptp_captures.sh's
 * UDPv6 example): every frame is PTP over UDPv6 whose UDP checksum holds;
 * each sender's clockIdentity is its MAC's EUI-48 to EUI-64; each message
 * but management rebuilt, and its whole frame from its MAC, IPv6 source
 * and type: ptp4l's byte for byte (the 2-byte trailer included) but the
 * flow label, which Linux picks per flow. */
static void test_udp6_capture(void **state)
{
	(void)state;
	static struct capture c;
	int want[16] = { [PTP_SYNC] = 7, [PTP_DELAY_REQ] = 3, [PTP_FOLLOW_UP] = 7, [PTP_DELAY_RESP] = 3,
			 [PTP_ANNOUNCE] = 4, [PTP_MANAGEMENT] = 4 }, got[16] = { 0 };
	load("tests/unit/data/ptp4l-udp6-e2e-twostep.pcap", &c);
	assert_int_equal(c.n, 28);
	for (int i = 0; i < c.n; i++) {
		const uint8_t *f = c.frame[i];
		struct ptp_frame fr;
		struct ptp_msg m;
		assert_int_equal(ptp_frame_parse(f, c.len[i], PTP_UDP6, &fr), PTP_FRAME_OK);
		assert_int_equal(ptp_parse(fr.msg, fr.len, &m), PTP_OK);
		got[m.msg_type]++;
		assert_int_equal(fr.len, m.length + PTP_UDP6_TRAILER);
		const uint8_t id[8] = { f[6], f[7], f[8], 0xff, 0xfe, f[9], f[10], f[11] };
		assert_memory_equal(m.source.clock_id, id, 8);
		if (m.msg_type == PTP_MANAGEMENT)
			continue;
		uint8_t out[256];
		size_t hl = ptp_frame_hlen(PTP_UDP6), n = ptp_build(out + hl, sizeof(out) - hl, &m);
		assert_int_equal(n, m.length);
		assert_int_equal(ptp_frame_build(out, PTP_UDP6, f + 6, f + 22, m.msg_type, n), c.len[i]);
		out[15] = (uint8_t)((out[15] & 0xf0) | (f[15] & 0x0f));	/* the flow label */
		out[16] = f[16];
		out[17] = f[17];
		assert_memory_equal(out, f, c.len[i]);
	}
	for (int i = 0; i < 16; i++)
		assert_int_equal(got[i], want[i]);
}

/* The fields of the first frames of the L2 capture. */
static void test_l2_fields(void **state)
{
	(void)state;
	static struct capture c;
	struct ptp_msg m;
	load("tests/unit/data/ptp4l-l2-e2e-twostep.pcap", &c);
	/* frame 3: the master's first Announce */
	assert_int_equal(ptp_parse(c.frame[3] + 14, c.len[3] - 14, &m), PTP_OK);
	assert_int_equal(m.msg_type, PTP_ANNOUNCE);
	assert_int_equal(m.length, 64);
	assert_int_equal(m.log_interval, 1);
	assert_int_equal(m.announce.utc_offset, 37);
	assert_int_equal(m.announce.priority1, 1);
	assert_int_equal(m.announce.quality.clock_class, 248);
	assert_int_equal(m.announce.quality.clock_accuracy, 0xfe);
	assert_int_equal(m.announce.quality.offset_scaled_log_variance, 0xffff);
	assert_int_equal(m.announce.priority2, 128);
	assert_memory_equal(m.announce.gm_id, master_id, 8);
	assert_int_equal(m.announce.steps_removed, 0);
	assert_int_equal(m.announce.time_source, 0xa0);
	/* frames 4, 5: Sync seq 0 (two-step) and its Follow_Up */
	assert_int_equal(ptp_parse(c.frame[4] + 14, c.len[4] - 14, &m), PTP_OK);
	assert_int_equal(m.msg_type, PTP_SYNC);
	assert_int_equal(m.flags, PTP_FLAG_TWO_STEP);
	assert_int_equal(m.seq, 0);
	assert_int_equal(m.control, 0);
	assert_int_equal(ptp_parse(c.frame[5] + 14, c.len[5] - 14, &m), PTP_OK);
	assert_int_equal(m.msg_type, PTP_FOLLOW_UP);
	assert_int_equal(m.control, 2);
	assert_int_equal(m.ts.sec, 0x6b0d444aull);
	assert_int_equal(m.ts.ns, 0x25be79d0u);
	assert_int_equal(ptp_ts_to_ns(m.ts), 0x6b0d444all * 1000000000 + 0x25be79d0);
}

static void test_delay_resp_fields(void **state)
{
	(void)state;
	static struct capture c;
	struct ptp_msg m;
	load("tests/unit/data/ptp4l-l2-e2e-twostep.pcap", &c);
	for (int i = 0; i < c.n; i++) {
		if (ptp_parse(c.frame[i] + 14, c.len[i] - 14, &m) || m.msg_type != PTP_DELAY_RESP)
			continue;
		assert_int_equal(m.length, 54);
		assert_memory_equal(m.source.clock_id, master_id, 8);
		assert_memory_equal(m.requesting.clock_id, slave_id, 8);
		assert_int_equal(m.requesting.port, 1);
		assert_int_equal(m.ts.sec, 0x6b0d444full);
		assert_int_equal(m.ts.ns, 0x20474d16u);
		return;
	}
	fail();
}

/* A valid Sync to damage. */
static size_t sync_msg(uint8_t *b)
{
	struct ptp_msg m;
	memset(&m, 0, sizeof(m));
	m.msg_type = PTP_SYNC;
	m.flags = PTP_FLAG_TWO_STEP;
	m.seq = 7;
	memcpy(m.source.clock_id, master_id, 8);
	m.source.port = 1;
	return ptp_build(b, 128, &m);
}

static void test_malformed(void **state)
{
	(void)state;
	uint8_t b[128];
	struct ptp_msg m;
	size_t n = sync_msg(b);
	assert_int_equal(n, 44);
	assert_int_equal(ptp_parse(b, n, &m), PTP_OK);
	assert_int_equal(ptp_parse(b, 33, &m), PTP_ERR_too_short);
	assert_int_equal(ptp_parse(b, 40, &m), PTP_ERR_too_short);
	b[1] = 1;
	assert_int_equal(ptp_parse(b, n, &m), PTP_ERR_bad_version);
	b[1] = 2;
	b[3] = 46;	/* messageLength beyond the 44 bytes given */
	assert_int_equal(ptp_parse(b, n, &m), PTP_ERR_bad_length);
	b[3] = 40;	/* shorter than header + body */
	assert_int_equal(ptp_parse(b, n, &m), PTP_ERR_bad_length);
	b[3] = 44;
	b[0] = PTP_SIGNALING;
	assert_int_equal(ptp_parse(b, n, &m), PTP_ERR_unsupported_type);
	b[0] = PTP_PDELAY_REQ;	/* a 20-byte body: 44 bytes are too few */
	assert_int_equal(ptp_parse(b, n, &m), PTP_ERR_too_short);
	b[0] = 0x4;	/* reserved type */
	assert_int_equal(ptp_parse(b, n, &m), PTP_ERR_unsupported_type);
	assert_string_equal(ptp_err_name(PTP_ERR_bad_tlv), "bad_tlv");
}

static void test_tlvs(void **state)
{
	(void)state;
	uint8_t b[128];
	struct ptp_msg m;
	size_t n = sync_msg(b);
	/* an unknown TLV (type 0x7ff0, 2 bytes) and a PATH_TRACE (8 bytes) */
	static const uint8_t tlvs[] = { 0x7f, 0xf0, 0, 2, 0xaa, 0xbb, 0, 8, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8 };
	memcpy(b + n, tlvs, sizeof(tlvs));
	b[3] = (uint8_t)(n + sizeof(tlvs));
	assert_int_equal(ptp_parse(b, n + sizeof(tlvs), &m), PTP_OK);
	assert_int_equal(m.tlvs, 2);
	assert_int_equal(m.unknown_tlvs, 1);
	b[3] = (uint8_t)(n + 5);	/* cuts the first TLV's value */
	assert_int_equal(ptp_parse(b, n + sizeof(tlvs), &m), PTP_ERR_bad_tlv);
	b[3] = (uint8_t)(n + 3);	/* less than a TLV header */
	assert_int_equal(ptp_parse(b, n + sizeof(tlvs), &m), PTP_ERR_bad_tlv);
}

static void test_frames(void **state)
{
	(void)state;
	static const uint8_t mac[6] = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 };
	uint8_t f[128];
	struct ptp_frame fr;
	size_t n = sync_msg(f + ptp_frame_hlen(PTP_L2));
	size_t len = ptp_frame_build(f, PTP_L2, mac, 0, PTP_SYNC, n);
	assert_int_equal(len, 60);	/* 58 padded */
	assert_memory_equal(f, ptp_l2_mcast, 6);
	assert_int_equal(ptp_frame_parse(f, len, PTP_L2, &fr), PTP_FRAME_OK);
	assert_int_equal(fr.len, 46);
	assert_int_equal(ptp_frame_parse(f, len, PTP_UDP4, &fr), PTP_FRAME_NONE);

	n = sync_msg(f + ptp_frame_hlen(PTP_UDP4));
	static const uint8_t ip4[4] = { 10, 9, 0, 1 };
	len = ptp_frame_build(f, PTP_UDP4, mac, ip4, PTP_DELAY_REQ, n);
	assert_int_equal(len, 86);
	assert_memory_equal(f, ptp_ipv4_mcast_mac, 6);
	assert_int_equal(inet_csum(f + 14, 20), 0);
	assert_int_equal(f[14 + 8], 1);	/* TTL */
	assert_int_equal(f[34] << 8 | f[35], 319);
	assert_int_equal(ptp_frame_parse(f, len, PTP_UDP4, &fr), PTP_FRAME_OK);
	assert_int_equal(fr.src_ip, 0x0a090001);
	assert_int_equal(fr.len, 44);
	f[14 + 10] ^= 1;	/* IPv4 checksum */
	assert_int_equal(ptp_frame_parse(f, len, PTP_UDP4, &fr), PTP_FRAME_BAD_IP);
	f[14 + 10] ^= 1;
	f[14 + 6] = 0x20;	/* a fragment */
	assert_int_equal(ptp_frame_parse(f, len, PTP_UDP4, &fr), PTP_FRAME_BAD_IP);

	len = ptp_frame_build(f, PTP_UDP4, mac, ip4, PTP_FOLLOW_UP, n);
	assert_int_equal(f[34] << 8 | f[35], 320);
}

/* UDPv6 (Annex E) as ptp4l -6 frames it: ff0e::181 or ff02::6b, hop
 * limit 1, the UDP checksum, 2 bytes after the message; what parses. */
static void test_frames_udp6(void **state)
{
	(void)state;
	static const uint8_t mac[6] = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 };
	static const uint8_t src[16] = { 0xfd, 0x09, [15] = 1 };
	static const uint8_t pd_mac[6] = { 0x33, 0x33, 0, 0, 0, 0x6b }, pd_dst[16] = { 0xff, 0x02, [15] = 0x6b };
	static const uint8_t dst[16] = { 0xff, 0x0e, [14] = 1, [15] = 0x81 };
	static const uint8_t ev_mac[6] = { 0x33, 0x33, 0, 0, 1, 0x81 };
	uint8_t f[160];
	struct ptp_frame fr;
	struct ptp_msg m;
	memset(f, 0xee, sizeof(f));
	size_t n = sync_msg(f + ptp_frame_hlen(PTP_UDP6));
	assert_int_equal(ptp_frame_hlen(PTP_UDP6), 62);
	size_t len = ptp_frame_build(f, PTP_UDP6, mac, src, PTP_DELAY_REQ, n);
	assert_int_equal(len, 62 + 44 + 2);
	assert_memory_equal(f, ev_mac, 6);
	assert_memory_equal(f + 6, mac, 6);
	assert_int_equal(get16(f + 12), ETHERTYPE_IPV6);
	const struct ipv6_hdr *ip = (const struct ipv6_hdr *)(f + 14);
	assert_int_equal(f[14] >> 4, 6);
	assert_int_equal(ntoh16(ip->payload_len), 8 + 44 + 2);
	assert_int_equal(ip->nexthdr, 17);
	assert_int_equal(ip->hop_limit, 1);
	assert_memory_equal(ip->saddr, src, 16);
	assert_memory_equal(ip->daddr, dst, 16);
	assert_int_equal(get16(f + 54), 319);
	assert_int_equal(get16(f + 56), 319);
	assert_int_equal(get16(f + 58), 8 + 44 + 2);
	assert_int_not_equal(get16(f + 60), 0);
	assert_int_equal(ipv6_l4_csum(ip, 17, f + 54, 54), 0);
	assert_int_equal(f[106], 0);
	assert_int_equal(f[107], 0);
	assert_int_equal(ptp_frame_parse(f, len, PTP_UDP6, &fr), PTP_FRAME_OK);
	assert_ptr_equal(fr.msg, f + 62);
	assert_int_equal(fr.len, 46);
	assert_int_equal(ptp_parse(fr.msg, fr.len, &m), PTP_OK);
	assert_int_equal(m.seq, 7);
	assert_int_equal(m.length, 44);
	assert_int_equal(ptp_frame_parse(f, len, PTP_UDP4, &fr), PTP_FRAME_NONE);
	assert_int_equal(ptp_frame_parse(f, len, PTP_L2, &fr), PTP_FRAME_NONE);

	f[70] ^= 1;		/* a byte of the message: the checksum no longer holds */
	assert_int_equal(ptp_frame_parse(f, len, PTP_UDP6, &fr), PTP_FRAME_BAD_IP);
	f[70] ^= 1;
	uint16_t c = get16(f + 60);
	put16(f + 60, 0);	/* no checksum: not allowed over IPv6 */
	assert_int_equal(ptp_frame_parse(f, len, PTP_UDP6, &fr), PTP_FRAME_BAD_IP);
	put16(f + 60, c);
	f[18]++;		/* payload length past the frame */
	assert_int_equal(ptp_frame_parse(f, len, PTP_UDP6, &fr), PTP_FRAME_BAD_IP);
	f[18]--;
	f[14] = 0x45;		/* version 4 in an IPv6 EtherType */
	assert_int_equal(ptp_frame_parse(f, len, PTP_UDP6, &fr), PTP_FRAME_BAD_IP);
	f[14] = 0x60;
	put16(f + 18, 0);	/* payload length 0 (a jumbogram, RFC 2675) */
	assert_int_equal(ptp_frame_parse(f, len, PTP_UDP6, &fr), PTP_FRAME_BAD_IP);
	put16(f + 18, 8 + 44 + 2);
	put16(f + 58, 8 + 44 + 3);	/* UDP length past the payload */
	assert_int_equal(ptp_frame_parse(f, len, PTP_UDP6, &fr), PTP_FRAME_BAD_IP);
	put16(f + 58, 7);	/* ... shorter than UDP's header */
	assert_int_equal(ptp_frame_parse(f, len, PTP_UDP6, &fr), PTP_FRAME_BAD_IP);
	put16(f + 58, 8 + 44 + 2);
	assert_int_equal(ptp_frame_parse(f, len, PTP_UDP6, &fr), PTP_FRAME_OK);
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
	memcpy(f + 22, all_nodes, 16);	/* a multicast source (RFC 4291 2.7), checksum refitted */
	put16(f + 60, 0);
	put16(f + 60, ipv6_l4_csum(ip, 17, f + 54, 54));
	assert_int_equal(ptp_frame_parse(f, len, PTP_UDP6, &fr), PTP_FRAME_BAD_IP);
	memcpy(f + 22, src, 16);
	put16(f + 60, c);
	assert_int_equal(ptp_frame_parse(f, len, PTP_UDP6, &fr), PTP_FRAME_OK);
	f[20] = 44;		/* a Fragment header first: not as ptp4l sends, not PTP here */
	assert_int_equal(ptp_frame_parse(f, len, PTP_UDP6, &fr), PTP_FRAME_NONE);
	f[20] = 0;		/* a Hop-by-Hop header first: not as ptp4l sends, not PTP here */
	assert_int_equal(ptp_frame_parse(f, len, PTP_UDP6, &fr), PTP_FRAME_NONE);
	f[20] = 17;
	put16(f + 56, 321);
	assert_int_equal(ptp_frame_parse(f, len, PTP_UDP6, &fr), PTP_FRAME_NONE);
	assert_int_equal(ptp_frame_parse(f, 61, PTP_UDP6, &fr), PTP_FRAME_NONE);

	len = ptp_frame_build(f, PTP_UDP6, mac, src, PTP_FOLLOW_UP, n);
	assert_int_equal(get16(f + 54), 320);
	assert_int_equal(ptp_frame_parse(f, len, PTP_UDP6, &fr), PTP_FRAME_OK);
	len = ptp_frame_build(f, PTP_UDP6, mac, src, PTP_PDELAY_REQ, n);
	assert_memory_equal(f, pd_mac, 6);
	assert_memory_equal(ip->daddr, pd_dst, 16);
	assert_int_equal(get16(f + 54), 319);
	assert_int_equal(ptp_frame_parse(f, len, PTP_UDP6, &fr), PTP_FRAME_OK);
}

static void test_timestamps(void **state)
{
	(void)state;
	struct ptp_ts t = ptp_ts_from_ns(1796106108887683484ll);
	assert_int_equal(t.sec, 1796106108ull);
	assert_int_equal(t.ns, 887683484u);
	assert_int_equal(ptp_ts_to_ns(t), 1796106108887683484ll);
	t = ptp_ts_from_ns(-5);
	assert_int_equal(t.sec, 0);
	assert_int_equal(t.ns, 0);
}

static struct ptp_dataset ds(uint8_t p1, uint8_t cls, uint8_t gm_last, uint16_t steps)
{
	struct ptp_dataset d;
	memset(&d, 0, sizeof(d));
	d.priority1 = p1;
	d.priority2 = 128;
	d.quality.clock_class = cls;
	d.quality.clock_accuracy = 0xfe;
	d.quality.offset_scaled_log_variance = 0xffff;
	d.gm_id[7] = gm_last;
	d.steps_removed = steps;
	d.sender.clock_id[7] = gm_last;
	d.sender.port = 1;
	d.receiver.clock_id[7] = 0x99;
	d.receiver.port = 1;
	return d;
}

static void test_bmca(void **state)
{
	(void)state;
	struct ptp_dataset a = ds(128, 248, 2, 0), b = ds(1, 248, 3, 0);
	assert_int_equal(ptp_dataset_cmp(&a, &b), -2);	/* priority1 */
	assert_int_equal(ptp_dataset_cmp(&b, &a), 2);
	b = ds(128, 6, 3, 0);
	assert_int_equal(ptp_dataset_cmp(&a, &b), -2);	/* clockClass */
	b = ds(128, 248, 3, 0);
	assert_int_equal(ptp_dataset_cmp(&a, &b), 2);	/* identity tie-break */
	b = ds(128, 248, 2, 2);		/* the same grandmaster two steps further */
	assert_int_equal(ptp_dataset_cmp(&a, &b), 2);
	b = ds(128, 248, 2, 1);		/* one step further: topology */
	assert_int_equal(ptp_dataset_cmp(&a, &b), 1);	/* receiver 0x99 > sender 0x02 */
	b = ds(128, 248, 2, 0);
	b.sender.clock_id[7] = 1;	/* the same GM through another port */
	assert_int_equal(ptp_dataset_cmp(&a, &b), -1);
	assert_int_equal(ptp_dataset_cmp(&a, &a), 0);
	uint8_t id[8];
	static const uint8_t mac[6] = { 0x3a, 0xa2, 0x83, 0xe0, 0xfd, 0x80 };
	ptp_clock_id_from_mac(id, mac);
	assert_memory_equal(id, master_id, 8);
}


/* Management in a capture of pmc asking ptp4l (clock gm): every answer
 * rebuilt from its request (ptp_mgmt_reply) with the data set decoded from
 * the answer and encoded again is ptp4l's answer byte for byte. Counts the
 * requests, the answers, the error answers; the decoded data sets by id in
 * ds[] (DEFAULT, CURRENT, PARENT, PORT, TIME_STATUS_NP). */
struct mgmt_seen {
	int requests, answers, errors;
	uint16_t error_id, error_mid;
	struct ptp_mgmt_data dflt, cur, parent, port, tsn;
};

static void mgmt_capture(const char *path, enum ptp_transport t, const uint8_t gm[8], struct mgmt_seen *s)
{
	static struct capture c;
	static struct ptp_msg req[MAX_FRAMES];
	int nreq = 0;
	memset(s, 0, sizeof(*s));
	load(path, &c);
	for (int i = 0; i < c.n; i++) {
		struct ptp_frame fr;
		struct ptp_msg m;
		if (ptp_frame_parse(c.frame[i], c.len[i], t, &fr) != PTP_FRAME_OK)
			continue;
		assert_int_equal(ptp_parse(fr.msg, fr.len, &m), PTP_OK);
		uint8_t out[256];
		assert_int_equal(ptp_build(out, sizeof(out), &m), m.length);
		assert_memory_equal(out, fr.msg, m.length);
		if (m.msg_type != PTP_MANAGEMENT)
			continue;
		assert_int_equal(m.control, 4);
		assert_int_equal(m.log_interval, 0x7f);
		assert_int_equal(m.unknown_tlvs, 0);
		if (m.mgmt.action == PTP_MGMT_GET || m.mgmt.action == PTP_MGMT_SET) {
			assert_int_equal(m.mgmt.target.port, 0xffff);
			assert_int_equal(m.mgmt.hops, 0);	/* pmc -b 0 */
			assert_true(ptp_mgmt_targets(&m, gm, 1));
			req[nreq++] = m;	/* its data points into c, which stays */
			s->requests++;
			continue;
		}
		assert_int_equal(m.mgmt.action, PTP_MGMT_RESPONSE);
		assert_memory_equal(m.source.clock_id, gm, 8);
		const struct ptp_msg *q = 0;
		for (int k = 0; k < nreq; k++)
			if (req[k].seq == m.seq && !memcmp(&req[k].source, &m.mgmt.target, sizeof(m.mgmt.target)))
				q = &req[k];
		assert_non_null(q);
		assert_int_equal(q->mgmt.id, m.mgmt.id);
		s->answers++;
		struct ptp_msg r;
		uint8_t data[64];
		struct ptp_mgmt_data d;
		size_t dl = 0;
		if (m.mgmt.tlv_type == PTP_TLV_MANAGEMENT_ERROR_STATUS) {
			s->errors++;
			s->error_id = m.mgmt.error;
			s->error_mid = m.mgmt.id;
		} else if (m.mgmt.id != PTP_MID_NULL_MANAGEMENT) {
			assert_int_equal(ptp_mgmt_data_get(m.mgmt.data, m.mgmt.data_len, m.mgmt.id, &d), 0);
			dl = ptp_mgmt_data_put(data, sizeof(data), &d);
			assert_int_equal(dl, m.mgmt.data_len);
			struct ptp_mgmt_data *slot = d.id == PTP_MID_DEFAULT_DATA_SET ? &s->dflt :
				d.id == PTP_MID_CURRENT_DATA_SET ? &s->cur : d.id == PTP_MID_PARENT_DATA_SET ? &s->parent :
				d.id == PTP_MID_PORT_DATA_SET ? &s->port : &s->tsn;
			*slot = d;
		}
		ptp_mgmt_reply(&r, q, &m.source, 0, m.mgmt.error, data, (uint16_t)dl);
		assert_int_equal(ptp_build(out, sizeof(out), &r), m.length);
		assert_memory_equal(out, fr.msg, m.length);
	}
}

static const uint8_t pmc_gm_l2[8] = { 0x36, 0x31, 0xe8, 0xff, 0xfe, 0x28, 0x1d, 0x7b };

/* pmc -2 -b 0: GET DEFAULT_DATA_SET, CURRENT_DATA_SET, PARENT_DATA_SET,
 * TIME_STATUS_NP, PORT_DATA_SET, SET PRIORITY1 10, GET NULL_MANAGEMENT to
 * a ptp4l master (priority1 1); the values as pmc printed them. */
static void test_mgmt_l2_capture(void **state)
{
	(void)state;
	struct mgmt_seen s;
	mgmt_capture("tests/unit/data/ptp4l-pmc-l2.pcap", PTP_L2, pmc_gm_l2, &s);
	assert_int_equal(s.requests, 7);
	assert_int_equal(s.answers, 7);
	assert_int_equal(s.errors, 1);	/* SET from the network: NOT_SUPPORTED */
	assert_int_equal(s.error_id, PTP_MGMT_ERR_NOT_SUPPORTED);
	assert_int_equal(s.error_mid, 0x2005);	/* PRIORITY1 */
	const struct ptp_default_ds *d = &s.dflt.dflt;
	assert_int_equal(d->two_step, 1);
	assert_int_equal(d->slave_only, 0);
	assert_int_equal(d->number_ports, 1);
	assert_int_equal(d->priority1, 1);
	assert_int_equal(d->quality.clock_class, 248);
	assert_int_equal(d->quality.clock_accuracy, 0xfe);
	assert_int_equal(d->quality.offset_scaled_log_variance, 0xffff);
	assert_int_equal(d->priority2, 128);
	assert_memory_equal(d->clock_id, pmc_gm_l2, 8);
	assert_int_equal(s.cur.cur.steps_removed, 0);
	assert_int_equal(s.cur.cur.offset_from_master, 0);
	const struct ptp_parent_ds *p = &s.parent.parent;
	assert_memory_equal(p->parent.clock_id, pmc_gm_l2, 8);
	assert_int_equal(p->parent.port, 0);
	assert_int_equal(p->observed_variance, 0xffff);
	assert_int_equal(p->observed_rate, 0x7fffffff);
	assert_int_equal(p->gm_priority1, 1);
	assert_memory_equal(p->gm_id, pmc_gm_l2, 8);
	const struct ptp_port_ds *o = &s.port.port;
	assert_memory_equal(o->id.clock_id, pmc_gm_l2, 8);
	assert_int_equal(o->id.port, 1);
	assert_int_equal(o->state, 6);	/* MASTER */
	assert_int_equal(o->log_announce, 1);
	assert_int_equal(o->announce_receipt_timeout, 3);
	assert_int_equal(o->delay_mechanism, PTP_DELAY_E2E);
	assert_int_equal(o->version, 2);
	assert_int_equal(s.tsn.tsn.gm_present, 0);
	assert_memory_equal(s.tsn.tsn.gm_id, pmc_gm_l2, 8);
}

/* The same over UDPv4 (pmc -4), without NULL_MANAGEMENT. */
static void test_mgmt_udp4_capture(void **state)
{
	(void)state;
	static const uint8_t gm[8] = { 0xc2, 0xdc, 0x75, 0xff, 0xfe, 0x58, 0xa7, 0x9d };
	struct mgmt_seen s;
	mgmt_capture("tests/unit/data/ptp4l-pmc-udp4.pcap", PTP_UDP4, gm, &s);
	assert_int_equal(s.requests, 6);
	assert_int_equal(s.answers, 6);
	assert_int_equal(s.errors, 1);
	assert_int_equal(s.error_id, PTP_MGMT_ERR_NOT_SUPPORTED);
	assert_memory_equal(s.dflt.dflt.clock_id, gm, 8);
	assert_int_equal(s.port.port.state, 6);
}

/* A GET of CURRENT_DATA_SET to damage: pmc's form, data zero-filled. */
static size_t mgmt_get(uint8_t *b)
{
	static const uint8_t zero[18];
	struct ptp_msg m, q;
	memset(&q, 0, sizeof(q));
	memcpy(q.source.clock_id, slave_id, 8);
	q.source.port = 1;
	q.mgmt.action = PTP_MGMT_GET;
	q.mgmt.id = PTP_MID_CURRENT_DATA_SET;
	ptp_mgmt_reply(&m, &q, &q.source, 0, 0, zero, sizeof(zero));
	m.mgmt.action = PTP_MGMT_GET;
	memset(&m.mgmt.target, 0xff, sizeof(m.mgmt.target));
	m.mgmt.target.port = 0xffff;
	return ptp_build(b, 128, &m);
}

static void test_mgmt_malformed(void **state)
{
	(void)state;
	uint8_t b[128];
	struct ptp_msg m;
	size_t n = mgmt_get(b);
	assert_int_equal(n, 72);	/* 34 + 14 + 4 + 2 + 18 */
	assert_int_equal(ptp_parse(b, n, &m), PTP_OK);
	assert_int_equal(m.mgmt.id, PTP_MID_CURRENT_DATA_SET);
	assert_int_equal(m.mgmt.data_len, 18);
	assert_true(ptp_mgmt_targets(&m, master_id, 1));
	assert_int_equal(ptp_mgmt_data_get(m.mgmt.data, m.mgmt.data_len, m.mgmt.id, &(struct ptp_mgmt_data){ 0 }), 0);
	assert_int_equal(ptp_mgmt_data_get(m.mgmt.data, 16, m.mgmt.id, &(struct ptp_mgmt_data){ 0 }), -1);
	b[51] = 30;	/* the TLV's lengthField past messageLength */
	assert_int_equal(ptp_parse(b, n, &m), PTP_ERR_bad_tlv);
	b[51] = 20;
	b[49] = 0x03;	/* not a management TLV */
	assert_int_equal(ptp_parse(b, n, &m), PTP_ERR_bad_management);
	b[49] = 0x02;	/* an error status TLV needs 8 bytes: has 20, fine */
	assert_int_equal(ptp_parse(b, n, &m), PTP_OK);
	assert_int_equal(m.mgmt.tlv_type, PTP_TLV_MANAGEMENT_ERROR_STATUS);
	b[49] = 0x01;
	b[3] = 48;	/* no TLV at all */
	assert_int_equal(ptp_parse(b, n, &m), PTP_ERR_bad_management);
	b[3] = 52;	/* a TLV header with lengthField 20 past the message */
	assert_int_equal(ptp_parse(b, n, &m), PTP_ERR_bad_tlv);
	b[3] = 72;
	b[40] = 0x00;	/* another clock as target */
	assert_false(ptp_mgmt_targets(&(struct ptp_msg){ 0 }, master_id, 1));
	assert_int_equal(ptp_parse(b, n, &m), PTP_OK);
	assert_false(ptp_mgmt_targets(&m, master_id, 1));
}

/* A capture of one profile (peer delay; 802.1AS): every PTP message parses
 * with transportSpecific tsp, counted by type (want) and TLVs (tlvs, all
 * known), rebuilt byte for byte up to its TLVs (ptp_build writes none but
 * the management one; a gPTP Follow_Up whole, with
 * ptp_put_follow_up_info); every Pdelay_Resp and Pdelay_Resp_Follow_Up names
 * a Pdelay_Req seen before (requestingPortIdentity, sequenceId). */
static void profile_capture(const char *path, uint8_t tsp, const int want[16], int tlvs)
{
	static struct capture c;
	static struct ptp_msg reqs[MAX_FRAMES];
	int got[16] = { 0 }, nreq = 0, ntlv = 0;
	load(path, &c);
	for (int i = 0; i < c.n; i++) {
		struct ptp_frame fr;
		struct ptp_msg m;
		assert_int_equal(ptp_frame_parse(c.frame[i], c.len[i], PTP_L2, &fr), PTP_FRAME_OK);
		assert_int_equal(ptp_parse(fr.msg, fr.len, &m), PTP_OK);
		assert_int_equal(m.transport_specific, tsp);
		assert_int_equal(m.unknown_tlvs, 0);
		got[m.msg_type]++;
		uint8_t out[256];
		size_t n = ptp_build(out, sizeof(out), &m);
		int mgmt = m.msg_type == PTP_MANAGEMENT;
		ntlv += m.tlvs - mgmt;
		assert_int_equal(n, m.tlvs - mgmt ? PTP_HLEN + ptp_body_len(m.msg_type) : m.length);
		assert_memory_equal(out, fr.msg, 2);	/* all but messageLength */
		assert_memory_equal(out + 4, fr.msg + 4, n - 4);
		if (tsp == 1 && m.msg_type == PTP_FOLLOW_UP) {	/* a grandmaster's follow-up information TLV */
			assert_int_equal(ptp_put_follow_up_info(out, sizeof(out), &n, 0), 0);
			assert_int_equal(n, m.length);
			assert_memory_equal(out, fr.msg, n);
		}
		if (m.msg_type == PTP_PDELAY_REQ)
			reqs[nreq++] = m;
		if (m.msg_type != PTP_PDELAY_RESP && m.msg_type != PTP_PDELAY_RESP_FOLLOW_UP)
			continue;
		int found = 0;
		for (int k = 0; k < nreq; k++)
			found |= reqs[k].seq == m.seq && !memcmp(&reqs[k].source, &m.requesting, sizeof(m.requesting));
		assert_true(found);
	}
	for (int i = 0; i < 16; i++)
		assert_int_equal(got[i], want[i]);
	assert_int_equal(ntlv, tlvs);
}

/* ptp4l -2 -P: peer delay both ways (52 exchanges), two-step Sync, pmc. */
static void test_p2p_capture(void **state)
{
	(void)state;
	int want[16] = { [PTP_SYNC] = 12, [PTP_FOLLOW_UP] = 12, [PTP_PDELAY_REQ] = 52, [PTP_PDELAY_RESP] = 52,
			 [PTP_PDELAY_RESP_FOLLOW_UP] = 52, [PTP_ANNOUNCE] = 4, [PTP_MANAGEMENT] = 4 };
	profile_capture("tests/unit/data/ptp4l-l2-p2p.pcap", 0, want, 0);
}

/* ptp4l -f gPTP.cfg (802.1AS): transportSpecific 1 everywhere, Follow_Up
 * with the follow-up information TLV (organization extension), Announce
 * with PATH_TRACE. */
static void test_gptp_capture(void **state)
{
	(void)state;
	int want[16] = { [PTP_SYNC] = 16, [PTP_FOLLOW_UP] = 16, [PTP_PDELAY_REQ] = 22, [PTP_PDELAY_RESP] = 22,
			 [PTP_PDELAY_RESP_FOLLOW_UP] = 22, [PTP_ANNOUNCE] = 9, [PTP_MANAGEMENT] = 4 };
	profile_capture("tests/unit/data/ptp4l-gptp.pcap", 1, want, 16 + 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_l2_capture),
		cmocka_unit_test(test_udp4_capture),
		cmocka_unit_test(test_frames_udp6),
		cmocka_unit_test(test_udp6_capture),
		cmocka_unit_test(test_l2_fields),
		cmocka_unit_test(test_delay_resp_fields),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_tlvs),
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_timestamps),
		cmocka_unit_test(test_bmca),
		cmocka_unit_test(test_mgmt_l2_capture),
		cmocka_unit_test(test_mgmt_udp4_capture),
		cmocka_unit_test(test_mgmt_malformed),
		cmocka_unit_test(test_p2p_capture),
		cmocka_unit_test(test_gptp_capture),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
