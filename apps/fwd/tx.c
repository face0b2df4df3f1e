/*
 * fwd L3's TX batches: each core queues what it sends out of a link (a
 * port, or a VLAN sub-interface: vlan.c tags its frames in tx_burst)
 * (routed frames, ARP, ND, ICMP, ICMPv6) in the link's struct txb and sends it in one
 * tx_burst at the end of the burst, then counts each frame on the link it
 * came in on, by kind. With a queue per core on every routed port, each
 * core sends on its own TX queue of each (DPDK l3fwd's model): no two
 * cores ever write one ring, wherever lcore_map= puts the RX queues.
 */
#include <stdio.h>
#include <string.h>
#include "apps/fwd/counters.h"
#include "apps/fwd/l3.h"
#include "apps/fwd/tc.h"
#include "kernel/smp.h"

int fwd_l3_tx_per_core;

void l3_tx_per_core_init(void)
{
	int least = NIC_MAX_QUEUES;
	for (int p = 0; p < nic_count; p++)
		if (fwd_l3_port[p] && nics[p]->nqueues < least)
			least = nics[p]->nqueues;
	fwd_l3_tx_per_core = ncpus > 1 && least >= ncpus;
	for (int c = 0; c < ncpus; c++)
		l3_cores[c].q = fwd_l3_tx_per_core ? c : 0;
	if (fwd_l3_tx_per_core)
		printf("fwd: routed ports: core N sends on TX queue N of each, any core may poll any RX queue\n");
	else if (ncpus > 1)
		printf("fwd: routed ports: %d queue(s) for %d cores: queue N of every routed port is polled by one core, "
		       "which sends on queue N (queues=%d: a TX queue per core)\n", least, ncpus, ncpus);
}

/* ptp_tc=: the routed frames of b (to go out of link) given their
 * residence (tc.c); a frame fwd_tc_maybe clears costs that test alone.
 * Not inlined: only the TC's bursts pay for it. */
static void __attribute__((noinline)) tc_route(int link, struct txb *b)
{
	for (int i = 0; i < b->n; i++) {
		if (!fwd_tc_maybe(b->p[i]) || (b->mixed && b->kind[i] != TX_FWD))
			continue;
		struct l3_core *c = l3_me();
		int in = b->mixed ? b->in[i] : c->in;
		fwd_tc_route(in, l3_link_port(in), l3_link_port(link), b->p[i], c->rx_tsc);
	}
}

void l3_tx_flush(int port)
{
	struct txb *b = &l3_me()->tx[port];
	struct nic *out = l3_nics[port];
	if (__builtin_expect(fwd_ptp_tc != FWD_TC_OFF, 0))
		tc_route(port, b);
	int sent = b->n ? out->ops->tx_burst(out, l3_me()->q % out->nqueues, b->p, b->n) : 0;
	if (!b->mixed) {	/* the common batch: frames routed from the burst's port */
		int in = l3_me()->in;
		fwd_st(in)->forwarded += (uint64_t)sent;
		if (sent < b->n) {
			fwd_drop(in, FWD_DROP_tx_ring_full, (uint64_t)(b->n - sent));
			pkt_free_bulk(b->p + sent, b->n - sent);
		}
		b->n = 0;
		return;
	}
	for (int i = 0; i < b->n; i++) {
		int in = b->in[i];
		if (b->kind[i] == TX_OWN) {
			if (i >= sent) {
				fwd_st(port)->ev[FWD_EV_own_tx_ring_full]++;
				pkt_free(b->p[i]);
			}
		} else if (i < sent) {
			if (b->kind[i] == TX_FWD)
				fwd_st(in)->forwarded++;
			else if (b->kind[i] == TX_LOCAL)
				fwd_st(in)->local++;
			else if (b->kind[i] == TX_ND)
				fwd_st(in)->nd++;
			else
				fwd_st(in)->arp++;
		} else {
			fwd_drop(in, FWD_DROP_tx_ring_full, 1);
			pkt_free(b->p[i]);
		}
	}
	b->n = 0;
	b->mixed = l3_me()->mix;
}

void l3_tx_typed(struct l3_core *c, struct txb *b, struct pkt *p, int kind)
{
	if (!b->mixed) {
		memset(b->kind, TX_FWD, (size_t)b->n);
		memset(b->in, c->in, (size_t)b->n);
		b->mixed = 1;
		c->epoch++;	/* destinations queued to b go the full path */
	}
	b->in[b->n] = (uint8_t)p->port;
	b->kind[b->n] = (uint8_t)kind;
}

void l3_tx_mix_all(struct l3_core *c)
{
	for (int l = 0; l < FWD_LINKS; l++) {
		struct txb *b = &c->tx[l];
		if (b->mixed)
			continue;
		memset(b->kind, TX_FWD, (size_t)b->n);
		memset(b->in, c->in, (size_t)b->n);
		b->mixed = 1;
	}
	c->mix = 1;
	c->epoch++;	/* the fast paths remember no destination until the burst ends */
}

void l3_tx_add(int port, struct pkt *p, int kind)
{
	l3_tx_add_on(l3_me(), port, p, kind, 0);
}

void l3_tx_flush_all(void)
{
	struct l3_core *c = l3_me();
	for (int p = 0; p < nic_count; p++)
		if (c->tx[p].n)
			l3_tx_flush(p);
	for (int l = NIC_MAX_PORTS; l < NIC_MAX_PORTS + fwd_l3_nvlans; l++)
		if (c->tx[l].n)
			l3_tx_flush(l);
	if (c->mix) {
		c->mix = 0;
		for (int l = 0; l < FWD_LINKS; l++)
			c->tx[l].mixed = 0;
	}
}
