/* Unit tests for the mirror port (mirror=, drivers/net/capture.c, included
 * for its taps and its knob's parser) on stand-in ports: port0's driver
 * hands out the frames a test puts in its RX queue and its TX ring takes
 * src_room of a burst; port1, the mirror's destination, takes dst_room
 * copies and keeps them (its "wire"); its pool (net/pkt.c) can be made to
 * run short. Every frame of the source in the mirrored directions ends
 * mirrored (on port1's wire, byte for byte, in order) or dropped, never
 * both, and no copy leaks: mirrored + dropped = frames seen. The port
 * clocks and the ring's DMA memory are stubbed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>
#include "drivers/net/capture.c"

uint64_t fuzz_tsc = 1000;

void *dma_alloc_below(size_t bytes, size_t align, uint64_t limit)
{
	(void)limit;
	return aligned_alloc(align, (bytes + align - 1) / align * align);
}

void *dma_alloc(size_t bytes, size_t align)
{
	return dma_alloc_below(bytes, align ? align : 8, 0);
}

void dma_free(void *p, size_t bytes)
{
	(void)bytes;
	free(p);
}

static struct phc clk;
struct phc *phc_of(struct nic *nic)
{
	(void)nic;
	return &clk;
}
int64_t phc_sw_stamp(struct phc *c, uint64_t tsc)
{
	(void)c;
	return (int64_t)tsc;
}
int phc_tx_tstamp_peek(struct phc *c, uint32_t seq, int64_t *ns)
{
	(void)c, (void)seq, (void)ns;
	return -1;
}

#define SRC_POOL 64
#define DST_POOL 64
static struct pkt *rxq[NIC_BURST_MAX];	/* port0's next RX burst */
static int nrx, src_room, dst_room, dst_q;
static struct pkt *wire[DST_POOL];	/* copies port1 took, in order */
static int nwire;

static int src_rx(struct nic *nic, int q, struct pkt **pkts, int n)
{
	(void)nic, (void)q;
	n = n < nrx ? n : nrx;
	memcpy(pkts, rxq, (size_t)n * sizeof(*pkts));
	nrx = 0;
	return n;
}

static int src_tx(struct nic *nic, int q, struct pkt **pkts, int n)
{
	(void)nic, (void)q, (void)pkts;
	return n < src_room ? n : src_room;
}

static int dst_tx(struct nic *nic, int q, struct pkt **pkts, int n)
{
	(void)nic;
	dst_q = q;
	n = n < dst_room ? n : dst_room;
	for (int i = 0; i < n; i++)
		wire[nwire++] = pkts[i];
	dst_room -= n;
	return n;
}

static const struct nic_ops src_ops = { .rx_burst = src_rx, .tx_burst = src_tx };
static const struct nic_ops dst_ops = { .tx_burst = dst_tx };
static struct nic port0 = { .name = "port0", .port = 0, .ops = &src_ops, .nqueues = 4 };
static struct nic port1 = { .name = "port1", .port = 1, .ops = &dst_ops, .nqueues = 2 };
struct nic *nics[NIC_MAX_PORTS] = { &port0, &port1 };
int nic_count = 2;

/* n frames from port0's pool, frame i of 60 + i bytes filled with tag + i. */
static void frames(struct pkt **p, int n, uint8_t tag)
{
	for (int i = 0; i < n; i++) {
		assert_non_null(p[i] = pkt_alloc(port0.pool));
		p[i]->len = (uint16_t)(60 + i);
		memset(p[i]->data, tag + i, p[i]->len);
	}
}

/* The copy on port1's wire at w is frame i of frames(.., tag). */
static void on_wire(int w, int i, uint8_t tag)
{
	assert_true(w < nwire);
	assert_ptr_equal(wire[w]->pool, port1.pool);
	assert_int_equal(wire[w]->len, 60 + i);
	for (int b = 0; b < wire[w]->len; b++)
		assert_int_equal(wire[w]->data[b], (uint8_t)(tag + i));
}

/* port1's wire emptied back into its pool. */
static void wire_free(void)
{
	pkt_free_bulk(wire, nwire);
	nwire = 0;
}

/* mirror= through its parser, then mirror_start on fresh pools; the
 * tap's counters zero. */
