/* The virtio-net driver (drivers/net/virtio/) against the device of
 * tests/regmodel/virtio_model.c: the 3.1.1 status sequence on a good
 * device, then a device that lies in each way the issue names (bad
 * capabilities, queue sizes, features, FEATURES_OK, DEVICE_NEEDS_RESET,
 * used ids never posted, lengths past the buffer, a used index beyond the
 * ring): the driver refuses the device or counts the entry with a named
 * reason, never follows it, and every buffer goes home. The TX fast path
 * (slot = buffer id, batch reclaim, EVENT_IDX kick suppression) with exact
 * counts; RSS with HASH_REPORT through the control queue; a configuration
 * interrupt storm; packed rings across their wraps and their lies.
 * Offsets here are the specification's, not the driver's. */
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "drivers/net/virtio/net.c"
#include "tests/regmodel/model.h"
#include "tests/regmodel/virtio_model.h"

extern struct nic *model_nic;

enum { S_ACK = 1, S_DRIVER = 2, S_DRIVER_OK = 4, S_FEATURES_OK = 8, S_NEEDS_RESET = 64, S_FAILED = 128 };

static int probe(void)
{
	return model_probe(&pci_driver_virtio_net, 0x1041);
}

static struct vnet_port *port(void)
{
	return to_vnet(model_nic);
}

static uint64_t stat(enum nic_stat s)
{
	nic_stats_fold(model_nic);
	return model_nic->stats[s];
}

/* A 60-byte frame whose bytes from 12 on count from seed. */
static void frame(uint8_t *f, uint8_t seed)
{
	static const uint8_t dst[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	memcpy(f, dst, 6);
	memset(f + 6, 0x02, 6);
	for (int i = 12; i < 60; i++)
		f[i] = (uint8_t)(seed + i);
}

/* A good device: ACKNOWLEDGE, DRIVER, FEATURES_OK (read back), DRIVER_OK;
 * the features offered and wanted; both queues enabled at the rxd/txd
 * size (128 of 256), every RX buffer made available, TX's avail ring
 * naming slot i as buffer i. */
static void test_probe_good(void **st)
{
	(void)st;
	vmodel_init();
	assert_int_equal(probe(), 0);
	assert_int_equal(V.status, S_ACK | S_DRIVER | S_FEATURES_OK | S_DRIVER_OK);
	assert_int_equal(V.driver_features, V.s.features);
	assert_int_equal(V.q[0].size, 128);
	assert_int_equal(V.q[1].size, 128);
	assert_int_equal(V.q[0].enable, 1);
	assert_int_equal(V.q[1].enable, 1);
	assert_int_equal(V.q[0].msix, VIRTIO_MSI_NO_VECTOR);	/* poll=busy: no RX vector */
	assert_int_equal(((uint16_t *)(uintptr_t)V.q[0].avail)[1], 128);
	for (uint16_t i = 0; i < 128; i++)
		assert_int_equal(((uint16_t *)(uintptr_t)V.q[1].avail)[2 + i], i);
	assert_int_equal(V.bad_access, 0);
	assert_int_equal(model_nic->link_up, 1);
	assert_true(model_console_has("MAC 52:54:00:12:34:56"));
	assert_true(model_console_has("VERSION_1 MAC STATUS CSUM GUEST_CSUM EVENT_IDX MTU"));
}

/* A capability whose structure ends past its BAR, or names a BAR that
 * is not mapped: the device is refused with the structure named. */
static void test_cap_outside_bar(void **st)
{
	(void)st;
	vmodel_init();
	uint32_t off = 0x20000 - 0x10;	/* BAR 0 is 128 KiB; the common structure is 0x3c long */
	memcpy(&M.cfg[vmodel_cap(1) + 8], &off, 4);
	assert_int_equal(probe(), -1);
	assert_true(model_console_has("no usable virtio common configuration capability"));
	assert_int_equal(V.resets, 0);	/* never touched */

	vmodel_init();
	M.cfg[vmodel_cap(3) + 4] = 4;	/* ISR in BAR 4: not mapped */
	assert_int_equal(probe(), -1);
	assert_true(model_console_has("no usable virtio ISR configuration capability"));

	vmodel_init();
	M.cfg[vmodel_cap(4) + 4] = 7;	/* BAR 7 does not exist */
	assert_int_equal(probe(), -1);
	assert_true(model_console_has("no usable virtio device configuration capability"));
}

/* A capability list that loops back on itself ends (bounded walk). */
static void test_cap_loop(void **st)
{
	(void)st;
	vmodel_init();
	M.cfg[vmodel_cap(2) + 1] = vmodel_cap(1);	/* notify -> common: ISR and device never reached */
	assert_int_equal(probe(), -1);
	assert_true(model_console_has("no usable virtio ISR configuration capability"));
}

/* Queue size 0 and 100 (not a power of two): refused, device FAILED. */
static void test_queue_size(void **st)
{
	(void)st;
	static const uint16_t bad[] = { 0, 100 };
	for (int i = 0; i < 2; i++) {
		vmodel_init();
		V.s.qsize[1] = bad[i];
		assert_int_equal(probe(), -1);
		char msg[96];
		snprintf(msg, sizeof(msg), "virtqueue 1 has size %u: not a power of two", bad[i]);
		assert_true(model_console_has(msg));
		assert_true(V.status_seen & S_FAILED);
		assert_false(V.status_seen & S_DRIVER_OK);
	}
}

/* Without VERSION_1 the header and ring layout are not 1.x's: refused. */
static void test_no_version_1(void **st)
{
	(void)st;
	vmodel_init();
	V.s.features &= ~(1ull << 32);
	assert_int_equal(probe(), -1);
	assert_true(model_console_has("the device does not offer VIRTIO_F_VERSION_1"));
	assert_true(V.status_seen & S_FAILED);
	assert_false(V.status_seen & S_DRIVER_OK);
}

/* FEATURES_OK not read back (3.1.1 step 6): refused, FAILED, no queue set up. */
static void test_features_ok_refused(void **st)
{
	(void)st;
	vmodel_init();
	V.s.refuse_features_ok = 1;
	assert_int_equal(probe(), -1);
	assert_true(model_console_has("the device refused features"));
	assert_true(V.status_seen & S_FAILED);
	assert_false(V.status_seen & S_DRIVER_OK);
	assert_int_equal(V.q[0].enable, 0);
}

/* A queue's MSI-X vector not taken: refused (interrupt mode napi). */
static void test_msix_refused(void **st)
{
	(void)st;
	vmodel_init();
	V.s.refuse_msix = 1;
	nic_cfg.poll[0] = POLL_NAPI;
	int r = probe();
	nic_cfg.poll[0] = POLL_BUSY;
	assert_int_equal(r, -1);
	assert_true(model_console_has("virtqueue 0 refused MSI-X vector 0"));
}

/* n frames into RX queue 0 and one burst: the frames delivered. */
static int rx(int n, struct pkt **out)
{
	uint8_t f[60];
	for (int i = 0; i < n; i++) {
		frame(f, (uint8_t)i);
		assert_int_equal(vmodel_rx(0, f, 60, 0), 1);
	}
	return model_nic->ops->rx_burst(model_nic, 0, out, 32);
}

/* Good frames: delivered whole, counted once each; buffers come home. */
static void test_rx_good(void **st)
{
	(void)st;
	vmodel_init();
	assert_int_equal(probe(), 0);
	uint32_t home = model_nic->pool->nfree;
	struct pkt *out[32];
	assert_int_equal(rx(5, out), 5);
	uint8_t f[60];
	for (int i = 0; i < 5; i++) {
		frame(f, (uint8_t)i);
		assert_int_equal(out[i]->len, 60);
		assert_memory_equal(out[i]->data, f, 60);
	}
	pkt_free_bulk(out, 5);
	assert_int_equal(model_nic->q[0].rx_packets, 5);
	assert_int_equal(stat(NS_rx_delivered), 5);
	assert_int_equal(model_nic->pool->nfree, home);
	assert_int_equal(((uint16_t *)(uintptr_t)V.q[0].avail)[1], 128 + 5);	/* posted again */
}

/* In-order returns (QEMU's): 3 rounds of 100 frames over the ring of
 * 128, so the run wraps: every frame whole and in order, avail slot i
 * still naming buffer i (not rewritten) and the queue not ooo. Then two
 * buffers returned out of order: both delivered in the device's order,
 * the queue ooo (the checked run from then on), frames flow, every buffer
 * home. */
static void test_rx_in_order_runs(void **st)
{
	(void)st;
	vmodel_init();
	assert_int_equal(probe(), 0);
	uint32_t home = model_nic->pool->nfree;
	struct vnet_port *v = port();
	struct pkt *out[32];
	uint8_t f[60];
	int seed = 0;
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 100; i++) {
			frame(f, (uint8_t)(seed + i));
			assert_int_equal(vmodel_rx(0, f, 60, 2), 1);	/* DATA_VALID */
		}
		for (int got = 0; got < 100;) {
			int k = model_nic->ops->rx_burst(model_nic, 0, out, 32);
			assert_true(k > 0);
			for (int i = 0; i < k; i++) {
				frame(f, (uint8_t)(seed + got + i));
				assert_int_equal(out[i]->len, 60);
				assert_memory_equal(out[i]->data, f, 60);
				assert_int_equal(out[i]->flags, PKT_RX_L4_CSUM_OK);
			}
			pkt_free_bulk(out, k);
			got += k;
		}
		seed += 100;
		assert_int_equal(v->rxq[0].ooo, 0);
		for (uint16_t i = 0; i < 128; i++)
			assert_int_equal(v->rxq[0].avail->ring[i], i);
		assert_int_equal(model_nic->pool->nfree, home);
	}
	assert_int_equal(stat(NS_rx_csum_offload_good), 300);
	uint16_t ids[2];
	assert_int_equal(vmodel_take(0, ids, 2), 2);
	uint8_t *b[2];
	for (int i = 0; i < 2; i++) {
		b[i] = (uint8_t *)(uintptr_t)v->rxq[0].desc[ids[i]].addr;
		memset(b[i], 0, 12);
		b[i][10] = 1;	/* num_buffers */
		frame(b[i] + 12, (uint8_t)(200 + i));
	}
	vmodel_use(0, ids[1], 72);
	vmodel_use(0, ids[0], 72);
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, out, 32), 2);
	for (int i = 0; i < 2; i++) {
		frame(f, (uint8_t)(201 - i));
		assert_memory_equal(out[i]->data, f, 60);
	}
	pkt_free_bulk(out, 2);
	assert_int_equal(v->rxq[0].ooo, 1);
	assert_int_equal(rx(3, out), 3);
	pkt_free_bulk(out, 3);
	assert_int_equal(model_nic->pool->nfree, home);
	assert_int_equal(stat(NS_rx_delivered), 305);
	assert_int_equal(stat(NS_rx_drop_desc_error) + stat(NS_rx_drop_oversize), 0);
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;
	return (x > y) - (x < y);
}

