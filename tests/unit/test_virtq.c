/*
 * Virtqueues (drivers/net/virtio/virtqueue.c, virtio.h) against a device
 * played by the test: split (virtio 1.2 2.7) and packed (2.8) rings, buffers
 * made available and returned used in and out of order, the wrap counters
 * across many rings and across the 16-bit index overflow, and the kick and
 * interrupt suppression decisions (2.7.10, 2.8.10).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "drivers/net/virtio/virtio.h"

void *dma_alloc(size_t bytes, size_t align)
{
	return aligned_alloc(align, (bytes + align - 1) / align * align);
}

/* The device's side of one queue. */
struct dev {
	uint16_t avail;		/* next entry it takes (split: avail ring index; packed: slot count) */
	uint16_t used;		/* next used entry it writes */
};

static struct virtq vq;
static struct dev dv;
static volatile uint16_t notify_reg;
static uint64_t kicks;

/* The queue's memory back (dma_alloc's ring, the bufs array). */
static void forget(void)
{
	free(vq.packed ? (void *)vq.pdesc : (void *)vq.desc);
	free(vq.bufs);
	memset(&vq, 0, sizeof(vq));
}

static void make(uint16_t n, int packed, int event_idx)
{
	forget();
	vq.n = n;
	vq.packed = packed;
	vq.event_idx = event_idx;
	vq.index = 5;
	vq.notify = &notify_reg;
	vq.kicks = &kicks;
	kicks = 0;
	notify_reg = 0;
	dv = (struct dev){ 0, 0 };
	assert_int_equal(virtq_alloc(&vq), 0);
}

/* Packed: the wrap counter of the device's count i (starts at 1, flips every n). */
static int wrap(uint16_t i)
{
	return !(i & vq.n);
}

/* The device takes the next available buffer: its id, address and length;
 * 0 if none is available. */
static int dev_take(uint16_t *id, uint64_t *addr, uint32_t *len)
{
	if (!vq.packed) {
		if (vq.avail->idx == dv.avail)
			return 0;
		*id = vq.avail->ring[dv.avail++ & (vq.n - 1)];
		*addr = vq.desc[*id].addr;
		*len = vq.desc[*id].len;
		return 1;
	}
	volatile struct vring_packed_desc *d = &vq.pdesc[dv.avail & (vq.n - 1)];
	int a = !!(d->flags & VRING_PACKED_DESC_F_AVAIL), u = !!(d->flags & VRING_PACKED_DESC_F_USED);
	if (a != wrap(dv.avail) || u == wrap(dv.avail))
		return 0;
	*id = d->id;
	*addr = d->addr;
	*len = d->len;
	dv.avail++;
	return 1;
}

/* The device returns buffer id with len bytes written. */
static void dev_use(uint16_t id, uint32_t len)
{
	if (!vq.packed) {
		vq.used->ring[dv.used & (vq.n - 1)] = (struct vring_used_elem){ .id = id, .len = len };
		dv.used++;
		vq.used->idx = dv.used;
		return;
	}
	volatile struct vring_packed_desc *d = &vq.pdesc[dv.used & (vq.n - 1)];
	d->id = id;
	d->len = len;
	d->flags = wrap(dv.used) ? VRING_PACKED_DESC_F_AVAIL | VRING_PACKED_DESC_F_USED : 0;
	dv.used++;
}

/* What the driver reads back: every used entry, ids and lengths in order. */
static int drain(uint32_t *ids, uint32_t *lens, int max)
{
	int k = 0;
	for (uint16_t m; (m = virtq_used_ready(&vq));)
		while (m--) {
			assert_true(k < max);
			virtq_take_used(&vq, &ids[k], &lens[k]);
			k++;
		}
	return k;
}

/* rounds x n buffers through the ring: made available, taken by the device,
 * returned in reverse order of their ids (out of order for packed, where
 * used entries are written in slot order with any id), read back. */
static void roundtrip(int packed, uint16_t n, int rounds)
{
	make(n, packed, 1);
	for (int r = 0; r < rounds; r++) {
		for (uint16_t i = 0; i < n; i++)
			virtq_add_buf(&vq, i, 0x1000u * (i + 1) + (uint64_t)r, 100u + i, VRING_DESC_F_WRITE);
		virtq_publish(&vq);
		uint16_t ids[64];
		for (uint16_t i = 0; i < n; i++) {
			uint64_t addr;
			uint32_t len;
			assert_true(dev_take(&ids[i], &addr, &len));
			assert_int_equal(ids[i], i);
			assert_int_equal(addr, 0x1000u * (i + 1) + (uint64_t)r);
			assert_int_equal(len, 100u + i);
		}
		uint16_t id;
		uint64_t addr;
		uint32_t len;
		assert_false(dev_take(&id, &addr, &len));	/* nothing more available */
		assert_false(virtq_has_used(&vq));
		for (uint16_t i = 0; i < n; i++)
			dev_use(ids[n - 1 - i], 60u + i);
		uint32_t got[64], lens[64];
		assert_int_equal(drain(got, lens, 64), n);
		for (uint16_t i = 0; i < n; i++) {
			assert_int_equal(got[i], n - 1 - i);
			assert_int_equal(lens[i], 60u + i);
		}
		assert_false(virtq_has_used(&vq));
	}
}

