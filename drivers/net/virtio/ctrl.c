/*
 * The virtio-net control virtqueue (virtio 1.2 section 5.1.6.5): one
 * command at a time, made of three descriptors (class and command, the
 * data, the ack byte the device writes), waited for by polling the used
 * ring. Used outside the fast path only: at start and on set_mc.
 */
#include <stdio.h>
#include <string.h>
#include "drivers/net/virtio/virtio.h"
#include "kernel/mem.h"
#include "kernel/time.h"

#define CTRL_DATA 16		/* offsets in the command buffer */
#define CTRL_ACK 2048
#define CTRL_TIMEOUT_NS 1000000000ull

/* The command's three descriptors at b (class and command, len bytes of
 * data, the ack) made available as one chain: split, descriptors 0-2 linked
 * by next (2.7.5); packed, three slots in a row with the head's flags
 * written last, so the device sees the chain whole (2.8.6, 2.8.21). */
static void post(struct virtq *vq, uint64_t b, uint32_t len)
{
	uint64_t addr[3] = { b, b + CTRL_DATA, b + CTRL_ACK };
	uint32_t lens[3] = { 2, len, 1 };
	if (!vq->packed) {
		for (uint16_t i = 0; i < 3; i++)
			vq->desc[i] = (struct vring_desc){ .addr = addr[i], .len = lens[i], .next = (uint16_t)(i + 1),
							   .flags = i < 2 ? VRING_DESC_F_NEXT : VRING_DESC_F_WRITE };
		vq->avail->ring[vq->avail_idx++ & (vq->n - 1)] = 0;
	} else {
		uint16_t head = vq->avail_idx, hflags = 0;
		for (uint16_t i = 0; i < 3; i++) {
			volatile struct vring_packed_desc *d = &vq->pdesc[(uint16_t)(head + i) & (vq->n - 1)];
			uint16_t f = (uint16_t)((i < 2 ? VRING_DESC_F_NEXT : VRING_DESC_F_WRITE) |
						vring_packed_avail_flags(vq, (uint16_t)(head + i)));
			d->addr = addr[i];
			d->len = lens[i];
			d->id = 0;
			if (i)
				d->flags = f;
			else
				hflags = f;
		}
		__atomic_signal_fence(__ATOMIC_RELEASE);
		vq->pdesc[head & (vq->n - 1)].flags = hflags;
		vq->avail_idx = (uint16_t)(head + 3);
	}
	virtq_publish(vq);
}

int virtio_ctrl_cmd(struct virtio_ctrl *c, const char *who, uint8_t class, uint8_t cmd, const void *data,
		    uint32_t len)
{
	struct virtq *vq = &c->vq;
	if (!c->buf && !(c->buf = dma_alloc(4096, 4096)))
		return -1;
	if (len > CTRL_ACK - CTRL_DATA)
		return -1;
	c->buf[0] = class;
	c->buf[1] = cmd;
	memcpy(c->buf + CTRL_DATA, data, len);
	c->buf[CTRL_ACK] = 0xff;
	post(vq, (uint64_t)c->buf, len);
	uint64_t end = now_ns() + CTRL_TIMEOUT_NS;
	while (!virtq_has_used(vq)) {
		if (now_ns() > end) {
			printf("%s: control command %u.%u not answered in 1 s\n", who, class, cmd);
			return -1;
		}
		udelay(10);
	}
	/* One used entry for the chain; a packed ring moves past its three slots. */
	vq->last_used = (uint16_t)(vq->last_used + (vq->packed ? 3 : 1));
	__atomic_signal_fence(__ATOMIC_ACQUIRE);
	if (c->buf[CTRL_ACK] == VIRTIO_NET_OK)
		return 0;
	printf("%s: control command %u.%u refused (ack %u)\n", who, class, cmd, c->buf[CTRL_ACK]);
	return -1;
}