/* Each buffer of the pool's free stack and of held[0..n) there once:
 * none freed twice. */
static void distinct(struct pkt *const *held, uint32_t n)
{
	struct pktpool *pool = model_nic->pool;
	struct pkt **all = malloc((pool->nfree + n) * sizeof(*all));
	assert_non_null(all);
	memcpy(all, pool->free, pool->nfree * sizeof(*all));
	if (n)
		memcpy(all + pool->nfree, held, n * sizeof(*all));
	qsort(all, pool->nfree + n, sizeof(*all), cmp_ptr);
	for (uint32_t i = 1; i < pool->nfree + n; i++)
		assert_ptr_not_equal(all[i - 1], all[i]);
	free(all);
}

/* Frames shorter than NIC_TX_MIN_LEN (QEMU delivers them as short as the
 * socket gave them): delivered whole, in order, and counted in rx_short
 * (rx_short_counted, so fwd skips its runt check while the count stands);
 * the in-order run stops at each and goes on after it. Then the same
 * across the ring's end, a short frame in the run after it: the fresh
 * buffers not taken go back to the pool, none lost. */
static void test_rx_short(void **st)
{
	(void)st;
	vmodel_init();
	assert_int_equal(probe(), 0);
	assert_int_equal(model_nic->rx_short_counted, 1);
	uint32_t home = model_nic->pool->nfree;
	static const uint16_t lens[6] = { 60, 14, 60, 16, 17, 1 };
	uint8_t f[60];
	for (int i = 0; i < 6; i++) {
		frame(f, (uint8_t)i);
		assert_int_equal(vmodel_rx(0, f, lens[i], 0), 1);
	}
	struct pkt *out[32];
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, out, 32), 6);
	for (int i = 0; i < 6; i++) {
		frame(f, (uint8_t)i);
		assert_int_equal(out[i]->len, lens[i]);
		assert_memory_equal(out[i]->data, f, lens[i]);
	}
	pkt_free_bulk(out, 6);
	assert_int_equal(model_nic->q[0].rx_short, 3);
	assert_int_equal(model_nic->q[0].rx_packets, 6);
	assert_int_equal(model_nic->q[0].rx_bytes, 60 + 14 + 60 + 16 + 17 + 1);
	assert_int_equal(stat(NS_rx_delivered), 6);
	assert_int_equal(port()->rxq[0].ooo, 0);
	assert_int_equal(model_nic->pool->nfree, home);
	for (int round = 0; round < 4; round++) {
		assert_int_equal(rx(30, out), 30);
		pkt_free_bulk(out, 30);
	}
	assert_int_equal(port()->rxq[0].last_used, 126);
	for (int i = 0; i < 8; i++) {
		frame(f, (uint8_t)i);
		assert_int_equal(vmodel_rx(0, f, i == 5 ? 15 : 60, 0), 1);	/* slot 131: the second run */
	}
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, out, 32), 8);
	for (int i = 0; i < 8; i++) {
		frame(f, (uint8_t)i);
		assert_int_equal(out[i]->len, i == 5 ? 15 : 60);
		assert_memory_equal(out[i]->data, f, out[i]->len);
	}
	pkt_free_bulk(out, 8);
	assert_int_equal(model_nic->q[0].rx_short, 4);
	assert_int_equal(stat(NS_rx_delivered), 6 + 120 + 8);
	assert_int_equal(model_nic->pool->nfree, home);
	distinct(port()->rxq[0].bufs, 128);
}

/* The in-order run's groups of four (rx_grp_common) against the frame
 * one at a time: 15 frames from slot 0, the shortest and longest common
 * lengths (NIC_TX_MIN_LEN 17, 1518) in the first group, a frame with a
 * flag other than DATA_VALID (RSC_INFO) third in the second group, one
 * longer than 1518 in the third, one of 16 bytes in the fourth: each frame delivered
 * whole with its length, port, queue, clones 0 and flags, the other
 * three through the checked path (the long one dropped as oversize, the
 * short one in rx_short), rx_bytes and rx_csum_offload_good exact, every
 * buffer home, the queue still in order. Then 40 frames (ten groups, the
 * ring's end between two runs): the same, counted. */
