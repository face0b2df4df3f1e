/*
 * fwd's neighbour resolution, ARP (RFC 826): each core's table per port,
 * answering and learning from ARP for our addresses, asking for the next
 * hops of routed frames (held meanwhile, ARP_HOLD per next hop), retries
 * every arp_retrans_time_ms up to ARP_TRIES times, then a negative cache
 * entry for ARP_NEG_MS; reachable entries are asked again after arp_timeout.
 */
#include <stdio.h>
#include <string.h>
#include "apps/fwd/counters.h"
#include "apps/fwd/l3.h"
#include "apps/fwd/neigh.h"
#include "apps/fwd/route.h"
#include "kernel/knobs.h"
#include "kernel/time.h"
#include "net/addr.h"
#include "net/ifaddr.h"

#define ARP_PROBE	8	/* slots an address may sit in, from its hash */
#define ARP_NEG_MS	1000	/* a next hop that never answered: frames dropped for this long */
#define ARP_TRIES	3	/* requests before giving up */

static const char *const arp_state_names[] = { "free", "incomplete", "reachable", "probe", "failed" };

static int64_t arp_timeout = 60;
static const struct knob_range arp_timeout_range[] = { { 1, 3600 } };
KNOB(arp_timeout, .name = "arp_timeout", .type = KNOB_INT, .ranges = arp_timeout_range, .nranges = 1,
     .ival = &arp_timeout,
     .help = "fwd: seconds an ARP entry stays reachable without news before it is asked again "
	     "(3 requests arp_retrans_time_ms apart, forwarding meanwhile); default 60");

/* Linux's neigh retrans_time_ms, for ARP only (ND keeps RFC 4861's
 * RETRANS_TIMER, nd.c): a next hop is given up ARP_TRIES times this after
 * its first request. */
static int64_t arp_retrans_time_ms = 100;
static const struct knob_range arp_retrans_range[] = { { 10, 10000 } };
KNOB(arp_retrans_time_ms, .name = "arp_retrans_time_ms", .type = KNOB_INT, .ranges = arp_retrans_range,
     .nranges = 1, .ival = &arp_retrans_time_ms,
     .help = "fwd: ms between ARP requests for an unresolved next hop (Linux's neigh retrans_time_ms); "
	     "3 unanswered and the frames held for it are dropped (arp_unresolved); default 100");

static unsigned arp_hash(uint32_t ip)
{
	return (ip * 2654435761u) >> 27;	/* 5 bits: ARP_SLOTS */
}

struct arp_entry *arp_find(int port, uint32_t ip)
{
	unsigned h = arp_hash(ip);
	for (unsigned i = 0; i < ARP_PROBE; i++) {
		struct arp_entry *e = &l3_me()->arp[port][(h + i) % ARP_SLOTS];
		if (e->state != ARP_FREE && e->ip == ip)
			return e;
	}
	return 0;
}

/* A slot for ip on port: a free or failed one, else a resolved one that is
 * not the next hop of a configured route (so strangers' ARP can never push
 * those out); NULL when none of the slots ip may use can go. */
static struct arp_entry *arp_new(int port, uint32_t ip)
{
	unsigned h = arp_hash(ip);
	struct arp_entry *victim = 0;
	for (unsigned i = 0; i < ARP_PROBE; i++) {
		struct arp_entry *e = &l3_me()->arp[port][(h + i) % ARP_SLOTS];
		if (e->state == ARP_FREE || e->state == ARP_FAILED) {
			victim = e;
			break;
		}
		if (e->state == ARP_REACHABLE && !victim && !l3_is_next_hop(port, e->ip))
			victim = e;
	}
	if (victim) {
		*victim = (struct arp_entry){ .ip = ip, .port = (uint8_t)port, .state = ARP_INCOMPLETE };
		l3_me()->epoch++;	/* it may have been a destination's next hop */
	}
	return victim;
}

static void arp_request(struct arp_entry *e)
{
	struct nic *nic = l3_nics[e->port];
	struct pkt *p = pkt_alloc(nic->pool);
	if (!p) {
		fwd_st(e->port)->ev[FWD_EV_arp_no_buffer]++;
		return;
	}
	p->len = (uint16_t)arp_build(p->data, nic->pool->buf_size, ARP_REQUEST, nic->mac,
				     ifaddrs[e->port].v4.addr, 0, e->ip);
	p->port = e->port;
	fwd_st(e->port)->ev[FWD_EV_arp_requests]++;
	l3_tx_add(e->port, p, TX_OWN);
}

/* Request number `tries` for e's address, the next arp_retrans_time_ms from now. */
static void arp_ask(struct arp_entry *e, int tries, uint64_t now)
{
	e->tries = (uint8_t)tries;
	e->retry_tsc = now + tsc.hz * (uint64_t)arp_retrans_time_ms / 1000;
	arp_request(e);
}

