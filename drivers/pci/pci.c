/*
 * PCI configuration access (ECAM, PCIe 4.0 7.2.2; ports 0xcf8/0xcfc,
 * PCI 3.0 3.2.2.3.2), the bus walk (PCI-to-PCI Bridge 1.2 chapter 3), BAR
 * mapping and the driver registry.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "drivers/pci/pcipriv.h"
#include "kernel/acpi.h"
#include "kernel/cpu.h"
#include "kernel/ioapic.h"
#include "kernel/mem.h"
#include "kernel/time.h"

#define CONFIG_ADDRESS 0xcf8
#define CONFIG_DATA 0xcfc

extern const struct pci_driver __pci_drivers_start[], __pci_drivers_end[];

struct pci_dev pci_devs[PCI_MAX_DEVS];
int pci_ndevs;
char pci_notes[PCI_MAX_NOTES][128];
int pci_nnotes;
/* What choose_access found (pci_access_str words it). */
static enum { ACCESS_NO_MCFG, ACCESS_NOT_MAPPED, ACCESS_DISAGREES, ACCESS_ECAM } access;
static uint64_t access_base;	/* the MCFG window in question */
static uint32_t access_read;	/* ACCESS_DISAGREES: what ECAM read */

static int use_ecam;
static char cap_errors[PCI_MAX_DEVS][96];
static uint8_t bus_seen[256 / 8];

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	if (pci_nnotes == PCI_MAX_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pci_notes[pci_nnotes++], sizeof(pci_notes[0]), fmt, ap);
	va_end(ap);
}

const char *pci_bdf(const struct pci_dev *d, char buf[PCI_BDF_LEN])
{
	if (d->seg)
		snprintf(buf, PCI_BDF_LEN, "%04x:%02x:%02x.%x", d->seg, d->bus, d->dev, d->fn);
	else
		snprintf(buf, PCI_BDF_LEN, "%02x:%02x.%x", d->bus, d->dev, d->fn);
	return buf;
}

/* The ECAM address of (d, off), or NULL when no MCFG window covers d. */
static volatile void *ecam(const struct pci_dev *d, uint16_t off)
{
	if (!use_ecam)
		return 0;
	for (int i = 0; i < acpi.nmcfg; i++) {
		const struct acpi_mcfg *m = &acpi.mcfg[i];
		if (m->segment == d->seg && d->bus >= m->bus_start && d->bus <= m->bus_end)
			return phys(m->base + ((uint64_t)(d->bus - m->bus_start) << 20) +
				    ((uint32_t)d->dev << 15) + ((uint32_t)d->fn << 12) + off);
	}
	return 0;
}

/* Point CONFIG_ADDRESS at (d, off); the caller holds interrupts off. */
static int port_select(const struct pci_dev *d, uint16_t off)
{
	if (off >= 0x100 || d->seg)
		return -1;
	outl(CONFIG_ADDRESS, 0x80000000u | (uint32_t)d->bus << 16 | (uint32_t)d->dev << 11 |
	     (uint32_t)d->fn << 8 | (off & 0xfc));
	return 0;
}

uint32_t pci_read32(const struct pci_dev *d, uint16_t off)
{
	volatile uint32_t *p = ecam(d, off & ~3);
	if (p)
		return *p;
	uint64_t f = irq_save();
	uint32_t v = port_select(d, off) ? 0xffffffff : inl(CONFIG_DATA);
	irq_restore(f);
	return v;
}

uint16_t pci_read16(const struct pci_dev *d, uint16_t off)
{
	volatile uint16_t *p = ecam(d, off & ~1);
	if (p)
		return *p;
	uint64_t f = irq_save();
	uint16_t v = port_select(d, off) ? 0xffff : inw(CONFIG_DATA + (off & 2));
	irq_restore(f);
	return v;
}

uint8_t pci_read8(const struct pci_dev *d, uint16_t off)
{
	volatile uint8_t *p = ecam(d, off);
	if (p)
		return *p;
	uint64_t f = irq_save();
	uint8_t v = port_select(d, off) ? 0xff : inb(CONFIG_DATA + (off & 3));
	irq_restore(f);
	return v;
}