static void test_rx_groups(void **st)
{
	(void)st;
	vmodel_init();
	assert_int_equal(probe(), 0);
	uint32_t home = model_nic->pool->nfree;
	static const uint16_t lens[15] = { 17, 1518, 61, 1000, 64, 128, 60, 70, 1519, 60, 60, 60, 60, 16, 60 };
	static const uint8_t flags[15] = { 2, 0, 2, 2, 0, 2, 4, 2, 0, 2, 0, 2, 2, 2, 2 };
	static uint8_t f[1519];
	uint64_t bytes = 0, valid = 0;
	for (int i = 0; i < 15; i++) {
		memset(f, 0, sizeof(f));
		frame(f, (uint8_t)i);
		f[lens[i] - 1] ^= 0xa5;	/* the last byte marks the length */
		assert_int_equal(vmodel_rx(0, f, lens[i], flags[i]), 1);
		bytes += lens[i];
		valid += flags[i] == 2 && lens[i] <= 1518;
	}
	struct pkt *out[32];
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, out, 32), 14);
	for (int i = 0, k = 0; i < 15; i++) {
		if (lens[i] > 1518)
			continue;
		memset(f, 0, sizeof(f));
		frame(f, (uint8_t)i);
		f[lens[i] - 1] ^= 0xa5;
		assert_int_equal(out[k]->len, lens[i]);
		assert_memory_equal(out[k]->data, f, lens[i]);
		assert_int_equal(out[k]->port, model_nic->port);
		assert_int_equal(out[k]->queue, 0);
		assert_int_equal(out[k]->clones, 0);
		assert_int_equal(out[k]->flags, flags[i] == 2 ? PKT_RX_L4_CSUM_OK : 0);
		k++;
	}
	pkt_free_bulk(out, 14);
	assert_int_equal(model_nic->q[0].rx_packets, 15);
	assert_int_equal(model_nic->q[0].rx_bytes, bytes);
	assert_int_equal(model_nic->q[0].rx_short, 1);
	assert_int_equal(stat(NS_rx_drop_oversize), 1);
	assert_int_equal(stat(NS_rx_csum_offload_good), valid);
	assert_int_equal(stat(NS_rx_delivered), 14);
	assert_int_equal(port()->rxq[0].ooo, 0);
	assert_int_equal(model_nic->pool->nfree, home);
	for (int round = 0; round < 4; round++) {	/* 15 + 4 * 25 = 115: the next 40 cross slot 128 */
		assert_int_equal(rx(25, out), 25);
		pkt_free_bulk(out, 25);
	}
	for (int i = 0; i < 40; i++) {
		frame(f, (uint8_t)i);
		assert_int_equal(vmodel_rx(0, f, 60, 2), 1);
	}
	int got = 0;
	for (int k; got < 40; got += k) {
		k = model_nic->ops->rx_burst(model_nic, 0, out, 32);
		assert_true(k > 0);
		for (int i = 0; i < k; i++) {
			frame(f, (uint8_t)(got + i));
			assert_memory_equal(out[i]->data, f, 60);
			assert_int_equal(out[i]->flags, PKT_RX_L4_CSUM_OK);
		}
		pkt_free_bulk(out, k);
	}
	assert_int_equal(model_nic->q[0].rx_packets, 15 + 100 + 40);
	assert_int_equal(model_nic->q[0].rx_bytes, bytes + 140 * 60);
	assert_int_equal(stat(NS_rx_csum_offload_good), valid + 40);
	assert_int_equal(port()->rxq[0].ooo, 0);
	assert_int_equal(model_nic->pool->nfree, home);
}

/* Used entries that lie: an id never posted (past the ring), a length past
 * the 2048-byte buffer, one shorter than the header, a frame longer than
 * 1518 bytes. Each counted under its reason, none delivered, the good
 * frame after them delivered, no buffer lost or posted twice. */
static void test_rx_lies(void **st)
{
	(void)st;
	vmodel_init();
	assert_int_equal(probe(), 0);
	uint32_t home = model_nic->pool->nfree;
	uint16_t ids[4];
	assert_int_equal(vmodel_take(0, ids, 4), 4);
	vmodel_use(0, 128 + 7, 72);		/* id never posted */
	vmodel_use(0, ids[0], PKT_BUF_SIZE + 1);	/* past the buffer */
	vmodel_use(0, ids[1], 5);		/* shorter than the header */
	vmodel_use(0, ids[2], 12 + 1600);	/* within the buffer, longer than a frame */
	uint8_t *b = (uint8_t *)(uintptr_t)((struct vring_desc *)(uintptr_t)V.q[0].desc)[ids[2]].addr;
	memset(b, 0, 12);
	b[10] = 1;
	struct pkt *out[32];
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, out, 32), 0);
	assert_int_equal(stat(NS_rx_drop_desc_error), 3);
	assert_int_equal(stat(NS_rx_drop_oversize), 1);
	assert_int_equal(stat(NS_rx_delivered), 0);
	assert_int_equal(model_nic->q[0].rx_drops, 3);	/* the id past the ring names no buffer to drop */
	assert_int_equal(model_nic->pool->nfree, home);
	/* ids[3] was taken and never returned; the next frame uses the one after */
	assert_int_equal(rx(1, out), 1);
	assert_int_equal(out[0]->len, 60);
	pkt_free(out[0]);
	assert_int_equal(model_nic->pool->nfree, home);
	/* the three returned buffers were posted again, once each */
	assert_int_equal(((uint16_t *)(uintptr_t)V.q[0].avail)[1], 128 + 3 + 1);
}

/* The used index 200 entries on with a ring of 128 (2.7.14 allows at most
 * 128): nothing taken, the queue not polled as pending; the watchdog
 * names the queue and resets the device; frames flow after it and every
 * buffer is home. TX the same. */
static void test_used_index_jump(void **st)
{
	(void)st;
	for (int qi = 0; qi < 2; qi++) {
		vmodel_init();
		assert_int_equal(probe(), 0);
		uint32_t home = model_nic->pool->nfree;
		struct pkt *out[32];
		vmodel_used_jump(qi, 200);
		if (qi == 0) {
			assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, out, 32), 0);
			assert_false(model_nic->ops->rx_pending(model_nic, 0));
		} else {
			model_nic->ops->tx_clean(model_nic, 0);
		}
		assert_int_equal(port()->rxq[0].broken + port()->txq[0].broken, 200);
		assert_int_equal(stat(NS_tx_errors) + stat(NS_rx_drop_desc_error), 0);
		model_nic->ops->watchdog(model_nic);
		char msg[128];
		snprintf(msg, sizeof(msg), "virtqueue %d: the used index moved 200 entries, past its 128 "
			 "descriptors (virtio 1.2 2.7.14): none taken", qi);
		assert_true(model_console_has(msg));
		assert_true(model_console_has("used ring index past the ring: resetting"));
		assert_int_equal(stat(NS_resets), 1);
		assert_int_equal(V.resets, 4);	/* two at the probe, two in the recovery */
		assert_int_equal(V.status, S_ACK | S_DRIVER | S_FEATURES_OK | S_DRIVER_OK);
		assert_int_equal(port()->rxq[0].broken + port()->txq[0].broken, 0);
		assert_int_equal(rx(2, out), 2);
		pkt_free_bulk(out, 2);
		assert_int_equal(model_nic->pool->nfree, home);
	}
}

