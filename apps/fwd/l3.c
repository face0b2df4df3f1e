/*
 * fwd L3: an IPv4 router on the ports with an address (RFC 1812): the
 * forwarding path of a burst.
 *
 * Each frame: ARP goes to neigh.c; IPv4 to our MAC is checked
 * (ipv4_check), then ipv4_input takes it in three steps: its addresses
 * (delivered to us, counted `local`, an echo request answered by icmp.c;
 * or found routable), its route (the LPM table of route.c, looked up once
 * for a burst's repeated destination) and its next hop's MAC (the ARP
 * table; unresolved, the frame waits in neigh.c). Once a frame to a
 * destination is forwarded, later frames to it that pass a few header
 * checks take the fast path (struct dst_slot, fast_run) until the tables
 * change: the full path's decisions about the destination reused, the
 * source checked inline, a rewrite and a queue slot per frame.
 * Frames leave in one tx_burst per port at the end of the burst (tx.c).
 * Nothing is allocated per frame except ICMP errors and ARP requests.
 */
#include <string.h>
#include "apps/fwd/counters.h"
#include "apps/fwd/l3.h"
#include "apps/fwd/route.h"
#include "apps/fwd/tc.h"
#include "kernel/cpu.h"
#include "kernel/time.h"
#include "net/ifaddr.h"
#include "net/ipv4.h"
#include "net/vlan.h"

/* The verdicts of ipv4_input's steps besides a drop reason (>= 0). */
#define L3_TAKEN	(-1)	/* the frame went on: local, queued or held */
#define L3_GO_ON	(-2)	/* the next step decides */

static inline unsigned dst_slot_of(uint32_t daddr)
{
	return (daddr * 2654435761u) >> 28;	/* 4 bits: DST_SLOTS */
}

/* The four bytes of the address xor-ed, 6 bits of it (SRC_SLOTS): the
 * hosts of a /26 (one byte apart) each get their own slot, in either
 * byte order. */
static inline unsigned src_slot_of(uint32_t saddr)
{
	uint32_t x = saddr ^ saddr >> 16;
	return (x ^ x >> 8) & (SRC_SLOTS - 1);
}

/* 1 if the header carries a loose or strict source route option (LSRR
 * 131, SSRR 137; RFC 791). Options are walked with their lengths checked. */
static int ip_source_routed(const struct ipv4_hdr *ip)
{
	const uint8_t *o = (const uint8_t *)ip + IPV4_HLEN;
	unsigned n = (ip->ver_ihl & 15u) * 4 - IPV4_HLEN;
	for (unsigned i = 0; i < n;) {
		uint8_t t = o[i];
		if (t == 0)
			return 0;	/* end of options */
		if (t == 1) {
			i++;		/* no-op */
			continue;
		}
		if (t == 131 || t == 137)
			return 1;
		if (i + 1 >= n || o[i + 1] < 2)
			return 0;	/* malformed: passed on as received */
		i += o[i + 1];
	}
	return 0;
}

/* Remember ip's destination for fast_run: its frame was just forwarded
 * out of port out to mac (unless that batch is mixed). */
static void dst_remember(struct l3_core *c, const struct ipv4_hdr *ip, int out, const uint8_t mac[ETH_ALEN])
{
	struct dst_slot *ds = &c->dst[dst_slot_of(ip->daddr)];
	uint8_t hdr[12];
	if (c->tx[out].mixed || l3_nics[out]->mtu < IPV4_HLEN)
		return;	/* fast_run writes no kinds; see l3_tx_typed */
	memcpy(hdr, mac, ETH_ALEN);
	memcpy(hdr + ETH_ALEN, l3_nics[out]->mac, ETH_ALEN);
	memcpy(&ds->mac_lo, hdr, 8);
	memcpy(&ds->mac_hi, hdr + 8, 4);
	ds->daddr = ip->daddr;
	ds->room = l3_nics[out]->mtu - IPV4_HLEN;
	ds->out = out;
	ds->b = &c->tx[out];
	ds->epoch = c->epoch;
}

