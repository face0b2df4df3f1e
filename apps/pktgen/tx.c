/*
 * pktgen's sender: frames built from a per-step header template, the
 * address/port walk, clone_skb, the TSC token bucket and latency probes.
 * Runs from the poll loop's idle hook on queue 0 of each started port.
 */
#include <stdio.h>
#include <string.h>
#include "apps/app.h"
#include "apps/pktgen/pktgen.h"
#include "drivers/net/phc.h"
#include "kernel/cpu.h"
#include "kernel/time.h"
#include "net/addr.h"
#include "net/bytes.h"
#include "net/ipv4.h"

struct pg_tx *pg_tx;

int pg_tx_init(void)
{
	for (int p = 0; p < nic_count; p++) {
		if (!app_runs_on(&app_pktgen, p))
			continue;
		/* the ring's worth, what waits in pend, a probe, slack */
		uint32_t n = (uint32_t)nics[p]->txd + PG_BURST_MAX + 8;
		pg_tx[p].pool = pktpool_create("pktgen", n, PKT_SLOT);
		/* 16, and the sent ones a TX queue keeps until it frees a run */
		pg_tx[p].probe_pool = pktpool_create("pktgen probes", 16 + NIC_TX_FREE_THRESH, PKT_SLOT);
		if (!pg_tx[p].pool || !pg_tx[p].probe_pool) {
			printf("pktgen: %s: no memory for %u TX buffers\n", nics[p]->name, n);
			return -1;
		}
		struct phc *c = phc_of(nics[p]);
		pg_tx[p].hw = phc_is_hw(c);
		if (pg_tx[p].hw)
			phc_hwtstamp(c, 0, 1, 1);	/* Sync, TX requests, UDP too */
	}
	return 0;
}

/* The headers of this step's frames, addresses and checksums left zero,
 * and the IPv4 checksum sum of the words that stay. */
static void make_template(struct pg_tx *t, const struct nic *nic)
{
	uint8_t *h = t->hdr, *ip = h + ETH_HLEN, *udp = ip + IPV4_HLEN;
	memset(h, 0, PG_HDR_LEN);
	memcpy(h, t->dst_mac, 6);
	memcpy(h + 6, pg.src_mac_set ? pg.src_mac : nic->mac, 6);
	put16(h + 12, ETHERTYPE_IPV4);
	uint32_t ip_len = t->size - ETH_HLEN;
	ip[0] = 0x45;
	put16(ip + 2, ip_len);
	put16(ip + 6, 0x4000);	/* DF */
	ip[8] = 64;
	ip[9] = 17;		/* UDP */
	put16(udp + 4, ip_len - IPV4_HLEN);
	t->ip_sum = 0x4500 + ip_len + 0x4000 + 0x4011;
}

/* Next tuple: a new one per frame, or per flowlen frames with flows > 0,
 * each field walking its range on its own (element t mod range length). */
static void walk(struct pg_tx *t)
{
	if (pg.flows) {
		if (++t->inflow < (uint64_t)pg.flowlen)
			return;
		t->inflow = 0;
		if (++t->flow == (uint64_t)pg.flows) {
			t->flow = t->off_dst = t->off_src = t->off_sport = t->off_dport = 0;
			return;
		}
	}
	if (++t->off_dst > pg.dst_max - pg.dst_min)
		t->off_dst = 0;
	if (++t->off_src > pg.src_max - pg.src_min)
		t->off_src = 0;
	if (++t->off_sport > (uint64_t)(pg.udp_src_max - pg.udp_src_min))
		t->off_sport = 0;
	if (++t->off_dport > (uint64_t)(pg.udp_dst_max - pg.udp_dst_min))
		t->off_dport = 0;
}

/* Fill p with the current tuple, stream id and sequence number, sent at ns. */
static void build(struct pg_tx *t, struct pkt *p, uint16_t stream, uint64_t seq, uint64_t ns)
{
	uint8_t *d = p->data, *ip = d + ETH_HLEN, *udp = ip + IPV4_HLEN, *pl = udp + 8;
	uint32_t src = pg.src_min + (uint32_t)t->off_src, dst = pg.dst_min + (uint32_t)t->off_dst;
	__builtin_memcpy(d, t->hdr, PG_HDR_LEN);
	put32(ip + 12, src);
	put32(ip + 16, dst);
	uint32_t s = t->ip_sum + (src >> 16) + (src & 0xffff) + (dst >> 16) + (dst & 0xffff);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	put16(ip + 10, ~s & 0xffff);
	put16(udp, (uint32_t)pg.udp_src_min + (uint32_t)t->off_sport);
	put16(udp + 2, (uint32_t)pg.udp_dst_min + (uint32_t)t->off_dport);
	put16(pl, PG_MAGIC);
	put16(pl + 2, stream);
	put32(pl + 4, (uint32_t)(seq >> 32));
	put32(pl + 8, (uint32_t)seq);
	put16(pl + 12, (uint32_t)(ns >> 32));
	put32(pl + 14, (uint32_t)ns);
	p->len = t->size;
}

