/*
 * Split virtqueues (virtio 1.2 section 2.7): the driver makes descriptors
 * available in the avail ring and notifies the device when it asked to be
 * (2.7.13); the device returns them in the used ring and interrupts when
 * the driver asked it to (2.7.14, 2.7.10: VIRTIO_F_EVENT_IDX).
 */
#include <stdlib.h>
#include <string.h>
#include "drivers/net/virtio/virtio.h"
#include "kernel/mem.h"

/* Ring memory of n descriptors: table (16-byte aligned), avail ring with
 * used_event, used ring with avail_event (4-byte aligned, 2.7). */
static size_t avail_off(uint16_t n) { return 16u * n; }
static size_t used_off(uint16_t n) { return (avail_off(n) + 6u + 2u * n + 63) & ~(size_t)63; }
static size_t ring_bytes(uint16_t n) { return used_off(n) + 6u + 8u * n; }

int virtq_alloc(struct virtq *vq)
{
	uint16_t n = vq->n;
	if (!vq->desc) {
		uint8_t *m = dma_alloc(ring_bytes(n), 4096);
		vq->bufs = calloc(n, sizeof(*vq->bufs));
		vq->free = calloc(n, sizeof(*vq->free));
		if (!m || !vq->bufs || !vq->free)
			return -1;
		vq->desc = (volatile struct vring_desc *)m;
		vq->avail = (volatile struct vring_avail *)(m + avail_off(n));
		vq->used = (volatile struct vring_used *)(m + used_off(n));
		vq->used_event = &vq->avail->ring[n];
		vq->avail_event = (volatile uint16_t *)&vq->used->ring[n];
	}
	virtq_restart(vq);
	return 0;
}

void virtq_restart(struct virtq *vq)
{
	memset((void *)vq->desc, 0, ring_bytes(vq->n));
	vq->avail_idx = vq->kicked = vq->last_used = 0;
	vq->nfree = vq->n;
	for (uint16_t i = 0; i < vq->n; i++)
		vq->free[i] = (uint16_t)(vq->n - 1 - i);
	virtq_irq(vq, 0);
}

void virtq_publish(struct virtq *vq)
{
	/* The ring entries before the index (x86 keeps store order), and the
	 * index before the device's avail_event or flags are read: a full
	 * fence, as Linux's virtio_mb (a store may pass a later load). */
	__atomic_signal_fence(__ATOMIC_RELEASE);
	vq->avail->idx = vq->avail_idx;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	uint16_t old = vq->kicked;
	vq->kicked = vq->avail_idx;
	if (vq->event_idx ? !vring_need_event(*vq->avail_event, vq->avail_idx, old)
			  : (vq->used->flags & VRING_USED_F_NO_NOTIFY))
		return;
	*vq->notify = vq->index;	/* 4.1.4.4: the queue's index, 16 bits */
	(*vq->kicks)++;
}

int virtq_irq(struct virtq *vq, int on)
{
	/* Off with EVENT_IDX: an event half the index space away, which the
	 * device reaches only after 32768 more entries (Linux writes 0 there). */
	if (vq->event_idx)
		*vq->used_event = on ? vq->last_used : (uint16_t)(vq->last_used + 0x8000);
	else
		vq->avail->flags = on ? 0 : VRING_AVAIL_F_NO_INTERRUPT;
	if (!on)
		return 0;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return virtq_used_pending(vq) != 0;
}