/* fast_run's look at a frame's addresses sd (source and destination as
 * in the header): the destination's slot if it was remembered in this
 * epoch and the source is valid (the last one, one found valid in this
 * epoch (its src_slot), or not martian, not one of our addresses and not
 * a port subnet's broadcast), else NULL. */
static inline __attribute__((always_inline))
const struct dst_slot *fast_dst(struct l3_core *c, uint64_t sd, uint64_t epoch)
{
	uint32_t sa = (uint32_t)sd, da = (uint32_t)(sd >> 32);
	const struct dst_slot *ds = &c->dst[dst_slot_of(da)];
	uint64_t key = 1ull << 32 | sa;	/* no address can equal "none" */
	if (da != ds->daddr || ds->epoch != epoch)
		return 0;
	if (key != c->ok_saddr) {
		struct src_slot *ss = &c->src[src_slot_of(sa)];
		if (ss->key != key || ss->epoch != epoch) {
			uint32_t src = ntoh32(sa);
			if (ipv4_martian_src(src) || ifaddr4_bad_src(src))
				return 0;
			ss->key = key;
			ss->epoch = epoch;
		}
		c->ok_saddr = key;
	}
	return ds;
}

/* Forward pkts[i..n) while each frame would take the full path's way to
 * a forwarded frame for reasons fast_run can see at once: to our MAC,
 * IPv4 with a 20-byte header whose checksum is right (the NIC's word, or
 * summed here when the NIC did not check it, as virtio-net), no tag the
 * NIC took off (PKT_RX_VLAN: the full path finds its link), TTL > 1, a
 * total length within the frame and the out port's MTU, a valid source (the last one, or not 0/8, 127/8, 224/3, not one of
 * our addresses, not a port subnet's broadcast) and a destination remembered in this
 * epoch. A frame with the addresses of the one before it needs neither
 * looked at again. Returns the index of the first frame that does not
 * fit (the full path's). our: the receiving port's MAC in the low 48 bits. */
static inline __attribute__((always_inline))
int fast_run(struct l3_core *c, struct pkt **pkts, int i, int n, uint64_t our)
{
	const uint64_t epoch = c->epoch;
	const struct dst_slot *ds = 0;
	uint64_t last = 0;	/* the addresses ds and ok_saddr were checked for */
	for (; i < n; i++) {
		struct pkt *p = pkts[i];
		uint8_t *d = p->data;	/* a whole buffer: the bytes read exist */
		uint64_t w0, sd;
		uint32_t w3;
		uint16_t tl;
		memcpy(&w0, d, 8);			/* destination MAC, 2 bytes more */
		memcpy(&w3, d + 12, 4);			/* EtherType, version/IHL, TOS */
		memcpy(&tl, d + ETH_HLEN + 2, 2);	/* total length */
		memcpy(&sd, d + ETH_HLEN + 12, 8);	/* source, destination */
		if (sd != last || !ds) {
			if (!(ds = fast_dst(c, sd, epoch)))
				break;
			last = sd;
		}
		uint32_t tot = ntoh16(tl);
		if ((((w0 ^ our) << 16) | ((w3 & 0xffffff) ^ 0x450008)) ||
		    ((p->flags & (PKT_RX_IP_CSUM_OK | PKT_RX_VLAN)) != PKT_RX_IP_CSUM_OK &&	/* one test for e1000e, igb */
		     ((p->flags & (PKT_RX_IP_CSUM_BAD | PKT_RX_VLAN)) || !ipv4_hdr20_csum_ok(d + ETH_HLEN))) ||
		    d[ETH_HLEN + 8] <= 1 ||
		    tot - IPV4_HLEN > ds->room || tot + ETH_HLEN > p->len)
			break;
		struct txb *b = ds->b;
		p->len = (uint16_t)(tot + ETH_HLEN);
		memcpy(d, &ds->mac_lo, 8);
		memcpy(d + 8, &ds->mac_hi, 4);
		ipv4_ttl_dec((struct ipv4_hdr *)(d + ETH_HLEN));
		if (b->n == TXB_MAX)
			l3_tx_flush(ds->out);
		b->p[b->n++] = p;
	}
	return i;
}

