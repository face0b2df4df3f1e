/*
 * fwd L3's VLAN sub-interfaces (ipN.VID=, net/ifaddr.h): frames tagged
 * VID on port N are the link's (IEEE 802.1Q-2018 9.6 C-tag, TPID 0x8100),
 * and with ipN.S.C= (QinQ) frames with an S-tag of VID S (TPID 0x88a8,
 * 802.1Q-2018 9.5) right outside a C-tag of VID C are another's; each is
 * routed as if it came in on a port of its own, with the link's
 * addresses, ARP table, neighbor cache and counters; frames out to the
 * link get the tag back in software (not the NIC's VLE/VET: one tx_burst
 * path for every part). A link is a struct nic of its own in l3_nics,
 * named "port0.100", whose tx_burst tags and hands the frames to the
 * port's: the router's code takes links as it takes ports.
 * With vlan_strip=1 on e1000e, igb and ixgbe each sub-interface's VID goes into
 * the port's VLAN filter (nic_ops.vlan_rx_add_vid): the NIC strips the tag
 * into the descriptor and drops the VLANs of no sub-interface itself, so
 * those are never counted vlan_unknown (no counter of the host's sees
 * them; QEMU counts them nowhere either). Elsewhere tags are parsed here,
 * and so are QinQ links' always: the NIC takes a tag for a VLAN one when
 * its TPID is VET's (0x8100), so an S-tagged frame passes its filter
 * untouched (82576 7.4; QEMU's e1000x_is_vlan_packet).
 * A burst whose frames are all one sub-interface's is untagged here as a
 * whole and routed as a burst of that link (l3_vlan_burst), so the fast
 * paths take it; a burst of several VLANs goes frame by frame.
 */
#include <stdio.h>
#include <string.h>
#include "apps/fwd/counters.h"
#include "apps/fwd/l3.h"
#include "kernel/mem.h"
#include "net/bytes.h"
#include "net/ifaddr.h"
#include "net/vlan.h"

/* A sub-interface: its NIC as the router sees it, the port's, its tag. */
struct vlan_link {
	struct nic nic;		/* first: tx_burst gets &nic */
	struct nic *port;
	uint16_t tci;		/* PCP 0, DEI 0, VID */
	uint16_t stci;		/* the S-tag's (QinQ), PCP 0, DEI 0, S-VID; 0: none */
};

/* Tag each frame (every buffer has PKT_HEADROOM in front of data, and a
 * received frame lost its tags there), the S-tag outside the C-tag for a
 * QinQ link, and send them out of the port. */
static int vlan_tx_burst(struct nic *nic, int q, struct pkt **pkts, int n)
{
	struct vlan_link *v = (struct vlan_link *)nic;
	for (int i = 0; i < n; i++) {
		pkts[i]->data = vlan_insert(pkts[i]->data, v->tci);
		pkts[i]->len = (uint16_t)(pkts[i]->len + VLAN_HLEN);
		if (v->stci) {
			pkts[i]->data = vlan_insert_tpid(pkts[i]->data, ETHERTYPE_QINQ, v->stci);
			pkts[i]->len = (uint16_t)(pkts[i]->len + VLAN_HLEN);
		}
	}
	return v->port->ops->tx_burst(v->port, q, pkts, n);
}

/* Only tx_burst: the router calls nothing else on a link. */
static const struct nic_ops vlan_ops = { .tx_burst = vlan_tx_burst };

struct nic *l3_link_port(int link)
{
	return link < NIC_MAX_PORTS ? nics[link] : ((struct vlan_link *)l3_nics[link])->port;
}

