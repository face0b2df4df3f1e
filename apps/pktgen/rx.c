/*
 * pktgen's receiver: sequence checking per stream (received, lost,
 * reordered, duplicates, as build/trafgen counts them) and the latency of
 * probes, for frames with trafgen's payload header (pktgen.h). A probe's
 * latency comes from the NIC stamps of both ends when both stamped it
 * (igb), else from the TSC read once per received burst against the
 * sender's TSC in the payload; either way it is meaningful when one guest
 * both sends and receives.
 */
#include <string.h>
#include "apps/pktgen/pktgen.h"
#include "drivers/net/phc.h"
#include "kernel/time.h"
#include "net/bytes.h"
#include "net/ipv4.h"
#include "net/ipv6.h"

#define NA_LEN	(ND_MSG_LEN + 8)	/* NA with the target link-layer address option */

#define TS_MASK ((UINT64_C(1) << 48) - 1)

struct pg_rx *pg_rx;

uint64_t pg_stream_lost(const struct pg_stream *s)
{
	return s->next > s->unique ? s->next - s->unique : 0;
}

static int seen_test_set(struct pg_stream *s, uint64_t seq)
{
	uint64_t i = seq % PG_SEQ_WINDOW, m = UINT64_C(1) << (i % 64);
	int was = !!(s->seen[i / 64] & m);
	s->seen[i / 64] |= m;
	return was;
}

/* New (above the highest so far: the window slides), reordered (below it,
 * not seen) or duplicate (below it, seen within the window). */
static void seq_add(struct pg_stream *s, uint64_t seq)
{
	if (seq >= s->next) {
		if (seq - s->next >= PG_SEQ_WINDOW)
			memset(s->seen, 0, sizeof(s->seen));
		else
			for (uint64_t q = s->next; q < seq; q++)
				s->seen[q % PG_SEQ_WINDOW / 64] &= ~(UINT64_C(1) << (q % 64));
		seen_test_set(s, seq);
		s->next = seq + 1;
		s->unique++;
	} else if (s->next - seq <= PG_SEQ_WINDOW && seen_test_set(s, seq)) {
		s->duplicates++;
	} else {
		s->reordered++;
		s->unique++;
	}
}

static struct pg_stream *stream_of(struct pg_rx *r, uint16_t id)
{
	for (int i = 0; i < PG_STREAMS; i++) {
		struct pg_stream *s = &r->streams[i];
		if (s->used && s->id == id)
			return s;
		if (!s->used) {
			memset(s, 0, sizeof(*s));
			s->used = 1;
			s->id = id;
			return s;
		}
	}
	return 0;
}

/* 1 if the UDP datagram of ulen bytes in IPv6 header ip checks (RFC 8200
 * 8.1: a checksum is mandatory, 0 is not one). */
static int udp6_csum_ok(const uint8_t *ip, uint32_t ulen)
{
	return get16(ip + 46) != 0 && ipv6_l4_csum((const struct ipv6_hdr *)ip, 17, ip + IPV6_HLEN, ulen) == 0;
}

/* Our payload in the IPv4 (ver 4) or IPv6 packet ip of room bytes, or
 * NULL; *bad set when it carries our magic but its header, lengths or
 * checksums are wrong. */
static const uint8_t *payload_ip(const uint8_t *ip, uint32_t room, int ver, int *bad)
{
	uint32_t ihl = ver == 6 ? IPV6_HLEN : (ip[0] & 15u) * 4;
	if (ip[0] >> 4 != ver || ip[ver == 6 ? 6 : 9] != 17 || ihl < IPV4_HLEN || ihl + 8 + PG_PAYLOAD_LEN > room)
		return 0;
	const uint8_t *pl = ip + ihl + 8;
	if (get16(pl) != PG_MAGIC)
		return 0;
	uint32_t ulen = ver == 6 ? get16(ip + 4) : get16(ip + 2) - ihl;	/* as the IP header says */
	if (ver == 4)
		*bad = inet_csum(ip, ihl) != 0 || get16(ip + 2) < ihl;
	*bad = *bad || ulen > room - ihl || ulen < 8 + PG_PAYLOAD_LEN || get16(ip + ihl + 4) != ulen ||
	       (ver == 6 && !udp6_csum_ok(ip, ulen));
	return *bad ? 0 : pl;
}

/* The UDP payload of one of our frames (tags v), or NULL; *bad as above. */
static const uint8_t *payload(const struct pkt *p, const struct vlan_tags *v, int *bad)
{
	const uint8_t *ip = p->data + v->l3;
	*bad = 0;
	if (p->len < PG_MIN_SIZE)
		return 0;
	if (v->type == PG_ETHERTYPE_PTP) {	/* a hardware-stamped probe */
		const uint8_t *pl = ip + PG_PTP_HLEN;
		return p->len >= v->l3 + PG_PTP_HLEN + PG_PAYLOAD_LEN && (ip[1] & 15) == 2 && get16(pl) == PG_MAGIC ? pl : 0;
	}
	if (v->type != ETHERTYPE_IPV4 && v->type != ETHERTYPE_IPV6)
		return 0;
	return payload_ip(ip, p->len - v->l3, v->type == ETHERTYPE_IPV6 ? 6 : 4, bad);
}

