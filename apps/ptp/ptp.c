/*
 * ptp app hooks: start an ordinary clock on each port app=ptp runs on,
 * receive (every frame ends in one counter: a message used, or a named
 * drop), send with timestamps, timers from idle(), the report line after
 * each statistics report, and the `ptp` shell command.
 */
#include <stdio.h>
#include <string.h>
#include "apps/app.h"
#include "apps/ptp/ptp.h"
#include "kernel/cpu.h"
#include "kernel/shell.h"
#include "kernel/time.h"
#include "net/ifaddr.h"
#include "net/ipv4.h"

struct ptp_port ptp_ports[NIC_MAX_PORTS];
extern const struct app app_ptp;

static const char *const rx_names[PC_N] = {
#define PTP_NAME(n) #n,
	PTP_RX_USED(PTP_NAME) PTP_RX_DROPS(PTP_NAME)
};
static const char *const ev_names[PE_N] = { PTP_EVENTS(PTP_NAME) };

static const char *const transport_names[] = { "L2", "UDPv4", "UDPv6" };

/* UDPv6's source address (Annex E): the port's first IPv6 address given
 * with ipN=, else its link-local one (fe80::/64 from the MAC, RFC 4862
 * 5.3), as Linux picks for ptp4l's ff0e::181 (RFC 6724 rule 2). */
static void source6(struct ptp_port *pp, int port)
{
	if (!ifaddrs[port].ll6[0])
		ifaddr6_link_local(port, nics[port]->mac);
	memcpy(pp->ip6, ifaddrs[port].n6 ? ifaddrs[port].v6[0].addr : ifaddrs[port].ll6, 16);
}

/* A clock on every port app=ptp runs on: an ordinary clock on one port, a
 * boundary clock over two or more (clock.c). */
static int ptp_init(void)
{
	int n = 0, nports = 0;
	for (int p = 0; p < nic_count; p++)
		nports += app_runs_on(&app_ptp, p);
	for (int p = 0; p < nic_count; p++) {
		if (!app_runs_on(&app_ptp, p))
			continue;
		struct nic *nic = nics[p];
		if (ptp_conf.transport_specific == PTP_TS_8021AS &&
		    (ptp_conf.transport != PTP_L2 || ptp_conf.delay_mechanism != DM_P2P)) {
			printf("ptp: transportSpecific=1 (802.1AS) needs network_transport=L2 delay_mechanism=P2P\n");
			return -1;
		}
		if (ptp_conf.transport == PTP_UDP4 && !ifaddrs[p].v4.addr) {
			printf("ptp: %s: network_transport=UDPv4 needs the port's address: ip%d=A.B.C.D/LEN\n",
			       nic->name, p);
			return -1;
		}
		struct ptp_port *pp = &ptp_ports[p];
		nic_mc_add(nic, ptp_mcast_mac((enum ptp_transport)ptp_conf.transport, 0));
		if (ptp_conf.delay_mechanism == DM_P2P)
			nic_mc_add(nic, ptp_mcast_mac((enum ptp_transport)ptp_conf.transport, 1));
		ptp_port_init(pp, nic);
		ptp_clock_add(pp);
		pp->ip = ifaddrs[p].v4.addr;
		if (ptp_conf.transport == PTP_UDP6)
			source6(pp, p);
		char id[32];
		ptp_fmt_id(id, sizeof(id), pp->id.clock_id, pp->id.port);
		printf("ptp: %s: %s clock %s, role %s, %s, %s, domain %ld, %s timestamps\n", nic->name,
		       nports > 1 ? "boundary" : "ordinary", id,
		       ptp_conf.role == ROLE_AUTO ? "auto" : ptp_conf.role == ROLE_MASTER ? "master" : "slave",
		       transport_names[ptp_conf.transport], ptp_conf.delay_mechanism == DM_P2P ? "P2P" : "E2E",
		       ptp_conf.domain,
		       pp->hw ? "hardware" : "software");
		ptp_port_to_state(pp, PS_LISTENING, "INIT_COMPLETE");
		n++;
	}
	return n ? 0 : -1;
}

