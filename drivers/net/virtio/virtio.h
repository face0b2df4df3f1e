/*
 * virtio-net driver state: the virtio 1.x PCI transport (pci.c), split
 * virtqueues (virtqueue.c) and the port (net.c). Definitions from the
 * specification are in regs.h.
 */
#ifndef VIRTIO_H
#define VIRTIO_H
#include <stdint.h>
#include "drivers/net/nic.h"
#include "kernel/cpu.h"
#include "drivers/net/virtio/regs.h"

struct virtio_pci;
struct virtq;

/* The device access the two PCI interfaces do differently: the virtio 1.x
 * structures in memory BARs (pci.c, 4.1.4) or the legacy I/O BAR
 * (legacy.c, 4.1.4.8). The vpci_ calls below go through it. */
struct vpci_ops {
	uint8_t (*status)(const struct virtio_pci *t);
	void (*status_write)(struct virtio_pci *t, uint8_t v);
	uint64_t (*device_features)(const struct virtio_pci *t);
	/* Write t->features; 0, or -1 after saying the device refused them. */
	int (*features_write)(struct virtio_pci *t);
	uint32_t (*config)(const struct virtio_pci *t, uint32_t off, int len);
	uint16_t (*queue_max)(struct virtio_pci *t, uint16_t index);
	uint16_t (*config_vector)(struct virtio_pci *t, uint16_t vec);
	uint8_t (*isr)(const struct virtio_pci *t);
	/* Give the device the queue selected by queue_max, sized and
	 * allocated, with its MSI-X vector; 0 or -1 after saying why. */
	int (*queue_place)(struct virtio_pci *t, struct virtq *vq, uint16_t vector);
	int fixed_size;		/* the queue size is the device's (legacy) */
};
extern const struct vpci_ops vpci_legacy;

/* The PCI transport: where each structure is mapped. */
struct virtio_pci {
	struct pci_dev *pci;
	const char *who;		/* "port0", for messages */
	const struct vpci_ops *ops;	/* set by vpci_map */
	volatile uint8_t *common;	/* common configuration (4.1.4.3) */
	uint32_t common_len;		/* its length: queue_reset is there from 0x3c bytes */
	volatile uint8_t *notify;	/* notification area (4.1.4.4) */
	volatile uint8_t *isr;		/* ISR status (4.1.4.5) */
	volatile uint8_t *device;	/* device-specific configuration (4.1.4.6) */
	uint32_t notify_mult;		/* notify_off_multiplier, bytes */
	uint64_t features;		/* negotiated */
	uint16_t io;			/* legacy interface: its I/O BAR (4.1.4.8); 0 for 1.x */
};

/* Find the vendor capabilities and map the BARs they name (any BAR,
 * 64-bit ones anywhere); a transitional device without them is driven
 * through its legacy I/O BAR (t->io). 0, or -1 after printing what is missing. */
int vpci_map(struct virtio_pci *t);
/* Device status (4.1.4.3): write 0 and wait until it reads 0 (reset). */
int vpci_reset(struct virtio_pci *t);
uint8_t vpci_status(const struct virtio_pci *t);
/* OR bits into the device status. */
void vpci_status_set(struct virtio_pci *t, uint8_t bits);
/* The 64 feature bits the device offers. */
uint64_t vpci_device_features(const struct virtio_pci *t);
/* 3.1.1 steps 5-6: write want & offered, set FEATURES_OK and read it back;
 * t->features is then what both sides use. 0, or -1 (device refused). */
int vpci_features_ok(struct virtio_pci *t, uint64_t want);
/* A consistent read of len (1, 2, 4) bytes at off of the device
 * configuration (config_generation unchanged around it, 4.1.4.3.1). */
uint32_t vpci_config(const struct virtio_pci *t, uint32_t off, int len);
/* Select queue index and read its size (queue_size: the most it takes;
 * 0 if the queue does not exist). */
uint16_t vpci_queue_max(struct virtio_pci *t, uint16_t index);
/* Route configuration changes to MSI-X vector vec (VIRTIO_MSI_NO_VECTOR:
 * none); returns the vector the device took (NO_VECTOR: refused). */
uint16_t vpci_config_vector(struct virtio_pci *t, uint16_t vec);
/* Read the ISR status (4.1.4.5): which interrupt causes; reading clears it. */
uint8_t vpci_isr(const struct virtio_pci *t);
/* Reset virtqueue index alone (VIRTIO_F_RING_RESET negotiated; 2.6.1,
 * 4.1.4.3.2): write 1 to its queue_reset and wait up to 100 ms until
 * queue_reset and queue_enable both read 0; the device then uses none of
 * its buffers and virtq_setup places it again. 0, or -1 after saying so. */
int vpci_queue_reset(struct virtio_pci *t, uint16_t index);

/* The legacy interface (legacy.c, 4.1.4.8), for a transitional device
 * without virtio 1.x capabilities: maps its I/O BAR and sets t->ops to
 * vpci_legacy (32 feature bits, no FEATURES_OK, queue sizes the device
 * fixes). 0, or -1 after saying why. */
