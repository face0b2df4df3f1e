/*
 * pktgen's sender: frames built from a per-step header template, the
 * address/port walk, clone_skb, the TSC token bucket and latency probes.
 * Runs from the poll loop's idle hook of each core that has a lane of a
 * started port (pktgen.h), on that core's TX queues of the queue_map walk.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "apps/app.h"
#include "apps/pktgen/pktgen.h"
#include "drivers/net/phc.h"
#include "kernel/cpu.h"
#include "kernel/mem.h"
#include "kernel/time.h"
#include "net/addr.h"
#include "net/bytes.h"
#include "net/ipv4.h"
#include "net/ipv6.h"

struct pg_tx *pg_tx;
int pg_quiet;
/* Lanes of other cores than pktgen's, made at their first start and kept
 * (their counters count in the port's); lanes[p][c]: core c's lane of the
 * run of port p, or NULL (pg_tx[p] for pktgen's core). */
static struct pg_tx *xtra[NIC_MAX_PORTS][MAX_CPUS];
static struct pg_tx *lanes[NIC_MAX_PORTS][MAX_CPUS];
static volatile int home = -1;	/* pktgen's core (app_core), -1: not looked up yet */
enum { PG_LREQ_STOP = 1, PG_LREQ_RATE = 2, PG_LREQ_CLEAR = 4 };

/* A lane's TX pools on port p; 0, or -1 after saying so. */
static int pools_make(struct pg_tx *t, int p)
{
	/* the ring's worth, what waits in pend, a probe, slack */
	uint32_t n = (uint32_t)nics[p]->txd + PG_BURST_MAX + 8;
	t->pool = pktpool_create("pktgen", n, PKT_SLOT);
	/* 16, and the sent ones a TX queue keeps until it frees a run */
	t->probe_pool = pktpool_create("pktgen probes", 16 + NIC_TX_FREE_THRESH, PKT_SLOT);
	if (!t->pool || !t->probe_pool) {
		printf("pktgen: %s: no memory for %u TX buffers\n", nics[p]->name, n);
		pktpool_destroy(t->pool);
		pktpool_destroy(t->probe_pool);
		t->pool = t->probe_pool = 0;
		return -1;
	}
	return 0;
}

int pg_tx_port_init(int p)
{
	if (pg_tx[p].pool)
		return 0;	/* given back to pktgen at run time: its pools stayed */
	if (pools_make(&pg_tx[p], p))
		return -1;
	struct phc *c = phc_of(nics[p]);
	pg_tx[p].hw = phc_is_hw(c);
	if (pg_tx[p].hw)
		phc_hwtstamp(c, 0, 1, 1);	/* Sync, TX requests, UDP too */
	return 0;
}

int pg_tx_init(void)
{
	for (int p = 0; p < nic_count; p++)
		if (app_runs_on(&app_pktgen, p) && pg_tx_port_init(p))
			return -1;
	return 0;
}

/* The headers of this step's frames, addresses and checksums left zero:
 * Ethernet, pg_ntags() tags (S-tag first, TPID 0x8100 for both as Linux
 * pktgen's), IPv4 or IPv6, UDP; and the IPv4 checksum sum of the words
 * that stay. */
static void make_template(struct pg_tx *t)
{
	uint8_t *h = t->hdr;
	uint32_t off = 12;
	memset(h, 0, PG_TMPL_LEN);
	memcpy(h, t->dst_mac, 6);
	memcpy(h + 6, t->src_mac, 6);
	if (pg_ntags() == 2) {
		put16(h + off, ETHERTYPE_VLAN);
		put16(h + off + 2, vlan_tci(pg.svlan_id, (unsigned)pg.svlan_cfi, (unsigned)pg.svlan_p));
		off += VLAN_HLEN;
	}
	if (pg_ntags()) {
		put16(h + off, ETHERTYPE_VLAN);
		put16(h + off + 2, vlan_tci(pg.vlan_id, (unsigned)pg.vlan_cfi, (unsigned)pg.vlan_p));
		off += VLAN_HLEN;
	}
	t->l3 = (uint16_t)(off + 2);
	t->hlen = (uint16_t)pg_hdr_len();
	uint8_t *ip = h + t->l3, *udp = h + t->hlen - 8;
	uint32_t ip_len = t->size - t->l3, udp_len = t->size - (uint32_t)(udp - h);
	put16(udp + 4, udp_len);
	/* UDP checksum: the pseudo-header's length and protocol, UDP's length, our magic */
	t->udp_sum = pg.flags & (PG_F_IPV6 | PG_F_UDPCSUM) ? 2 * udp_len + 17 + PG_MAGIC : 0;
	if (pg.flags & PG_F_IPV6) {
		put16(h + off, ETHERTYPE_IPV6);
		ip[0] = 0x60;
		put16(ip + 4, udp_len);	/* payload length */
		ip[6] = 17;		/* next header: UDP */
		ip[7] = 64;		/* hop limit */
		memcpy(ip + 8, t->back ? pg.dst6_min : pg.src6_min, 16);	/* the upper 64 bits stay */
		memcpy(ip + 24, t->back ? pg.src6_min : pg.dst6_min, 16);
		t->udp_sum += (uint64_t)get32(ip + 8) + get32(ip + 12) + get32(ip + 24) + get32(ip + 28);
		return;
	}
	put16(h + off, ETHERTYPE_IPV4);
	ip[0] = 0x45;
	put16(ip + 2, ip_len);
	put16(ip + 6, 0x4000);	/* DF */
	ip[8] = 64;
	ip[9] = 17;		/* UDP */
	t->ip_sum = 0x4500 + ip_len + 0x4000 + 0x4011;
}

