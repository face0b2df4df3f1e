/* Shared between the files of drivers/pci/ only. */
#ifndef PCIPRIV_H
#define PCIPRIV_H
#include "drivers/pci/pci.h"
#include "drivers/pci/pcidecode.h"

/* Config space of d as callbacks for the decoders in pcidecode.c. */
void pci_cfg_of(const struct pci_dev *d, struct pci_cfg *c);
/* Set bits in the command register of d and of every bridge above it. */
void pci_enable(struct pci_dev *d, uint16_t bits);
/* What the bus walk found worth telling: unconfigured bridges, bad BARs. */
#define PCI_MAX_NOTES 8
extern char pci_notes[PCI_MAX_NOTES][128];
extern int pci_nnotes;
/* How config space is reached, into buf: "ECAM at 0x..." or "ports
 * 0xcf8/0xcfc" and why. Formatted when printed, not during the boot. */
#define PCI_ACCESS_LEN 64
void pci_access_str(char buf[PCI_ACCESS_LEN]);
#endif