/* The rate of this step as frames per second = num / den, clamped to what
 * the link carries (speed Mb/s over (size + 24) * 8 bits a frame). */
void pg_rate_update(int port)
{
	struct pg_tx *t = &pg_tx[port];
	const struct nic *nic = nics[port];
	uint64_t bits = (uint64_t)(t->size + PG_WIRE_EXTRA) * 8, num, den;
	switch (pg.rate_kind) {
	case PG_RATE_MBPS: num = (uint64_t)pg.rate * 1000000; den = bits; break;
	case PG_RATE_PPS: num = (uint64_t)pg.ratep; den = 1; break;
	case PG_RATE_DELAY: num = 1000000000; den = (uint64_t)pg.delay; break;
	default: t->num = 0; return;
	}
	uint64_t line = (uint64_t)nic->speed * 1000000;
	if (nic->speed && num * bits > den * line) {
		printf("pktgen: %s: asked rate above the link's %llu frames/s of %u B at %u Mb/s: clamped to it\n",
		       nic->name, (unsigned long long)(line / bits), t->size + 4, nic->speed);
		num = line;
		den = bits;
		t->clamped++;
	}
	t->num = num;
	t->ivl = tsc.hz * den / num;
	t->rem = tsc.hz * den % num;
	t->acc = 0;
	t->next_tsc = rdtsc();
}

static void step_begin(int port, int step)
{
	struct pg_tx *t = &pg_tx[port];
	t->step = step;
	t->size = (uint16_t)(pg.nsweep ? pg.sweep[step] : pg.pkt_size);
	t->stream = (uint16_t)(port << 8 | t->run << 4 | step);
	t->seq = t->queued = t->step_sent = t->probe_seq = 0;
	t->flow = t->inflow = t->off_dst = t->off_src = t->off_sport = t->off_dport = 0;
	make_template(t, nics[port]);
	pg_rate_update(port);
}

/* Where port's frames go: dst_mac, or the peer port's MAC (port ^ 1, a
 * port of this box); -1 after saying so when there is neither. */
static int dst_of(int port, uint8_t mac[6])
{
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
	const struct pg_tx *t = &pg_tx[port];
	char mac[MAC_STR_MAX], count[32], rate[48];
	snprintf(count, sizeof(count), pg.count ? "%llu" : "frames until pktgen stop", (unsigned long long)pg.count);
	switch (pg.rate_kind) {
	case PG_RATE_MBPS: snprintf(rate, sizeof(rate), "%lld Mb/s on the wire", (long long)pg.rate); break;
	case PG_RATE_PPS: snprintf(rate, sizeof(rate), "%lld pps", (long long)pg.ratep); break;
	case PG_RATE_DELAY: snprintf(rate, sizeof(rate), "one per %lld ns", (long long)pg.delay); break;
	default: snprintf(rate, sizeof(rate), "the highest rate");
	}
	printf("pktgen: %s: sending %s%s of %u B%s at %s to %s (%s), stream 0x%04x\n", nics[port]->name, count,
	       pg.count ? " frames" : "", t->size, pg.nsweep ? " and the sweep's other sizes" : "", rate,
	       mac_str(mac, t->dst_mac), pg.dst_mac_set ? "dst_mac" : nics[port ^ 1]->name, t->stream);
}

int pg_start(int port)
{
	struct pg_tx *t = &pg_tx[port];
	struct nic *nic = nics[port];
	if (t->running) {
		printf("pktgen: %s: already sending (pktgen stop first)\n", nic->name);
		return -1;
	}
	if (pg_check(port) || dst_of(port, t->dst_mac))
		return -1;
	if (nic->link_up != 1) {
		printf("pktgen: %s: link down, not started (`link %s` says when it is up)\n", nic->name, nic->name);
		return -1;
	}
	t->run = (int)(t->starts++ % PG_RUNS);
	step_begin(port, 0);
	say_start(port);
	t->probe_ivl = pg.lat_rate ? tsc.hz / (uint64_t)pg.lat_rate : 0;
	t->next_probe = rdtsc();
	t->start_tsc = rdtsc();
	t->stop_tsc = 0;
	t->sent_at_start = t->sent;
	t->bytes_at_start = t->bytes;
	t->ring_full_at_start = t->ring_full;
	t->alloc_failed_at_start = t->alloc_failed;
	t->running = 1;
	return 0;
}

void pg_stop(int port)
{
	struct pg_tx *t = &pg_tx[port];
	if (!t->running)
		return;
	pkt_free_bulk(t->pend, t->npend);
	for (; t->cur_left; t->cur_left--)
		pkt_free(t->cur);
	if (t->probe)
		pkt_free(t->probe);
	t->npend = 0;
	t->cur = t->probe = 0;
	t->running = 0;
	t->stop_tsc = rdtsc();
	pg_result(port, "stopped");
}

