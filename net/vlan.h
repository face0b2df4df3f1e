/* 802.1Q VLAN tags (IEEE 802.1Q-2018 9.6) on received frames: up to two
 * (QinQ, 802.1ad), and a bounded per-VLAN count of frames and bytes for
 * the apps that show what arrived (pktgen's receive side, sink). */
#ifndef NET_VLAN_H
#define NET_VLAN_H
#include <stdint.h>
#include "net/bytes.h"

#define ETHERTYPE_VLAN	0x8100	/* C-tag; Linux pktgen tags its S-tag with it too */
#define ETHERTYPE_QINQ	0x88a8	/* S-tag (802.1ad) */
#define ETHERTYPE_QINQ_OLD 0x9100	/* pre-802.1ad S-tag some switches still send */
#define VLAN_HLEN	4	/* TPID + TCI */
#define VLAN_NONE	0xffff	/* no tag (Linux pktgen's vlan_id off) */
#define VLAN_TABLE_MAX	16	/* (outer, inner) VID pairs counted per table */

/* 1 if EtherType t is one of the three TPIDs above. */
static inline int vlan_is_tpid(uint16_t t)
{
	return t == ETHERTYPE_VLAN || t == ETHERTYPE_QINQ || t == ETHERTYPE_QINQ_OLD;
}

/* TCI = PCP (3 bits) | DEI, Linux's cfi (1) | VID (12). */
static inline uint16_t vlan_tci(uint16_t vid, unsigned dei, unsigned pcp)
{
	return (uint16_t)((pcp & 7u) << 13 | (dei & 1u) << 12 | (vid & 0xfffu));
}

/* The tags at the front of a frame, outer first. */
struct vlan_tags {
	int n;			/* 0-2 */
	uint16_t tci[2];
	uint16_t type;		/* the ethertype after the tags */
	uint32_t l3;		/* offset of what follows it */
};

/* 1 if frame d (len bytes) carries a tag vlan_parse would read: a TPID
 * above in the EtherType field and room for the tag. Inline, for the
 * apps that count every frame (sink) to pass untagged ones at once. */
static inline int vlan_tagged(const uint8_t *d, uint32_t len)
{
	if (len < 14 + VLAN_HLEN)
		return 0;
	uint16_t t = (uint16_t)(d[12] << 8 | d[13]);
	return t == ETHERTYPE_VLAN || t == ETHERTYPE_QINQ || t == ETHERTYPE_QINQ_OLD;
}

/* Read the tags of frame d (len bytes, at least 14): any of the three
 * TPIDs above, at most two (a third is left as the type). */
void vlan_parse(const uint8_t *d, uint32_t len, struct vlan_tags *v);

/* Move a frame's two MAC addresses (12 bytes) from `from` to `to`, which
 * may overlap (a tag taken off or put on): read whole, then written, two
 * loads and two stores. newlib's memmove copies an overlapping 12 bytes
 * one at a time (~75 instructions, a third of a routed frame's). */
static inline void vlan_move_macs(uint8_t *to, const uint8_t *from)
{
	uint64_t a;
	uint32_t b;
	__builtin_memcpy(&a, from, 8);
	__builtin_memcpy(&b, from + 8, 4);
	__builtin_memcpy(to, &a, 8);
	__builtin_memcpy(to + 8, &b, 4);
}

/* Tag the frame at d (at least 12 bytes) with a tag of TPID tpid (0x8100
 * a C-tag, 0x88a8 an S-tag; IEEE 802.1Q-2018 9.6) and tci after its MAC
 * addresses: the MACs move 4 bytes back, so d[-4..-1] must be the
 * caller's. Returns the new start, d - VLAN_HLEN; the frame is 4 bytes
 * longer. Inline: fwd's VLAN links tag every frame they send with it. */
static inline uint8_t *vlan_insert_tpid(uint8_t *d, uint16_t tpid, uint16_t tci)
{
	uint8_t *t = d - VLAN_HLEN;
	vlan_move_macs(t, d);
	put16(t + 12, tpid);
	put16(t + 14, tci);
	return t;
}

/* vlan_insert_tpid with a C-tag (TPID 0x8100). */
static inline uint8_t *vlan_insert(uint8_t *d, uint16_t tci)
{
	return vlan_insert_tpid(d, ETHERTYPE_VLAN, tci);
}

/* Tagged frames and bytes per (outer VID, inner VID); inner VLAN_NONE for
 * one tag. full: tagged frames of a pair that found the table full. */
struct vlan_count {
	uint16_t outer, inner;
	uint64_t frames, bytes;
};
struct vlan_table {
	int n;
	uint64_t full;
	struct vlan_count e[VLAN_TABLE_MAX];
};

/* Count a frame of len bytes with tags v in t (nothing when untagged). */
void vlan_count(struct vlan_table *t, const struct vlan_tags *v, uint32_t len);
/* One line per pair: "<prefix> vlan 100: 10 frames 640 bytes" (QinQ:
 * "svlan 22 vlan 100", Linux pktgen's names), then vlan_full if any. */
void vlan_table_print(const struct vlan_table *t, const char *prefix);
#endif