static const enum fwd_drop check_drop[IPV4_CHECK_N] = {
	[IPV4_TOO_SHORT] = FWD_DROP_too_short, [IPV4_BAD_VERSION] = FWD_DROP_bad_version,
	[IPV4_BAD_IHL] = FWD_DROP_bad_ihl, [IPV4_BAD_TOTLEN] = FWD_DROP_bad_totlen,
	[IPV4_BAD_CSUM] = FWD_DROP_bad_csum, [IPV4_TTL_EXPIRED] = FWD_DROP_ttl_expired,
};

/* Step 1, the addresses: no packet from an invalid source (a port
 * subnet's broadcast among them), or from one of our own addresses (a
 * loop or a spoof), is forwarded or answered (RFC 1812 5.3.7, 4.3.2.7); one to an address of ours is delivered here; one to
 * no unicast host is dropped. *nh: the burst's next hop for the burst's
 * last destination, else LPM_NONE. */
static inline __attribute__((always_inline))
int ipv4_addrs(struct l3_core *core, struct nic *nic, struct pkt *p, struct ipv4_hdr *ip, uint16_t *nh)
{
	uint32_t dst = ntoh32(ip->daddr), src = ntoh32(ip->saddr);
	if (src != core->ok_src || !src) {
		if (ipv4_martian_src(src) || ifaddr4_bad_src(src))
			return FWD_DROP_martian_src;
		core->ok_src = src;
	}
	*nh = core->ok_nh;
	if (dst == core->ok_dst && dst)
		return L3_GO_ON;	/* the burst's last destination needs none of this */
	*nh = LPM_NONE;
	if (ifaddr4_local(dst)) {
		if (!icmp_echo(nic, p, ip)) {
			fwd_st(nic->port)->local++;
			pkt_free(p);
		}
		return L3_TAKEN;
	}
	if (dst >= 0xe0000000u || dst == 0)
		return FWD_DROP_not_unicast;
	if ((dst >> 24) == 0 || (dst >> 24) == 127)
		return FWD_DROP_martian_dst;	/* RFC 1812 5.3.7: never forwarded */
	if (ifaddr4_bcast(dst))
		return FWD_DROP_directed_broadcast;	/* RFC 2644: off by default */
	return L3_GO_ON;
}

/* Step 2, the route: source-routed and expired datagrams stop here, a new
 * destination is looked up (once a burst; no route: net unreachable), and
 * a datagram over the out port's MTU is dropped, a DF one answered with
 * fragmentation needed (no fragmentation here: RFC 1812 5.2.6, 4.3.2.5).
 * *nh: in, step 1's; out, the next hop. */
static inline __attribute__((always_inline))
int ipv4_route(struct l3_core *core, struct nic *nic, struct pkt *p, struct ipv4_hdr *ip,
	       enum ipv4_check c, uint16_t *nh, uint64_t now)
{
	if ((ip->ver_ihl & 15u) > 5 && ip_source_routed(ip))	/* options only */
		return FWD_DROP_source_route;	/* RFC 7126 4.3, 4.4 */
	if (c == IPV4_TTL_EXPIRED) {
		icmp_error(nic, p, ICMP_TIME_EXCEEDED, ICMP_EXC_TTL, now);
		return FWD_DROP_ttl_expired;
	}
	if (*nh == LPM_NONE) {
		uint32_t dst = ntoh32(ip->daddr);
		*nh = lpm_lookup(&l3_lpm, dst);
		if (*nh == LPM_NONE) {
			icmp_error(nic, p, ICMP_DEST_UNREACH, ICMP_NET_UNREACH, now);
			return FWD_DROP_no_route;
		}
		core->ok_dst = dst;
		core->ok_nh = *nh;
	}
	if (ntoh16(ip->tot_len) > l3_nics[l3_nh[*nh].port]->mtu) {
		if (ntoh16(ip->frag_off) & IPV4_DF)
			icmp_error(nic, p, ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED, now);
		return FWD_DROP_mtu_exceeded;
	}
	return L3_GO_ON;
}

