/*
 * A virtio-net PCI device (virtio 1.2 4.1, modern interface) in the
 * register model, for host tests of drivers/net/virtio/: the vendor
 * capabilities in PCI config space, the common configuration, ISR, device
 * configuration and notification structures in BAR 0, and the device's
 * side of split virtqueues (2.7). It can be scripted to lie as a broken
 * device would: capabilities pointing outside their BAR or in a loop, a
 * queue size of 0 or not a power of two, features without VERSION_1,
 * FEATURES_OK refused, DEVICE_NEEDS_RESET, used entries naming buffers
 * never made available, lengths past the buffer, a used index jumping
 * beyond the ring, a queue reset that never ends. With
 * VIRTIO_F_RING_RESET (40) negotiated it resets one queue (2.6.1). It answers the control queue and drives packed rings
 * too. Built with model.c (the PCI, DMA and NIC fakes) and
 * the driver files with VIRTIO_HOST_MODEL (pci.c's accesses come here).
 */
#ifndef VIRTIO_MODEL_H
#define VIRTIO_MODEL_H
#include <stdint.h>

#define VM_QUEUES 5			/* RX 0, TX 1, a second pair, and the control queue */
#define VM_CTRLQ 4			/* the control queue with two pairs (5.1.2) */
/* Where the structures sit in BAR 0 (offset, length). */
#define VM_COMMON 0x0000
#define VM_ISR 0x1000
#define VM_DEVICE 0x2000
#define VM_NOTIFY 0x3000
#define VM_NOTIFY_MULT 4

/* One virtqueue as the device sees it. */
struct vm_queue {
	uint16_t size;			/* queue_size: what the device offers, then what the driver wrote */
	uint16_t msix, enable;
	uint16_t reset;			/* queue_reset: 1 while a queue reset is under way */
	uint64_t desc, avail, used;	/* ring addresses the driver wrote */
	uint16_t last_avail;		/* next avail ring entry the device takes */
	uint16_t used_idx;		/* next used entry it writes */
};

/* What the device does; set before the probe. */
struct vm_script {
	uint64_t features;		/* offered */
	uint16_t qsize[VM_QUEUES];	/* queue_size after each reset */
	int refuse_features_ok;		/* FEATURES_OK never reads back set */
	int refuse_msix;		/* queue_msix_vector reads back VIRTIO_MSI_NO_VECTOR */
	int stuck_queue_reset;		/* with VIRTIO_F_RING_RESET: queue_reset keeps reading 1 */
	uint32_t rx_hash;		/* with HASH_REPORT: vmodel_rx's hash_value ... */
	uint16_t rx_hash_report;	/* ... and hash_report (0: none) */
};

/* The last command on the control queue (5.1.6.5), answered VIRTIO_NET_OK
 * on the driver's next udelay; commands counts them all. */
struct vm_ctrl {
	uint8_t class, cmd;
	uint8_t data[1024];
	uint32_t len;
	int commands;
};

struct vmodel {
	struct vm_script s;
	uint64_t driver_features;
	uint32_t dfselect, gfselect;
	uint8_t status, isr;
	uint8_t status_seen;		/* OR of every device_status written since vmodel_init */
	uint16_t qselect, config_msix;
	struct vm_queue q[VM_QUEUES];
	uint8_t devcfg[0x40];		/* virtio_net_config (5.1.4) */
	int resets;			/* device_status written 0 */
	int queue_resets;		/* queue_reset written 1 (VIRTIO_F_RING_RESET, 2.6.1) */
	struct vm_ctrl ctrl;
	int bad_access;			/* accesses outside the structures */
};
extern struct vmodel V;

/* With VIRTIO_F_RING_PACKED (34) negotiated, queues are packed (2.8):
 * vmodel_take, vmodel_use, vmodel_rx and vmodel_tx work on them alike
 * (the control queue and the event structures are split-only here). */

/* Power-on: the model of model.c (M_82574's PCIe config space) and a
 * virtio-net device with MAC 52:54:00:12:34:56, link up, queues of 256. */
void vmodel_init(void);
/* Config space offset of the vendor capability of cfg_type type (4.1.4). */
uint8_t vmodel_cap(int type);
/* Put frame (len bytes) behind a virtio_net_hdr with flags into RX queue
 * qi's next available buffer, returned used with num_buffers 1 (the header
 * 20 bytes with HASH_REPORT negotiated, V.s.rx_hash in it); 1, or 0 if
 * the driver made none available (the device would drop it). */
int vmodel_rx(int qi, const uint8_t *frame, uint16_t len, uint8_t flags);
/* Take up to max buffers the driver made available in queue qi without
 * returning them: their ids into ids; the count. */
int vmodel_take(int qi, uint16_t *ids, int max);
/* Return buffer id used with len bytes written (a lie if id was not taken). */
void vmodel_use(int qi, uint32_t id, uint32_t len);
/* VIRTIO_F_IN_ORDER (35) on a split ring (2.7.9): return the batch of
 * count buffers taken (in order) whose last is id with one used entry
 * (id, len) where the batch's first would go, the used index moved on by
 * count; the entries after it are not written. */
void vmodel_use_batch(int qi, uint32_t id, uint32_t len, uint16_t count);
/* Send what TX queue qi holds: take every buffer and return it used in
 * order; the count. The last frame's header (its first 20 bytes) and
 * length land in vmodel_last_hdr and vmodel_last_len. */
int vmodel_tx(int qi);
extern uint8_t vmodel_last_hdr[20];
extern uint32_t vmodel_last_len;
/* The device's avail_event of queue qi (2.7.10, with EVENT_IDX). */
void vmodel_set_avail_event(int qi, uint16_t v);
/* The driver's used_event of queue qi. */
uint16_t vmodel_used_event(int qi);
/* Move queue qi's used index on by delta without writing entries (a lie). */
void vmodel_used_jump(int qi, uint16_t delta);
#endif
