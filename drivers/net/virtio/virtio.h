/*
 * virtio-net driver state: the virtio 1.x PCI transport (pci.c), split
 * virtqueues (virtqueue.c) and the port (net.c). Definitions from the
 * specification are in regs.h.
 */
#ifndef VIRTIO_H
#define VIRTIO_H
#include <stdint.h>
#include "drivers/net/nic.h"
#include "drivers/net/virtio/regs.h"

/* The modern PCI transport (4.1.4): where each structure is mapped. */
struct virtio_pci {
	struct pci_dev *pci;
	const char *who;		/* "port0", for messages */
	volatile uint8_t *common;	/* common configuration (4.1.4.3) */
	volatile uint8_t *notify;	/* notification area (4.1.4.4) */
	volatile uint8_t *isr;		/* ISR status (4.1.4.5) */
	volatile uint8_t *device;	/* device-specific configuration (4.1.4.6) */
	uint32_t notify_mult;		/* notify_off_multiplier, bytes */
	uint64_t features;		/* negotiated */
};

/* Find the vendor capabilities and map the BARs they name (any BAR,
 * 64-bit ones anywhere). 0, or -1 after printing which is missing. */
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

struct pkt;

/* A split virtqueue (2.7) whose descriptor i, when in flight, carries
 * bufs[i]: RX posts every descriptor once, TX takes them from a free stack. */
struct virtq {
	uint16_t index;			/* queue number (5.1.2: 2k RX, 2k+1 TX) */
	uint16_t n;			/* descriptors, a power of two */
	volatile struct vring_desc *desc;
	volatile struct vring_avail *avail;
	volatile struct vring_used *used;
	volatile uint16_t *used_event;	/* avail->ring[n] */
	volatile uint16_t *avail_event;	/* after used->ring[n] */
	volatile uint16_t *notify;	/* where a kick writes index */
	uint16_t avail_idx;		/* next avail->idx to publish */
	uint16_t kicked;		/* avail->idx at the last kick decision */
	uint16_t last_used;		/* next used ring entry to read */
	int event_idx;			/* VIRTIO_F_EVENT_IDX negotiated */
	struct pkt **bufs;		/* by descriptor */
	uint16_t *free;			/* TX: descriptors not in flight */
	uint16_t nfree;
	uint64_t *kicks;		/* where notifications written are counted */
};

/*
 * Queue setup (4.1.5.1.3): select queue index, take its size or rxd/txd
 * want if smaller (refused: 0 or not a power of two), allocate the rings
 * once (kept across resets), write their addresses and the MSI-X vector,
 * enable; kicks counts its notifications. Returns 0, or -1 after printing why.
 */
int virtq_setup(struct virtio_pci *t, struct virtq *vq, uint16_t index, uint32_t want, uint16_t vector,
		uint64_t *kicks);
/* The rings of vq->n descriptors (one allocation: descriptor table,
 * driver area, device area at their 2.7 alignments) and the bufs and free
 * arrays, unless vq has them; then virtq_restart. 0, or -1 (no memory). */
int virtq_alloc(struct virtq *vq);
/* Make descriptor id available (2.7.13); visible at virtq_publish. */
static inline void virtq_add(struct virtq *vq, uint16_t id)
{
	vq->avail->ring[vq->avail_idx++ & (vq->n - 1)] = id;
}
/* Publish the added descriptors and notify the device if it asked to be
 * (2.7.13.3-4, avail_event or VRING_USED_F_NO_NOTIFY). */
void virtq_publish(struct virtq *vq);
/* Used entries waiting (2.7.14). */
static inline uint16_t virtq_used_pending(const struct virtq *vq)
{
	return (uint16_t)(vq->used->idx - vq->last_used);
}
/* Interrupts after the next used entry (1) or none (0) (2.7.10): used_event
 * with VIRTIO_F_EVENT_IDX, else VRING_AVAIL_F_NO_INTERRUPT. Enabling
 * returns 1 if entries already wait (read after the write is visible). */
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
