/* Unit tests for the sink app's receive (apps/sink/sink.c, included for
 * its counts): bursts whose frames four at a time go through one EtherType
 * test (none_tagged4) count every frame and byte, and every tagged frame
 * in its VLAN, wherever it sits in a group or in the tail, with each TPID;
 * a frame too short for a tag whose buffer holds a TPID at bytes 12-13 is
 * counted untagged; every frame is freed once. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "apps/sink/sink.c"

struct nic *nics[NIC_MAX_PORTS];
int nic_count;
static int freed;

int app_runs_on(const struct app *a, int port)
{
	(void)a;
	(void)port;
	return 1;
}

uint64_t now_ns(void)
{
	return 0;
}

void pkt_free_bulk(struct pkt **p, int n)
{
	(void)p;
	freed += n;
}

#define NF 23
static uint8_t bufs[NF][128];
static struct pkt frames[NF];
static struct pkt *burst[NF];

/* Frame i: len bytes, untagged IPv4, or under a tag of TPID tpid and VID
 * vid (QinQ: an outer tag of TPID tpid, VID 22, then a C-tag with vid). */
static void frame(int i, uint16_t len, uint16_t tpid, uint16_t vid, int qinq)
{
	uint8_t *d = bufs[i];
	memset(d, 0, sizeof(bufs[i]));
	put16(d + 12, tpid ? tpid : 0x0800);
	if (tpid) {
		put16(d + 14, qinq ? 22 : vid);
		put16(d + 16, qinq ? ETHERTYPE_VLAN : 0x0800);
		if (qinq) {
			put16(d + 18, vid);
			put16(d + 20, 0x0800);
		}
	}
	frames[i] = (struct pkt){ .data = d, .len = len, .buf = d };
	burst[i] = &frames[i];
}

static const struct vlan_count *vlan_of(const struct vlan_table *t, uint16_t outer, uint16_t inner)
{
	for (int i = 0; i < t->n; i++)
		if (t->e[i].outer == outer && t->e[i].inner == inner)
			return &t->e[i];
	return NULL;
}

static struct nic port0 = { .port = 0, .nqueues = 1 };

/* Bursts of every length 1-23 (each number of groups of four and each
 * tail length), one tagged frame in each group of four, at lane g % 4 of
 * group g (so each lane alone), its TPID in turn 0x8100, 0x88a8 (QinQ)
 * and 0x9100; the tail's frame at that lane tagged too when there is one. */
static void test_groups_and_tail(void **state)
{
	(void)state;
	for (int n = 1; n <= NF; n++) {
		memset(counts, 0, sizeof(counts));
		freed = 0;
		uint64_t bytes = 0, vlan100 = 0, qinq = 0, vlan7 = 0;
		for (int i = 0; i < n; i++) {
			uint16_t len = (uint16_t)(60 + i);
			int g = i / 4;
			if (i % 4 != g % 4)
				frame(i, len, 0, 0, 0);
			else if (g % 3 == 0 && ++vlan100)
				frame(i, len, ETHERTYPE_VLAN, 100, 0);
			else if (g % 3 == 1 && ++qinq)
				frame(i, len, ETHERTYPE_QINQ, 100, 1);
			else if (++vlan7)
				frame(i, len, ETHERTYPE_QINQ_OLD, 7, 0);
			bytes += len;
		}
		sink_rx(&port0, 0, burst, n);
		const struct sink_count *c = &counts[0][0];
		assert_int_equal(c->packets, n);
		assert_int_equal(c->bytes, bytes);
		assert_int_equal(freed, n);
		const struct vlan_count *v = vlan_of(&c->vlans, 100, VLAN_NONE);
		assert_int_equal(v ? v->frames : 0, vlan100);
		v = vlan_of(&c->vlans, 22, 100);
		assert_int_equal(v ? v->frames : 0, qinq);
		v = vlan_of(&c->vlans, 7, VLAN_NONE);
		assert_int_equal(v ? v->frames : 0, vlan7);
		assert_int_equal(c->vlans.n, (vlan100 > 0) + (qinq > 0) + (vlan7 > 0));
	}
}

/* Frames of 12 and 17 bytes whose buffers hold 0x8100 at bytes 12-13 (in
 * a group with a real tag, and in the tail): no tag counted for them. */
static void test_short_frame_with_tpid_in_buffer(void **state)
{
	(void)state;
	memset(counts, 0, sizeof(counts));
	freed = 0;
	frame(0, 64, 0, 0, 0);
	frame(1, 12, ETHERTYPE_VLAN, 5, 0);
	frame(2, 64, ETHERTYPE_VLAN, 9, 0);
	frame(3, 64, 0, 0, 0);
	frame(4, 17, ETHERTYPE_VLAN, 5, 0);
	sink_rx(&port0, 0, burst, 5);
	const struct sink_count *c = &counts[0][0];
	assert_int_equal(c->packets, 5);
	assert_int_equal(c->bytes, 64 * 3 + 12 + 17);
	assert_int_equal(c->vlans.n, 1);
	assert_non_null(vlan_of(&c->vlans, 9, VLAN_NONE));
	assert_int_equal(vlan_of(&c->vlans, 9, VLAN_NONE)->frames, 1);
	assert_int_equal(freed, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups_and_tail),
		cmocka_unit_test(test_short_frame_with_tpid_in_buffer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