/* A buffer for a reply from port nic (pktgen's TX pool), or NULL. */
static struct pkt *reply_alloc(const struct nic *nic)
{
	return pg_tx[nic->port].pool ? pkt_alloc(pg_tx[nic->port].pool) : 0;
}

/* Sent on a TX queue of this core (pktgen's): queue 0, or the one numbered
 * as the core when each core sends on its own (pg_tx_per_core). */
static void reply_send(struct nic *nic, struct pkt *r)
{
	int q = nic->tx_owner[0] == cpu_id_fast() ? 0 : cpu_id_fast();
	if (!nic->ops->tx_burst(nic, q, &r, 1))
		pkt_free(r);
}

/* An ARP request for one of the addresses we send from or to (a router in
 * front of us resolving its next hop): answered from the port's MAC.
 * Returns 1 if the frame was such a request. */
static int arp_answer(struct nic *nic, const struct pkt *p)
{
	struct arp_info a;
	if (arp_parse(p->data, p->len, &a) != ARP_OK || a.op != ARP_REQUEST ||
	    !((a.tpa >= pg.src_min && a.tpa <= pg.src_max) || (a.tpa >= pg.dst_min && a.tpa <= pg.dst_max)))
		return 0;
	struct pkt *r = reply_alloc(nic);
	if (!r)
		return 1;
	r->len = (uint16_t)arp_build(r->data, r->pool->buf_size, ARP_REPLY, nic->mac, a.tpa, a.sha, a.spa);
	reply_send(nic, r);
	return 1;
}

/* 1 if IPv6 address a is in min..max (one /64: pktgen's ranges). */
static int in_range6(const uint8_t *a, const uint8_t *min, const uint8_t *max)
{
	return !memcmp(a, min, 8) && memcmp(a + 8, min + 8, 8) >= 0 && memcmp(a + 8, max + 8, 8) <= 0;
}

/* 1 if the ICMPv6 message m of len bytes is a Neighbor Solicitation as RFC
 * 4861 7.1.1 accepts it (hop limit 255, code 0, 24 bytes or more, right
 * checksum, target not multicast, no option of length 0), from a unicast
 * source (a DAD probe's unspecified source is left alone: pktgen defends
 * no address). */
static int ns_valid(const uint8_t *ip, const uint8_t *m, uint32_t len)
{
	const struct ipv6_hdr *h = (const struct ipv6_hdr *)ip;
	if (h->nexthdr != IP6_ICMPV6 || h->hop_limit != ND_HOP_LIMIT || len < ND_MSG_LEN ||
	    m[0] != ND_NEIGHBOR_SOLICIT || m[1] != 0 || ipv6_multicast(m + 8) || ipv6_multicast(h->saddr) ||
	    ipv6_unspec_or_loopback(h->saddr, 0) || ipv6_l4_csum(h, IP6_ICMPV6, m, len))
		return 0;
	for (uint32_t o = ND_MSG_LEN; o + 2 <= len; o += m[o + 1] * 8u)
		if (!m[o + 1])
			return 0;
	return 1;
}

/* An untagged Neighbor Solicitation for one of the addresses we send from
 * or to (an IPv6 router resolving its next hop; RFC 4861 4.3): answered
 * with a solicited Neighbor Advertisement (4.4, 7.2.4: S and O set, the
 * port's MAC as target link-layer address). Returns 1 if it was one. */
static int nd_answer(struct nic *nic, const struct pkt *p, const struct vlan_tags *v)
{
	const uint8_t *d = p->data, *ip = d + ETH_HLEN, *ns = ip + IPV6_HLEN, *tgt = ns + 8;
	if (v->n || v->type != ETHERTYPE_IPV6 || p->len < ETH_HLEN + IPV6_HLEN + ND_MSG_LEN || ip[0] >> 4 != 6 ||
	    ETH_HLEN + IPV6_HLEN + get16(ip + 4) > p->len || !ns_valid(ip, ns, get16(ip + 4)) ||
	    !(in_range6(tgt, pg.src6_min, pg.src6_max) || in_range6(tgt, pg.dst6_min, pg.dst6_max)))
		return 0;
	struct pkt *r = reply_alloc(nic);
	if (!r)
		return 1;
	uint8_t *o = r->data, *na = o + ETH_HLEN + IPV6_HLEN;
	struct ipv6_hdr *h = (struct ipv6_hdr *)(o + ETH_HLEN);
	memcpy(o, d + 6, 6);
	memcpy(o + 6, nic->mac, 6);
	put16(o + 12, ETHERTYPE_IPV6);
	memset(h, 0, IPV6_HLEN + NA_LEN);
	put32((uint8_t *)&h->vtc_flow, 6u << 28);
	put16((uint8_t *)&h->payload_len, NA_LEN);
	h->nexthdr = IP6_ICMPV6;
	h->hop_limit = ND_HOP_LIMIT;
	memcpy(h->saddr, tgt, 16);
	memcpy(h->daddr, ip + 8, 16);
	na[0] = ND_NEIGHBOR_ADVERT;
	put32(na + 4, ND_NA_SOLICITED | ND_NA_OVERRIDE);
	memcpy(na + 8, tgt, 16);
	na[ND_MSG_LEN] = ND_OPT_TLLA;
	na[ND_MSG_LEN + 1] = 1;	/* 8 bytes */
	memcpy(na + ND_MSG_LEN + 2, nic->mac, 6);
	put16(na + 2, ipv6_l4_csum(h, IP6_ICMPV6, na, NA_LEN));
	r->len = ETH_HLEN + IPV6_HLEN + NA_LEN;
	reply_send(nic, r);
	return 1;
}

