/*
 * A received burst into lwIP, and lwIP's timers (lwif.h). Each frame
 * passes the checks in front of lwIP (filter.c) and goes to lwIP without a
 * copy (netif.c); lwIP runs here, on the core that polls the port, and its
 * timers from the app's idle hook. Frames lwIP sent leave in one tx_burst
 * per port at the end of each received burst.
 */
#include "kernel/cpu.h"
#include "kernel/time.h"
#include "lwip/timeouts.h"
#include "net/lwip/lwif.h"

struct lwif_stats lwif_stats[NIC_MAX_PORTS];
#define NAME_OF(name) #name,
const char *const lwif_stack_names[LWIF_STACK_N] = { LWIF_STACK(NAME_OF) };
const char *const lwif_drop_names[LWIF_DROP_N] = { LWIF_DROPS(NAME_OF) };
const char *const lwif_event_names[LWIF_EVENT_N] = { LWIF_EVENTS(NAME_OF) };

static uint64_t next_timer_tsc, next_arp_tsc;

/* Not inlined into the apps' rx hooks (rr_rx, mgmt_rx), which count its
 * drops: inlined in rr_rx, the loop's registers spilled (TCP 1/1 ~20 guest
 * instructions a transaction more, tools/bench_rr.py --profile tcp 1). */
__attribute__((noinline)) int lwif_input(struct nic *nic, struct pkt **pkts, int n)
{
	int dropped = 0;
	struct lwif_stats *st = &lwif_stats[nic->port];
	st->rx += (uint64_t)n;
	for (int i = 0; i < n; i++) {
		struct pkt *p = pkts[i];
		st->ev[LWIF_rx_bytes] += p->len;
		int cls = lwif_fast_input(nic, p);
		if (cls >= 0) {
			st->stack[cls]++;
			continue;
		}
		cls = lwif_filter(nic, p);
		if (cls < 0) {
			dropped++;
			continue;
		}
		if (lwif_netif_input(nic, p, cls)) {
			st->drop[LWIF_no_pbuf]++;
			dropped++;
			pkt_free(p);
			continue;
		}
		st->stack[cls]++;
	}
	lwif_flush();
	return dropped;
}

/* lwIP's timers (TCP every 250 ms, ARP, reassembly), checked every ms. */
int lwif_timers(void)
{
	uint64_t now = rdtsc();
	if (now < next_timer_tsc)
		return 0;
	next_timer_tsc = now + tsc.hz / 1000;
	if (now >= next_arp_tsc) {
		next_arp_tsc = now + tsc.hz;
		lwif_arp_tick();
	}
	sys_check_timeouts();
	lwif_flush();
	return 0;
}
