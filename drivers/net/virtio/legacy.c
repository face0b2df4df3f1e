/*
 * The legacy virtio PCI interface (virtio 1.2 section 4.1.4.8 and the
 * "Legacy Interface" notes of 2.7, 3.1.2, 5.1.6): every register in I/O BAR
 * 0, 32 feature bits, split rings whose used ring starts on a 4096-byte
 * boundary at a page frame number, queue sizes the device fixes, and the
 * device configuration after the MSI-X vector registers when MSI-X is on.
 * A device with no virtio 1.x capabilities (QEMU: disable-modern=on, and
 * hypervisors that only have this one) is driven through it.
 */
#include <stdio.h>
#include "drivers/net/virtio/virtio.h"
#include "drivers/pci/pcidecode.h"
#include "kernel/cpu.h"
#include "kernel/time.h"

/* Legacy registers (4.1.4.8): offsets in the I/O BAR. */
#define VL_HOST_FEATURES	0x00	/* le32, bits 0-31 */
#define VL_GUEST_FEATURES	0x04	/* le32 */
#define VL_QUEUE_PFN		0x08	/* le32: ring address >> 12 */
#define VL_QUEUE_SIZE		0x0c	/* le16, read-only */
#define VL_QUEUE_SELECT		0x0e	/* le16 */
#define VL_QUEUE_NOTIFY		0x10	/* le16 */
#define VL_STATUS		0x12	/* u8 */
#define VL_ISR			0x13	/* u8, read clears */
#define VL_CONFIG_VECTOR	0x14	/* le16, with MSI-X on */
#define VL_QUEUE_VECTOR		0x16	/* le16, with MSI-X on */
#define VL_DEVICE_CFG		0x14	/* device configuration, MSI-X off */
#define VL_DEVICE_CFG_MSIX	0x18	/* device configuration, MSI-X on */
#define PCI_MSIX_ENABLE		0x8000	/* Message Control, MSI-X Enable */

int vleg_map(struct virtio_pci *t)
{
	struct pci_dev *d = t->pci;
	t->io = pci_map_io(d);
	if (!t->io) {
		printf("%s: neither virtio 1.x capabilities nor a legacy I/O BAR (virtio 1.2 4.1.4.8)\n", t->who);
		return -1;
	}
	pci_write16(d, PCI_COMMAND, (uint16_t)(pci_read16(d, PCI_COMMAND) | PCI_COMMAND_MASTER));
	t->ops = &vpci_legacy;
	return 0;
}

static uint8_t vleg_status(const struct virtio_pci *t)
{
	return inb((uint16_t)(t->io + VL_STATUS));
}

static void vleg_status_write(struct virtio_pci *t, uint8_t v)
{
	outb((uint16_t)(t->io + VL_STATUS), v);
}

static uint64_t vleg_device_features(const struct virtio_pci *t)
{
	return inl((uint16_t)(t->io + VL_HOST_FEATURES));
}

/* 3.1.2: a legacy device has no FEATURES_OK; the features written are the ones used. */
static int vleg_features_write(struct virtio_pci *t)
{
	outl((uint16_t)(t->io + VL_GUEST_FEATURES), (uint32_t)t->features);
	return 0;
}

static int msix_on(const struct virtio_pci *t)
{
	const struct pci_dev *d = t->pci;
	return d->cap_msix && (pci_read16(d, (uint16_t)(d->cap_msix + 2)) & PCI_MSIX_ENABLE);
}

static uint32_t vleg_config(const struct virtio_pci *t, uint32_t off, int len)
{
	uint16_t p = (uint16_t)(t->io + (msix_on(t) ? VL_DEVICE_CFG_MSIX : VL_DEVICE_CFG) + off);
	return len == 1 ? inb(p) : len == 2 ? inw(p) : inl(p);
}

static uint16_t vleg_queue_max(struct virtio_pci *t, uint16_t index)
{
	outw((uint16_t)(t->io + VL_QUEUE_SELECT), index);
	return inw((uint16_t)(t->io + VL_QUEUE_SIZE));
}

static uint16_t vleg_config_vector(struct virtio_pci *t, uint16_t vec)
{
	if (!msix_on(t))
		return vec == VIRTIO_MSI_NO_VECTOR ? vec : (uint16_t)~vec;
	outw((uint16_t)(t->io + VL_CONFIG_VECTOR), vec);
	return inw((uint16_t)(t->io + VL_CONFIG_VECTOR));
}

static uint8_t vleg_isr(const struct virtio_pci *t)
{
	return inb((uint16_t)(t->io + VL_ISR));
}

/* 4.1.5.1.3's legacy form: the ring at a page frame (its used ring
 * 4096-aligned: vq->legacy), the vector only with MSI-X on. */
static int vleg_queue_place(struct virtio_pci *t, struct virtq *vq, uint16_t vector)
{
	outl((uint16_t)(t->io + VL_QUEUE_PFN), (uint32_t)((uint64_t)vq->desc >> 12));
	if (msix_on(t)) {
		outw((uint16_t)(t->io + VL_QUEUE_VECTOR), vector);
		if (inw((uint16_t)(t->io + VL_QUEUE_VECTOR)) != vector) {
			printf("%s: virtqueue %u refused MSI-X vector %u\n", t->who, vq->index, vector);
			return -1;
		}
	}
	vq->notify_io = (uint16_t)(t->io + VL_QUEUE_NOTIFY);
	return 0;
}

const struct vpci_ops vpci_legacy = {
	.status = vleg_status, .status_write = vleg_status_write, .device_features = vleg_device_features,
	.features_write = vleg_features_write, .config = vleg_config, .queue_max = vleg_queue_max,
	.config_vector = vleg_config_vector, .isr = vleg_isr, .queue_place = vleg_queue_place, .fixed_size = 1,
};
