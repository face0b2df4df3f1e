/* PCI serial cards (drivers/pci/pciserial.c). */
#ifndef PCISERIAL_H
#define PCISERIAL_H
#include <stdint.h>

/* The I/O bases of the 16550 ports on PCI serial cards (class 0700, 16550
 * to 16950 interfaces, behind their first I/O BAR, 8 bytes a port), in bus
 * order, at most max into bases, I/O decoding turned on. After pci_init.
 * Returns how many. Memory-BAR-only cards are not used. */
int pci_serial_ports(uint16_t *bases, int max);
#endif
