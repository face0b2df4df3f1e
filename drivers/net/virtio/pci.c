/*
 * The virtio 1.x PCI transport (virtio 1.2 section 4.1): the vendor
 * capabilities that place the common, notify, ISR and device
 * configuration structures in BARs, the device status and feature
 * negotiation of 3.1.1, and the device configuration.
 */
#include <stdio.h>
#include "drivers/net/virtio/virtio.h"
#include "drivers/pci/pcidecode.h"
#include "kernel/time.h"

/* Access to the structures in the BARs: through these only. The host
 * register-model build (tests/regmodel/virtio_model.c, VIRTIO_HOST_MODEL)
 * sends every access to the model. */
#ifdef VIRTIO_HOST_MODEL
uint32_t vmodel_read(volatile uint8_t *a, int len);
void vmodel_write(volatile uint8_t *a, int len, uint32_t v);
static inline uint8_t rd8(volatile uint8_t *b, uint32_t off) { return (uint8_t)vmodel_read(b + off, 1); }
static inline uint16_t rd16(volatile uint8_t *b, uint32_t off) { return (uint16_t)vmodel_read(b + off, 2); }
static inline uint32_t rd32(volatile uint8_t *b, uint32_t off) { return vmodel_read(b + off, 4); }
static inline void wr8(volatile uint8_t *b, uint32_t off, uint8_t v) { vmodel_write(b + off, 1, v); }
static inline void wr16(volatile uint8_t *b, uint32_t off, uint16_t v) { vmodel_write(b + off, 2, v); }
static inline void wr32(volatile uint8_t *b, uint32_t off, uint32_t v) { vmodel_write(b + off, 4, v); }
#else
static inline uint8_t rd8(volatile uint8_t *b, uint32_t off) { return *(volatile uint8_t *)(b + off); }
static inline uint16_t rd16(volatile uint8_t *b, uint32_t off) { return *(volatile uint16_t *)(b + off); }
static inline uint32_t rd32(volatile uint8_t *b, uint32_t off) { return *(volatile uint32_t *)(b + off); }
static inline void wr8(volatile uint8_t *b, uint32_t off, uint8_t v) { *(volatile uint8_t *)(b + off) = v; }
static inline void wr16(volatile uint8_t *b, uint32_t off, uint16_t v) { *(volatile uint16_t *)(b + off) = v; }
static inline void wr32(volatile uint8_t *b, uint32_t off, uint32_t v) { *(volatile uint32_t *)(b + off) = v; }
#endif

static const struct vpci_ops vpci_modern;

/* A 64-bit field as two 32-bit writes, low first (4.1.3.1). */
static void wr64(volatile uint8_t *b, uint32_t off, uint64_t v)
{
	wr32(b, off, (uint32_t)v);
	wr32(b, off + 4, (uint32_t)(v >> 32));
}

/* The structure a vendor capability at cap points to, its BAR mapped; NULL
 * if the BAR is not memory or the structure does not fit in it. */
static volatile uint8_t *cap_map(struct virtio_pci *t, uint8_t cap)
{
	struct pci_dev *d = t->pci;
	uint8_t bar = pci_read8(d, cap + VIRTIO_PCI_CAP_BAR);
	uint32_t off = pci_read32(d, cap + VIRTIO_PCI_CAP_OFFSET), len = pci_read32(d, cap + VIRTIO_PCI_CAP_LENGTH);
	if (bar > 5 || (uint64_t)off + len > d->bar[bar].size)
		return 0;
	volatile uint8_t *base = pci_map_bar(d, bar);
	return base ? base + off : 0;
}

int vpci_map(struct virtio_pci *t)
{
	struct pci_dev *d = t->pci;
	static const char *const names[] = { "", "common", "notify", "ISR", "device" };
	volatile uint8_t **where[] = { 0, &t->common, &t->notify, &t->isr, &t->device };
	/* Walk the capability list (PCI 3.0 6.7); the first of each type
	 * wins (4.1.4: the driver uses the first it can). */
	uint8_t cap = pci_read8(d, PCI_CAPABILITY_LIST) & 0xfc;
	for (int i = 0; cap >= 0x40 && i < 48; i++, cap = pci_read8(d, cap + 1) & 0xfc) {
		uint8_t type = pci_read8(d, cap + VIRTIO_PCI_CAP_TYPE);
		if (pci_read8(d, cap) != VIRTIO_PCI_CAP_VNDR || type < 1 || type > 4 || *where[type])
			continue;
		*where[type] = cap_map(t, cap);
		if (type == VIRTIO_PCI_CAP_COMMON_CFG)
			t->common_len = pci_read32(d, cap + VIRTIO_PCI_CAP_LENGTH);
		if (type == VIRTIO_PCI_CAP_NOTIFY_CFG)
			t->notify_mult = pci_read32(d, cap + VIRTIO_PCI_NOTIFY_MULT);
	}
	for (int type = 1; type <= 4; type++)
		if (!*where[type]) {
			if (d->device == VIRTIO_PCI_NET_TRANS)
				return vleg_map(t);	/* 4.1.2.1: transitional, its legacy interface */
			printf("%s: no usable virtio %s configuration capability (virtio 1.2 4.1.4): "
			       "not a virtio 1.x device (QEMU: disable-modern=off)\n", t->who, names[type]);
			return -1;
		}
	t->ops = &vpci_modern;
	return 0;
}