void pci_write32(const struct pci_dev *d, uint16_t off, uint32_t v)
{
	volatile uint32_t *p = ecam(d, off & ~3);
	if (p) {
		*p = v;
		return;
	}
	uint64_t f = irq_save();
	if (!port_select(d, off))
		outl(CONFIG_DATA, v);
	irq_restore(f);
}

void pci_write16(const struct pci_dev *d, uint16_t off, uint16_t v)
{
	volatile uint16_t *p = ecam(d, off & ~1);
	if (p) {
		*p = v;
		return;
	}
	uint64_t f = irq_save();
	if (!port_select(d, off))
		outw(CONFIG_DATA + (off & 2), v);
	irq_restore(f);
}

void pci_write8(const struct pci_dev *d, uint16_t off, uint8_t v)
{
	volatile uint8_t *p = ecam(d, off);
	if (p) {
		*p = v;
		return;
	}
	uint64_t f = irq_save();
	if (!port_select(d, off))
		outb(CONFIG_DATA + (off & 3), v);
	irq_restore(f);
}

static uint32_t cfg_read(void *ctx, uint16_t off)
{
	return pci_read32(ctx, off);
}

static void cfg_write(void *ctx, uint16_t off, uint32_t v)
{
	pci_write32(ctx, off, v);
}

void pci_cfg_of(const struct pci_dev *d, struct pci_cfg *c)
{
	*c = (struct pci_cfg){ cfg_read, cfg_write, (void *)d, ecam(d, 0) ? 4096 : 256 };
}

/* Put d in D0 (PCI PM 1.2 5.4.1). Leaving D3hot may reset the function
 * (No_Soft_Reset clear), so the BARs and command register are put back. */
static void power_on(struct pci_dev *d)
{
	char b[PCI_BDF_LEN];
	uint16_t pmcsr = pci_read16(d, d->cap_pm + PCI_PM_CTRL);
	unsigned state = pmcsr & PCI_PM_CTRL_STATE_MASK;
	if (!state)
		return;
	uint32_t saved[7];
	for (int i = 0; i < 6; i++)
		saved[i] = pci_read32(d, PCI_BAR0 + 4 * i);
	saved[6] = pci_read16(d, PCI_COMMAND);
	pci_write16(d, d->cap_pm + PCI_PM_CTRL, pmcsr & ~(PCI_PM_CTRL_STATE_MASK | 0x8000));
	udelay(state == 3 ? 10000 : 200);	/* PCI PM 1.2 table 5-6 */
	for (int i = 0; i < 6; i++)
		pci_write32(d, PCI_BAR0 + 4 * i, saved[i]);
	pci_write16(d, PCI_COMMAND, (uint16_t)saved[6]);
	note("%s: was in D%u, now D%u", pci_bdf(d, b), state,
	     pci_read16(d, d->cap_pm + PCI_PM_CTRL) & PCI_PM_CTRL_STATE_MASK);
}

/* Fill d from its config space: IDs and capabilities (BARs: pci_size_bars); then D0. */
static void probe_function(struct pci_dev *d)
{
	struct pci_cfg c;
	struct pci_cap caps[PCI_CAPS_MAX];
	uint32_t class = pci_read32(d, PCI_REVISION_ID);

	d->vendor = pci_read16(d, PCI_VENDOR_ID);
	d->device = pci_read16(d, PCI_DEVICE_ID);
	d->rev = (uint8_t)class;
	d->progif = (uint8_t)(class >> 8);
	d->subclass = (uint8_t)(class >> 16);
	d->class = (uint8_t)(class >> 24);
	d->hdr_type = pci_read8(d, PCI_HEADER_TYPE) & 0x7f;
	if (d->hdr_type == PCI_HEADER_NORMAL) {
		d->subsys_vendor = pci_read16(d, PCI_SUBSYSTEM_VENDOR_ID);
		d->subsys = pci_read16(d, PCI_SUBSYSTEM_VENDOR_ID + 2);
	}
	d->irq_pin = pci_read8(d, PCI_INTERRUPT_PIN);
	if (d->irq_pin > 4)
		d->irq_pin = 0;
	d->int_mode = INT_MODE_NONE;

	pci_cfg_of(d, &c);
	int n = pci_caps_walk(&c, caps, PCI_CAPS_MAX, cap_errors[d - pci_devs], sizeof(cap_errors[0]));
	d->cap_error = cap_errors[d - pci_devs][0] ? cap_errors[d - pci_devs] : 0;
	d->cap_pm = (uint8_t)pci_cap_find(caps, n, PCI_CAP_ID_PM);
	d->cap_msi = (uint8_t)pci_cap_find(caps, n, PCI_CAP_ID_MSI);
	d->cap_msix = (uint8_t)pci_cap_find(caps, n, PCI_CAP_ID_MSIX);
	d->cap_pcie = (uint8_t)pci_cap_find(caps, n, PCI_CAP_ID_EXP);
	if (d->cap_msix) {
		struct pci_msix_info m;
		pci_msix_decode(&c, d->cap_msix, &m);
		d->msix_size = m.size;
	}
	if (d->cap_pm)
		power_on(d);
}