static int setup(const char *knob)
{
	char err[96];
	if (parse_mirror(knob, err, sizeof(err)))
		return -1;
	port0.pool = pktpool_create("port0", SRC_POOL, PKT_SLOT);
	port1.pool = pktpool_create("port1", DST_POOL, PKT_SLOT);
	port0.ops = &src_ops;
	memset(taps, 0, sizeof(taps));
	nrx = nwire = 0;
	src_room = dst_room = 1000;
	mirror_start();
	return port0.pool && port1.pool && port0.ops == &taps[0].ops ? 0 : -1;
}

static int setup_both(void **state)
{
	(void)state;
	return setup("0:1");
}

static int setup_rx(void **state)
{
	(void)state;
	return setup("0:1,rx");
}

static int teardown(void **state)
{
	(void)state;
	wire_free();
	pktpool_destroy(port0.pool);
	pktpool_destroy(port1.pool);
	return 0;
}

/* An RX burst of 8 whose copies find room for 3 in port1's TX ring: 3 go
 * out (the first three, on port1's queue 3 % 2), 5 are dropped, and the
 * 5 copies port1 did not take are back in its pool; port0's frames are
 * its own still (not freed, not changed). */
static void test_tx_ring_full(void **state)
{
	(void)state;
	struct pkt *got[NIC_BURST_MAX];
	frames(rxq, 8, 0x10);
	nrx = 8;
	dst_room = 3;
	assert_int_equal(port0.ops->rx_burst(&port0, 3, got, NIC_BURST_MAX), 8);
	assert_memory_equal(got, rxq, 8 * sizeof(got[0]));
	assert_int_equal(taps[0].mirrored, 3);
	assert_int_equal(taps[0].mirror_dropped, 5);
	assert_int_equal(nwire, 3);
	assert_int_equal(dst_q, 1);
	for (int i = 0; i < 3; i++)
		on_wire(i, i, 0x10);
	assert_int_equal(port1.pool->nfree, DST_POOL - 3);
	assert_int_equal(port0.pool->nfree, SRC_POOL - 8);
	assert_int_equal(got[7]->data[0], 0x17);
	pkt_free_bulk(got, 8);
}

/* port1's pool with 2 buffers left: a burst of 8 mirrors 2, drops 6 (its
 * pool counts the failed allocation once: the copy loop stops there); the
 * next burst, after the wire gave its buffers back, is mirrored whole. */
static void test_pool_empty(void **state)
{
	(void)state;
	struct pkt *hold[DST_POOL - 2], *got[NIC_BURST_MAX];
	assert_int_equal(pkt_alloc_bulk(port1.pool, hold, DST_POOL - 2), DST_POOL - 2);
	frames(rxq, 8, 0x20);
	nrx = 8;
	assert_int_equal(port0.ops->rx_burst(&port0, 0, got, NIC_BURST_MAX), 8);
	assert_int_equal(taps[0].mirrored, 2);
	assert_int_equal(taps[0].mirror_dropped, 6);
	assert_int_equal(port1.pool->alloc_failed, 1);
	on_wire(0, 0, 0x20);
	on_wire(1, 1, 0x20);
	assert_int_equal(port1.pool->nfree, 0);
	pkt_free_bulk(hold, DST_POOL - 2);
	wire_free();
	pkt_free_bulk(got, 8);

	frames(rxq, 8, 0x30);
	nrx = 8;
	assert_int_equal(port0.ops->rx_burst(&port0, 0, got, NIC_BURST_MAX), 8);
	assert_int_equal(taps[0].mirrored, 10);
	assert_int_equal(taps[0].mirror_dropped, 6);
	for (int i = 0; i < 8; i++)
		on_wire(i, i, 0x30);
	pkt_free_bulk(got, 8);
}

/* Both directions over 60 bursts that meet a short ring now and then: RX
 * bursts of 1..32 frames and TX bursts of which port0's own ring takes
 * part (only what it took is sent, so only that is mirrored), port1's
 * room set anew every third burst. Each burst: the copies port1 had room
 * for are mirrored, the rest dropped, exactly; over all, mirrored +
 * dropped = frames seen, mirrored = the copies on port1's wire, and
 * port1's pool holds every other buffer. */
