/*
 * sink: receive on every queue of every port, count packets and bytes per
 * port and queue (as Click's Counter), and tagged ones per VLAN, drop. It
 * exercises the drivers on their own. Shell: `sink` prints the counts,
 * `sink clear` zeroes them.
 */
#include <stdio.h>
#include <string.h>
#include <emmintrin.h>
#include "apps/app.h"
#include "kernel/shell.h"
#include "kernel/time.h"
#include "net/vlan.h"

struct sink_count {
	uint64_t packets, bytes;
	struct vlan_table vlans;	/* tagged packets among them, per VLAN */
};
static struct sink_count counts[NIC_MAX_PORTS][NIC_MAX_QUEUES];
static uint64_t since_ns;

extern const struct app app_sink;

static int sink_init(void)
{
	since_ns = now_ns();
	int n = 0;
	for (int p = 0; p < nic_count; p++)
		n += app_runs_on(&app_sink, p);
	printf("sink: counting and dropping on %d port(s)\n", n);
	return 0;
}

/* The EtherType field of p in network order, as it lies in memory. */
static inline int ethertype_raw(const struct pkt *p)
{
	uint16_t t;
	__builtin_memcpy(&t, p->data + 12, 2);
	return t;
}

_Static_assert((ETHERTYPE_VLAN ^ ETHERTYPE_QINQ_OLD) == 0x1000, "the 802.1Q and old QinQ TPIDs differ in bit 12 alone");

/* 1 when no frame of pkts[0..4) has a VLAN TPID in its EtherType field:
 * the four fields compared at once (SSE2), 0x8100 and 0x9100 in one
 * compare with bit 12 masked off. A field is read even in a frame shorter
 * than 14 bytes (its buffer is a whole one): such a frame carries no tag,
 * and a TPID read there only sends the group to vlan_tagged, which checks
 * the length. */
static inline int none_tagged4(struct pkt *const *pkts)
{
	__m128i t = _mm_cvtsi32_si128(ethertype_raw(pkts[0]));
	t = _mm_insert_epi16(t, ethertype_raw(pkts[1]), 1);
	t = _mm_insert_epi16(t, ethertype_raw(pkts[2]), 2);
	t = _mm_insert_epi16(t, ethertype_raw(pkts[3]), 3);
	__m128i c = _mm_and_si128(t, _mm_set1_epi16((short)~hton16(ETHERTYPE_VLAN ^ ETHERTYPE_QINQ_OLD)));
	__m128i hit = _mm_or_si128(_mm_cmpeq_epi16(c, _mm_set1_epi16((short)hton16(ETHERTYPE_VLAN))),
				   _mm_cmpeq_epi16(t, _mm_set1_epi16((short)hton16(ETHERTYPE_QINQ))));
	return (_mm_movemask_epi8(hit) & 0xff) == 0;
}

static void count_vlan(struct sink_count *c, const struct pkt *p)
{
	if (vlan_tagged(p->data, p->len)) {
		struct vlan_tags v;
		vlan_parse(p->data, p->len, &v);
		vlan_count(&c->vlans, &v, p->len);
	}
}

/* Frames four at a time: their lengths summed, their EtherTypes checked
 * together (none_tagged4); a group with a TPID among them, and the last
 * n % 4 frames, one at a time. */
static void sink_rx(struct nic *nic, int q, struct pkt **pkts, int n)
{
	struct sink_count *c = &counts[nic->port][q];
	uint64_t bytes = 0;
	int i = 0;
	for (; i + 4 <= n; i += 4) {
		bytes += (uint64_t)pkts[i]->len + pkts[i + 1]->len + pkts[i + 2]->len + pkts[i + 3]->len;
		if (__builtin_expect(!none_tagged4(pkts + i), 0))
			for (int k = i; k < i + 4; k++)
				count_vlan(c, pkts[k]);
	}
	for (; i < n; i++) {
		bytes += pkts[i]->len;
		count_vlan(c, pkts[i]);
	}
	c->packets += (uint64_t)n;
	c->bytes += bytes;
	pkt_free_bulk(pkts, n);
}
/* Each port on its own: sink never transmits, and counts per queue. */
static int sink_domain(int port)
{
	return port;
}

APP(sink, .name = "sink", .help = "count and drop (Click's Counter)", .init = sink_init, .rx = sink_rx,
    .domain = sink_domain, .runtime = 1);

static int cmd_sink(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "clear")) {
		memset(counts, 0, sizeof(counts));
		since_ns = now_ns();
		return 0;
	}
	if (argc != 1) {
		printf("usage: sink | sink clear\n");
		return -1;
	}
	uint64_t ns = now_ns() - since_ns;
	printf("sink: %lu.%03lu s\n", ns / 1000000000, ns / 1000000 % 1000);
	for (int p = 0; p < nic_count; p++)
		for (int q = 0; q < nics[p]->nqueues; q++) {
			struct sink_count *c = &counts[p][q];
			if (!app_runs_on(&app_sink, p) && !c->packets)
				continue;	/* a port that ran sink before a run-time switch keeps its line */
			char prefix[48];	/* "sink ", a port name (16), " q" and a queue number */
			printf("sink %s q%d: %lu packets %lu bytes\n", nics[p]->name, q, c->packets, c->bytes);
			snprintf(prefix, sizeof(prefix), "sink %s q%d", nics[p]->name, q);
			vlan_table_print(&c->vlans, prefix);
		}
	return 0;
}
SHELL_CMD(sink, "sink", "sink | sink clear", "packets and bytes counted by the sink app", cmd_sink);