static int bars_sized;

void pci_size_bars(void)
{
	char b[PCI_BDF_LEN], err[96];
	if (bars_sized)
		return;
	bars_sized = 1;
	for (int i = 0; i < pci_ndevs; i++) {
		struct pci_dev *d = &pci_devs[i];
		struct pci_cfg c;
		pci_cfg_of(d, &c);
		if (pci_bars_decode(&c, d->bar, err, sizeof(err)) < 0)
			note("%s: %s", pci_bdf(d, b), err);
	}
}

static void scan_bus(uint16_t seg, uint8_t bus);

/* Walk the bus behind bridge d, if firmware numbered it sanely. */
static void scan_bridge(struct pci_dev *d, uint8_t bus_end)
{
	char b[PCI_BDF_LEN], err[96];
	struct pci_cfg c;
	struct pci_bridge_info br;
	pci_cfg_of(d, &c);
	pci_bridge_decode(&c, &br);
	if (pci_bridge_check(&br, d->bus, bus_end, bus_seen, err, sizeof(err)))
		note("bridge %s: %s", pci_bdf(d, b), err);
	else
		scan_bus(d->seg, br.secondary);
}

static uint8_t bus_end_of(uint16_t seg)
{
	for (int i = 0; i < acpi.nmcfg && use_ecam; i++)
		if (acpi.mcfg[i].segment == seg)
			return acpi.mcfg[i].bus_end;
	return 255;
}

static void scan_bus(uint16_t seg, uint8_t bus)
{
	char b[PCI_BDF_LEN];
	bus_seen[bus / 8] |= 1 << (bus % 8);
	for (uint8_t dev = 0; dev < 32; dev++) {
		struct pci_dev t = { .seg = seg, .bus = bus, .dev = dev };
		uint16_t vendor = pci_read16(&t, PCI_VENDOR_ID);
		if (vendor == 0xffff || vendor == 0)
			continue;
		int nfn = pci_read8(&t, PCI_HEADER_TYPE) & 0x80 ? 8 : 1;
		for (uint8_t fn = 0; fn < nfn; fn++) {
			t.fn = fn;
			vendor = pci_read16(&t, PCI_VENDOR_ID);
			if (vendor == 0xffff || vendor == 0)
				continue;
			if (pci_ndevs == PCI_MAX_DEVS) {
				note("more than %d functions: %s and after not listed", PCI_MAX_DEVS, pci_bdf(&t, b));
				return;
			}
			struct pci_dev *d = &pci_devs[pci_ndevs++];
			*d = t;
			probe_function(d);
			if (d->hdr_type == PCI_HEADER_BRIDGE)
				scan_bridge(d, bus_end_of(seg));
		}
	}
}

/* Map the MCFG windows; keep ECAM only if it agrees with the ports on
 * 00:00.0 (firmware may list a window it did not enable). */