/* DEVICE_NEEDS_RESET (2.1.1): the watchdog resets and starts the device
 * again; frames in flight on TX are counted in tx_dropped and every
 * buffer goes home. */
static void test_needs_reset(void **st)
{
	(void)st;
	vmodel_init();
	assert_int_equal(probe(), 0);
	uint32_t home = model_nic->pool->nfree;
	struct pkt *tx[3];
	for (int i = 0; i < 3; i++) {
		tx[i] = pkt_alloc(model_nic->pool);
		tx[i]->len = 60;
		tx[i]->flags = 0;
	}
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, tx, 3), 3);
	V.status |= S_NEEDS_RESET;
	model_nic->ops->watchdog(model_nic);
	assert_true(model_console_has("the device set DEVICE_NEEDS_RESET (virtio 1.2 2.1.1): resetting"));
	assert_int_equal(stat(NS_resets), 1);
	assert_int_equal(stat(NS_tx_dropped), 3);
	assert_int_equal(V.status, S_ACK | S_DRIVER | S_FEATURES_OK | S_DRIVER_OK);
	assert_int_equal(model_nic->pool->nfree, home);
	struct pkt *out[32];
	assert_int_equal(rx(1, out), 1);
	pkt_free(out[0]);
}

static void tx_frames(struct pkt **tx, int n)
{
	for (int i = 0; i < n; i++) {
		tx[i] = pkt_alloc(model_nic->pool);
		assert_non_null(tx[i]);
		frame(tx[i]->data, (uint8_t)i);
		tx[i]->len = 60;
		tx[i]->flags = 0;
	}
}

/* TX: frames go out with a zero header (12 + 60 bytes), in slot order;
 * sent buffers come back at the reclaim, exactly once; used_event is
 * kept half the index space ahead (no TX interrupts). */
static void test_tx_good(void **st)
{
	(void)st;
	vmodel_init();
	assert_int_equal(probe(), 0);
	uint32_t home = model_nic->pool->nfree;
	struct pkt *tx[32];
	tx_frames(tx, 20);
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, tx, 20), 20);
	assert_int_equal(((uint16_t *)(uintptr_t)V.q[1].avail)[1], 20);
	assert_int_equal(vmodel_tx(1), 20);
	static const uint8_t zero[12];
	assert_memory_equal(vmodel_last_hdr, zero, 12);
	assert_int_equal(vmodel_last_len, 72);
	assert_int_equal(model_nic->pool->nfree, home - 20);
	model_nic->ops->tx_clean(model_nic, 0);
	assert_int_equal(model_nic->pool->nfree, home);
	assert_int_equal(port()->txq[0].nfree, 128);
	assert_int_equal(vmodel_used_event(1), (uint16_t)(20 + 0x8000));
	assert_int_equal(model_nic->q[0].tx_packets, 20);
	assert_int_equal(model_nic->q[0].tx_bytes, 20 * 60);	/* the frames', not the headers' */
	assert_int_equal(stat(NS_tx_errors), 0);
}

/* Used entries naming a buffer not in flight: one already returned, and
 * 130, past the ring of 128 (130 mod 128 is slot 2, still in flight).
 * Counted in tx_errors; nothing freed twice or early. */
static void test_tx_lies(void **st)
{
	(void)st;
	vmodel_init();
	assert_int_equal(probe(), 0);
	uint32_t home = model_nic->pool->nfree;
	struct pkt *tx[3];
	uint16_t ids[3];
	tx_frames(tx, 3);
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, tx, 3), 3);
	assert_int_equal(vmodel_take(1, ids, 3), 3);
	vmodel_use(1, ids[0], 0);
	vmodel_use(1, ids[1], 0);
	vmodel_use(1, ids[0], 0);	/* again */
	vmodel_use(1, 130, 0);		/* never a descriptor */
	model_nic->ops->tx_clean(model_nic, 0);
	assert_int_equal(stat(NS_tx_errors), 2);
	assert_int_equal(model_nic->pool->nfree, home - 1);
	assert_int_equal(port()->txq[0].nfree, 127);
	vmodel_use(1, ids[2], 0);
	model_nic->ops->tx_clean(model_nic, 0);
	assert_int_equal(model_nic->pool->nfree, home);
	assert_int_equal(port()->txq[0].nfree, 128);
	assert_int_equal(stat(NS_tx_errors), 2);
}

/* A device that returns buffers out of order: slot 0 still in flight
 * after 1..127 came back. The next burst stops at slot 0 (tx_ring_full),
 * never overwriting it; once 0 is back, frames flow. */
static void test_tx_out_of_order(void **st)
{
	(void)st;
	vmodel_init();
	assert_int_equal(probe(), 0);
	uint32_t home = model_nic->pool->nfree;
	struct pkt *tx[32];
	for (int sent = 0; sent < 128; sent += 32) {
		tx_frames(tx, 32);
		assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, tx, 32), 32);
	}
	uint16_t ids[128];
	assert_int_equal(vmodel_take(1, ids, 128), 128);
	for (int i = 1; i < 128; i++)
		vmodel_use(1, ids[i], 0);
	tx_frames(tx, 1);
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, tx, 1), 0);
	assert_int_equal(stat(NS_tx_ring_full), 1);
	assert_int_equal(port()->txq[0].nfree, 127);
	assert_int_equal(port()->txq[0].ooo, 1);	/* looked up one by one until the ring drains */
	vmodel_use(1, ids[0], 0);
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, tx, 1), 1);
	assert_int_equal(vmodel_tx(1), 1);
	model_nic->ops->tx_clean(model_nic, 0);
	assert_int_equal(port()->txq[0].ooo, 0);
	assert_int_equal(model_nic->pool->nfree, home);
	assert_int_equal(stat(NS_tx_errors), 0);
}

/* The reclaim's id check (tx_ids_off: four entries a round, then a pair,
 * then one) at every place: 10 frames sent, 8 or 7 returned with two
 * neighbours swapped, each pair in turn: the swap is seen (the queue
 * ooo, as it stays while frames are in flight), nothing counted in
 * tx_errors; with the rest returned, every buffer home. */
static void test_tx_ids_each_place(void **st)
{
	(void)st;
	for (int used = 7; used <= 8; used++) {
		for (int at = 0; at + 1 < used; at++) {
			vmodel_init();
			assert_int_equal(probe(), 0);
			uint32_t home = model_nic->pool->nfree;
			struct pkt *tx[10];
			tx_frames(tx, 10);
			assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, tx, 10), 10);
			uint16_t ids[10];
			assert_int_equal(vmodel_take(1, ids, 10), 10);
			uint16_t t = ids[at];
			ids[at] = ids[at + 1];
			ids[at + 1] = t;
			for (int i = 0; i < used; i++)
				vmodel_use(1, ids[i], 0);
			model_nic->ops->tx_clean(model_nic, 0);
			assert_int_equal(port()->txq[0].ooo, 1);
			assert_int_equal(port()->txq[0].nfree, 128 - 10 + used);
			for (int i = used; i < 10; i++)
				vmodel_use(1, ids[i], 0);
			model_nic->ops->tx_clean(model_nic, 0);
			assert_int_equal(port()->txq[0].ooo, 0);
			assert_int_equal(stat(NS_tx_errors), 0);
			assert_int_equal(model_nic->pool->nfree, home);
		}
	}
}