/* 0..span, uniform enough for test traffic (xorshift64, Marsaglia 2003). */
static uint64_t rnd(struct pg_tx *t, uint64_t span)
{
	t->rnd ^= t->rnd << 13;
	t->rnd ^= t->rnd >> 7;
	t->rnd ^= t->rnd << 17;
	return span == UINT64_MAX ? t->rnd : (uint64_t)(((unsigned __int128)t->rnd * (span + 1)) >> 64);
}

static uint64_t next_off(uint64_t off, uint64_t span)
{
	return off >= span ? 0 : off + 1;
}

static uint64_t mac_span(int64_t count)
{
	return count > 1 ? (uint64_t)count - 1 : 0;
}

/* The fields with a *_RND flag drawn anew in their ranges. */
static void draw(struct pg_tx *t)
{
	static const uint32_t f[] = { PG_F_IPDST_RND, PG_F_IPSRC_RND, PG_F_UDPSRC_RND, PG_F_UDPDST_RND,
				      PG_F_MACSRC_RND, PG_F_MACDST_RND };
	uint64_t *off[] = { &t->off_dst, &t->off_src, &t->off_sport, &t->off_dport, &t->off_smac, &t->off_dmac };
	const uint64_t span[] = { t->dst_span, t->src_span, t->sport_span, t->dport_span, t->smac_span, t->dmac_span };
	for (int i = 0; i < 6; i++)
		if (pg.flags & f[i])
			*off[i] = rnd(t, span[i]);
}

/* Every field at its first offset: 0, or random with its *_RND flag. */
static void tuple_first(struct pg_tx *t)
{
	t->off_dst = t->off_src = t->off_sport = t->off_dport = t->off_smac = t->off_dmac = 0;
	draw(t);
}

/* Next tuple: a new one per frame, or per flowlen frames with flows > 0,
 * each field walking its range on its own (element t mod range length),
 * or drawn at random with its *_RND flag (t->extra: those, MAC walks). */
static void walk(struct pg_tx *t)
{
	if (pg.flows) {
		if (++t->inflow < (uint64_t)pg.flowlen)
			return;
		t->inflow = 0;
		if (++t->flow == (uint64_t)pg.flows) {
			t->flow = 0;
			tuple_first(t);
			return;
		}
	}
	t->off_dst = next_off(t->off_dst, t->dst_span);
	t->off_src = next_off(t->off_src, t->src_span);
	t->off_sport = next_off(t->off_sport, t->sport_span);
	t->off_dport = next_off(t->off_dport, t->dport_span);
	if (!t->extra)
		return;
	t->off_smac = next_off(t->off_smac, t->smac_span);
	t->off_dmac = next_off(t->off_dmac, t->dmac_span);
	if (pg.flags & PG_F_FIELD_RND)
		draw(t);
}

/* base + off in the low 40 bits, the first byte kept (Linux pktgen's
 * src_mac_count/dst_mac_count: the carry stops at byte 1). */