static void choose_access(void)
{
	access = ACCESS_NO_MCFG;
	if (!acpi.nmcfg)
		return;
	for (int i = 0; i < acpi.nmcfg; i++) {
		const struct acpi_mcfg *m = &acpi.mcfg[i];
		if (mmio_map(m->base, (uint64_t)(m->bus_end - m->bus_start + 1) << 20)) {
			access = ACCESS_NOT_MAPPED;
			access_base = m->base;
			return;
		}
	}
	struct pci_dev host = { 0 };
	uint32_t by_port = pci_read32(&host, PCI_VENDOR_ID);
	use_ecam = 1;
	uint32_t by_ecam = pci_read32(&host, PCI_VENDOR_ID);
	access_base = acpi.mcfg[0].base;
	if (by_port != by_ecam && (uint16_t)by_port != 0xffff) {
		use_ecam = 0;
		access = ACCESS_DISAGREES;
		access_read = by_ecam;
		return;
	}
	access = ACCESS_ECAM;
}

void pci_access_str(char buf[PCI_ACCESS_LEN])
{
	if (access == ACCESS_ECAM)
		snprintf(buf, PCI_ACCESS_LEN, "ECAM at %#lx", access_base);
	else if (access == ACCESS_NOT_MAPPED)
		snprintf(buf, PCI_ACCESS_LEN, "ports 0xcf8/0xcfc (ECAM at %#lx not mapped)", access_base);
	else if (access == ACCESS_DISAGREES)
		snprintf(buf, PCI_ACCESS_LEN, "ports 0xcf8/0xcfc (ECAM at %#lx reads %#x)", access_base,
			 access_read);
	else
		snprintf(buf, PCI_ACCESS_LEN, "ports 0xcf8/0xcfc (no MCFG)");
}

static int dev_before(const struct pci_dev *a, const struct pci_dev *b)
{
	uint32_t ka = (uint32_t)a->seg << 16 | a->bus << 8 | a->dev << 3 | a->fn;
	uint32_t kb = (uint32_t)b->seg << 16 | b->bus << 8 | b->dev << 3 | b->fn;
	return ka < kb;
}

void pci_init(void)
{
	ioapic_init();
	choose_access();
	if (use_ecam) {
		/* One root bus per MCFG window: its first bus (the rest hang below). */
		for (int i = 0; i < acpi.nmcfg; i++) {
			const struct acpi_mcfg *m = &acpi.mcfg[i];
			if (i && m->segment != acpi.mcfg[i - 1].segment)
				memset(bus_seen, 0, sizeof(bus_seen));
			if (!(bus_seen[m->bus_start / 8] & (1 << (m->bus_start % 8))))
				scan_bus(m->segment, m->bus_start);
		}
	} else {
		scan_bus(0, 0);
	}
	/* Walk order is depth first; list in address order, as lspci does. */
	for (int i = 1; i < pci_ndevs; i++)
		for (int j = i; j > 0 && dev_before(&pci_devs[j], &pci_devs[j - 1]); j--) {
			struct pci_dev t = pci_devs[j];
			pci_devs[j] = pci_devs[j - 1];
			pci_devs[j - 1] = t;
		}
}

struct pci_dev *pci_upstream(const struct pci_dev *d)
{
	struct pci_dev *up = 0;
	for (int i = 0; i < pci_ndevs && d->bus; i++) {
		struct pci_dev *p = &pci_devs[i];
		if (p->hdr_type == PCI_HEADER_BRIDGE && p->seg == d->seg &&
		    pci_read8(p, PCI_PRIMARY_BUS + 1) == d->bus)
			up = p;
	}
	return up;
}

void pci_enable(struct pci_dev *d, uint16_t bits)
{
	struct pci_dev *cur = d;
	for (int depth = 0; cur && depth < PCI_MAX_DEVS; depth++) {
		uint16_t cmd = pci_read16(cur, PCI_COMMAND);
		if ((cmd & bits) != bits)
			pci_write16(cur, PCI_COMMAND, cmd | bits);
		cur = pci_upstream(cur);
	}
}

