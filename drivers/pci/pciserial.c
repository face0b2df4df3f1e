/* PCI serial cards: 16550-compatible ports behind an I/O BAR (class 07,
 * subclass 00, programming interface 02-06: 16550 to 16950; PCI Code and
 * ID Assignment 1.11, table D-8), numbered as Linux numbers them after the
 * four legacy ports (ttyS4, ttyS5, ...). */
#include "drivers/pci/pci.h"
#include "drivers/pci/pciserial.h"

#define PORT_STRIDE 8	/* 16550 registers per port in the BAR, as Linux's pbn_b0_N */

/* The number of ports in I/O BAR b: 8 bytes each, at most 4 (QEMU's
 * pci-serial, -2x and -4x have 8, 16 and 32 bytes). */
static int ports_in(const struct pci_bar *b)
{
	uint64_t n = b->size / PORT_STRIDE;
	return n > 4 ? 4 : (int)n;
}

int pci_serial_ports(uint16_t *bases, int max)
{
	int n = 0, found = 0;

	for (int i = 0; i < pci_ndevs; i++)
		found |= pci_devs[i].class == 0x07 && pci_devs[i].subclass == 0x00;
	if (!found)
		return 0;
	pci_size_bars();	/* only when there is a serial card: it costs boot time */
	for (int i = 0; i < pci_ndevs && n < max; i++) {
		struct pci_dev *d = &pci_devs[i];
		if (d->class != 0x07 || d->subclass != 0x00 || d->progif < 0x02 || d->progif > 0x06)
			continue;
		uint16_t base = pci_map_io(d);
		for (int b = 0; base && b < 6; b++)
			if (d->bar[b].type == PCI_BAR_IO && d->bar[b].addr == base)
				for (int p = 0; p < ports_in(&d->bar[b]) && n < max; p++)
					bases[n++] = (uint16_t)(base + p * PORT_STRIDE);
	}
	return n;
}