/* The message's timestamp: the hardware's, or the clock at the burst. */
static int64_t rx_stamp(struct ptp_port *pp, const struct pkt *p, const struct ptp_msg *m)
{
	if (!ptp_is_event(m->msg_type))
		return 0;
	if (pp->hw && (p->flags & PKT_RX_TSTAMP)) {
		pp->ev[PE_rx_hwtstamp]++;
		pp->sw_syncs = 0;
		return (int64_t)p->tstamp;
	}
	pp->ev[PE_rx_swtstamp]++;
	if (pp->hw && m->msg_type == PTP_SYNC && pp->state != PS_MASTER && ++pp->sw_syncs == SW_SYNCS_FOR_SWTS &&
	    !pp->servo_sw) {
		/* QEMU's igb never stamps UDP (docs/qemu-nics.md C.3): software RX
		 * stamps want ptp4l's software servo constants. Not counted while
		 * master: the NIC then stamps Delay_Req (set_hwtstamp), and the
		 * Syncs of another master heard meanwhile say nothing of it. */
		pp->servo_sw = 1;
		pp->servo.kp_scale = PI_SWTS_KP_SCALE;
		pp->servo.ki_scale = PI_SWTS_KI_SCALE;
		printf("ptp: %s: Sync messages arrive without hardware timestamps; software servo constants\n",
		       pp->nic->name);
	}
	return phc_sw_stamp(pp->clk, pp->burst_tsc);
}

/* A port with an IPv4 address (UDPv4) is a host: an ARP request for its
 * address gets a reply (RFC 1122 2.3.2.1) and an ICMP echo request to it
 * an echo reply (3.2.2.6), from a fresh buffer. Returns the counter p ends
 * in: PC_arp_request, PC_echo_request, or PC_not_ptp (anything else). */
static enum ptp_rx_count host_answer(struct ptp_port *pp, const struct pkt *p)
{
	const struct eth_hdr *eth = (const struct eth_hdr *)p->data;
	struct arp_info a;
	if (ptp_conf.transport != PTP_UDP4 || p->len < ETH_HLEN + IPV4_HLEN)
		return PC_not_ptp;
	int arp = eth->type == hton16(ETHERTYPE_ARP);
	if (arp && (arp_parse(p->data, p->len, &a) != ARP_OK || a.op != ARP_REQUEST || a.tpa != pp->ip))
		return PC_not_ptp;
	if (!arp) {
		const struct ipv4_hdr *in = (const struct ipv4_hdr *)(p->data + ETH_HLEN);
		enum ipv4_check c = eth->type == hton16(ETHERTYPE_IPV4) ? ipv4_check(in, p->len - ETH_HLEN) : IPV4_BAD_VERSION;
		if ((c != IPV4_OK && c != IPV4_TTL_EXPIRED) || ntoh32(in->daddr) != pp->ip || in->proto != IP_PROTO_ICMP)
			return PC_not_ptp;
	}
	struct pkt *r = pkt_alloc(pp->nic->pool);
	if (!r) {
		pp->ev[PE_tx_failed]++;
		return arp ? PC_arp_request : PC_not_ptp;
	}
	if (arp) {
		r->len = (uint16_t)arp_build(r->data, r->pool->buf_size, ARP_REPLY, pp->nic->mac, pp->ip, a.sha, a.spa);
	} else {
		memcpy(r->data, p->data, p->len);
		r->len = p->len;
		if (!icmp_echo_reply(r->data, (struct ipv4_hdr *)(r->data + ETH_HLEN), pp->nic->mac)) {
			pkt_free(r);
			return PC_not_ptp;
		}
	}
	if (pp->nic->ops->tx_burst(pp->nic, 0, &r, 1) != 1) {
		pkt_free(r);
		pp->ev[PE_tx_failed]++;
	}
	return arp ? PC_arp_request : PC_echo_request;
}

