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
	uint64_t b = (uint64_t)c->buf;
	vq->desc[0] = (struct vring_desc){ .addr = b, .len = 2, .flags = VRING_DESC_F_NEXT, .next = 1 };
	vq->desc[1] = (struct vring_desc){ .addr = b + CTRL_DATA, .len = len, .flags = VRING_DESC_F_NEXT, .next = 2 };
	vq->desc[2] = (struct vring_desc){ .addr = b + CTRL_ACK, .len = 1, .flags = VRING_DESC_F_WRITE };
	virtq_add(vq, 0);
	virtq_publish(vq);
	uint64_t end = now_ns() + CTRL_TIMEOUT_NS;
	while (!virtq_used_pending(vq)) {
		if (now_ns() > end) {
			printf("%s: control command %u.%u not answered in 1 s\n", who, class, cmd);
			return -1;
		}
		udelay(10);
	}
	vq->last_used++;
	__atomic_signal_fence(__ATOMIC_ACQUIRE);
	if (c->buf[CTRL_ACK] == VIRTIO_NET_OK)
		return 0;
	printf("%s: control command %u.%u refused (ack %u)\n", who, class, cmd, c->buf[CTRL_ACK]);
	return -1;
}