int vleg_map(struct virtio_pci *t);

struct pkt;

/* A virtqueue, split (2.7) or packed (2.8), whose buffer id i, when in
 * flight, carries bufs[i]: RX posts every id once, TX sends buffer id i
 * from ring slot i (net.c). avail_idx and last_used run free over 16
 * bits; with packed rings their slot is the index mod n and their wrap
 * counter starts at 1 and flips every n (n divides 65536). */
struct virtq {
	uint16_t index;			/* queue number (5.1.2: 2k RX, 2k+1 TX) */
	uint16_t n;			/* descriptors, a power of two */
	int packed;			/* VIRTIO_F_RING_PACKED negotiated */
	int legacy;			/* legacy interface: used ring on a 4096-byte boundary */
	int mrg_rxbuf;			/* RX: VIRTIO_NET_F_MRG_RXBUF, num_buffers is read */
	uint16_t hdr;			/* bytes of header before each frame (5.1.6): 12, or 20
					 * with VIRTIO_NET_F_HASH_REPORT */
	uint16_t skip;			/* RX: used entries left of a frame spread over buffers */
	volatile struct vring_desc *desc;
	volatile struct vring_avail *avail;
	volatile struct vring_used *used;
	volatile uint16_t *used_event;	/* avail->ring[n] */
	volatile uint16_t *avail_event;	/* after used->ring[n] */
	volatile struct vring_packed_desc *pdesc;	/* packed: the ring */
	volatile struct vring_packed_event *driver_event, *device_event;
	volatile uint16_t *notify;	/* where a kick writes index */
	uint16_t notify_io;		/* legacy: the I/O port instead */
	uint16_t avail_idx;		/* next buffer made available */
	uint16_t kicked;		/* avail_idx at the last kick decision */
	uint16_t last_used;		/* next used entry to read */
	int event_idx;			/* VIRTIO_F_EVENT_IDX negotiated */
	int in_order;			/* split: VIRTIO_F_IN_ORDER negotiated (2.7.9): the u-th buffer
					 * used is the u-th made available, and one used entry (the
					 * batch's last id) may stand for a batch (net.c) */
	struct pkt **bufs;		/* by buffer id */
	uint16_t nfree;			/* TX: descriptors not in flight */
	uint16_t ooo;			/* split, TX: a used entry out of order (or a lie) was
					 * taken: free slots and those in flight may interleave
					 * until every buffer is back (net.c tx_reclaim); RX: a
					 * buffer id was posted in another avail slot (rx_post) */
	uint16_t broken;		/* split: the used index moved this far past last_used,
					 * more than n (2.7.14): no entry is taken until a reset */
	uint64_t *kicks;		/* where notifications written are counted */
};

/*
 * Queue setup (4.1.5.1.3): select queue index, take its size or rxd/txd
 * want if smaller (refused: 0, or not a power of two), allocate the rings
 * once (kept across resets), write their addresses and the MSI-X vector,
 * enable; kicks counts its notifications. Packed when t->features has
 * VIRTIO_F_RING_PACKED. Returns 0, or -1 after printing why.
 */
int virtq_setup(struct virtio_pci *t, struct virtq *vq, uint16_t index, uint32_t want, uint16_t vector,
		uint64_t *kicks);
/* The rings of vq->n descriptors (one allocation: descriptor table,
 * driver area, device area at their 2.7 or 2.8 alignments) and the bufs
 * array, unless vq has them; then virtq_restart. 0, or -1. */
int virtq_alloc(struct virtq *vq);

/* Packed: the AVAIL/USED flags of an entry made available at index i. */
static inline __attribute__((always_inline)) uint16_t vring_packed_avail_flags(const struct virtq *vq, uint16_t i)
{
	return (i & vq->n) ? VRING_PACKED_DESC_F_USED : VRING_PACKED_DESC_F_AVAIL;	/* wrap 0 : 1 */
}

/* Make buffer id (addr, len bytes; flags VRING_DESC_F_WRITE for the
 * device to fill) available (2.7.13, 2.8.6); the device may see it at
 * once with packed rings, at virtq_publish with split ones. */
static inline __attribute__((always_inline)) void virtq_add_buf(struct virtq *vq, uint16_t id, uint64_t addr, uint32_t len, uint16_t flags)
{
	if (__builtin_expect(vq->packed, 0)) {
		volatile struct vring_packed_desc *d = &vq->pdesc[vq->avail_idx & (vq->n - 1)];
		d->addr = addr;
		d->len = len;
		d->id = id;
		__atomic_signal_fence(__ATOMIC_RELEASE);	/* the fields before the flags (x86: stores in order) */
		d->flags = (uint16_t)(flags | vring_packed_avail_flags(vq, vq->avail_idx));
	} else {
		volatile struct vring_desc *d = &vq->desc[id];
		d->addr = addr;	/* next is not read: flags never has VRING_DESC_F_NEXT here */
		d->len = len;
		d->flags = flags;
		vq->avail->ring[vq->avail_idx & (vq->n - 1)] = id;
	}
	vq->avail_idx++;
}
/* Notify the device of queue vq (4.1.4.4: its index written to its
 * notification address; legacy 4.1.4.8: to the queue notify port),
 * counted in vq->kicks. */
