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
	return 0;
}

uint8_t vleg_status(const struct virtio_pci *t)
{
	return inb((uint16_t)(t->io + VL_STATUS));
}

void vleg_status_write(struct virtio_pci *t, uint8_t v)
{
	outb((uint16_t)(t->io + VL_STATUS), v);
}

uint64_t vleg_device_features(const struct virtio_pci *t)
{
	return inl((uint16_t)(t->io + VL_HOST_FEATURES));
}

/* 3.1.2: a legacy device has no FEATURES_OK; the features written are the ones used. */
void vleg_features_write(struct virtio_pci *t, uint64_t features)
{
	outl((uint16_t)(t->io + VL_GUEST_FEATURES), (uint32_t)features);
}

static int msix_on(const struct virtio_pci *t)
{
	const struct pci_dev *d = t->pci;
	return d->cap_msix && (pci_read16(d, (uint16_t)(d->cap_msix + 2)) & PCI_MSIX_ENABLE);
}

uint32_t vleg_config(const struct virtio_pci *t, uint32_t off, int len)
{
	uint16_t p = (uint16_t)(t->io + (msix_on(t) ? VL_DEVICE_CFG_MSIX : VL_DEVICE_CFG) + off);
	return len == 1 ? inb(p) : len == 2 ? inw(p) : inl(p);
}

uint16_t vleg_queue_max(struct virtio_pci *t, uint16_t index)
{
	outw((uint16_t)(t->io + VL_QUEUE_SELECT), index);
	return inw((uint16_t)(t->io + VL_QUEUE_SIZE));
}

uint16_t vleg_config_vector(struct virtio_pci *t, uint16_t vec)
{
	if (!msix_on(t))
		return vec == VIRTIO_MSI_NO_VECTOR ? vec : (uint16_t)~vec;
	outw((uint16_t)(t->io + VL_CONFIG_VECTOR), vec);
	return inw((uint16_t)(t->io + VL_CONFIG_VECTOR));
}

uint8_t vleg_isr(const struct virtio_pci *t)
{
	return inb((uint16_t)(t->io + VL_ISR));
}

/* 4.1.5.1.3's legacy form: the queue's size is the device's (the driver
 * cannot choose one), the ring at a page frame, used ring 4096-aligned. */
int vleg_queue_setup(struct virtio_pci *t, struct virtq *vq, uint16_t index, uint16_t vector)
{
	uint16_t n = vleg_queue_max(t, index);
	if (!n || (n & (n - 1))) {
		printf("%s: virtqueue %u has size %u: not a power of two (virtio 1.2 2.7)\n", t->who, index, n);
		return -1;
	}
	if (vq->bufs && vq->n != n) {
		printf("%s: virtqueue %u changed size from %u to %u across a reset\n", t->who, index, vq->n, n);
		return -1;
	}
	vq->n = n;
	vq->legacy = 1;
	if (virtq_alloc(vq)) {
		printf("%s: no memory for virtqueue %u (%u descriptors)\n", t->who, index, n);
		return -1;
	}
	outl((uint16_t)(t->io + VL_QUEUE_PFN), (uint32_t)((uint64_t)vq->desc >> 12));
	if (msix_on(t)) {
		outw((uint16_t)(t->io + VL_QUEUE_VECTOR), vector);
		if (inw((uint16_t)(t->io + VL_QUEUE_VECTOR)) != vector) {
			printf("%s: virtqueue %u refused MSI-X vector %u\n", t->who, index, vector);
			return -1;
		}
	}
	vq->notify_io = (uint16_t)(t->io + VL_QUEUE_NOTIFY);
	return 0;
}
