/*
 * PCI: configuration space (ports 0xcf8/0xcfc and ECAM), the bus walk,
 * BARs, capabilities, MSI/MSI-X/INTx, and the driver registry.
 * PCI Local Bus 3.0, PCI Express Base 4.0 (chapter 7), PCI-to-PCI Bridge 1.2.
 */
#ifndef PCI_H
#define PCI_H
#include <stddef.h>
#include <stdint.h>
#include "kernel/linkset.h"
#include "kernel/trap.h"

#define PCI_MAX_DEVS 64
#define PCI_MAX_VECS 17	/* a vector per queue (NIC_MAX_QUEUES) and one for other causes */

enum pci_bar_type { PCI_BAR_NONE, PCI_BAR_IO, PCI_BAR_MEM32, PCI_BAR_MEM64 };

/* One decoded BAR. A 64-bit BAR fills index i; index i+1 is PCI_BAR_NONE. */
struct pci_bar {
	uint64_t addr;		/* bus = physical address (or I/O port) */
	uint64_t size;		/* bytes */
	uint8_t type;		/* enum pci_bar_type */
	uint8_t prefetch;
};

/* Interrupt modes, as e1000e's IntMode: 0 legacy INTx, 1 MSI, 2 MSI-X. */
enum pci_int_mode { INT_MODE_INTX = 0, INT_MODE_MSI = 1, INT_MODE_MSIX = 2, INT_MODE_NONE = -1 };

struct pci_driver;

/* One PCI function found by the bus walk. */
struct pci_dev {
	uint16_t seg;
	uint8_t bus, dev, fn;
	uint16_t vendor, device, subsys_vendor, subsys;
	uint8_t class, subclass, progif, rev, hdr_type;
	uint8_t irq_pin;		/* 1 = INTA .. 4 = INTD, 0 = none */
	struct pci_bar bar[6];
	/* capability offsets in config space, 0 if absent */
	uint8_t cap_pm, cap_msi, cap_msix, cap_pcie;
	uint16_t msix_size;		/* MSI-X table entries */
	const char *cap_error;		/* malformed capability list, or NULL */
	const struct pci_driver *driver;	/* claimed by, or NULL */
	void *priv;			/* the driver's state */
	int int_mode;			/* enum pci_int_mode in use */
	int nvec;
	int vectors[PCI_MAX_VECS];	/* IDT vectors in use */
};

/* A vendor:device pair a driver handles, with its marketing name. */
struct pci_id {
	uint16_t vendor, device;
	const char *name;		/* e.g. "82574L Gigabit Network Connection" */
};

/* A driver: ids ends with a {0, 0, 0} entry. probe returns 0 when it took
 * the device, or -1 after printing why not. */
struct pci_driver {
	const char *name;		/* e.g. "e1000e" */
	const struct pci_id *ids;
	int (*probe)(struct pci_dev *d, const struct pci_id *id);
	const char *other;	/* NULL for a NIC driver; else what it drives ("watchdog"), not named among them */
};

/* Register a driver from its own file (gathered in the .pci_drivers section). */
#define PCI_DRIVER(id_, ...) \
	static const struct pci_driver pci_driver_##id_ \
	LINKSET_ENTRY __attribute__((section(".pci_drivers"))) = { __VA_ARGS__ }

extern struct pci_dev pci_devs[PCI_MAX_DEVS];
extern int pci_ndevs;

/* Walk every bus (ECAM from ACPI MCFG when present, else ports 0xcf8/0xcfc),
 * decode BARs and capabilities, put devices in D0. Does not probe drivers. */
void pci_init(void);
/* Offer each unclaimed device to the registered drivers whose IDs match, in
 * link order; the first whose probe returns 0 claims it. A probe that fails
 * leaves the device as it was (interrupts released, command register
 * restored) for the next matching driver. */
void pci_probe_drivers(void);
/* When no port came up: one line naming the Ethernet controllers (class
 * 02, subclass 00) no driver claimed, with the drivers there are:
 * "ports: none: the Ethernet controllers 00:02.0 [1af4:1000] have no
 * driver here (drivers: e1000 e1000e igb)", or that there was none. */
void pci_report_no_ports(void);
/* Size every function's BARs (bar[]): pci_init leaves it for after ready,
 * since each decode toggle around the sizing makes QEMU rebuild the
 * guest's memory map (about 1 ms a function under TCG). pci_print and
 * pci_probe_drivers call it first; once only. */
void pci_size_bars(void);
/* Print the device list as the lspci shell command does. */
void pci_print(void);

/* The registered driver and ID entry matching d's vendor:device (first in
 * link order), or NULL; *drv is set when drv is not NULL. */
const struct pci_id *pci_match(const struct pci_dev *d, const struct pci_driver **drv);

/* "bb:dd.f" (with a "ssss:" segment prefix when not 0) into buf; returns buf. */
#define PCI_BDF_LEN 16
const char *pci_bdf(const struct pci_dev *d, char buf[PCI_BDF_LEN]);

/* Configuration space access; off may be >= 0x100 only with ECAM (else
 * reads return all ones and writes are dropped). */