static void rx_one(struct ptp_port *pp, struct pkt *p)
{
	struct ptp_frame f;
	struct ptp_msg m;
	pp->rx++;
	enum ptp_frame_kind k = ptp_frame_parse(p->data, p->len, (enum ptp_transport)ptp_conf.transport, &f);
	if (k != PTP_FRAME_OK) {
		pp->rx_count[k == PTP_FRAME_BAD_IP ? PC_bad_ip : host_answer(pp, p)]++;
		return;
	}
	enum ptp_err e = ptp_parse(f.msg, f.len, &m);
	if (e != PTP_OK) {
		pp->rx_count[PC_bad_ip + e]++;	/* the parser reasons follow bad_ip in order */
		return;
	}
	pp->ev[PE_unknown_tlv] += m.unknown_tlvs;
	if (m.domain != ptp_conf.domain) {
		pp->rx_count[PC_wrong_domain]++;
		return;
	}
	if (m.transport_specific != ptp_conf.transport_specific) {
		pp->rx_count[PC_wrong_transport_specific]++;
		return;
	}
	if (!memcmp(m.source.clock_id, pp->id.clock_id, 8) && m.msg_type == PTP_ANNOUNCE && m.source.port != pp->id.port) {
		ptp_clock_own_announce(pp, &m, now_ns());
		return;
	}
	if (!memcmp(m.source.clock_id, pp->id.clock_id, 8)) {
		pp->rx_count[PC_from_self]++;
		return;
	}
	if (m.msg_type == PTP_MANAGEMENT) {
		pp->rx_count[ptp_mgmt_rx(pp, &m)]++;
		return;
	}
	ptp_port_rx(pp, &m, rx_stamp(pp, p, &m));
}

static void ptp_rx(struct nic *nic, int q, struct pkt **pkts, int n)
{
	(void)q;
	struct ptp_port *pp = &ptp_ports[nic->port];
	pp->burst_tsc = rdtsc();
	for (int i = 0; i < n; i++)
		rx_one(pp, pkts[i]);
	pkt_free_bulk(pkts, n);
}

/* 1 while a hardware TX stamp is asked for and not yet taken: the NIC
 * holds one, and a new request would release the one waited for. */
static int tx_stamp_busy(const struct ptp_port *pp)
{
	return pp->fup_pending || (pp->dreq_state == 1 && !pp->have_t3 && pp->dreq_txseq) ||
	       (pp->pd.state && !pp->pd.have_t1 && pp->pd.txseq) || (pp->presp_pending && pp->presp_txseq);
}

int ptp_send(struct ptp_port *pp, struct ptp_msg *m, uint32_t *txseq, int64_t *sw_ts)
{
	struct nic *nic = pp->nic;
	struct pkt *p = pkt_alloc(nic->pool);
	if (!p) {
		pp->ev[PE_tx_failed]++;
		return -1;
	}
	enum ptp_transport t = (enum ptp_transport)ptp_conf.transport;
	size_t hl = ptp_frame_hlen(t);
	m->transport_specific = (uint8_t)ptp_conf.transport_specific;
	size_t ml = ptp_build(p->data + hl, PKT_BUF_SIZE - hl, m);
	if (ptp_conf.transport_specific == PTP_TS_8021AS && m->msg_type == PTP_FOLLOW_UP)
		ptp_put_follow_up_info(p->data + hl, PKT_BUF_SIZE - hl, &ml, ptp_clock_rate_offset(pp));
	uint8_t ip4[4];
	put32(ip4, pp->ip);
	p->len = (uint16_t)ptp_frame_build(p->data, t, nic->mac, t == PTP_UDP6 ? pp->ip6 : ip4, m->msg_type, ml);
	if (ptp_conf.transport_specific == PTP_TS_8021AS)	/* every gPTP message (802.1AS 11.3.4) */
		memcpy(p->data, ptp_l2_pdelay_mcast, 6);
	int event = ptp_is_event(m->msg_type) && txseq;
	if (event && pp->hw && !tx_stamp_busy(pp))	/* else a software stamp */
		p->flags |= PKT_TX_TSTAMP;
	uint32_t before = phc_tx_seq(pp->clk);
	int64_t sw = event ? phc_sw_stamp(pp->clk, rdtsc()) : 0;
	if (nic->ops->tx_burst(nic, 0, &p, 1) != 1) {
		pkt_free(p);
		pp->ev[PE_tx_failed]++;
		return -1;
	}
	if (!event)
		return 0;
	*txseq = pp->hw && phc_tx_seq(pp->clk) != before ? phc_tx_seq(pp->clk) : 0;
	if (!*txseq) {
		pp->ev[PE_tx_swtstamp]++;
		*sw_ts = sw;
	}
	return 0;
}

static int ptp_idle(void)
{
	int did = 0;
	uint64_t now = now_ns();
	for (int p = 0; p < nic_count; p++)
		if (ptp_ports[p].nic)
			did += ptp_port_tick(&ptp_ports[p], now);
	return did;
}