void virtq_kick(struct virtq *vq);
/* virtq_publish for a packed ring (2.8.10: the device's event
 * suppression structure says whether it wants a kick). */
void virtq_publish_packed(struct virtq *vq);
/* Publish what was added and notify the device if it asked to be
 * (2.7.13.3-4 avail_event or VRING_USED_F_NO_NOTIFY; packed rings:
 * virtq_publish_packed). Inline for split rings: it runs once per burst
 * each way; vq's own fields are read before the fence, so that only the
 * device's avail_event or flags is read after it. */
static inline __attribute__((always_inline)) void virtq_publish(struct virtq *vq)
{
	const uint16_t old = vq->kicked, nw = vq->avail_idx;
	if (__builtin_expect(vq->packed, 0)) {
		virtq_publish_packed(vq);
		return;
	}
	const int event_idx = vq->event_idx;
	/* 2.7.13.3: the ring entries before the index (x86 keeps store order) */
	__atomic_signal_fence(__ATOMIC_RELEASE);
	vq->avail->idx = nw;
	vq->kicked = nw;
	/* 2.7.13.4: the index before the device's avail_event or flags are
	 * read: a full fence, as Linux's virtio_mb (a store may pass a later
	 * load) */
	mfence();
	if (old != nw && (event_idx ? vring_need_event(*vq->avail_event, nw, old)
				    : !(vq->used->flags & VRING_USED_F_NO_NOTIFY)))
		virtq_kick(vq);
}
/* A used entry waiting (2.7.14: used->idx moved, by at most n; 2.8.1:
 * the next slot's AVAIL and USED flags both equal the used wrap counter). */
static inline __attribute__((always_inline)) int virtq_has_used(const struct virtq *vq)
{
	if (__builtin_expect(!vq->packed, 1))
		return (uint16_t)(vq->used->idx - vq->last_used - 1) < vq->n;
	uint16_t f = vq->pdesc[vq->last_used & (vq->n - 1)].flags;
	uint16_t w = (vq->last_used & vq->n) ? 0 : VRING_PACKED_DESC_F_AVAIL | VRING_PACKED_DESC_F_USED;
	return (f & (VRING_PACKED_DESC_F_AVAIL | VRING_PACKED_DESC_F_USED)) == w;
}
/* Used entries known to wait: split, all of them (one read of used->idx);
 * packed, 1 if the next one is used (each entry is checked on its own).
 * A split index more than n ahead is a device error: none are taken, and
 * vq->broken says how far it moved (the driver resets the device). */
static inline __attribute__((always_inline)) uint16_t virtq_used_ready(struct virtq *vq)
{
	if (__builtin_expect(!vq->packed, 1)) {
		uint16_t m = (uint16_t)(vq->used->idx - vq->last_used);
		if (__builtin_expect(m > vq->n, 0)) {
			vq->broken = m;
			return 0;
		}
		return m;
	}
	return (uint16_t)virtq_has_used(vq);
}
/* Take the next used entry of a one-descriptor buffer, which
 * virtq_used_ready said waits: its id and the bytes the device wrote. */
static inline __attribute__((always_inline)) void virtq_take_used(struct virtq *vq, uint32_t *id, uint32_t *len)
{
	__atomic_signal_fence(__ATOMIC_ACQUIRE);	/* the flags or index before the entry (x86: loads in order) */
	if (__builtin_expect(vq->packed, 0)) {
		volatile struct vring_packed_desc *d = &vq->pdesc[vq->last_used & (vq->n - 1)];
		*id = d->id;
		*len = d->len;
	} else {
		volatile struct vring_used_elem *e = &vq->used->ring[vq->last_used & (vq->n - 1)];
		*id = e->id;
		*len = e->len;
	}
	vq->last_used++;
}
/* Interrupts after the next used entry (1) or none (0) (2.7.10: used_event
 * with VIRTIO_F_EVENT_IDX, else VRING_AVAIL_F_NO_INTERRUPT; 2.8.10: the
 * driver's event flags). Enabling returns 1 if entries already wait (read
 * after the write is visible). */
int virtq_irq(struct virtq *vq, int on);
/* Forget what is in flight (after a device reset): the rings start over. */
void virtq_restart(struct virtq *vq);

/* A control virtqueue (virtio-net 5.1.6.5) and the DMA buffer of its one
 * command in flight. */
struct virtio_ctrl {
	struct virtq vq;
	uint8_t *buf;
	uint64_t kicks;		/* its notifications (not shown) */
};
/* Send command class.cmd with len bytes of data and wait up to 1 s for
 * the device's ack. 0 (VIRTIO_NET_OK), or -1 after printing why. */
int virtio_ctrl_cmd(struct virtio_ctrl *c, const char *who, uint8_t class, uint8_t cmd, const void *data,
		    uint32_t len);
#endif