static uint8_t modern_status(const struct virtio_pci *t)
{
	return rd8(t->common, VIRTIO_COMMON_STATUS);
}

static void modern_status_write(struct virtio_pci *t, uint8_t v)
{
	wr8(t->common, VIRTIO_COMMON_STATUS, v);
}

static uint8_t modern_isr(const struct virtio_pci *t)
{
	return rd8(t->isr, 0);
}

static uint64_t modern_device_features(const struct virtio_pci *t)
{
	uint64_t f = 0;
	for (uint32_t w = 0; w < 2; w++) {
		wr32(t->common, VIRTIO_COMMON_DFSELECT, w);
		f |= (uint64_t)rd32(t->common, VIRTIO_COMMON_DF) << (32 * w);
	}
	return f;
}

/* 3.1.1 steps 5-6: the features, then FEATURES_OK, read back. */
static int modern_features_write(struct virtio_pci *t)
{
	for (uint32_t w = 0; w < 2; w++) {
		wr32(t->common, VIRTIO_COMMON_GFSELECT, w);
		wr32(t->common, VIRTIO_COMMON_GF, (uint32_t)(t->features >> (32 * w)));
	}
	vpci_status_set(t, VIRTIO_STATUS_FEATURES_OK);
	if (vpci_status(t) & VIRTIO_STATUS_FEATURES_OK)
		return 0;
	printf("%s: the device refused features %#llx (FEATURES_OK did not stay set, virtio 1.2 3.1.1 step 6)\n",
	       t->who, (unsigned long long)t->features);
	vpci_status_set(t, VIRTIO_STATUS_FAILED);
	return -1;
}

static uint32_t modern_config(const struct virtio_pci *t, uint32_t off, int len)
{
	uint8_t gen;
	uint32_t v;
	do {
		gen = rd8(t->common, VIRTIO_COMMON_CFGGEN);
		v = len == 1 ? rd8(t->device, off) : len == 2 ? rd16(t->device, off) : rd32(t->device, off);
	} while (gen != rd8(t->common, VIRTIO_COMMON_CFGGEN));
	return v;
}

static uint16_t modern_config_vector(struct virtio_pci *t, uint16_t vec)
{
	wr16(t->common, VIRTIO_COMMON_MSIX, vec);
	return rd16(t->common, VIRTIO_COMMON_MSIX);
}

static uint16_t modern_queue_max(struct virtio_pci *t, uint16_t index)
{
	wr16(t->common, VIRTIO_COMMON_Q_SELECT, index);
	return rd16(t->common, VIRTIO_COMMON_Q_SIZE);
}

/* 4.1.5.1.3: size, ring addresses, vector, notification offset, enable. */
static int modern_queue_place(struct virtio_pci *t, struct virtq *vq, uint16_t vector)
{
	volatile uint8_t *c = t->common;
	wr16(c, VIRTIO_COMMON_Q_SIZE, vq->n);
	if (vq->packed) {	/* 2.8: the ring, the driver and device event structures */
		wr64(c, VIRTIO_COMMON_Q_DESC, (uint64_t)vq->pdesc);
		wr64(c, VIRTIO_COMMON_Q_AVAIL, (uint64_t)vq->driver_event);
		wr64(c, VIRTIO_COMMON_Q_USED, (uint64_t)vq->device_event);
	} else {
		wr64(c, VIRTIO_COMMON_Q_DESC, (uint64_t)vq->desc);
		wr64(c, VIRTIO_COMMON_Q_AVAIL, (uint64_t)vq->avail);
		wr64(c, VIRTIO_COMMON_Q_USED, (uint64_t)vq->used);
	}
	wr16(c, VIRTIO_COMMON_Q_MSIX, vector);
	if (rd16(c, VIRTIO_COMMON_Q_MSIX) != vector) {
		printf("%s: virtqueue %u refused MSI-X vector %u\n", t->who, vq->index, vector);
		return -1;
	}
	vq->notify = (volatile uint16_t *)(t->notify + (uint32_t)rd16(c, VIRTIO_COMMON_Q_NOFF) * t->notify_mult);
	wr16(c, VIRTIO_COMMON_Q_ENABLE, 1);
	return 0;
}