uint8_t pci_read8(const struct pci_dev *d, uint16_t off);
uint16_t pci_read16(const struct pci_dev *d, uint16_t off);
uint32_t pci_read32(const struct pci_dev *d, uint16_t off);
void pci_write8(const struct pci_dev *d, uint16_t off, uint8_t v);
void pci_write16(const struct pci_dev *d, uint16_t off, uint16_t v);
void pci_write32(const struct pci_dev *d, uint16_t off, uint32_t v);

/* Enable memory space and bus mastering (on d and the bridges above it) and
 * map BAR i uncached, above 4 GiB too; returns its address, or NULL if BAR
 * i is not memory, has no address, or cannot be mapped. For drivers that
 * claim d. */
volatile void *pci_map_bar(struct pci_dev *d, int i);
/* The port base of d's first I/O BAR with I/O space decoding turned on,
 * or 0 if d has none. For drivers that claim d. */
uint16_t pci_map_io(struct pci_dev *d);
/* The bridge or PCIe port above d, or NULL on bus 0 / when none is found. */
struct pci_dev *pci_upstream(const struct pci_dev *d);
/*
 * Turn off ASPM states which (PCI_EXP_LNKCTL_ASPM_L0S | _L1) on d's link:
 * in d's Link Control, then in the upstream port's (PCIe 4.0 7.5.3.7; the
 * downstream end first, as Linux does). For parts whose errata forbid them
 * (82574). Returns the ASPM bits d had set, or -1 if d is not PCIe.
 */
int pci_aspm_disable(struct pci_dev *d, uint16_t which);

/*
 * Interrupts for a claimed device: asks for nvec vectors, handlers[k] with
 * args[k] on vector k. The mode is MSI-X when the device has it and nvec
 * fits, else MSI (1 vector), else INTx through the IOAPIC (1 vector); the
 * IntMode knob caps the choice. With fewer vectors than asked, the driver
 * must serve every cause from vector 0. Messages go to the BSP's LAPIC
 * (pci_irq_set_cpu moves an MSI-X one).
 * Returns the number of vectors set up (d->int_mode, d->vectors filled),
 * or -1 after printing why none could be.
 *
 * Handlers run with interrupts off; trap() sends the LAPIC EOI after the
 * handler returns. MSI/MSI-X are edge: a cause raised while the handler
 * runs sends a new message. INTx is level-triggered and may be shared with
 * other devices (every handler on the line runs for each interrupt): the
 * handler must check its own device's cause register, and clear or mask
 * the cause before returning, or the line fires again at once. MSI-X
 * needs the table's BAR, which this maps (memory space and bus mastering
 * on); MSI turns bus mastering on; the command register's Interrupt
 * Disable is set for messages and cleared for INTx.
 */
int pci_irq_setup(struct pci_dev *d, int nvec, const irq_handler_t *handlers,
		  void *const *args, const char *const *names);
/*
 * Replace the handler of vector k (0 <= k < d->nvec) after pci_irq_setup,
 * e.g. one handler for every cause when fewer vectors were given than
 * asked. Use this, not vector_set: an INTx vector is shared by all the
 * devices on the line, and only d's entry on it changes. Returns 0, or -1
 * if d has no vector k.
 */
int pci_irq_set_handler(struct pci_dev *d, int k, irq_handler_t handler, void *arg);
/* Send MSI-X vector k of d to the LAPIC with apic_id (a queue polled by
 * another core). Returns 0, or -1 when d is not in MSI-X mode, has no
 * vector k, or apic_id is above 255 (a message names 8 bits of APIC ID
 * without interrupt remapping): the vector stays on the BSP, whose handler
 * wakes the queue's owner. */
int pci_irq_set_cpu(struct pci_dev *d, int k, uint32_t apic_id);
/* The IntMode knob: the most capable mode pci_irq_setup may choose. */
int pci_int_mode(void);
/* Mask or unmask MSI-X table entry k (MSI-X only; PCIe 4.0 7.7.2). */
void pci_msix_mask(struct pci_dev *d, int k, int masked);

/*
 * Mask (1) or unmask (0) vector k in whatever mode d uses: the MSI-X
 * entry's mask bit, the MSI per-vector mask bit (PCI 3.0 6.8.1.7), or for
 * INTx the command register's Interrupt Disable bit (PCI 3.0 6.2.2), which
 * masks only this function on a shared line. A message raised while masked
 * is held pending and sent on unmask. Returns 0, or -1 if the mode has no
 * mask (MSI without per-vector masking, or no interrupts set up).
 */
int pci_irq_mask(struct pci_dev *d, int k, int masked);
/* 1 if vector k has an interrupt held pending (MSI-X PBA bit, MSI pending
 * bit, or INTx: the status register's Interrupt Status); 0 if not; -1 if
 * the mode cannot tell. */
int pci_irq_pending(struct pci_dev *d, int k);
/*
 * Undo pci_irq_setup: mask and disable MSI-X or MSI, or for INTx set
 * Interrupt Disable and leave the shared line (its I/O APIC pin is masked
 * when its last user goes); free the vectors. d->int_mode becomes
 * INT_MODE_NONE and d->nvec 0. Interrupts already in flight land on a
 * vector with no handler and are counted as unhandled.
 */
void pci_irq_free(struct pci_dev *d);
#endif