static void test_split_roundtrip(void **state)
{
	(void)state;
	roundtrip(0, 8, 20);
}

static void test_packed_roundtrip(void **state)
{
	(void)state;
	roundtrip(1, 8, 20);	/* the wrap counters flip 20 times */
}

/* Past the 16-bit overflow of the free-running indices (65536 / 8 rings):
 * the packed wrap counter derived from them stays in step with the device's. */
static void test_packed_index_overflow(void **state)
{
	(void)state;
	roundtrip(1, 8, 65536 / 8 + 5);
	assert_true(vq.avail_idx < 100);
}

static void test_split_index_overflow(void **state)
{
	(void)state;
	roundtrip(0, 8, 65536 / 8 + 5);
}

/* RX as the driver runs it: the ring kept full, each used buffer posted
 * again at once; the device never sees a slot it has not returned. */
static void test_packed_refill_in_place(void **state)
{
	(void)state;
	make(16, 1, 1);
	for (uint16_t i = 0; i < 16; i++)
		virtq_add_buf(&vq, i, 0x1000u * i, 2048, VRING_DESC_F_WRITE);
	virtq_publish(&vq);
	int delivered = 0;
	for (int step = 0; step < 1000; step++) {
		uint16_t id;
		uint64_t addr;
		uint32_t len;
		int k = step % 5 + 1;	/* the device fills 1 to 5 buffers at a time */
		for (int j = 0; j < k; j++) {
			assert_true(dev_take(&id, &addr, &len));
			assert_int_equal(addr, 0x1000u * id);
			dev_use(id, 64);
		}
		for (uint16_t m; (m = virtq_used_ready(&vq));)
			while (m--) {
				uint32_t uid, ulen;
				virtq_take_used(&vq, &uid, &ulen);
				assert_true(uid < 16);
				virtq_add_buf(&vq, (uint16_t)uid, 0x1000u * uid, 2048, VRING_DESC_F_WRITE);
				delivered++;
			}
		virtq_publish(&vq);
	}
	assert_int_equal(delivered, 15 * 200);	/* (1+2+3+4+5) x 200 */
}

/* Split, EVENT_IDX: a kick only when the new entries cross avail_event. */
static void test_split_kick_event_idx(void **state)
{
	(void)state;
	make(8, 0, 1);
	*vq.avail_event = 2;			/* the device wants to hear of entry 2 */
	virtq_add_buf(&vq, 0, 0, 1, 0);
	virtq_add_buf(&vq, 1, 0, 1, 0);
	virtq_publish(&vq);			/* entries 0, 1: not yet */
	assert_int_equal(kicks, 0);
	virtq_add_buf(&vq, 2, 0, 1, 0);
	virtq_publish(&vq);			/* entry 2 */
	assert_int_equal(kicks, 1);
	assert_int_equal(notify_reg, 5);	/* the queue's index */
	virtq_publish(&vq);			/* nothing new: no kick */
	assert_int_equal(kicks, 1);
}