static void ptp_report(int json)
{
	for (int p = 0; p < nic_count; p++) {
		struct ptp_port *pp = &ptp_ports[p];
		if (!pp->nic)
			continue;
		if (json)
			printf("{\"stats\":\"ptp\",\"port\":\"%s\",\"state\":\"%s\",\"servo\":%d,\"offset_ns\":%ld,"
			       "\"freq_ppb\":%ld,\"path_delay_ns\":%ld,\"rx\":%lu}\n", pp->nic->name,
			       ptp_state_names[pp->state], pp->sstate, pp->last_offset, (int64_t)pp->last_freq,
			       pp->path_delay, pp->rx);
		else
			printf("ptp %s: %s s%d offset %ld ns freq %+ld ppb path delay %ld ns\n", pp->nic->name,
			       ptp_state_names[pp->state], pp->sstate, pp->last_offset, (int64_t)pp->last_freq,
			       pp->path_delay);
	}
}

APP(ptp, .name = "ptp", .help = "IEEE 1588 ordinary clock, boundary clock on several ports (E2E or P2P, two-step, L2, UDPv4 or UDPv6, pmc management)", .init = ptp_init,
    .rx = ptp_rx, .idle = ptp_idle, .report = ptp_report, .metrics = ptp_metrics, .uses = APP_USES_IP,
    .boot_only = "its ports make one clock, ordinary or boundary, numbered with their PHCs when it starts");

static void show_port(struct ptp_port *pp)
{
	char id[32], par[32] = "none";
	ptp_fmt_id(id, sizeof(id), pp->id.clock_id, pp->id.port);
	if (pp->parent >= 0)
		ptp_fmt_id(par, sizeof(par), pp->foreign[pp->parent].id.clock_id, pp->foreign[pp->parent].id.port);
	printf("ptp %s: state %s clock %s parent %s timestamps %s servo s%d offset %ld freq %+ld path_delay %ld\n",
	       pp->nic->name, ptp_state_names[pp->state], id, par, pp->hw ? "hardware" : "software", pp->sstate,
	       pp->last_offset, (int64_t)pp->last_freq, pp->path_delay);
	if (ptp_conf.delay_mechanism == DM_P2P)
		printf("ptp %s: peer %s neighbor_delay %ld asCapable %d\n", pp->nic->name,
		       pp->have_peer_delay ? "measured" : "none", pp->peer_delay, ptp_as_capable(pp));
	printf("ptp %s: rx %lu", pp->nic->name, pp->rx);
	for (int i = 0; i < PC_N; i++)
		printf(" %s %lu", rx_names[i], pp->rx_count[i]);
	printf("\nptp %s:", pp->nic->name);
	for (int i = 0; i < PE_N; i++)
		printf(" %s %lu", ev_names[i], pp->ev[i]);
	printf("\n");
}

/* The boundary clock's line: its identity, ports, the slave port, parent
 * and grandmaster, stepsRemoved. */
static void show_clock(void)
{
	char id[32], par[32] = "none", gm[32];
	const struct ptp_port *s = ptp_clock_slave();
	const struct foreign *f = ptp_clock_parent();
	ptp_fmt_id(id, sizeof(id), ptp_clock.port[0]->id.clock_id, -1);
	ptp_fmt_id(gm, sizeof(gm), f ? f->ds.gm_id : ptp_clock.port[0]->id.clock_id, -1);
	if (f)
		ptp_fmt_id(par, sizeof(par), f->id.clock_id, f->id.port);
	printf("ptp: boundary clock %s ports %d slave %s parent %s grandmaster %s stepsRemoved %d\n", id,
	       ptp_clock.nports, s ? s->nic->name : "none", par, gm, f ? f->ds.steps_removed + 1 : 0);
}

static int cmd_ptp(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		printf("usage: ptp\n");
		return -1;
	}
	int n = 0;
	if (ptp_clock.nports > 1)
		show_clock();
	for (int p = 0; p < nic_count; p++)
		if (ptp_ports[p].nic) {
			show_port(&ptp_ports[p]);
			n++;
		}
	if (!n)
		printf("ptp: the app runs on no port (app=ptp)\n");
	return 0;
}
SHELL_CMD(ptp, "ptp", "ptp", "each PTP port: state, parent, servo, frames by use and drop reason, events", cmd_ptp);