static void mac_add(uint8_t *out, const uint8_t base[6], uint64_t off)
{
	uint64_t v = 0;
	for (int i = 1; i < 6; i++)
		v = v << 8 | base[i];
	v += off;
	out[0] = base[0];
	for (int i = 5; i >= 1; i--, v >>= 8)
		out[i] = (uint8_t)v;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/* A UDP checksum (RFC 768; RFC 8200 8.1 over IPv6, where it is mandatory)
 * from the sum of its 16-bit words, added up as any 32-bit pairs of them
 * (2^16 = 1 modulo 0xffff); 0 goes out as 0xffff. */
static uint16_t udp_csum(uint64_t sum)
{
	uint16_t c = inet_csum_fold(sum);
	return c ? c : 0xffff;
}

/* The addresses of the current tuple into the IP header at ip, and the
 * IPv4 header checksum. Returns the sum of the address words that vary
 * (the UDP checksum's share; the upper 64 bits of IPv6 ones are in
 * t->udp_sum). */
static uint64_t put_addrs(struct pg_tx *t, uint8_t *ip)
{
	if (pg.flags & PG_F_IPV6) {
		uint64_t src = t->src6_lo + t->off_src, dst = t->dst6_lo + t->off_dst;
		put32(ip + 16, (uint32_t)(src >> 32));
		put32(ip + 20, (uint32_t)src);
		put32(ip + 32, (uint32_t)(dst >> 32));
		put32(ip + 36, (uint32_t)dst);
		return (src >> 32) + (uint32_t)src + (dst >> 32) + (uint32_t)dst;
	}
	uint32_t src = t->src4 + (uint32_t)t->off_src, dst = t->dst4 + (uint32_t)t->off_dst;
	put32(ip + 12, src);
	put32(ip + 16, dst);
	uint32_t s = t->ip_sum + (src >> 16) + (src & 0xffff) + (dst >> 16) + (dst & 0xffff);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	put16(ip + 10, ~s & 0xffff);
	return (uint64_t)src + dst;
}

/* What only some runs put in a frame d: walked MACs, random VIDs. */
static void build_extra(struct pg_tx *t, uint8_t *d)
{
	uint8_t *ip = d + t->l3;
	if (t->dmac_span)
		mac_add(d, t->dst_mac, t->off_dmac);
	if (t->smac_span)
		mac_add(d + 6, t->src_mac, t->off_smac);
	if ((pg.flags & PG_F_VID_RND) && t->l3 > ETH_HLEN)
		put16(ip - 4, vlan_tci((uint16_t)rnd(t, 4095), (unsigned)pg.vlan_cfi, (unsigned)pg.vlan_p));
	if ((pg.flags & PG_F_SVID_RND) && t->l3 > ETH_HLEN + VLAN_HLEN)
		put16(d + 14, vlan_tci((uint16_t)rnd(t, 4095), (unsigned)pg.svlan_cfi, (unsigned)pg.svlan_p));
}

/* Fill p with the current tuple, stream id and sequence number, sent at
 * ns. The template's zeros past our payload header clear what an earlier
 * run's longer headers left. Inlined into its two callers: the call cost
 * 13 guest instructions a frame (IPv4, 64 B). */
static inline __attribute__((always_inline)) void build(struct pg_tx *t, struct pkt *p, uint16_t stream,
							uint64_t seq, uint64_t ns)
{
	uint8_t *d = p->data, *ip = d + t->l3, *udp = d + t->hlen - 8, *pl = d + t->hlen;
	__builtin_memcpy(d, t->hdr, PG_TMPL_LEN);
	uint64_t addrs = put_addrs(t, ip);
	uint32_t ports = ((uint32_t)pg.udp_src_min + (uint32_t)t->off_sport) << 16 |
			 ((uint32_t)pg.udp_dst_min + (uint32_t)t->off_dport);
	put32(udp, ports);
	put16(pl, PG_MAGIC);
	put16(pl + 2, stream);
	put32(pl + 4, (uint32_t)(seq >> 32));
	put32(pl + 8, (uint32_t)seq);
	put16(pl + 12, (uint32_t)(ns >> 32));
	put32(pl + 14, (uint32_t)ns);
	if (t->udp_sum)	/* the template's words in it, then those just written */
		put16(udp + 6, udp_csum(t->udp_sum + addrs + ports + stream + (seq >> 32) + (uint32_t)seq +
					(ns >> 32 & 0xffff) + (uint32_t)ns));
	if (t->extra)
		build_extra(t, d);
	p->len = t->size;
}

/* The TX queue of the next frame built when the queue walks (qwalk):
 * Linux pktgen's queue_map walk, min..max or at random with QUEUE_MAP_RND,
 * modulo the port's queues, over the queues of the lane's core (the walk
 * holds one, or the lane would not be). */
static void next_queue(struct pg_tx *t, const struct nic *nic)
{
	uint64_t lo = (uint64_t)pg.queue_map_min, hi = (uint64_t)pg.queue_map_max;
	do {
		uint64_t off = pg.flags & PG_F_QUEUE_MAP_RND ? rnd(t, hi - lo) : next_off(t->queue - lo, hi - lo);
		t->queue = (uint16_t)(lo + off);
		t->curq = (uint16_t)(t->queue % nic->nqueues);
	} while (nic->tx_owner[t->curq] != t->core);
}

/* 1 if TX queue q of nic is in the queue_map walk of core c: queue_map_min..max
 * modulo the queues, or with QUEUE_MAP_CPU the one numbered as c. */
static int walked(const struct nic *nic, int q, int c)
{
	uint64_t n = (uint64_t)nic->nqueues, span = (uint64_t)(pg.queue_map_max - pg.queue_map_min);
	if (pg.flags & PG_F_QUEUE_MAP_CPU)
		return (uint64_t)c % n == (uint64_t)q;
	return span + 1 >= n || ((uint64_t)q + n - (uint64_t)pg.queue_map_min % n) % n <= span;
}

/* The rate of this step as frames per second = num / den, clamped to what
 * the link carries (speed Mb/s over (size + 24) * 8 bits a frame). */
static void lane_rate(int port, struct pg_tx *t)
{
	const struct nic *nic = nics[port];
	uint64_t bits = (uint64_t)(t->rate_size + PG_WIRE_EXTRA) * 8, num, den;
	switch (pg.rate_kind) {
	case PG_RATE_MBPS: num = (uint64_t)pg.rate * 1000000; den = bits; break;
	case PG_RATE_PPS: num = (uint64_t)pg.ratep; den = 1; break;
	case PG_RATE_DELAY: num = 1000000000; den = (uint64_t)pg.delay; break;
	default: t->num = 0; return;
	}
	uint64_t line = (uint64_t)nic->speed * 1000000;
	if (nic->speed && num * bits > den * line) {
		printf("pktgen: %s: asked rate above the link's %llu frames/s of %u B at %u Mb/s: clamped to it\n",
		       nic->name, (unsigned long long)(line / bits), t->rate_size + 4, nic->speed);
		num = line;
		den = bits;
		t->clamped++;
	}
	den *= (uint64_t)t->nlanes;	/* this lane's share */
	t->num = num;
	t->ivl = tsc.hz * den / num;
	t->rem = tsc.hz * den % num;
	t->acc = 0;
	t->next_tsc = rdtsc();
}

/* imix: each size's template and checksum sums; t->size left at the mean
 * (what the rate counts). */
static void imix_templates(struct pg_tx *t)
{
	uint64_t bytes = 0, frames = 0;
	t->rate_size = t->size;
	for (int i = 0; i < pg.nimix; i++) {
		t->size = pg.imix_size[i];
		make_template(t);
		memcpy(t->imix_hdr[i], t->hdr, PG_TMPL_LEN);
		t->imix_ip_sum[i] = t->ip_sum;
		t->imix_udp_sum[i] = t->udp_sum;
		t->imix_credit[i] = 0;
		bytes += (uint64_t)pg.imix_size[i] * pg.imix_weight[i];
		frames += pg.imix_weight[i];
	}
	if (pg.nimix)
		t->size = t->rate_size = (uint16_t)(bytes / frames);
}

/* imix: the next frame's size by smooth weighted round-robin (each credit
 * grows by its weight, the largest is picked and pays the sum), so every
 * sum-of-weights frames hold each size exactly its weight times, spread. */
static void imix_pick(struct pg_tx *t)
{
	int32_t total = 0;
	int best = 0;
	for (int i = 0; i < pg.nimix; i++) {
		t->imix_credit[i] += pg.imix_weight[i];
		total += pg.imix_weight[i];
		if (t->imix_credit[i] > t->imix_credit[best])
			best = i;
	}
	t->imix_credit[best] -= total;
	t->size = pg.imix_size[best];
	memcpy(t->hdr, t->imix_hdr[best], PG_TMPL_LEN);
	t->ip_sum = t->imix_ip_sum[best];
	t->udp_sum = t->imix_udp_sum[best];
}

static void step_begin(int port, struct pg_tx *t, int step)
{
	t->step = step;
	t->size = (uint16_t)(pg.nsweep ? pg.sweep[step] : pg.pkt_size);
	t->stream = (uint16_t)(t->lane << PG_LANE_SHIFT | port << 8 | t->run << 4 | step);
	t->seq = t->queued = t->step_sent = t->probe_seq = 0;
	t->flow = t->inflow = 0;
	t->queue = (uint16_t)pg.queue_map_max;	/* the walk's next is queue_map_min */
	t->qwalk = pg.queue_map_min != pg.queue_map_max && !(pg.flags & PG_F_QUEUE_MAP_CPU);
	t->curq = (uint16_t)((pg.flags & PG_F_QUEUE_MAP_CPU ? (uint64_t)t->core : (uint64_t)pg.queue_map_min) %
			     (uint64_t)nics[port]->nqueues);	/* every frame's without qwalk */
	for (int q = 0; q < nics[port]->nqueues && nics[port]->tx_owner[t->curq] != t->core; q++)	/* probes: own queue */
		if (nics[port]->tx_owner[q] == t->core && walked(nics[port], q, t->core))
			t->curq = (uint16_t)q;
	t->sport_span = (uint64_t)(pg.udp_src_max - pg.udp_src_min);
	t->dport_span = (uint64_t)(pg.udp_dst_max - pg.udp_dst_min);
	t->smac_span = mac_span(pg.src_mac_count);
	t->dmac_span = mac_span(pg.dst_mac_count);
	t->extra = (pg.flags & (PG_F_FIELD_RND | PG_F_VID_RND | PG_F_SVID_RND)) || t->smac_span || t->dmac_span;
	if (pg.flags & PG_F_IPV6) {
		t->dst6_lo = get64(pg.dst6_min + 8);
		t->src6_lo = get64(pg.src6_min + 8);
		t->dst_span = get64(pg.dst6_max + 8) - t->dst6_lo;
		t->src_span = get64(pg.src6_max + 8) - t->src6_lo;
		if (t->back) {
			uint64_t lo = t->dst6_lo, span = t->dst_span;
			t->dst6_lo = t->src6_lo, t->dst_span = t->src_span;
			t->src6_lo = lo, t->src_span = span;
		}
	} else {
		t->dst4 = t->back ? pg.src_min : pg.dst_min;
		t->src4 = t->back ? pg.dst_min : pg.src_min;
		t->dst_span = t->back ? pg.src_max - pg.src_min : pg.dst_max - pg.dst_min;
		t->src_span = t->back ? pg.dst_max - pg.dst_min : pg.src_max - pg.src_min;
	}
	tuple_first(t);
	imix_templates(t);
	make_template(t);
	lane_rate(port, t);
}

/* Where port's frames go: back_mac on the way back, dst_mac, or the peer
 * port's MAC (port ^ 1, a port of this box); -1 after saying so when
 * there is none. */
static int dst_of(int port, uint8_t mac[6])
{
	if (pg_tx[port].back) {
		memcpy(mac, pg_tx[port].back_mac, 6);
		return 0;
	}
	if (pg.dst_mac_set) {
		memcpy(mac, pg.dst_mac, 6);
		return 0;
	}
	if ((port ^ 1) < nic_count) {
		memcpy(mac, nics[port ^ 1]->mac, 6);
		return 0;
	}
	printf("pktgen: %s: not started: no destination: pktgen set dst_mac <the receiver's MAC> (without it "
	       "frames go to the peer port of this box, %s's partner in port0 <-> port1, port2 <-> port3, "
	       "..., and there is none)\n", nics[port]->name, nics[port]->name);
	return -1;
}

/* "pktgen: port0: sending 1000 frames of 60 B at 50000 pps to 52:54:00:12:34:57 (port1), stream 0x0010" */
static void say_start(int port)
{
	const struct pg_tx *t = pg_lead(port);
	if (pg_quiet)
		return;
	char mac[MAC_STR_MAX], count[32], rate[48], kind[48] = "";
	if (pg_ntags() == 2)
		snprintf(kind, sizeof(kind), " (svlan %u, vlan %u%s)", pg.svlan_id, pg.vlan_id,
			 pg.flags & PG_F_IPV6 ? ", IPv6" : "");
	else if (pg_ntags())
		snprintf(kind, sizeof(kind), " (vlan %u%s)", pg.vlan_id, pg.flags & PG_F_IPV6 ? ", IPv6" : "");
	else if (pg.flags & PG_F_IPV6)
		snprintf(kind, sizeof(kind), " (IPv6)");
	snprintf(count, sizeof(count), pg.count ? "%llu" : "frames until pktgen stop", (unsigned long long)pg.count);
	switch (pg.rate_kind) {
	case PG_RATE_MBPS: snprintf(rate, sizeof(rate), "%lld Mb/s on the wire", (long long)pg.rate); break;
	case PG_RATE_PPS: snprintf(rate, sizeof(rate), "%lld pps", (long long)pg.ratep); break;
	case PG_RATE_DELAY: snprintf(rate, sizeof(rate), "one per %lld ns", (long long)pg.delay); break;
	default: snprintf(rate, sizeof(rate), "the highest rate");
	}
	printf("pktgen: %s: sending %s%s of %s%u B%s%s at %s to %s (%s), stream 0x%04x", nics[port]->name, count,
	       pg.count ? " frames" : "", pg.nimix ? "IMIX sizes, mean " : "", t->size, kind,
	       pg.nsweep ? " and the sweep's other sizes" : "", rate,
	       mac_str(mac, t->dst_mac), t->back ? "back_mac" : pg.dst_mac_set ? "dst_mac" : nics[port ^ 1]->name,
	       t->stream);
	if (t->nlanes > 1) {
		printf(", split over %d cores (count and rate):", t->nlanes);
		for (int c = 0; c < MAX_CPUS; c++)
			if (lanes[port][c])
				printf(" core%d stream 0x%04x", c, lanes[port][c]->stream);
	}
	printf("\n");
}

const struct pg_tx *pg_lead(int p)
{
	for (int c = 0; c < MAX_CPUS; c++)
		if (lanes[p][c] && !lanes[p][c]->lane)
			return lanes[p][c];
	return &pg_tx[p];
}

int pg_tx_per_core(int p)
{
	const struct nic *nic = nics[p];
	return nic->nqueues > 1 && ncpus > 1 && nic->owner[0] < nic->nqueues;
}

void pg_home_changed(void)
{
	home = -1;
}

int pg_running(int p)
{
	return pg_tx[p].active != 0;
}

uint64_t pg_tx_field(int p, size_t off)
{
	uint64_t v = *(const uint64_t *)((const char *)&pg_tx[p] + off);
	for (int c = 0; c < MAX_CPUS; c++)
		if (xtra[p][c])
			v += *(const uint64_t *)((const char *)xtra[p][c] + off);
	return v;
}

#define SUM(p, f) pg_tx_field(p, offsetof(struct pg_tx, f))

void pg_tx_sum(int p, struct pg_tx_sum *s)
{
	*s = (struct pg_tx_sum){ .sent = SUM(p, sent), .bytes = SUM(p, bytes), .probes = SUM(p, probes),
				 .built = SUM(p, built), .ring_full = SUM(p, ring_full),
				 .alloc_failed = SUM(p, alloc_failed), .clamped = SUM(p, clamped) };
	s->run_sent = s->sent - SUM(p, sent_at_start);
	s->run_bytes = s->bytes - SUM(p, bytes_at_start);
	s->run_ring_full = s->ring_full - SUM(p, ring_full_at_start);
	s->run_alloc_failed = s->alloc_failed - SUM(p, alloc_failed_at_start);
	for (int q = 0; q < NIC_MAX_QUEUES; q++)
		s->sent_q[q] = pg_tx_field(p, offsetof(struct pg_tx, sent_q) + (size_t)q * sizeof(uint64_t));
	for (int c = 0; c < MAX_CPUS; c++)
		if (lanes[p][c] && lanes[p][c]->stop_tsc > s->stop_tsc)
			s->stop_tsc = lanes[p][c]->stop_tsc;
}

static void lane_clear(struct pg_tx *t)
{
	t->sent = t->bytes = t->probes = t->built = t->ring_full = t->alloc_failed = t->clamped = 0;
	memset(t->sent_q, 0, sizeof(t->sent_q));
	t->sent_at_start = t->bytes_at_start = t->ring_full_at_start = t->alloc_failed_at_start = 0;
}

void pg_tx_clear(int p)
{
	lane_clear(&pg_tx[p]);
	pg_tx[p].start_tsc = pg_running(p) ? rdtsc() : 0;
	for (int c = 0; c < MAX_CPUS; c++) {
		if (!xtra[p][c])
			continue;
		if (lanes[p][c] == xtra[p][c] && xtra[p][c]->running)
			__atomic_or_fetch(&xtra[p][c]->req, PG_LREQ_CLEAR, __ATOMIC_RELEASE);
		else
			lane_clear(xtra[p][c]);
	}
}

/* Core c's lane of port p, made (with its pools) at its first start;
 * NULL after saying so. */
static struct pg_tx *lane_of(int p, int c)
{
	if (c == cpu_id())
		return &pg_tx[p];
	if (xtra[p][c])
		return xtra[p][c];
	struct pg_tx *t = dma_alloc(sizeof(*t), 64);
	if (!t) {
		printf("pktgen: %s: no memory for core%d's TX state\n", nics[p]->name, c);
		return 0;
	}
	memset(t, 0, sizeof(*t));
	if (pools_make(t, p))
		return 0;	/* the state's pages stay: taken again at the next start */
	return xtra[p][c] = t;
}

/* The cores that send on port p (a TX queue of the walk each) into
 * lanes[p], pktgen's core first: their number, or 0 after saying why. */
static int lanes_make(int p)
{
	const struct nic *nic = nics[p];
	uint32_t mask = 0;
	int n = 0, me = cpu_id();
	for (int q = 0; q < nic->nqueues; q++)
		if (walked(nic, q, nic->tx_owner[q]))
			mask |= 1u << nic->tx_owner[q];
	if (pg_quiet && mask != 1u << me) {
		printf("pktgen rfc2544: %s: sends from pktgen's core only, but the queue_map walk has other cores' TX "
		       "queues (queue_map_min=queue_map_max=%d keeps it on core%d's)\n", nic->name, me, me);
		return 0;
	}
	memset(lanes[p], 0, sizeof(lanes[p]));
	for (int k = 0; k < MAX_CPUS; k++) {
		int c = (me + k) % MAX_CPUS;	/* pktgen's core first */
		if (!(mask >> c & 1))
			continue;
		if (!(lanes[p][c] = lane_of(p, c)))
			return 0;
		lanes[p][c]->core = c;
		lanes[p][c]->lane = n++;
	}
	return n;
}

/* Set up lane t of port's run (lane 0 of n is pktgen's core's when it
 * sends); the run's figures come from pg_tx[port]. */
static void lane_start(int port, struct pg_tx *t, int n, uint64_t now)
{
	const struct pg_tx *r = &pg_tx[port];
	uint64_t share = (uint64_t)pg.count / (uint64_t)n;
	t->nlanes = n;
	t->count = share + ((uint64_t)t->lane < (uint64_t)pg.count % (uint64_t)n);
	t->run = r->run;
	if (t != r) {	/* back: rfc2544's, which sends from pktgen's core only */
		memcpy(t->dst_mac, r->dst_mac, 6);
		memcpy(t->src_mac, r->src_mac, 6);
		t->back = 0;
	}
	t->rnd = (now + (uint64_t)t->lane * 0x9e3779b97f4a7c15ull) | 1;
	t->req = 0;
	step_begin(port, t, 0);
	t->probe_ivl = pg.lat_rate ? tsc.hz * (uint64_t)n / (uint64_t)pg.lat_rate : 0;
	t->next_probe = now;
	t->start_tsc = now;
	t->stop_tsc = 0;
	t->sent_at_start = t->sent;
	t->bytes_at_start = t->bytes;
	t->ring_full_at_start = t->ring_full;
	t->alloc_failed_at_start = t->alloc_failed;
}

int pg_start(int port)
{
	struct pg_tx *t = &pg_tx[port];
	struct nic *nic = nics[port];
	if (pg_running(port)) {
		printf("pktgen: %s: already sending (pktgen stop first)\n", nic->name);
		return -1;
	}
	if (pg_check(port) || dst_of(port, t->dst_mac))
		return -1;
	if (nic->link_up != 1) {
		printf("pktgen: %s: link down, not started (`link %s` says when it is up)\n", nic->name, nic->name);
		return -1;
	}
	int n = lanes_make(port), go = 0;
	if (!n)
		return -1;
	t->run = (int)(t->starts++ % PG_RUNS);
	memcpy(t->src_mac, pg.src_mac_set ? pg.src_mac : nic->mac, 6);
	uint64_t now = rdtsc();
	t->start_tsc = now;	/* the run's, even when pktgen's core has no lane */
	t->stopped_any = 0;
	for (int c = 0; c < MAX_CPUS; c++)
		if (lanes[port][c]) {
			lane_start(port, lanes[port][c], n, now);
			go += !pg.count || lanes[port][c]->count;
		}
	say_start(port);
	t->active = go;
	for (int c = 0; c < MAX_CPUS; c++)	/* a lane of another core sends from its next turn */
		if (lanes[port][c] && (!pg.count || lanes[port][c]->count))
			__atomic_store_n(&lanes[port][c]->running, 1, __ATOMIC_RELEASE);
	return 0;
}

/* Lane t of port ends (done or stopped); the last one prints the Result. */
static void lane_end(int port, struct pg_tx *t, const char *why)
{
	struct pg_tx *r = &pg_tx[port];
	t->running = 0;
	t->stop_tsc = rdtsc();
	if (!strcmp(why, "stopped"))
		r->stopped_any = 1;
	if (!__atomic_sub_fetch(&r->active, 1, __ATOMIC_ACQ_REL))
		pg_result(port, r->stopped_any ? "stopped" : "done");
}

static void lane_stop(int port, struct pg_tx *t)
{
	if (!t->running)
		return;
	pkt_free_bulk(t->pend, t->npend);
	for (; t->cur_left; t->cur_left--)
		pkt_free(t->cur);
	if (t->probe)
		pkt_free(t->probe);
	t->npend = 0;
	t->cur = t->probe = 0;
	lane_end(port, t, "stopped");
}

void pg_stop(int port, int parked)
{
	for (int c = 0; c < MAX_CPUS; c++) {
		struct pg_tx *t = lanes[port][c];
		if (!t || !t->running)
			continue;
		if (parked || t == &pg_tx[port])
			lane_stop(port, t);
		else
			__atomic_or_fetch(&t->req, PG_LREQ_STOP, __ATOMIC_RELEASE);
	}
}

void pg_rate_update(int port)
{
	for (int c = 0; c < MAX_CPUS; c++) {
		struct pg_tx *t = lanes[port][c];
		if (!t || !t->running)
			continue;
		if (t == &pg_tx[port])
			lane_rate(port, t);
		else
			__atomic_or_fetch(&t->req, PG_LREQ_RATE, __ATOMIC_RELEASE);
	}
}

/* Frames the token bucket allows now, at most max per call. Credit builds
 * up while the core is away (a TCG vCPU is descheduled for milliseconds)
 * and is spent max frames a call, so the rate holds over time; credit
 * older than pg.credit_ms (PG_CREDIT_MS) is dropped, so a long stall (ring full, link
 * gone) is not made up at line rate. */
static int tokens(struct pg_tx *t, uint64_t now, int max)
{
	if (!t->num)
		return max;
	if (now < t->next_tsc)
		return 0;
	uint64_t depth = tsc.hz / 1000 * (uint64_t)pg.credit_ms;
	if (now - t->next_tsc > depth)
		t->next_tsc = now - depth;
	uint64_t n = 1 + (now - t->next_tsc) / (t->ivl ? t->ivl : 1);
	return n < (uint64_t)max ? (int)n : max;
}

static void consume(struct pg_tx *t, int k)
{
	if (!t->num || !k)
		return;
	t->acc += t->rem * (uint64_t)k;
	t->next_tsc += t->ivl * (uint64_t)k + t->acc / t->num;
	t->acc %= t->num;
}

/* Queue frames into pend until it holds want: copies of cur, or new
 * frames, each with its TX queue. */
static void fill(struct pg_tx *t, const struct nic *nic, int want, uint64_t ns)
{
	while (t->npend < want) {
		if (!t->cur_left) {
			struct pkt *p = pkt_alloc_inline(t->pool);
			if (!p) {
				t->alloc_failed++;
				break;
			}
			uint64_t left = pg.count ? (uint64_t)pg.count - t->queued : UINT64_MAX;
			uint64_t copies = pg.clone_skb > 1 ? (uint64_t)pg.clone_skb : 1;
			if (copies > left)
				copies = left;
			if (pg.nimix)
				imix_pick(t);
			build(t, p, t->stream, t->seq++, ns);
			walk(t);
			if (t->qwalk)
				next_queue(t, nic);
			t->built++;
			p->clones = (uint16_t)(copies - 1);
			t->cur = p;
			t->cur_left = (uint32_t)copies;
		}
		int c = want - t->npend < (int)t->cur_left ? want - t->npend : (int)t->cur_left;
		for (int i = 0; i < c; i++) {
			t->pend[t->npend + i] = t->cur;
			t->pendq[t->npend + i] = t->curq;
		}
		t->npend += c;
		t->cur_left -= (uint32_t)c;
		t->queued += (uint64_t)c;
	}
}

/* Probes as PTP frames timed by the NICs: on ports that stamp in
 * hardware, with lat_hwts, untagged (the NIC's filter matches the PTP
 * ethertype right after the MACs). */
static int ptp_probes(const struct pg_tx *t)
{
	return t->hw && pg.lat_hwts && !pg_ntags();
}

/* Make probe p a PTPv2 Sync over Ethernet (IEEE 1588-2008 13.3, annex F)
 * carrying our header (at hlen) after the PTP header, with a TX timestamp
 * request. */
static void ptp_probe(struct pkt *p, uint32_t hlen, uint64_t seq)
{
	uint8_t *d = p->data, ours[PG_PAYLOAD_LEN], *ptp = d + ETH_HLEN;
	__builtin_memcpy(ours, d + hlen, PG_PAYLOAD_LEN);
	put16(d + 12, PG_ETHERTYPE_PTP);
	__builtin_memset(ptp, 0, PG_PTP_HLEN);
	ptp[0] = 0;		/* transportSpecific 0, messageType Sync */
	ptp[1] = 2;		/* versionPTP */
	put16(ptp + 2, PG_PTP_HLEN + PG_PAYLOAD_LEN);	/* messageLength */
	put16(ptp + 30, (uint32_t)seq);			/* sequenceId */
	__builtin_memcpy(ptp + PG_PTP_HLEN, ours, PG_PAYLOAD_LEN);
	p->len = PG_PTP_PROBE_LEN;
	p->flags |= PKT_TX_TSTAMP;
}

/* A probe (fresh frame, stream | PG_PROBE) when one is due; on a port that
 * stamps in hardware, a PTP-typed one whose TX stamp request is noted. */
static void probe(struct pg_tx *t, struct nic *nic, uint64_t now, uint64_t ns)
{
	if (!t->probe) {
		if (!t->probe_ivl || now < t->next_probe || !(t->probe = pkt_alloc_inline(t->probe_pool)))
			return;
		build(t, t->probe, (uint16_t)(t->stream | PG_PROBE), t->probe_seq, ns);
		if (ptp_probes(t))
			ptp_probe(t->probe, t->hlen, t->probe_seq);
		t->probe_seq++;
		t->next_probe += t->probe_ivl;	/* credit kept as in tokens() */
		uint64_t depth = tsc.hz / 1000 * PG_CREDIT_MS;
		if (now > t->next_probe && now - t->next_probe > depth)
			t->next_probe = now - depth;
	}
	struct phc *c = phc_of(nic);
	uint32_t before = phc_tx_seq(c);
	if (nic->ops->tx_burst(nic, t->curq, &t->probe, 1)) {
		if (ptp_probes(t) && phc_tx_seq(c) != before) {
			struct pg_hwts *h = &t->hwts[(t->probe_seq - 1) % PG_HWTS];
			*h = (struct pg_hwts){ .seq = t->probe_seq - 1, .txseq = phc_tx_seq(c), .state = 1 };
		}
		t->probes++;
		t->probe = 0;
	}
}

static void step_end(int port, struct pg_tx *t)
{
	if (t->probe) {
		pkt_free(t->probe);
		t->probe = 0;
	}
	if (t->step + 1 < (pg.nsweep ? pg.nsweep : 1)) {
		step_begin(port, t, t->step + 1);
		return;
	}
	lane_end(port, t, "done");
}

static int send_port(int port, struct pg_tx *t, uint64_t now, uint64_t ns)
{
	struct nic *nic = nics[port];
	probe(t, nic, now, ns);
	int want = tokens(t, now, (int)pg.burst);
	if (t->count && (uint64_t)want > t->count - t->queued + (uint64_t)t->npend)
		want = (int)(t->count - t->queued + (uint64_t)t->npend);
	fill(t, nic, want, ns);
	int n = t->npend < want ? t->npend : want, k = 0;
	while (k < n) {	/* each run of frames for one queue in one call */
		int q = t->curq, run = n - k;
		if (t->qwalk)
			for (q = t->pendq[k], run = 1; k + run < n && t->pendq[k + run] == q;)
				run++;
		int m = nic->ops->tx_burst(nic, q, t->pend + k, run);
		t->sent_q[q] += (uint64_t)m;
		k += m;
		if (m < run) {
			t->ring_full++;
			break;
		}
	}
	if (pg.nimix)
		for (int i = 0; i < k; i++)
			t->bytes += t->pend[i]->len;
	else
		t->bytes += (uint64_t)k * t->size;
	if (k) {
		t->npend -= k;
		memmove(t->pend, t->pend + k, sizeof(t->pend[0]) * (size_t)t->npend);
		if (t->qwalk)
			memmove(t->pendq, t->pendq + k, sizeof(t->pendq[0]) * (size_t)t->npend);
	}
	consume(t, k);
	t->sent += (uint64_t)k;
	t->step_sent += (uint64_t)k;
	if (t->count && t->step_sent == t->count)
		step_end(port, t);
	return k;
}

/* What pktgen's core asked of lane t (PG_LREQ_*), on the lane's core. */
static void lane_requests(int port, struct pg_tx *t)
{
	int req = __atomic_exchange_n(&t->req, 0, __ATOMIC_ACQ_REL);
	if (req & PG_LREQ_CLEAR)
		lane_clear(t);
	if (req & PG_LREQ_STOP)
		lane_stop(port, t);
	if (req & PG_LREQ_RATE && t->running)
		lane_rate(port, t);
}

int pg_idle(void)
{
	int work = 0, c = cpu_id_fast();
	uint64_t now = 0, ns = 0;
	if (home < 0)
		home = app_core(&app_pktgen);
	if (c == home) {
		pg_requests();
		work += rfc2544_poll();
	}
	for (int p = 0; p < nic_count; p++) {
		struct pg_tx *t = lanes[p][c];
		if (!t)
			continue;
		if (t->req)
			lane_requests(p, t);
		if (!__atomic_load_n(&t->running, __ATOMIC_ACQUIRE))
			continue;
		if (!now) {
			now = rdtsc();
			ns = now_ns();
		}
		work += send_port(p, t, now, ns) + 1;	/* a sending core does not halt */
	}
	return work;
}