/* In-order returns (QEMU's): 3 rounds of 100 frames over the ring of 128,
 * so bursts and reclaims wrap: each frame in descriptor avail_idx + k
 * (mod 128) with its address and length, freed straight out of bufs,
 * never looked up one by one (ooo stays 0); then a used entry more than
 * those in flight, naming the next slot in order: looked up, counted in
 * tx_errors, nothing freed twice. */
static void test_tx_in_order_runs(void **st)
{
	(void)st;
	vmodel_init();
	assert_int_equal(probe(), 0);
	uint32_t home = model_nic->pool->nfree;
	struct vnet_port *v = port();
	struct pkt *tx[100];
	for (int round = 0; round < 3; round++) {
		uint16_t start = v->txq[0].avail_idx;
		tx_frames(tx, 100);
		for (int i = 0; i < 100; i += 25)
			assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, tx + i, 25), 25);
		for (int i = 0; i < 100; i++) {
			volatile struct vring_desc *d = &v->txq[0].desc[(start + i) & 127];
			assert_ptr_equal((void *)(uintptr_t)d->addr, tx[i]->data - 12);
			assert_int_equal(d->len, 72);
			assert_ptr_equal(v->txq[0].bufs[(start + i) & 127], tx[i]);
		}
		assert_int_equal(vmodel_tx(1), 100);
		model_nic->ops->tx_clean(model_nic, 0);
		assert_int_equal(v->txq[0].ooo, 0);
		assert_int_equal(v->txq[0].nfree, 128);
		assert_int_equal(model_nic->pool->nfree, home);
	}
	assert_int_equal(stat(NS_tx_errors), 0);
	tx_frames(tx, 3);
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, tx, 3), 3);
	assert_int_equal(vmodel_tx(1), 3);
	vmodel_use(1, (v->txq[0].avail_idx) & 127, 0);	/* in order, but never sent */
	model_nic->ops->tx_clean(model_nic, 0);
	assert_int_equal(stat(NS_tx_errors), 1);
	assert_int_equal(model_nic->pool->nfree, home);
}

/* A device reset after in-order runs, whose freed slots keep stale
 * pointers (tx_free_run): exactly the frames still in flight are dropped
 * (tx_dropped), none freed twice, every buffer home. */
static void test_tx_reset_after_runs(void **st)
{
	(void)st;
	vmodel_init();
	assert_int_equal(probe(), 0);
	uint32_t home = model_nic->pool->nfree;
	struct pkt *tx[32];
	for (int i = 0; i < 5; i++) {
		tx_frames(tx, 32);
		assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, tx, 32), 32);
		assert_int_equal(vmodel_tx(1), 32);
	}
	model_nic->ops->tx_clean(model_nic, 0);
	assert_int_equal(port()->txq[0].nfree, 128);
	tx_frames(tx, 20);
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, tx, 20), 20);
	uint16_t ids[7];
	assert_int_equal(vmodel_take(1, ids, 7), 7);
	for (int i = 0; i < 7; i++)
		vmodel_use(1, ids[i], 0);	/* sent in order; the reset's reclaim frees them */
	model_nic->ops->reset(model_nic);
	model_nic->ops->watchdog(model_nic);
	assert_int_equal(stat(NS_resets), 1);
	assert_int_equal(stat(NS_tx_dropped), 13);
	assert_int_equal(stat(NS_tx_errors), 0);
	assert_int_equal(model_nic->pool->nfree, home);
}

/* EVENT_IDX (2.7.10): a kick only when the new avail index passes the
 * device's avail_event: once for a burst crossing it, none while the
 * device keeps it behind (it is processing). */
static void test_tx_kick_suppression(void **st)
{
	(void)st;
	vmodel_init();
	assert_int_equal(probe(), 0);
	uint64_t k0 = model_nic->q[0].tx_kicks;
	struct pkt *tx[4];
	vmodel_set_avail_event(1, 0);	/* wants to hear of entry 0 */
	tx_frames(tx, 4);
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, tx, 4), 4);
	assert_int_equal(model_nic->q[0].tx_kicks, k0 + 1);
	tx_frames(tx, 4);	/* avail_event still 0: entries 4-7 do not cross it */
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, tx, 4), 4);
	assert_int_equal(model_nic->q[0].tx_kicks, k0 + 1);
	vmodel_set_avail_event(1, 9);	/* entry 9: crossed by the burst of 8-11 */
	tx_frames(tx, 4);
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, tx, 4), 4);
	assert_int_equal(model_nic->q[0].tx_kicks, k0 + 2);
	assert_int_equal(vmodel_tx(1), 12);
	model_nic->ops->tx_clean(model_nic, 0);
}

/* RSS with HASH_REPORT on two queue pairs: the control queue's one
 * command, RSS_CONFIG (5.1.6.5.7.1), byte for byte (the hash types
 * IPv4/IPv6 with TCP and UDP, 128 entries alternating the pairs, pair 0
 * for unclassified frames, max_tx_vq 2, the 40-byte key of
 * nic_rss_key_word); then the 20-byte header both ways: a frame's hash in
 * rss_hash with PKT_RX_RSS (none when hash_report is 0), DATA_VALID
 * counted once a frame, a sent frame's hash fields 0. */
static void test_rss_hash_report(void **st)
{
	(void)st;
	vmodel_init();
	V.s.features |= 1u << 17 | 1u << 22 | 1ull << 57 | 1ull << 60;	/* CTRL_VQ, MQ, HASH_REPORT, RSS */
	V.devcfg[8] = 2;		/* max_virtqueue_pairs */
	V.devcfg[17] = 40;		/* rss_max_key_size */
	V.devcfg[18] = 128;		/* rss_max_indirection_table_length */
	V.devcfg[20] = 0xff;		/* supported_hash_types: all nine (5.1.6.4.3.1) */
	V.devcfg[21] = 0x01;
	nic_cfg.queues[0] = 2;
	int r = probe();
	nic_cfg.queues[0] = 1;
	assert_int_equal(r, 0);
	assert_int_equal(model_nic->nqueues, 2);
	assert_true(V.driver_features & 1ull << 57);
	assert_int_equal(V.ctrl.commands, 1);
	assert_int_equal(V.ctrl.class, 4);	/* VIRTIO_NET_CTRL_MQ */
	assert_int_equal(V.ctrl.cmd, 1);	/* VIRTIO_NET_CTRL_MQ_RSS_CONFIG */
	uint8_t want[8 + 2 * 128 + 3 + 40] = { 0x3f, 0, 0, 0, 127, 0, 0, 0 };
	for (int i = 0; i < 128; i++)
		want[8 + 2 * i] = (uint8_t)(i % 2);
	want[8 + 256] = 2;		/* max_tx_vq */
	want[8 + 258] = 40;		/* hash_key_length */
	for (int i = 0; i < 40; i++)
		want[8 + 259 + i] = (uint8_t)((0x5a + (i % 2 ? 0x13 : 0)) + i / 4);	/* 0x6d5a6d5a + i/4 x 0x01010101, low byte first */
	assert_int_equal(V.ctrl.len, sizeof(want));
	assert_memory_equal(V.ctrl.data, want, sizeof(want));

	uint32_t home = model_nic->pool->nfree;
	uint8_t f[60];
	struct pkt *out[32];
	V.s.rx_hash = 0x1234abcd;
	V.s.rx_hash_report = 3;		/* VIRTIO_NET_HASH_REPORT_UDPv4 */
	for (int i = 0; i < 2; i++) {
		frame(f, (uint8_t)i);
		assert_int_equal(vmodel_rx(0, f, 60, 2), 1);	/* DATA_VALID */
	}
	V.s.rx_hash_report = 0;		/* none */
	frame(f, 2);
	assert_int_equal(vmodel_rx(0, f, 60, 0), 1);
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, out, 32), 3);
	for (int i = 0; i < 3; i++) {
		frame(f, (uint8_t)i);
		assert_int_equal(out[i]->len, 60);
		assert_memory_equal(out[i]->data, f, 60);
	}
	assert_int_equal(out[0]->flags, PKT_RX_L4_CSUM_OK | PKT_RX_RSS);
	assert_int_equal(out[0]->rss_hash, 0x1234abcd);
	assert_int_equal(out[1]->flags, PKT_RX_L4_CSUM_OK | PKT_RX_RSS);
	assert_int_equal(out[2]->flags, 0);
	assert_int_equal(stat(NS_rx_csum_offload_good), 2);
	pkt_free_bulk(out, 3);

	struct pkt *tx[1];
	tx_frames(tx, 1);
	memset(tx[0]->data - 20, 0xff, 20);
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, tx, 1), 1);
	assert_int_equal(vmodel_tx(1), 1);
	static const uint8_t zero[20];
	assert_memory_equal(vmodel_last_hdr, zero, 20);
	assert_int_equal(vmodel_last_len, 80);
	model_nic->ops->tx_clean(model_nic, 0);
	assert_int_equal(model_nic->pool->nfree, home);
}