/* Step 3, the next hop's MAC: forwarded at once when its ARP entry is
 * resolved (frames of a burst mostly share a next hop: the entry the last
 * one used, if it is still about hop, saves the search), else held for
 * ARP (arp_hold). */
static inline __attribute__((always_inline))
int ipv4_resolve(struct l3_core *core, struct pkt *p, struct ipv4_hdr *ip, uint16_t nh, uint64_t now)
{
	int out = l3_nh[nh].port;
	uint32_t hop = l3_nh[nh].gw ? l3_nh[nh].gw : ntoh32(ip->daddr);
	struct arp_entry *e = core->last;
	if (!e || e->state == ARP_FREE || e->ip != hop || e->port != out)
		e = core->last = arp_find(out, hop);
	if (e && (e->state == ARP_REACHABLE || e->state == ARP_PROBE_STATE)) {
		l3_forward(core, p, out, e->mac, 1);
		dst_remember(core, ip, out, e->mac);
		return L3_TAKEN;
	}
	return arp_hold(e, out, hop, p, now);
}

/* One IPv4 frame to our MAC on core (l3_me()): the router's full path.
 * Returns the drop reason, or L3_TAKEN when the frame went on (local,
 * queued or held). */
static int ipv4_input(struct l3_core *core, struct nic *nic, struct pkt *p, uint64_t now)
{
	struct ipv4_hdr *ip = (struct ipv4_hdr *)(p->data + ETH_HLEN);
	enum ipv4_hw_csum hw = p->flags & PKT_RX_IP_CSUM_OK ? IPV4_HW_GOOD :
			       p->flags & PKT_RX_IP_CSUM_BAD ? IPV4_HW_BAD : IPV4_HW_UNCHECKED;
	enum ipv4_check c = ipv4_check_hw(ip, p->len - ETH_HLEN, hw);
	uint16_t nh;
	int v;
	if (c != IPV4_OK && c != IPV4_TTL_EXPIRED)
		return check_drop[c];
	if ((v = ipv4_addrs(core, nic, p, ip, &nh)) != L3_GO_ON ||
	    (v = ipv4_route(core, nic, p, ip, c, &nh, now)) != L3_GO_ON)
		return v;
	return ipv4_resolve(core, p, ip, nh, now);
}

/* The calling core's state, made ready for a burst from nic's queue q. */
static inline __attribute__((always_inline))
struct l3_core *burst_start(struct nic *nic, int q)
{
	struct l3_core *core = l3_me();
	/* An opaque pointer from here on: without this the compiler rebuilds
	 * &l3_cores[id] from the core id at every use (two multiplies). */
	__asm__("" : "+r"(core));
	if (!fwd_l3_tx_per_core)
		core->q = q;
	core->in = nic->port;
	core->ok_src = core->ok_dst = 0;	/* the tables may have changed since the last burst */
	core->ok_saddr = 0;
	uint32_t gen = __atomic_load_n(&ifaddr_gen, __ATOMIC_ACQUIRE);
	if (gen != core->gen) {	/* before any table is read */
		core->gen = gen;
		core->epoch++;
	}
	return core;
}

/* A tagged frame on a routed port (its first EtherType a TPID): a
 * priority tag, one C-tag with the null VLAN ID 0, comes off (IEEE
 * 802.1Q-2018 9.6: it carries priority only, and the frame is classified
 * as an untagged one, 6.9) and the EtherType under it is returned; a
 * frame of a VLAN without a sub-interface (ipN.VID=): 0 (vlan_unknown). */
static uint16_t vlan_untag(struct pkt *p)
{
	uint8_t *d = p->data;
	if (p->len < ETH_HLEN + VLAN_HLEN || get16(d + 12) != ETHERTYPE_VLAN || (get16(d + ETH_HLEN) & 0xfff) ||
	    vlan_is_tpid((uint16_t)get16(d + ETH_HLEN + 2)))
		return 0;
	vlan_move_macs(d + VLAN_HLEN, d);
	p->data = d + VLAN_HLEN;
	p->len = (uint16_t)(p->len - VLAN_HLEN);
	return (uint16_t)get16(p->data + 12);
}