static void test_both_directions_account(void **state)
{
	(void)state;
	uint64_t seen = 0, m0, d0;
	int wired = 0;
	struct pkt *p[NIC_BURST_MAX];
	for (int b = 0; b < 60; b++) {
		int n = 1 + (b * 7) % NIC_BURST_MAX, took;
		if (b % 3 == 0) {
			wired += nwire;
			wire_free();
			dst_room = (b * 5) % 40;
		}
		int room = dst_room;
		m0 = taps[0].mirrored;
		d0 = taps[0].mirror_dropped;
		frames(p, n, (uint8_t)b);
		if (b % 2) {
			memcpy(rxq, p, (size_t)n * sizeof(p[0]));
			nrx = n;
			took = port0.ops->rx_burst(&port0, b % 4, p, NIC_BURST_MAX);
			assert_int_equal(took, n);
		} else {
			src_room = b % 5 ? n : n / 2;
			took = port0.ops->tx_burst(&port0, b % 4, p, n);
			assert_int_equal(took, src_room);
		}
		int m = took < room ? took : room;
		assert_int_equal(taps[0].mirrored - m0, m);
		assert_int_equal(taps[0].mirror_dropped - d0, took - m);
		for (int i = 0; i < m; i++)
			on_wire(nwire - m + i, i, (uint8_t)b);
		pkt_free_bulk(p, n);
		seen += (uint64_t)took;
		assert_int_equal(taps[0].mirrored + taps[0].mirror_dropped, seen);
		assert_int_equal(taps[0].mirrored, wired + nwire);
		assert_int_equal(port1.pool->nfree, DST_POOL - nwire);
	}
	assert_true(taps[0].mirror_dropped > 100);
	assert_true(taps[0].mirrored > 100);
	assert_int_equal(port0.pool->nfree, SRC_POOL);
}

/* mirror=0:1,rx: port0's TX bursts are not mirrored (nor counted). */
static void test_rx_only(void **state)
{
	(void)state;
	struct pkt *p[4];
	frames(p, 4, 0x40);
	assert_int_equal(port0.ops->tx_burst(&port0, 0, p, 4), 4);
	assert_int_equal(taps[0].mirrored + taps[0].mirror_dropped, 0);
	memcpy(rxq, p, sizeof(p));
	nrx = 4;
	dst_room = 1;
	assert_int_equal(port0.ops->rx_burst(&port0, 0, p, 4), 4);
	assert_int_equal(taps[0].mirrored, 1);
	assert_int_equal(taps[0].mirror_dropped, 3);
	on_wire(0, 0, 0x40);
	pkt_free_bulk(p, 4);
}

/* The console's line (capture mirror) with the counts. */
static void test_print(void **state)
{
	(void)state;
	struct pkt *got[NIC_BURST_MAX];
	frames(rxq, 5, 0x50);
	nrx = 5;
	dst_room = 2;
	assert_int_equal(port0.ops->rx_burst(&port0, 0, got, NIC_BURST_MAX), 5);
	pkt_free_bulk(got, 5);
	char line[128] = "";
	FILE *f = tmpfile();
	assert_non_null(f);
	fflush(stdout);
	int saved = dup(1);
	dup2(fileno(f), 1);
	mirror_print();
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_string_equal(line, "mirror: port0 -> port1: mirrored 2, dropped 3 (no buffer or TX descriptor)\n");
}

/* The knob's refusals. */
static void test_knob_refusals(void **state)
{
	(void)state;
	char err[96];
	static const char *const bad[] = { "0:0", "0", "0:1,sideways", "8:1", "-1:2", "0:1,", "a:b" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		assert_int_equal(parse_mirror(bad[i], err, sizeof(err)), -1);
		assert_string_equal(err, "not SRC:DST[,rx|tx|both] with two different ports 0-7");
	}
	assert_int_equal(parse_mirror("2:5,tx", err, sizeof(err)), 0);
	show_mirror(err, sizeof(err));
	assert_string_equal(err, "2:5,tx");
	assert_int_equal(parse_mirror("off", err, sizeof(err)), 0);
	show_mirror(err, sizeof(err));
	assert_string_equal(err, "off");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tx_ring_full, setup_both, teardown),
		cmocka_unit_test_setup_teardown(test_pool_empty, setup_both, teardown),
		cmocka_unit_test_setup_teardown(test_both_directions_account, setup_both, teardown),
		cmocka_unit_test_setup_teardown(test_rx_only, setup_rx, teardown),
		cmocka_unit_test_setup_teardown(test_print, setup_both, teardown),
		cmocka_unit_test(test_knob_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