/* A configuration-change interrupt storm (5.1.4: the device raising its
 * config vector 1000 times): each only sets other_pending, and the
 * watchdog, which the poll loop runs at most once a millisecond for it,
 * reads the status once a pass. No change: nothing counted; the link
 * going down and up under storms: link_changes exactly 2, and the state
 * the status field says. */
static void test_config_storm(void **st)
{
	(void)st;
	vmodel_init();
	assert_int_equal(probe(), 0);
	assert_int_equal(model_nic->link_up, 1);
	uint64_t changes = stat(NS_link_changes);
	int resets = V.resets;
	static const int link[] = { 1, 0, 1 };
	for (int k = 0; k < 3; k++) {
		V.devcfg[6] = (uint8_t)link[k];	/* status: VIRTIO_NET_S_LINK_UP */
		for (int i = 0; i < 1000; i++)
			vnet_config_irq(0, model_nic);
		assert_int_equal(model_nic->other_pending, 1);
		model_nic->ops->watchdog(model_nic);
		assert_int_equal(model_nic->other_pending, 0);
		assert_int_equal(model_nic->link_up, link[k]);
	}
	assert_int_equal(stat(NS_link_changes), changes + 2);
	assert_int_equal(V.resets, resets);	/* no reset for a storm */
	assert_int_equal(V.bad_access, 0);
}

/* Packed virtqueues (2.8, VIRTIO_F_RING_PACKED offered, virtio_packed=1):
 * 300 frames received and 300 sent in rounds of 100 over rings of 128,
 * so both wrap counters flip twice: every frame delivered whole and in
 * order, counted once, every buffer home after each round. */
static void test_packed_rx_tx(void **st)
{
	(void)st;
	vmodel_init();
	V.s.features |= 1ull << 34;
	assert_int_equal(probe(), 0);
	assert_true(V.driver_features & 1ull << 34);
	assert_int_equal(port()->rxq[0].packed, 1);
	uint32_t home = model_nic->pool->nfree;
	uint8_t f[60];
	struct pkt *out[32], *tx[100];
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 100; i++) {
			frame(f, (uint8_t)(round * 100 + i));
			assert_int_equal(vmodel_rx(0, f, 60, 0), 1);
		}
		int got = 0;
		for (int tries = 0; got < 100 && tries < 10; tries++) {
			int k = model_nic->ops->rx_burst(model_nic, 0, out, 32);
			for (int i = 0; i < k; i++) {
				frame(f, (uint8_t)(round * 100 + got + i));
				assert_int_equal(out[i]->len, 60);
				assert_memory_equal(out[i]->data, f, 60);
			}
			pkt_free_bulk(out, k);
			got += k;
		}
		assert_int_equal(got, 100);
		tx_frames(tx, 100);
		assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, tx, 100), 100);
		assert_int_equal(vmodel_tx(1), 100);
		assert_int_equal(vmodel_last_len, 72);
		model_nic->ops->tx_clean(model_nic, 0);
		assert_int_equal(model_nic->pool->nfree, home);
	}
	assert_int_equal(model_nic->q[0].rx_packets, 300);
	assert_int_equal(stat(NS_rx_delivered), 300);
	assert_int_equal(model_nic->q[0].tx_packets, 300);
	assert_int_equal(stat(NS_tx_errors), 0);
	assert_int_equal(stat(NS_rx_drop_desc_error), 0);
}

/* A packed ring's lies: a used id never posted (past the ring) and a
 * length past the 2048-byte buffer on RX, a TX used id past the ring:
 * each counted under its name, never followed; the good frame after them
 * delivered, no buffer lost. */
static void test_packed_lies(void **st)
{
	(void)st;
	vmodel_init();
	V.s.features |= 1ull << 34;
	assert_int_equal(probe(), 0);
	uint32_t home = model_nic->pool->nfree;
	uint16_t ids[2];
	assert_int_equal(vmodel_take(0, ids, 2), 2);
	vmodel_use(0, 300, 72);			/* never posted */
	vmodel_use(0, ids[0], 4000);		/* past the buffer */
	uint8_t f[60];
	frame(f, 7);
	assert_int_equal(vmodel_rx(0, f, 60, 0), 1);
	struct pkt *out[32];
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, out, 32), 1);
	assert_memory_equal(out[0]->data, f, 60);
	pkt_free_bulk(out, 1);
	assert_int_equal(stat(NS_rx_drop_desc_error), 2);
	assert_int_equal(stat(NS_rx_delivered), 1);
	struct pkt *tx[2];
	tx_frames(tx, 2);
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, tx, 2), 2);
	assert_int_equal(vmodel_take(1, ids, 2), 2);
	vmodel_use(1, 200, 0);			/* past the ring */
	vmodel_use(1, ids[0], 0);
	vmodel_use(1, ids[1], 0);
	model_nic->ops->tx_clean(model_nic, 0);
	assert_int_equal(stat(NS_tx_errors), 1);
	assert_int_equal(model_nic->pool->nfree, home);	/* RX's ids[1] is still the device's, in its ring */
}

/* Two pairs with VIRTIO_F_RING_RESET (2.6.1): the probe asks for it;
 * pair 1 reset alone (`reset port0 queue 1`) with 3 frames received into
 * its RX ring and not delivered and 4 frames on its TX ring the device
 * never sent, and 2 of each waiting on pair 0: only queues 2 and 3 are
 * reset (queue_reset written, read back 0), no device reset, the link not
 * taken down; pair 1's frames counted exactly (rx_drop_reset 3,
 * tx_dropped 4, queue_1_resets 1), its queues enabled again at 128 with
 * every RX buffer posted; pair 0's frames delivered and sent after it;
 * both pairs carry frames, and every buffer is home. */
