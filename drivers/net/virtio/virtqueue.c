/*
 * Virtqueues (virtio 1.2 section 2.7 split, 2.8 packed): the driver makes
 * buffers available and notifies the device when it asked to be (2.7.13,
 * 2.8.10); the device returns them used and interrupts when the driver
 * asked it to (2.7.14, 2.7.10, 2.8.10: VIRTIO_F_EVENT_IDX).
 */
#include <stdlib.h>
#include <string.h>
#include "drivers/net/virtio/virtio.h"
#include "kernel/cpu.h"
#include "kernel/mem.h"

/* Split ring memory of n descriptors: table (16-byte aligned), avail ring
 * with used_event, used ring with avail_event (4-byte aligned, 2.7; the
 * legacy interface puts it on the next 4096-byte boundary, 2.7.2). */
static size_t avail_off(uint16_t n) { return 16u * n; }
static size_t used_off(uint16_t n, int legacy)
{
	size_t a = legacy ? 4096 : 64;
	return (avail_off(n) + 6u + 2u * n + a - 1) & ~(a - 1);
}
static size_t ring_bytes(uint16_t n, int legacy) { return used_off(n, legacy) + 6u + 8u * n; }
/* Packed: the ring (16 bytes a descriptor), then the driver and device
 * event suppression structures (4-byte aligned, 2.8.10). */
static size_t packed_bytes(uint16_t n) { return 16u * n + 8u; }

static size_t bytes(const struct virtq *vq)
{
	return vq->packed ? packed_bytes(vq->n) : ring_bytes(vq->n, vq->legacy);
}

int virtq_alloc(struct virtq *vq)
{
	uint16_t n = vq->n;
	if (!vq->bufs) {
		uint8_t *m = dma_alloc(bytes(vq), 4096);
		vq->bufs = calloc(n, sizeof(*vq->bufs));
		if (!m || !vq->bufs)
			return -1;
		if (vq->packed) {
			vq->pdesc = (volatile struct vring_packed_desc *)m;
			vq->driver_event = (volatile struct vring_packed_event *)(m + 16u * n);
			vq->device_event = vq->driver_event + 1;
		} else {
			vq->desc = (volatile struct vring_desc *)m;
			vq->avail = (volatile struct vring_avail *)(m + avail_off(n));
			vq->used = (volatile struct vring_used *)(m + used_off(n, vq->legacy));
			vq->used_event = &vq->avail->ring[n];
			vq->avail_event = (volatile uint16_t *)&vq->used->ring[n];
		}
	}
	virtq_restart(vq);
	return 0;
}

void virtq_restart(struct virtq *vq)
{
	memset(vq->packed ? (void *)vq->pdesc : (void *)vq->desc, 0, bytes(vq));
	vq->avail_idx = vq->kicked = vq->last_used = vq->broken = vq->ooo = 0;
	vq->nfree = vq->n;
	virtq_irq(vq, 0);
}

/* Packed (2.8.10): does the device want a kick for the entries made
 * available from old to new? Its off_wrap names a slot and a wrap
 * counter; as Linux's virtqueue_kick_prepare_packed, a slot of the other
 * wrap is n further back. */
static int packed_need_kick(const struct virtq *vq, uint16_t old)
{
	uint16_t flags = vq->device_event->flags, off = vq->device_event->off_wrap;
	if (flags != RING_EVENT_FLAGS_DESC)
		return flags == RING_EVENT_FLAGS_ENABLE;
	uint16_t nw = vq->avail_idx, event = off & 0x7fff;
	int wrap = !(nw & vq->n);		/* the driver's wrap counter now */
	uint16_t slot = nw & (vq->n - 1);
	if ((off >> 15) != wrap)
		event = (uint16_t)(event - vq->n);
	return vring_need_event(event, slot, (uint16_t)(slot - (uint16_t)(nw - old)));
}

void virtq_kick(struct virtq *vq)
{
	if (vq->notify_io)
		outw(vq->notify_io, vq->index);	/* 4.1.4.8 */
	else
		*vq->notify = vq->index;	/* 4.1.4.4: the queue's index, 16 bits */
	(*vq->kicks)++;
}

void virtq_publish_packed(struct virtq *vq)
{
	/* The descriptors' flags before the device's event structure is
	 * read: a full fence, as Linux's virtio_mb (a store may pass a
	 * later load). */
	mfence();
	uint16_t old = vq->kicked;
	vq->kicked = vq->avail_idx;
	if (old != vq->avail_idx && packed_need_kick(vq, old))
		virtq_kick(vq);
}

int virtq_irq(struct virtq *vq, int on)
{
	/* Off with EVENT_IDX (split): an event half the index space away,
	 * which the device reaches only after 32768 more entries (Linux
	 * writes 0 there). Packed: ENABLE/DISABLE, no descriptor events. */
	if (vq->packed)
		vq->driver_event->flags = on ? RING_EVENT_FLAGS_ENABLE : RING_EVENT_FLAGS_DISABLE;
	else if (vq->event_idx)
		*vq->used_event = on ? vq->last_used : (uint16_t)(vq->last_used + 0x8000);
	else
		vq->avail->flags = on ? 0 : VRING_AVAIL_F_NO_INTERRUPT;
	if (!on)
		return 0;
	mfence();	/* used_event out before used->idx is read (2.7.10) */
	return virtq_has_used(vq);
}