int pci_aspm_disable(struct pci_dev *d, uint16_t which)
{
	struct pci_cfg c;
	if (!d->cap_pcie)
		return -1;
	pci_cfg_of(d, &c);
	int was = pci_cfg_aspm_clear(&c, d->cap_pcie, which);
	struct pci_dev *up = pci_upstream(d);
	if (up && up->cap_pcie) {
		pci_cfg_of(up, &c);
		pci_cfg_aspm_clear(&c, up->cap_pcie, which);
	}
	return was;
}

uint16_t pci_map_io(struct pci_dev *d)
{
	for (int i = 0; i < 6; i++)
		if (d->bar[i].type == PCI_BAR_IO && d->bar[i].addr && d->bar[i].addr <= 0xffff) {
			pci_enable(d, PCI_COMMAND_IO);
			return (uint16_t)d->bar[i].addr;
		}
	return 0;
}

volatile void *pci_map_bar(struct pci_dev *d, int i)
{
	if (i < 0 || i > 5)
		return 0;
	const struct pci_bar *b = &d->bar[i];
	if ((b->type != PCI_BAR_MEM32 && b->type != PCI_BAR_MEM64) || !b->addr || !b->size)
		return 0;
	if (mmio_map(b->addr, b->size))
		return 0;
	pci_enable(d, PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	return phys(b->addr);
}

const struct pci_id *pci_match(const struct pci_dev *d, const struct pci_driver **drv)
{
	for (const struct pci_driver *r = __pci_drivers_start; r < __pci_drivers_end; r++)
		for (const struct pci_id *id = r->ids; id && (id->vendor || id->device); id++)
			if (id->vendor == d->vendor && id->device == d->device) {
				if (drv)
					*drv = r;
				return id;
			}
	return 0;
}

/* Offer d to driver r (if an ID matches); 0 if r took it. A refusal
 * leaves d as it was: interrupts released, command register restored. */
static int offer(struct pci_dev *d, const struct pci_driver *r)
{
	char b[PCI_BDF_LEN];
	for (const struct pci_id *id = r->ids; id && (id->vendor || id->device); id++) {
		if (id->vendor != d->vendor || id->device != d->device)
			continue;
		uint16_t cmd = pci_read16(d, PCI_COMMAND);
		d->driver = r;
		if (r->probe(d, id) == 0) {
			printf("pci: %s %04x:%04x %s: driver %s\n", pci_bdf(d, b), d->vendor, d->device,
			       id->name, r->name);
			return 0;
		}
		if (d->nvec)
			pci_irq_free(d);
		pci_write16(d, PCI_COMMAND, cmd);
		d->driver = 0;
		d->priv = 0;
		printf("pci: %s %04x:%04x: driver %s did not take it\n", pci_bdf(d, b), d->vendor,
		       d->device, r->name);
		return -1;
	}
	return -1;
}

void pci_probe_drivers(void)
{
	pci_size_bars();
	for (int i = 0; i < pci_ndevs; i++)
		for (const struct pci_driver *r = __pci_drivers_start; r < __pci_drivers_end && !pci_devs[i].driver; r++)
			offer(&pci_devs[i], r);
}

void pci_report_no_ports(void)
{
	char bdf[PCI_BDF_LEN];
	int unclaimed = 0, claimed = 0;
	for (int i = 0; i < pci_ndevs; i++) {
		const struct pci_dev *d = &pci_devs[i];
		if (d->class != 0x02 || d->subclass != 0x00)
			continue;
		if (d->driver) {
			claimed++;
			continue;
		}
		printf(unclaimed++ ? " %s [%04x:%04x]" : "ports: none: the Ethernet controllers %s [%04x:%04x]",
		       pci_bdf(d, bdf), d->vendor, d->device);
	}
	if (unclaimed) {
		printf(" have no driver here (drivers:");
		for (const struct pci_driver *r = __pci_drivers_start; r < __pci_drivers_end; r++)
			if (!r->other)
				printf(" %s", r->name);
		printf(")\n");
	} else if (claimed) {
		printf("ports: none: no Ethernet controller could be set up (messages above)\n");
	} else {
		printf("ports: none: no Ethernet controller found (QEMU: --nic e1000, e1000e, igb or virtio-net-pci)\n");
	}
}