/* Frames the token bucket allows now, at most max per call. Credit builds
 * up while the core is away (a TCG vCPU is descheduled for milliseconds)
 * and is spent max frames a call, so the rate holds over time; credit
 * older than PG_CREDIT_MS is dropped, so a long stall (ring full, link
 * gone) is not made up at line rate. */
static int tokens(struct pg_tx *t, uint64_t now, int max)
{
	if (!t->num)
		return max;
	if (now < t->next_tsc)
		return 0;
	uint64_t depth = tsc.hz / 1000 * PG_CREDIT_MS;
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

/* Queue frames into pend until it holds want: copies of cur, or new frames. */
static void fill(struct pg_tx *t, int want, uint64_t ns)
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
			build(t, p, t->stream, t->seq++, ns);
			walk(t);
			t->built++;
			p->clones = (uint16_t)(copies - 1);
			t->cur = p;
			t->cur_left = (uint32_t)copies;
		}
		int c = want - t->npend < (int)t->cur_left ? want - t->npend : (int)t->cur_left;
		for (int i = 0; i < c; i++)
			t->pend[t->npend + i] = t->cur;
		t->npend += c;
		t->cur_left -= (uint32_t)c;
		t->queued += (uint64_t)c;
	}
}

/* Make probe p a PTPv2 Sync over Ethernet (IEEE 1588-2008 13.3, annex F)
 * carrying our header after the PTP header, with a TX timestamp request. */
static void ptp_probe(struct pkt *p, uint64_t seq)
{
	uint8_t *d = p->data, ours[PG_PAYLOAD_LEN], *ptp = d + ETH_HLEN;
	__builtin_memcpy(ours, d + PG_HDR_LEN, PG_PAYLOAD_LEN);
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
		if (t->hw && pg.lat_hwts)
			ptp_probe(t->probe, t->probe_seq);
		t->probe_seq++;
		t->next_probe += t->probe_ivl;	/* credit kept as in tokens() */
		uint64_t depth = tsc.hz / 1000 * PG_CREDIT_MS;
		if (now > t->next_probe && now - t->next_probe > depth)
			t->next_probe = now - depth;
	}
	struct phc *c = phc_of(nic);
	uint32_t before = phc_tx_seq(c);
	if (nic->ops->tx_burst(nic, 0, &t->probe, 1)) {
		if (t->hw && pg.lat_hwts && phc_tx_seq(c) != before) {
			struct pg_hwts *h = &t->hwts[(t->probe_seq - 1) % PG_HWTS];
			*h = (struct pg_hwts){ .seq = t->probe_seq - 1, .txseq = phc_tx_seq(c), .state = 1 };
		}
		t->probes++;
		t->probe = 0;
	}
}

static void step_end(int port)
{
	struct pg_tx *t = &pg_tx[port];
	if (t->probe) {
		pkt_free(t->probe);
		t->probe = 0;
	}
	if (t->step + 1 < (pg.nsweep ? pg.nsweep : 1)) {
		step_begin(port, t->step + 1);
		return;
	}
	t->running = 0;
	t->stop_tsc = rdtsc();
	pg_result(port, "done");
}

static int send_port(int port, uint64_t now, uint64_t ns)
{
	struct pg_tx *t = &pg_tx[port];
	struct nic *nic = nics[port];
	probe(t, nic, now, ns);
	int want = tokens(t, now, (int)pg.burst);
	if (pg.count && (uint64_t)want > (uint64_t)pg.count - t->queued + (uint64_t)t->npend)
		want = (int)((uint64_t)pg.count - t->queued + (uint64_t)t->npend);
	fill(t, want, ns);
	int n = t->npend < want ? t->npend : want;
	int k = n ? nic->ops->tx_burst(nic, 0, t->pend, n) : 0;
	if (k < n)
		t->ring_full++;
	if (k) {
		t->npend -= k;
		memmove(t->pend, t->pend + k, sizeof(t->pend[0]) * (size_t)t->npend);
	}
	consume(t, k);
	t->sent += (uint64_t)k;
	t->step_sent += (uint64_t)k;
	t->bytes += (uint64_t)k * t->size;
	if (pg.count && t->step_sent == (uint64_t)pg.count)
		step_end(port);
	return k;
}

int pg_idle(void)
{
	int work = 0;
	uint64_t now = 0, ns = 0;
	pg_requests();
	for (int p = 0; p < nic_count; p++) {
		if (!pg_tx[p].running)
			continue;
		if (!now) {
			now = rdtsc();
			ns = now_ns();
		}
		work += send_port(p, now, ns) + 1;	/* a sending core does not halt */
	}
	return work;
}