/* Packed: the device's event suppression structure (2.8.10). */
static void test_packed_kick_suppression(void **state)
{
	(void)state;
	make(8, 1, 1);
	vq.device_event->flags = RING_EVENT_FLAGS_DISABLE;
	virtq_add_buf(&vq, 0, 0, 1, 0);
	virtq_publish(&vq);
	assert_int_equal(kicks, 0);
	vq.device_event->flags = RING_EVENT_FLAGS_ENABLE;
	virtq_add_buf(&vq, 1, 0, 1, 0);
	virtq_publish(&vq);
	assert_int_equal(kicks, 1);
	/* DESC: slot 4 of the first wrap (counter 1). Entries 2, 3: no; 4: yes. */
	vq.device_event->flags = RING_EVENT_FLAGS_DESC;
	vq.device_event->off_wrap = 4 | 1u << 15;
	virtq_add_buf(&vq, 2, 0, 1, 0);
	virtq_add_buf(&vq, 3, 0, 1, 0);
	virtq_publish(&vq);
	assert_int_equal(kicks, 1);
	virtq_add_buf(&vq, 4, 0, 1, 0);
	virtq_publish(&vq);
	assert_int_equal(kicks, 2);
	/* Slot 1 of the second wrap (counter 0): entries 5-7 (first wrap) and
	 * 8 (slot 0 of the second) do not reach it; 9 (slot 1) does. */
	vq.device_event->off_wrap = 1;
	for (uint16_t i = 5; i < 9; i++)
		virtq_add_buf(&vq, i & 7, 0, 1, 0);
	virtq_publish(&vq);
	assert_int_equal(kicks, 2);
	virtq_add_buf(&vq, 1, 0, 1, 0);
	virtq_publish(&vq);
	assert_int_equal(kicks, 3);
	/* An event in the wrap before the driver's current one: slot 7 of the
	 * second wrap (counter 0) asked for, entries 15 (slot 7) and 16 (slot
	 * 0 of the third wrap, counter 1) published together: a kick (the event
	 * is n back, as Linux's virtqueue_kick_prepare_packed counts it). */
	for (uint16_t i = 10; i < 15; i++)
		virtq_add_buf(&vq, i & 7, 0, 1, 0);
	vq.device_event->flags = RING_EVENT_FLAGS_DISABLE;
	virtq_publish(&vq);
	assert_int_equal(kicks, 3);
	vq.device_event->flags = RING_EVENT_FLAGS_DESC;
	vq.device_event->off_wrap = 7;
	virtq_add_buf(&vq, 7, 0, 1, 0);
	virtq_add_buf(&vq, 0, 0, 1, 0);
	virtq_publish(&vq);
	assert_int_equal(kicks, 4);
}

/* Interrupts: off is DISABLE (packed) or used_event far ahead (split);
 * on returns 1 when an entry already waits, so the poll loop takes it
 * instead of waiting for an interrupt that will not come. */
static void irq_check(int packed)
{
	make(8, packed, 1);
	virtq_irq(&vq, 0);
	if (packed)
		assert_int_equal(vq.driver_event->flags, RING_EVENT_FLAGS_DISABLE);
	else
		assert_int_equal(*vq.used_event, 0x8000);
	assert_int_equal(virtq_irq(&vq, 1), 0);
	if (packed)
		assert_int_equal(vq.driver_event->flags, RING_EVENT_FLAGS_ENABLE);
	else
		assert_int_equal(*vq.used_event, 0);
	virtq_add_buf(&vq, 3, 0x3000, 64, VRING_DESC_F_WRITE);
	virtq_publish(&vq);
	uint16_t id;
	uint64_t addr;
	uint32_t len;
	assert_true(dev_take(&id, &addr, &len));
	dev_use(id, 64);
	virtq_irq(&vq, 0);
	assert_int_equal(virtq_irq(&vq, 1), 1);
}

static void test_split_irq(void **state)
{
	(void)state;
	irq_check(0);
}

static void test_packed_irq(void **state)
{
	(void)state;
	irq_check(1);
}

/* After a device reset the rings start over: nothing used, indices 0. */
static void test_restart(void **state)
{
	(void)state;
	make(8, 1, 1);
	virtq_add_buf(&vq, 0, 0, 1, 0);
	virtq_publish(&vq);
	uint16_t id;
	uint64_t addr;
	uint32_t len;
	assert_true(dev_take(&id, &addr, &len));
	dev_use(id, 1);
	assert_true(virtq_has_used(&vq));
	virtq_restart(&vq);
	assert_false(virtq_has_used(&vq));
	assert_int_equal(vq.avail_idx, 0);
	assert_int_equal(vq.nfree, 8);
}

/* Split (2.7.14): a used index more than n ahead is a device error:
 * nothing waits, nothing is taken, broken says how far it moved; exactly
 * n ahead is a full ring, taken whole. virtq_restart clears broken. */
static void test_split_used_jump(void **state)
{
	(void)state;
	make(8, 0, 1);
	vq.used->idx = 9;
	assert_false(virtq_has_used(&vq));
	assert_int_equal(virtq_used_ready(&vq), 0);
	assert_int_equal(vq.broken, 9);
	assert_int_equal(vq.last_used, 0);
	virtq_restart(&vq);
	assert_int_equal(vq.broken, 0);
	vq.used->idx = 8;
	assert_true(virtq_has_used(&vq));
	assert_int_equal(virtq_used_ready(&vq), 8);
	assert_int_equal(vq.broken, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_roundtrip),
		cmocka_unit_test(test_packed_roundtrip),
		cmocka_unit_test(test_split_index_overflow),
		cmocka_unit_test(test_packed_index_overflow),
		cmocka_unit_test(test_packed_refill_in_place),
		cmocka_unit_test(test_split_kick_event_idx),
		cmocka_unit_test(test_packed_kick_suppression),
		cmocka_unit_test(test_split_irq),
		cmocka_unit_test(test_packed_irq),
		cmocka_unit_test(test_restart),
		cmocka_unit_test(test_split_used_jump),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	forget();
	return failed;
}