int l3_vlan_init(void)
{
	for (int i = 0; i < fwd_l3_nvlans; i++) {
		int link = NIC_MAX_PORTS + i;
		if (!fwd_l3_port[link])
			continue;	/* refused (l3_ports) */
		struct nic *port = nics[ifaddr_vlans[i].port];
		struct vlan_link *v = dma_alloc(sizeof(*v), 64);
		if (!v) {
			char name[16];
			printf("fwd: no memory for VLAN sub-interface %s (%lu bytes)\n",
			       ifaddr_link_name(name, sizeof(name), "port", link), (unsigned long)sizeof(*v));
			return -1;
		}
		memset(v, 0, sizeof(*v));
		v->port = port;
		v->tci = vlan_tci(ifaddr_vlans[i].vid, 0, 0);
		v->stci = ifaddr_vlans[i].svid ? vlan_tci(ifaddr_vlans[i].svid, 0, 0) : 0;
		ifaddr_link_name(v->nic.name, sizeof(v->nic.name), "port", link);
		v->nic.port = link;
		v->nic.driver = "vlan";
		v->nic.ops = &vlan_ops;
		memcpy(v->nic.mac, port->mac, ETH_ALEN);
		v->nic.nqueues = port->nqueues;
		v->nic.mtu = port->mtu;
		v->nic.pool = port->pool;
		v->nic.small_pool = port->small_pool;
		v->nic.link_up = port->link_up;
		l3_nics[link] = &v->nic;
		if (!v->stci && port->ops->vlan_rx_add_vid && port->ops->vlan_rx_add_vid(port, ifaddr_vlans[i].vid) == 0)
			printf("fwd: %s: VLAN tag stripping%s by the NIC (vlan_strip=1)\n", v->nic.name,
			       port->cfg.vlan_filter ? " and filtering" : "");
	}
	return 0;
}

int l3_vlan_untag(int port, struct pkt *p)
{
	uint8_t *d = p->data;
	int link, tags = 1;
	if (p->len < ETH_HLEN + VLAN_HLEN)
		return -1;
	if (get16(d + 12) == ETHERTYPE_VLAN) {
		link = ifaddr_vlan_link(port, get16(d + ETH_HLEN) & 0xfffu);
	} else if (get16(d + 12) == ETHERTYPE_QINQ && p->len >= ETH_HLEN + 2 * VLAN_HLEN &&
		   get16(d + ETH_HLEN + 2) == ETHERTYPE_VLAN) {
		link = ifaddr_tags_link(port, get16(d + ETH_HLEN) & 0xfffu, get16(d + ETH_HLEN + VLAN_HLEN) & 0xfffu);
		tags = 2;
	} else {
		return -1;
	}
	if (link < 0 || !l3_nics[link])
		return -1;
	vlan_move_macs(d + tags * VLAN_HLEN, d);
	p->data = d + tags * VLAN_HLEN;
	p->len = (uint16_t)(p->len - tags * VLAN_HLEN);
	p->port = (uint16_t)link;
	fwd_st(port)->rx--;	/* the link's frame from here on */
	fwd_st(link)->rx++;
	return link;
}

int l3_vlan_rx_tag(int port, struct pkt *p)
{
	unsigned vid = p->vlan_tci & 0xfffu;
	if (!vid)
		return port;	/* priority tag: the port's frame */
	int link = ifaddr_vlan_link(port, vid);
	if (link < 0 || !l3_nics[link])
		return -1;
	p->port = (uint16_t)link;
	fwd_st(port)->rx--;	/* the link's frame from here on */
	fwd_st(link)->rx++;
	return link;
}

/* The VID of p's C-tag, stripped by the NIC or in the frame (TPID 0x8100,
 * room for the tag), or -1 untagged. */
static inline int vlan_vid(const struct pkt *p)
{
	if (p->flags & PKT_RX_VLAN)
		return p->vlan_tci & 0xfff;
	if (p->len < ETH_HLEN + VLAN_HLEN || get16(p->data + 12) != ETHERTYPE_VLAN)
		return -1;
	return (int)(get16(p->data + ETH_HLEN) & 0xfffu);
}

struct nic *l3_vlan_burst(struct nic *nic, struct pkt **pkts, int n)
{
	int vid = n ? vlan_vid(pkts[0]) : -1;
	if (vid <= 0)
		return nic;
	int port = nic->port, link = ifaddr_vlan_link(port, (unsigned)vid);
	if (link < 0 || !l3_nics[link])
		return nic;
	for (int i = 1; i < n; i++)
		if (vlan_vid(pkts[i]) != vid)
			return nic;
	for (int i = 0; i < n; i++) {
		struct pkt *p = pkts[i];
		if (p->flags & PKT_RX_VLAN) {
			p->flags &= (uint16_t)~PKT_RX_VLAN;
		} else {
			vlan_move_macs(p->data + VLAN_HLEN, p->data);
			p->data += VLAN_HLEN;
			p->len = (uint16_t)(p->len - VLAN_HLEN);
		}
		p->port = (uint16_t)link;
	}
	fwd_st(port)->rx -= (uint64_t)n;	/* the link's frames from here on */
	fwd_st(link)->rx += (uint64_t)n;
	return l3_nics[link];
}