static const struct vpci_ops vpci_modern = {
	.status = modern_status, .status_write = modern_status_write, .device_features = modern_device_features,
	.features_write = modern_features_write, .config = modern_config, .queue_max = modern_queue_max,
	.config_vector = modern_config_vector, .isr = modern_isr, .queue_place = modern_queue_place,
};

uint8_t vpci_status(const struct virtio_pci *t)
{
	return t->ops->status(t);
}

void vpci_status_set(struct virtio_pci *t, uint8_t bits)
{
	t->ops->status_write(t, vpci_status(t) | bits);
}

uint8_t vpci_isr(const struct virtio_pci *t)
{
	return t->ops->isr(t);
}

/* 4.1.4.3.2: after writing 0 the driver waits for device_status to read 0. */
int vpci_reset(struct virtio_pci *t)
{
	t->ops->status_write(t, 0);
	for (int i = 0; i < 1000; i++) {
		if (!vpci_status(t))
			return 0;
		udelay(100);
	}
	printf("%s: device status %#x 100 ms after the reset (virtio 1.2 4.1.4.3.2: should read 0)\n",
	       t->who, vpci_status(t));
	return -1;
}

int vpci_queue_reset(struct virtio_pci *t, uint16_t index)
{
	volatile uint8_t *c = t->common;
	wr16(c, VIRTIO_COMMON_Q_SELECT, index);
	wr16(c, VIRTIO_COMMON_Q_RESET, 1);
	for (int i = 0; i < 1000; i++) {
		if (!rd16(c, VIRTIO_COMMON_Q_RESET) && !rd16(c, VIRTIO_COMMON_Q_ENABLE))
			return 0;
		udelay(100);
	}
	printf("%s: virtqueue %u: queue_reset %u and queue_enable %u 100 ms after its reset (virtio 1.2 "
	       "4.1.4.3.2: both should read 0)\n", t->who, index, rd16(c, VIRTIO_COMMON_Q_RESET),
	       rd16(c, VIRTIO_COMMON_Q_ENABLE));
	return -1;
}

uint64_t vpci_device_features(const struct virtio_pci *t)
{
	return t->ops->device_features(t);
}

int vpci_features_ok(struct virtio_pci *t, uint64_t want)
{
	t->features = vpci_device_features(t) & want;
	return t->ops->features_write(t);
}

uint32_t vpci_config(const struct virtio_pci *t, uint32_t off, int len)
{
	return t->ops->config(t, off, len);
}

uint16_t vpci_config_vector(struct virtio_pci *t, uint16_t vec)
{
	return t->ops->config_vector(t, vec);
}

uint16_t vpci_queue_max(struct virtio_pci *t, uint16_t index)
{
	return t->ops->queue_max(t, index);
}

int virtq_setup(struct virtio_pci *t, struct virtq *vq, uint16_t index, uint32_t want, uint16_t vector,
		uint64_t *kicks)
{
	vq->index = index;
	vq->kicks = kicks;
	vq->event_idx = !!(t->features & VIRTIO_BIT(VIRTIO_F_EVENT_IDX));
	uint16_t max = vpci_queue_max(t, index);
	if (!max || (max & (max - 1))) {
		printf("%s: virtqueue %u has size %u: not a power of two (virtio 1.2 2.7: split queues need one; "
		       "this driver's packed rings too)\n", t->who, index, max);
		return -1;
	}
	uint16_t n = max;
	while (!t->ops->fixed_size && n > want && n > 1)
		n >>= 1;
	if (vq->bufs && vq->n != n) {
		printf("%s: virtqueue %u changed size from %u to %u across a reset\n", t->who, index, vq->n, n);
		return -1;
	}
	vq->n = n;
	vq->packed = !!(t->features & VIRTIO_BIT(VIRTIO_F_RING_PACKED));
	vq->in_order = !vq->packed && (t->features & VIRTIO_BIT(VIRTIO_F_IN_ORDER));
	vq->legacy = t->ops == &vpci_legacy;
	if (virtq_alloc(vq)) {
		printf("%s: no memory for virtqueue %u (%u descriptors)\n", t->who, index, n);
		return -1;
	}
	return t->ops->queue_place(t, vq, vector);
}