/* A frame fast_run left: a sub-interface's tag taken off (its link's
 * NIC from then on, vlan.c), a priority tag taken off, another VLAN's frame
 * dropped, ARP to neigh.c, IPv4 to our MAC to ipv4_input, IPv6 to
 * ipv6_input (l3v6.c) on a port with an IPv6 address, the rest dropped.
 * A tag the NIC took off (PKT_RX_VLAN, vlan_strip=1) is read from the
 * packet, never from the frame; a tag under it is the frame's, as below. */
static inline __attribute__((always_inline))
void frame_input(struct l3_core *core, struct nic *nic, struct pkt *p, uint64_t now)
{
	int why;
	uint16_t type = p->len >= ETH_HLEN ? (uint16_t)get16(p->data + 12) : 0;
	int link = -1;
	if (p->flags & PKT_RX_VLAN) {
		if ((link = l3_vlan_rx_tag(nic->port, p)) < 0) {
			fwd_drop(nic->port, FWD_DROP_vlan_unknown, 1);
			pkt_free(p);
			return;
		}
	} else if (vlan_is_tpid(type) && fwd_l3_nvlans) {
		link = l3_vlan_untag(nic->port, p);
	}
	if (link >= 0 || vlan_is_tpid(type)) {
		if (link >= 0 && link != nic->port) {	/* a sub-interface's frame: as if it came in on its link */
			if (!core->mix)
				l3_tx_mix_all(core);
			nic = l3_nics[link];
			type = (uint16_t)get16(p->data + 12);
		}
		if (vlan_is_tpid(type) && !(type = vlan_untag(p))) {
			fwd_drop(nic->port, FWD_DROP_vlan_unknown, 1);
			pkt_free(p);
			return;
		}
	}
	if (__builtin_expect(fwd_ptp_tc == FWD_TC_P2P, 0) && fwd_tc_maybe(p) &&
	    fwd_tc_route_local(nic->port, l3_link_port(nic->port), p, core->rx_tsc)) {
		fwd_st(nic->port)->local++;	/* a Pdelay message: the link's own (tc.c) */
		return;
	}
	int v4 = ifaddrs[nic->port].v4.addr != 0;
	const struct eth_hdr *eth = (const struct eth_hdr *)p->data;
	if (type == ETHERTYPE_ARP && v4) {
		arp_input(nic, p);
		return;
	}
	if (type == ETHERTYPE_IPV6 && fwd_l3_v6[nic->port])
		why = ipv6_input(nic, p, now);
	else if (type == ETHERTYPE_ARP)
		why = FWD_DROP_arp_not_ours;	/* a port with IPv6 addresses only */
	else if (type != ETHERTYPE_IPV4 || !v4)
		why = FWD_DROP_not_ipv4;
	else if (memcmp(eth->dst, nic->mac, ETH_ALEN))
		why = FWD_DROP_not_our_mac;
	else
		why = ipv4_input(core, nic, p, now);
	if (why >= 0) {
		fwd_drop(nic->port, (enum fwd_drop)why, 1);
		pkt_free(p);
	}
}

void fwd_l3_rx(struct nic *nic, int q, struct pkt **pkts, int n)
{
	if (!fwd_l3_any) {	/* no memory for the router (fwd_l3_init) */
		fwd_drop(nic->port, FWD_DROP_no_route, (uint64_t)n);
		pkt_free_bulk(pkts, n);
		return;
	}
	if (fwd_l3_nvlans)	/* one sub-interface's burst: routed as its link's */
		nic = l3_vlan_burst(nic, pkts, n);
	uint64_t now = rdtsc();
	struct l3_core *core = burst_start(nic, q);
	core->rx_tsc = now;
	uint64_t our = 0;
	memcpy(&our, nic->mac, ETH_ALEN);
	int v6 = fwd_l3_v6[nic->port];
	for (int i = 0; i < n;) {
		if ((i = fast_run(core, pkts, i, n, our)) == n || (v6 && (i = l3v6_fast_run(core, pkts, i, n, our)) == n))
			break;
		frame_input(core, nic, pkts[i++], now);
	}
	l3_tx_flush_all();
}
