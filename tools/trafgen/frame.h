/* The test frames trafgen sends and recognises: Ethernet II (with one
 * 802.1Q tag under --vlan) / IPv4 or IPv6 / UDP with an 18-byte payload
 * header, and the ARP replies and Neighbor Advertisements (RFC 4861 4.4)
 * of --arp-reply.
 *
 * Sizes follow one convention everywhere: a frame's size counts its 4-byte
 * FCS, which QEMU's backends (and tap devices) do not carry. A 64-byte frame
 * is 60 bytes on the socket; 1518 is 1514.
 *
 * Payload header, big-endian, at the start of the UDP payload:
 *   0  magic   u16  0x4c52 ("LR")
 *   2  stream  u16  stream id (one per sweep step)
 *   4  seq     u64  sequence number, from 0 per stream
 *   12 ts      u48  send time, CLOCK_MONOTONIC ns modulo 2^48 (3.2 days)
 * 18 bytes, so that a 64-byte frame (14 + 20 + 8 + 18 = 60) holds it; over
 * IPv6 the smallest frame is 84 bytes (14 + 40 + 8 + 18 = 80). The rest of
 * the payload is zero. A tag (TPID 0x8100 and TCI, IEEE 802.1Q-2018 9.6)
 * counts in the size: a tagged frame is 4 bytes longer at each end of the
 * range, 68 (IPv6: 88) .. 1522 bytes (802.3's largest tagged frame).
 */
#ifndef TRAFGEN_FRAME_H
#define TRAFGEN_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FRAME_FCS 4            /* bytes a size counts that the socket does not carry */
#define FRAME_SIZE_MIN 64      /* bytes, with FCS */
#define FRAME_SIZE_MIN_IP6 84  /* bytes, with FCS, of an IPv6 frame */
#define FRAME_SIZE_MAX 1518    /* bytes, with FCS */
#define FRAME_VLAN_HLEN 4      /* bytes an 802.1Q tag adds */
#define FRAME_WIRE_EXTRA 20    /* preamble + SFD (8) and inter-frame gap (12), bytes */
#define TG_MAGIC 0x4c52
#define TG_HDR_LEN 18
#define TG_TS_MASK ((UINT64_C(1) << 48) - 1)

/* Values lo .. lo + n - 1 (n >= 1). */
struct range {
	uint64_t lo, n;
};

/* Header fields of the frames sent: MACs as 48-bit integers, IPv4
 * addresses and ports in host order. Frame with sequence s takes element
 * s mod n of each range, each range on its own. With ip6, the frames are
 * IPv6: src_ip6/dst_ip6 are the addresses' first 96 bits and src_ip/dst_ip
 * range over their last 32. With vlan, each frame carries an 802.1Q tag
 * of TCI vlan_tci after its MAC addresses. */
struct flow_spec {
	struct range src_mac, dst_mac, src_ip, dst_ip, src_port, dst_port;
	bool ip6, vlan;
	uint16_t vlan_tci;
	uint8_t src_ip6[12], dst_ip6[12];
};

/* What the payload header of a received frame said. */
struct tg_hdr {
	uint16_t stream;
	uint64_t seq;
	uint64_t ts;   /* ns modulo 2^48 */
};

enum frame_kind {
	FRAME_OURS,        /* valid IPv4 or IPv6 UDP with our magic; *h filled */
	FRAME_BAD,         /* our magic, but a checksum or length is wrong */
	FRAME_ARP_REQUEST, /* Ethernet/IPv4 ARP request; target filled */
	FRAME_ND_SOLICIT,  /* IPv6 Neighbor Solicitation from a unicast source; target filled */
	FRAME_OTHER,       /* anything else */
};

/* Writes the frame of FCS-inclusive size `size` (FRAME_SIZE_MIN..MAX, 4
 * more with a tag) with
 * sequence `seq` into buf, which holds at least size - FRAME_FCS bytes.
 * Returns the carried length, size - FRAME_FCS. */
size_t frame_build(uint8_t *buf, const struct flow_spec *f, unsigned size,
		   uint16_t stream, uint64_t seq, uint64_t ts_ns);

/* Classifies the carried frame buf[0..len), untagged or under one 802.1Q
 * tag (TPID 0x8100, any VID). Checks, for our frames, the
 * IPv4 header checksum, the IPv4 and UDP lengths, no fragmentation, and the
 * UDP checksum unless it is 0; over IPv6, the payload and UDP lengths and
 * the UDP checksum, which must not be 0 (RFC 8200 8.1). The address a
 * request asks for goes to target: IPv6, or IPv4 in its last 4 bytes after
 * 12 zero bytes. */
enum frame_kind frame_parse(const uint8_t *buf, size_t len, struct tg_hdr *h,
			    uint8_t target[16]);

/* Writes into out (>= 60 bytes) the ARP reply to the request `req` (as
 * classified by frame_parse), saying its target address is at `mac`,
 * under the request's 802.1Q tag if it had one. Returns the length, 60. */
size_t arp_reply_build(uint8_t *out, const uint8_t *req, uint64_t mac);

/* Writes into out (>= 90 bytes) the Neighbor Advertisement (RFC 4861 4.4,
 * solicited and override, with the target link-layer address option) that
 * answers the solicitation `req` (as classified by frame_parse), saying its
 * target address is at `mac`, under the request's 802.1Q tag if it had
 * one. Returns the length, 86 (90 tagged). */
size_t nd_advert_build(uint8_t *out, const uint8_t *req, uint64_t mac);

/* Internet checksum (RFC 1071) of buf[0..len), folded, not inverted,
 * starting from the partial sum `sum`. */
uint32_t csum_add(uint32_t sum, const uint8_t *buf, size_t len);

#endif