/* ip is at mac on port (entry e, or a new one): frames held for it leave now. */
static void arp_update(struct arp_entry *e, int port, uint32_t ip, const uint8_t mac[ETH_ALEN])
{
	if (!e && !(e = arp_new(port, ip)))
		return;
	memcpy(e->mac, mac, ETH_ALEN);
	e->state = ARP_REACHABLE;
	e->confirmed_tsc = rdtsc();
	l3_me()->epoch++;	/* the MAC may be new */
	for (int i = 0; i < e->nheld; i++)
		l3_forward(l3_me(), e->held[i], port, mac, 0);
	e->nheld = 0;
}

/* Binding m on the calling core: an entry it has is updated; a new one is
 * learnt when m->create (RFC 826: only from ARP for us). */
static void neigh_apply(const struct neigh_msg *m)
{
	if (m->family == 6) {
		nd_apply(m);
		return;
	}
	uint32_t ip;
	memcpy(&ip, m->addr, sizeof ip);
	struct arp_entry *e = arp_find(m->port, ip);
	if (e || m->create)
		arp_update(e, m->port, ip, m->mac);
}

/* Binding m, learnt from the wire: applied here, and posted to every
 * other core that routes (has run its timer pass), whose timer pass then
 * runs at once (next_timer_tsc 0) and applies it. A full mailbox counts
 * neigh_mbox_full (that core then resolves by its own requests). */
void neigh_learn(const struct neigh_msg *m)
{
	int me = cpu_id_fast();
	neigh_apply(m);
	for (int c = 0; c < ncpus; c++) {
		if (c == me || !__atomic_load_n(&l3_cores[c].drains, __ATOMIC_RELAXED))
			continue;
		struct neigh_mbox *mb = &l3_cores[c].mbox[me];
		uint32_t head = mb->head;
		if (head - __atomic_load_n(&mb->tail, __ATOMIC_ACQUIRE) == NEIGH_MBOX) {
			fwd_st(m->port)->ev[FWD_EV_neigh_mbox_full]++;
			continue;
		}
		mb->m[head % NEIGH_MBOX] = *m;
		__atomic_store_n(&mb->head, head + 1, __ATOMIC_RELEASE);
		__atomic_store_n(&l3_cores[c].next_timer_tsc, 0, __ATOMIC_RELEASE);
	}
}

/* The bindings other cores posted to the calling core, applied in order. */
static void neigh_drain(void)
{
	for (int from = 0; from < ncpus; from++) {
		struct neigh_mbox *mb = &l3_me()->mbox[from];
		uint32_t head = __atomic_load_n(&mb->head, __ATOMIC_ACQUIRE);
		for (uint32_t t = mb->tail; t != head; t++) {
			neigh_apply(&mb->m[t % NEIGH_MBOX]);
			__atomic_store_n(&mb->tail, t + 1, __ATOMIC_RELEASE);
		}
	}
}

/* ARP sender ip is at mac on port (create: learn it new), on every core. */
static void arp_learn(int port, uint32_t ip, const uint8_t mac[ETH_ALEN], int create)
{
	struct neigh_msg m = { .family = 4, .port = (uint8_t)port, .create = (uint8_t)create };
	memcpy(m.mac, mac, ETH_ALEN);
	memcpy(m.addr, &ip, sizeof ip);
	neigh_learn(&m);
}

void arp_input(struct nic *nic, struct pkt *p)
{
	struct arp_info a;
	int port = nic->port;
	uint32_t our = ifaddrs[port].v4.addr, m = ~0u << (32 - ifaddrs[port].v4.len);
	if (arp_parse(p->data, p->len, &a) != ARP_OK) {
		fwd_drop(port, FWD_DROP_arp_bad, 1);
		pkt_free(p);
		return;
	}
	/* Someone else claims our address (RFC 5227 2.4): say so, never learn it. */
	if (a.spa == our && memcmp(a.sha, nic->mac, ETH_ALEN)) {
		char who[MAC_STR_MAX];
		if (!fwd_st(port)->ev[FWD_EV_arp_conflict]++)
			printf("fwd: %s: ARP from %s claims our address\n", nic->name, mac_str(who, a.sha));
	}
	/* RFC 826 "Packet Reception": a sender already in the table is updated
	 * from any ARP packet (gratuitous ones too), before asking whether the
	 * packet is for us; a new sender is learnt only from packets for us
	 * (not an RFC 5227 probe's sender 0, not one off our subnet). */
	int ok_sender = a.spa && (a.spa & m) == (our & m) && a.spa != our;
	if (ok_sender)
		arp_learn(port, a.spa, a.sha, a.tpa == our);
	if (a.tpa != our) {
		fwd_drop(port, FWD_DROP_arp_not_ours, 1);
		pkt_free(p);
		return;
	}
	if (a.op == ARP_REQUEST) {
		p->len = (uint16_t)arp_build(p->data, p->pool->buf_size, ARP_REPLY, nic->mac, our,
					     a.sha, a.spa);
		l3_tx_add(port, p, TX_ARP_REPLY);
	} else {
		fwd_st(port)->arp++;
		pkt_free(p);
	}
}