static void test_queue_reset(void **st)
{
	(void)st;
	vmodel_init();
	V.s.features |= 1u << 17 | 1u << 22 | 1ull << 40;	/* CTRL_VQ, MQ, RING_RESET */
	V.devcfg[8] = 2;		/* max_virtqueue_pairs */
	nic_cfg.queues[0] = 2;
	int r = probe();
	nic_cfg.queues[0] = 1;
	assert_int_equal(r, 0);
	assert_int_equal(model_nic->nqueues, 2);
	assert_true(V.driver_features & 1ull << 40);
	assert_true(model_console_has(" MQ RING_RESET, MTU 1500"));
	uint32_t home = model_nic->pool->nfree;
	int resets = V.resets;
	uint64_t changes = stat(NS_link_changes);
	uint8_t f[60];
	for (int i = 0; i < 5; i++) {
		frame(f, (uint8_t)i);
		assert_int_equal(vmodel_rx(i < 2 ? 0 : 2, f, 60, 0), 1);
	}
	struct pkt *tx[6], *out[32];
	tx_frames(tx, 6);
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, tx, 2), 2);
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 1, tx + 2, 4), 4);

	assert_int_equal(model_nic->ops->reset_queue(model_nic, 1), 0);
	assert_int_equal(model_nic->other_pending, 1);
	model_nic->ops->watchdog(model_nic);
	assert_true(model_console_has("port0: queue pair 1: reset asked for from the shell: resetting it alone"));
	assert_int_equal(V.queue_resets, 2);
	assert_int_equal(V.resets, resets);
	assert_int_equal(stat(NS_resets), 0);
	assert_int_equal(stat(NS_rx_drop_reset), 3);
	assert_int_equal(stat(NS_tx_dropped), 4);
	assert_int_equal(model_nic->q[1].resets, 1);
	assert_int_equal(model_nic->q[0].resets, 0);
	assert_int_equal(model_nic->link_up, 1);
	assert_int_equal(stat(NS_link_changes), changes);
	for (int qi = 2; qi <= 3; qi++) {
		assert_int_equal(V.q[qi].enable, 1);
		assert_int_equal(V.q[qi].reset, 0);
		assert_int_equal(V.q[qi].size, 128);
	}
	assert_int_equal(((uint16_t *)(uintptr_t)V.q[2].avail)[1], 128);	/* every RX buffer posted again */
	assert_int_equal(((uint16_t *)(uintptr_t)V.q[3].avail)[1], 0);
	assert_int_equal(model_nic->pool->nfree, home - 2);	/* pair 0's 2 frames to send, still in its TX ring */

	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, out, 32), 2);
	pkt_free_bulk(out, 2);
	assert_int_equal(vmodel_tx(1), 2);
	model_nic->ops->tx_clean(model_nic, 0);
	frame(f, 9);
	assert_int_equal(vmodel_rx(2, f, 60, 0), 1);
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 1, out, 32), 1);
	assert_memory_equal(out[0]->data, f, 60);
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 1, out, 1), 1);
	assert_int_equal(vmodel_tx(3), 1);
	model_nic->ops->tx_clean(model_nic, 1);
	assert_int_equal(model_nic->pool->nfree, home);
	assert_int_equal(stat(NS_rx_drop_reset), 3);
	assert_int_equal(stat(NS_tx_dropped), 4);
	assert_int_equal(V.bad_access, 0);
}

/* A queue reset the device never finishes (queue_reset keeps reading 1):
 * said with the queue's registers, then the whole device is reset and
 * frames flow; without RING_RESET offered the request is refused by name
 * and nothing is reset. */
static void test_queue_reset_stuck(void **st)
{
	(void)st;
	vmodel_init();
	V.s.features |= 1ull << 40;
	V.s.stuck_queue_reset = 1;
	assert_int_equal(probe(), 0);
	uint32_t home = model_nic->pool->nfree;
	int resets = V.resets;
	assert_int_equal(model_nic->ops->reset_queue(model_nic, 0), 0);
	model_nic->ops->watchdog(model_nic);
	assert_true(model_console_has("port0: virtqueue 0: queue_reset 1 and queue_enable 0 100 ms after its reset "
				      "(virtio 1.2 4.1.4.3.2: both should read 0)"));
	assert_true(model_console_has("port0: a queue pair not reset: resetting"));
	assert_int_equal(V.queue_resets, 1);
	assert_int_equal(V.resets, resets + 2);	/* recover's reset and vnet_start's */
	assert_int_equal(stat(NS_resets), 1);
	assert_int_equal(model_nic->q[0].resets, 0);
	assert_int_equal(V.status, S_ACK | S_DRIVER | S_FEATURES_OK | S_DRIVER_OK);
	struct pkt *out[32];
	assert_int_equal(rx(2, out), 2);
	pkt_free_bulk(out, 2);
	assert_int_equal(model_nic->pool->nfree, home);

	vmodel_init();
	assert_int_equal(probe(), 0);
	assert_false(V.driver_features & 1ull << 40);
	assert_int_equal(model_nic->ops->reset_queue(model_nic, 0), -1);
	assert_true(model_console_has("port0: the device does not offer VIRTIO_F_RING_RESET"));
	assert_int_equal(model_nic->other_pending, 0);
	model_nic->ops->watchdog(model_nic);
	assert_int_equal(V.queue_resets, 0);
	assert_int_equal(stat(NS_resets), 0);
}

#define F_IN_ORDER (1ull << 35)
#define F_PACKED (1ull << 34)

/* VIRTIO_F_IN_ORDER (2.7.9) asked for when offered with split rings:
 * not with virtio_in_order=0, not when packed rings are taken (offered,
 * virtio_packed=1), and taken with virtio_packed=0; the queues' in_order
 * as negotiated. */
static void test_in_order_negotiated(void **st)
{
	(void)st;
	static const struct { int knob, packed_offered, packed_knob, want; } c[] = {
		{ 1, 0, 1, 1 }, { 0, 0, 1, 0 }, { 1, 1, 1, 0 }, { 1, 1, 0, 1 },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		vmodel_init();
		V.s.features |= F_IN_ORDER | (c[i].packed_offered ? F_PACKED : 0);
		virtio_in_order = c[i].knob;
		virtio_packed = c[i].packed_knob;
		assert_int_equal(probe(), 0);
		assert_int_equal(!!(V.driver_features & F_IN_ORDER), c[i].want);
		assert_int_equal(port()->rxq[0].in_order, c[i].want);
		assert_int_equal(port()->txq[0].in_order, c[i].want);
		assert_int_equal(port()->rxq[0].packed, c[i].packed_offered && c[i].packed_knob);
	}
	virtio_in_order = 1;
	virtio_packed = 1;
}

/* n frames (seeds from seed, DATA_VALID) into RX queue 0's next n
 * buffers, returned as one used entry for the batch (2.7.9): the last
 * buffer's id and length. */
static void rx_batch(int n, int seed)
{
	uint16_t ids[128];
	assert_int_equal(vmodel_take(0, ids, n), n);
	for (int i = 0; i < n; i++) {
		uint8_t *b = (uint8_t *)(uintptr_t)port()->rxq[0].desc[ids[i]].addr;
		memset(b, 0, 12);
		b[0] = 2;	/* DATA_VALID */
		b[10] = 1;	/* num_buffers */
		frame(b + 12, (uint8_t)(seed + i));
	}
	vmodel_use_batch(0, ids[n - 1], 72, (uint16_t)n);
}