/* Latency of probe seq of stream id from the NIC stamps of both ends: the
 * sender's TX stamp (asked for now if not yet had) and rx_ns, each mapped
 * to the TSC through its port's clock. 0 when either is missing (the
 * sender is not a pktgen port here, its request was not granted or timed
 * out). */
static int hw_latency(struct nic *nic, uint16_t id, uint64_t seq, int64_t rx_ns, uint64_t *lat)
{
	int sp = id >> 8 & 7;	/* the port; PTP-typed probes come from pktgen's core's lane */
	if (sp >= nic_count || !pg_tx[sp].hw)
		return 0;
	struct pg_hwts *h = &pg_tx[sp].hwts[seq % PG_HWTS];
	if (h->seq != seq || !h->state)
		return 0;
	struct phc *tc = phc_of(nics[sp]);
	if (h->state == 1) {
		int r = phc_tx_tstamp(tc, h->txseq, &h->ns);
		if (r <= 0) {
			h->state = r < 0 ? 0 : 1;
			return 0;
		}
		h->state = 2;
	}
	uint64_t tx = phc_to_tsc(tc, h->ns), rx = phc_to_tsc(phc_of(nic), rx_ns);
	*lat = rx > tx ? tsc_to_ns(rx - tx) : 0;
	return 1;
}

/* One more of our data frames of len bytes (with the FCS) in r's sizes. */
static void size_count(struct pg_rx *r, uint16_t len)
{
	for (int i = 0; i < PG_RX_SIZES; i++) {
		struct pg_size *z = &r->sizes[i];
		if (z->len == len || !z->len) {
			z->len = len;
			z->frames++;
			return;
		}
	}
	r->sizes_full++;
}

void pg_rx_burst(struct nic *nic, int q, struct pkt **pkts, int n)
{
	(void)q;
	struct pg_rx *r = &pg_rx[nic->port];
	uint64_t ns = now_ns();
	r->rx += (uint64_t)n;
	for (int i = 0; i < n; i++) {
		int bad;
		struct vlan_tags v;
		vlan_parse(pkts[i]->data, pkts[i]->len, &v);
		vlan_count(&r->vlans, &v, pkts[i]->len);
		const uint8_t *pl = payload(pkts[i], &v, &bad);
		if (!pl) {
			int arp = !bad && arp_answer(nic, pkts[i]);
			int nd = !bad && !arp && nd_answer(nic, pkts[i], &v);
			r->bad += (uint64_t)bad;
			r->arp += (uint64_t)arp;
			r->nd += (uint64_t)nd;
			r->other += (uint64_t)(!bad && !arp && !nd);
			continue;
		}
		uint16_t id = (uint16_t)get16(pl + 2);
		struct pg_stream *s = stream_of(r, id);
		if (!s) {
			r->streams_full++;
			continue;
		}
		r->ours++;
		s->received++;
		s->bytes += pkts[i]->len;
		seq_add(s, (uint64_t)get32(pl + 4) << 32 | get32(pl + 8));
		if (!(id & PG_PROBE))
			size_count(r, (uint16_t)(pkts[i]->len + 4));
		if (id & PG_PROBE) {
			uint64_t seq = (uint64_t)get32(pl + 4) << 32 | get32(pl + 8), lat;
			if ((pkts[i]->flags & PKT_RX_TSTAMP) &&
			    hw_latency(nic, id, seq, (int64_t)pkts[i]->tstamp, &lat)) {
				r->lat_hw++;
			} else {
				lat = (ns - ((uint64_t)get16(pl + 12) << 32 | get32(pl + 14))) & TS_MASK;
				r->lat_sw++;
			}
			pg_hist_add(&r->lat, lat);
		}
	}
	pkt_free_bulk(pkts, n);
}