int arp_hold(struct arp_entry *e, int out, uint32_t hop, struct pkt *p, uint64_t now)
{
	if (e && e->state == ARP_FAILED) {
		if (now < e->retry_tsc)
			return FWD_DROP_arp_unresolved;	/* negative cache: no request per frame */
		e->state = ARP_FREE;
		e = 0;
	}
	if (!e) {
		if (!(e = arp_new(out, hop)))
			return FWD_DROP_arp_table_full;
		arp_ask(e, 1, now);
	}
	if (e->nheld == ARP_HOLD)
		return FWD_DROP_arp_queue_full;
	e->held[e->nheld++] = p;
	return -1;
}

/* Apply the bindings other cores posted; resend ARP requests that went
 * unanswered for arp_retrans_time_ms; after ARP_TRIES, drop what waits for them
 * (arp_unresolved). */
static __attribute__((noinline)) int arp_timers(uint64_t now)
{
	int done = 0;
	__atomic_store_n(&l3_me()->next_timer_tsc, now + tsc.hz / 100, __ATOMIC_RELAXED);
	__atomic_store_n(&l3_me()->drains, 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* before reading the mailboxes: a post after this wakes us again */
	neigh_drain();
	now = rdtsc();	/* what the mailboxes brought was confirmed after the first now */
	uint64_t stale = (uint64_t)arp_timeout * tsc.hz;
	for (int p = l3_link_next(-1); p < FWD_LINKS; p = l3_link_next(p)) {
		for (int i = 0; i < ARP_SLOTS; i++) {
			struct arp_entry *e = &l3_me()->arp[p][i];
			if (e->state == ARP_REACHABLE && now - e->confirmed_tsc > stale) {
				e->state = ARP_PROBE_STATE;	/* re-resolve, forwarding meanwhile */
				arp_ask(e, 1, now);
				continue;
			}
			if ((e->state != ARP_INCOMPLETE && e->state != ARP_PROBE_STATE) || now < e->retry_tsc)
				continue;
			if (e->tries < ARP_TRIES) {
				arp_ask(e, e->tries + 1, now);
				done++;
				continue;
			}
			for (int k = 0; k < e->nheld; k++) {
				fwd_drop(e->held[k]->port, FWD_DROP_arp_unresolved, 1);
				pkt_free(e->held[k]);
			}
			done += e->nheld;
			e->nheld = 0;
			e->state = ARP_FAILED;
			l3_me()->epoch++;	/* it may have been a destination's next hop */
			e->retry_tsc = now + tsc.hz * ARP_NEG_MS / 1000;
		}
	}
	done += nd_timers(now);
	ra_timers(now);
	l3_tx_flush_all();
	return done;
}

/* Every 10 ms, or at once after another core posted a binding, on a
 * core that routes: arp_timers. The poll loop calls
 * this between bursts, so the common answer is quick. */
int fwd_l3_idle(void)
{
	if (!fwd_l3_any)
		return 0;
	uint64_t now = rdtsc();
	return now < __atomic_load_n(&l3_me()->next_timer_tsc, __ATOMIC_RELAXED) ? 0 : arp_timers(now);
}

uint64_t fwd_l3_held(int port)
{
	uint64_t n = nd_held(port);
	for (int c = 0; l3_cores && c < ncpus; c++)	/* only running cores and existing ports hold */
		for (int q = l3_link_next(-1); q < FWD_LINKS; q = l3_link_next(q))
			for (int i = 0; i < ARP_SLOTS; i++)
				for (int k = 0; k < l3_cores[c].arp[q][i].nheld; k++)
					n += l3_cores[c].arp[q][i].held[k]->port == port;
	return n;
}

void fwd_l3_arp_show(void)
{
	uint64_t now = rdtsc();
	printf("%-4s %-6s %-15s %-17s %-10s %10s %4s\n", "core", "port", "address", "mac", "state", "age_ms",
	       "held");
	for (int c = 0; l3_cores && c < ncpus; c++)
		for (int p = l3_link_next(-1); p < FWD_LINKS; p = l3_link_next(p))
			for (int i = 0; i < ARP_SLOTS; i++) {
				const struct arp_entry *e = &l3_cores[c].arp[p][i];
				if (e->state == ARP_FREE)
					continue;
				char a[IPV4_STR_MAX], m[MAC_STR_MAX];
				printf("%-4d %-6s %-15s %s %-10s %10lu %4u\n", c, l3_nics[p]->name, ipv4_str(a, e->ip),
				       mac_str(m, e->mac), arp_state_names[e->state],
				       e->confirmed_tsc ? (unsigned long)((now - e->confirmed_tsc) / (tsc.hz / 1000)) : 0ul,
				       e->nheld);
			}
}