/* RX with VIRTIO_F_IN_ORDER, a device writing one used entry per batch:
 * the used ring first holds entries that would pass as good ones (slot i
 * naming buffer i, 72 bytes), so an entry read past a batch's head would
 * deliver a frame. Batches of 1, 3, 1, 5, 30 and 60, three rounds over the
 * ring of 128 (batches across its end): each batch's last frame
 * delivered whole, in order; the others, whose lengths the device did not
 * write, counted in rx_drop_desc_error and rx_drops; rx_packets every
 * frame. The queue stays in order (avail slot i naming buffer i, not
 * ooo), single entries then take the four-at-a-time run, every buffer
 * comes home. */
static void test_in_order_rx_batches(void **st)
{
	(void)st;
	static const int batch[] = { 1, 3, 1, 5, 30, 60 };
	vmodel_init();
	V.s.features |= F_IN_ORDER;
	assert_int_equal(probe(), 0);
	struct vnet_port *v = port();
	assert_int_equal(v->rxq[0].in_order, 1);
	for (uint16_t i = 0; i < 128; i++)
		v->rxq[0].used->ring[i] = (struct vring_used_elem){ .id = i, .len = 72 };
	uint32_t home = model_nic->pool->nfree;
	struct pkt *out[32];
	uint8_t f[60];
	int seed = 0;
	for (int round = 0; round < 3; round++) {
		int last[6];
		for (int b = 0; b < 6; b++) {
			rx_batch(batch[b], seed);
			seed += batch[b];
			last[b] = seed - 1;
		}
		assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, out, 32), 6);
		for (int b = 0; b < 6; b++) {
			frame(f, (uint8_t)last[b]);
			assert_int_equal(out[b]->len, 60);
			assert_memory_equal(out[b]->data, f, 60);
			assert_int_equal(out[b]->flags, PKT_RX_L4_CSUM_OK);
		}
		pkt_free_bulk(out, 6);
		assert_int_equal(v->rxq[0].ooo, 0);
		for (uint16_t i = 0; i < 128; i++)
			assert_int_equal(v->rxq[0].avail->ring[i], i);
		assert_int_equal(model_nic->pool->nfree, home);
		distinct(v->rxq[0].bufs, 128);
	}
	assert_int_equal(model_nic->q[0].rx_packets, 300);
	assert_int_equal(stat(NS_rx_delivered), 18);
	assert_int_equal(stat(NS_rx_drop_desc_error), 282);
	assert_int_equal(model_nic->q[0].rx_drops, 282);
	for (int i = 0; i < 9; i++)
		rx_batch(1, 100 + i);
	assert_int_equal(model_nic->ops->rx_burst(model_nic, 0, out, 32), 9);
	for (int i = 0; i < 9; i++) {
		frame(f, (uint8_t)(100 + i));
		assert_memory_equal(out[i]->data, f, 60);
	}
	pkt_free_bulk(out, 9);
	assert_int_equal(stat(NS_rx_delivered), 27);
	assert_int_equal(stat(NS_rx_drop_desc_error), 282);
	assert_int_equal(model_nic->pool->nfree, home);
}

/* TX with VIRTIO_F_IN_ORDER: the used ring first holds ids no buffer has
 * (a reclaim that read them would count them in tx_errors). Three rounds
 * of 100 frames over the ring of 128, returned in batches of 1, 7, 25 and
 * 67 with one used entry each: every frame freed exactly once at the
 * reclaim, none looked up (ooo 0), tx_errors 0. Then the used index moved
 * 3 past the frames in flight (none): the 3 counted in tx_errors, nothing
 * freed twice, and frames flow after it. */
static void test_in_order_tx_batches(void **st)
{
	(void)st;
	static const int batch[] = { 1, 7, 25, 67 };
	vmodel_init();
	V.s.features |= F_IN_ORDER;
	assert_int_equal(probe(), 0);
	struct vnet_port *v = port();
	assert_int_equal(v->txq[0].in_order, 1);
	for (uint16_t i = 0; i < 128; i++)
		v->txq[0].used->ring[i] = (struct vring_used_elem){ .id = 0xffff, .len = 0 };
	uint32_t home = model_nic->pool->nfree;
	struct pkt *tx[100];
	uint16_t ids[100];
	for (int round = 0; round < 3; round++) {
		tx_frames(tx, 100);
		assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, tx, 100), 100);
		for (int b = 0; b < 4; b++) {
			assert_int_equal(vmodel_take(1, ids, batch[b]), batch[b]);
			vmodel_use_batch(1, ids[batch[b] - 1], 0, (uint16_t)batch[b]);
		}
		assert_int_equal(model_nic->pool->nfree, home - 100);
		model_nic->ops->tx_clean(model_nic, 0);
		assert_int_equal(v->txq[0].ooo, 0);
		assert_int_equal(v->txq[0].nfree, 128);
		assert_int_equal(model_nic->pool->nfree, home);
		distinct(0, 0);
	}
	assert_int_equal(stat(NS_tx_errors), 0);
	vmodel_used_jump(1, 3);
	model_nic->ops->tx_clean(model_nic, 0);
	assert_int_equal(stat(NS_tx_errors), 3);
	assert_int_equal(v->txq[0].nfree, 128);
	assert_int_equal(model_nic->pool->nfree, home);
	tx_frames(tx, 10);
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, tx, 10), 10);
	assert_int_equal(vmodel_tx(1), 10);
	model_nic->ops->tx_clean(model_nic, 0);
	assert_int_equal(v->txq[0].nfree, 128);
	assert_int_equal(model_nic->pool->nfree, home);
	distinct(0, 0);
	assert_int_equal(stat(NS_tx_errors), 3);
	assert_int_equal(model_nic->q[0].tx_packets, 310);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_good),
		cmocka_unit_test(test_cap_outside_bar),
		cmocka_unit_test(test_cap_loop),
		cmocka_unit_test(test_queue_size),
		cmocka_unit_test(test_no_version_1),
		cmocka_unit_test(test_features_ok_refused),
		cmocka_unit_test(test_msix_refused),
		cmocka_unit_test(test_rx_good),
		cmocka_unit_test(test_rx_in_order_runs),
		cmocka_unit_test(test_rx_short),
		cmocka_unit_test(test_rx_groups),
		cmocka_unit_test(test_rx_lies),
		cmocka_unit_test(test_used_index_jump),
		cmocka_unit_test(test_needs_reset),
		cmocka_unit_test(test_tx_good),
		cmocka_unit_test(test_tx_lies),
		cmocka_unit_test(test_tx_out_of_order),
		cmocka_unit_test(test_tx_in_order_runs),
		cmocka_unit_test(test_tx_ids_each_place),
		cmocka_unit_test(test_tx_reset_after_runs),
		cmocka_unit_test(test_tx_kick_suppression),
		cmocka_unit_test(test_rss_hash_report),
		cmocka_unit_test(test_config_storm),
		cmocka_unit_test(test_packed_rx_tx),
		cmocka_unit_test(test_packed_lies),
		cmocka_unit_test(test_queue_reset),
		cmocka_unit_test(test_queue_reset_stuck),
		cmocka_unit_test(test_in_order_negotiated),
		cmocka_unit_test(test_in_order_rx_batches),
		cmocka_unit_test(test_in_order_tx_batches),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
