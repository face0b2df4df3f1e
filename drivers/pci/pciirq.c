/*
 * Interrupts of PCI functions: MSI-X (PCIe 4.0 7.7.2), MSI (PCI 3.0 6.8.1),
 * legacy INTx through the I/O APIC (PCI 3.0 2.2.6), and the IntMode knob.
 * Messages go to the BSP's LAPIC: address 0xfee00000 | APIC ID << 12,
 * data = vector, fixed delivery, edge (Intel SDM vol. 3A 11.11).
 *
 * INTx: the GSI comes from the Interrupt Line register that firmware
 * (SeaBIOS, OVMF) writes with the ISA IRQ it routed the pin to (PIIX
 * PIRQ A-D on pc, ICH9 PIRQ A-H on q35), mapped through the MADT interrupt
 * source overrides; level-triggered, active low unless an override says
 * otherwise. Without an AML interpreter this is all we know: a board whose
 * firmware leaves the register 0 or 0xff, or routes PCI interrupts only to
 * I/O APIC inputs 16-23 as ACPI _PRT would say, gets no INTx. QEMU raises
 * a PIRQ on the ISA input it is routed to as well as on GSI 16-23, so the
 * Interrupt Line works on both pc and q35 there.
 */
#include <stdio.h>
#include "drivers/pci/pcipriv.h"
#include "kernel/cpu.h"
#include "kernel/ioapic.h"
#include "kernel/knobs.h"
#include "kernel/lapic.h"

#define MSI_ADDRESS_BASE 0xfee00000u
/* The highest APIC ID a message can name: its address has 8 bits of
 * destination ID (SDM vol. 3A 11.11.1); beyond it needs interrupt remapping
 * (VT-d), which is not driven. */
#define MSI_DEST_MAX 255u

static int64_t int_mode = INT_MODE_MSIX;
static const struct knob_range int_mode_range[] = { { 0, 2 } };
KNOB(IntMode, .name = "IntMode", .type = KNOB_INT,
     .help = "most capable PCI interrupt mode: 0 legacy INTx, 1 MSI, 2 MSI-X; default 2",
     .ranges = int_mode_range, .nranges = 1, .ival = &int_mode);

/* One I/O APIC input shared by the INTx pins routed to it. */
#define INTX_LINES 8
#define INTX_USERS 8
struct intx_line {
	uint32_t gsi;
	int vector;		/* 0: slot free */
	int nusers;
	struct { struct pci_dev *d; irq_handler_t handler; void *arg; } users[INTX_USERS];
	char name[24];
};
static struct intx_line lines[INTX_LINES];

static char vec_names[PCI_MAX_DEVS][PCI_MAX_VECS][32];
static volatile uint32_t *msix_tables[PCI_MAX_DEVS];

/* Every handler on the line runs: each must check its own device's cause
 * register, since a level line does not say who asserted it. */
static void intx_dispatch(struct trapframe *tf, void *arg)
{
	struct intx_line *l = arg;
	for (int i = 0; i < l->nusers; i++)
		l->users[i].handler(tf, l->users[i].arg);
}

static const char *vec_name(struct pci_dev *d, int k, const char *const *names)
{
	char b[PCI_BDF_LEN];
	char *s = vec_names[d - pci_devs][k];
	snprintf(s, sizeof(vec_names[0][0]), "%s %s", pci_bdf(d, b), names && names[k] ? names[k] : "irq");
	return s;
}

static uint32_t msi_address(void)
{
	return MSI_ADDRESS_BASE | lapic_id() << 12;
}

static void free_vectors(struct pci_dev *d, int n)
{
	for (int k = 0; k < n; k++)
		vector_free(d->vectors[k]);
}

/* Take n vectors for d; 0, or -1 with none taken. */
static int alloc_vectors(struct pci_dev *d, int n, const irq_handler_t *handlers, void *const *args,
			 const char *const *names)
{
	for (int k = 0; k < n; k++) {
		d->vectors[k] = vector_alloc(handlers[k], args ? args[k] : 0, vec_name(d, k, names));
		if (d->vectors[k] < 0) {
			free_vectors(d, k);
			return -1;
		}
	}
	return 0;
}

static int setup_msix(struct pci_dev *d, int nvec, const irq_handler_t *handlers, void *const *args,
		      const char *const *names)
{
	char b[PCI_BDF_LEN];
	struct pci_cfg c;
	struct pci_msix_info m;
	pci_cfg_of(d, &c);
	pci_msix_decode(&c, d->cap_msix, &m);
	if (m.table_bir > 5 || (uint64_t)m.table_off + m.size * PCI_MSIX_ENTRY_SIZE > d->bar[m.table_bir].size) {
		printf("pci: %s: MSI-X table BAR%u+%#x does not fit its BAR\n", pci_bdf(d, b), m.table_bir,
		       m.table_off);
		return -1;
	}
	volatile uint8_t *bar = pci_map_bar(d, m.table_bir);
	if (!bar) {
		printf("pci: %s: MSI-X table BAR%u is not assigned memory\n", pci_bdf(d, b), m.table_bir);
		return -1;
	}
	if (alloc_vectors(d, nvec, handlers, args, names))
		return -1;
	volatile uint32_t *table = (volatile uint32_t *)(bar + m.table_off);
	msix_tables[d - pci_devs] = table;
	uint16_t flags = pci_read16(d, d->cap_msix + PCI_MSIX_FLAGS);
	/* Enabled with the function masked while the table is written (7.7.2.2). */
	pci_write16(d, d->cap_msix + PCI_MSIX_FLAGS, flags | PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL);
	for (int k = 0; k < m.size; k++) {
		volatile uint32_t *e = table + k * PCI_MSIX_ENTRY_SIZE / 4;
		e[PCI_MSIX_ENTRY_CTRL / 4] |= PCI_MSIX_ENTRY_CTRL_MASKBIT;
		if (k >= nvec)
			continue;
		e[PCI_MSIX_ENTRY_ADDR_LO / 4] = msi_address();
		e[PCI_MSIX_ENTRY_ADDR_HI / 4] = 0;
		e[PCI_MSIX_ENTRY_DATA / 4] = (uint32_t)d->vectors[k];
		e[PCI_MSIX_ENTRY_CTRL / 4] &= ~PCI_MSIX_ENTRY_CTRL_MASKBIT;
	}
	pci_write16(d, d->cap_msix + PCI_MSIX_FLAGS, (flags | PCI_MSIX_FLAGS_ENABLE) & ~PCI_MSIX_FLAGS_MASKALL);
	d->int_mode = INT_MODE_MSIX;
	return nvec;
}

static int setup_msi(struct pci_dev *d, const irq_handler_t *handlers, void *const *args, const char *const *names)
{
	if (alloc_vectors(d, 1, handlers, args, names))
		return -1;
	uint8_t cap = d->cap_msi;
	uint16_t flags = pci_read16(d, cap + PCI_MSI_FLAGS);
	int is64 = !!(flags & PCI_MSI_FLAGS_64BIT);
	pci_write32(d, cap + PCI_MSI_ADDRESS_LO, msi_address());
	if (is64)
		pci_write32(d, cap + PCI_MSI_ADDRESS_HI, 0);
	pci_write16(d, cap + (is64 ? PCI_MSI_DATA_64 : PCI_MSI_DATA_32), (uint16_t)d->vectors[0]);
	if (flags & PCI_MSI_FLAGS_MASKBIT) {
		uint16_t mask = cap + (is64 ? PCI_MSI_MASK_64 : PCI_MSI_MASK_32);
		pci_write32(d, mask, pci_read32(d, mask) & ~1u);
	}
	/* One message: Multiple Message Enable 0. */
	pci_write16(d, cap + PCI_MSI_FLAGS, (flags & ~PCI_MSI_FLAGS_QSIZE) | PCI_MSI_FLAGS_ENABLE);
	pci_enable(d, PCI_COMMAND_MASTER);	/* a message is a memory write */
	d->int_mode = INT_MODE_MSI;
	return 1;
}

static int setup_intx(struct pci_dev *d, irq_handler_t handler, void *arg)
{
	char b[PCI_BDF_LEN];
	uint8_t irq = pci_read8(d, PCI_INTERRUPT_LINE);
	if (irq == 0 || irq == 0xff) {
		printf("pci: %s: INT%c not routed by firmware (Interrupt Line %#x)\n", pci_bdf(d, b),
		       'A' + d->irq_pin - 1, irq);
		return -1;
	}
	struct ioapic_line route = irq < 16 ? ioapic_isa_line(irq, 1) :
					      (struct ioapic_line){ .gsi = irq, .level = 1, .active_low = 1 };
	struct intx_line *l = 0, *free_slot = 0;
	for (int i = 0; i < INTX_LINES; i++) {
		if (lines[i].vector && lines[i].gsi == route.gsi)
			l = &lines[i];
		else if (!lines[i].vector && !free_slot)
			free_slot = &lines[i];
	}
	if (!l) {
		if (!free_slot) {
			printf("pci: %s: more than %d INTx lines in use\n", pci_bdf(d, b), INTX_LINES);
			return -1;
		}
		l = free_slot;
		l->gsi = route.gsi;
		l->nusers = 0;
		snprintf(l->name, sizeof(l->name), "INTx GSI %u", route.gsi);
		int v = vector_alloc(intx_dispatch, l, l->name);
		if (v < 0)
			return -1;
		if (ioapic_route(&route, (uint8_t)v, (uint8_t)lapic_id())) {
			printf("pci: %s: no I/O APIC has GSI %u (IRQ %u)\n", pci_bdf(d, b), route.gsi, irq);
			vector_free(v);
			return -1;
		}
		l->vector = v;
	} else if (l->nusers == INTX_USERS) {
		printf("pci: %s: GSI %u already has %d users\n", pci_bdf(d, b), route.gsi, INTX_USERS);
		return -1;
	}
	l->users[l->nusers].d = d;
	l->users[l->nusers].handler = handler;
	l->users[l->nusers].arg = arg;
	l->nusers++;
	d->vectors[0] = l->vector;
	d->int_mode = INT_MODE_INTX;
	pci_write16(d, PCI_COMMAND, pci_read16(d, PCI_COMMAND) & ~PCI_COMMAND_INTX_DISABLE);
	ioapic_mask(route.gsi, 0);
	return 1;
}

int pci_irq_setup(struct pci_dev *d, int nvec, const irq_handler_t *handlers, void *const *args,
		  const char *const *names)
{
	char b[PCI_BDF_LEN];
	if (nvec < 1 || nvec > PCI_MAX_VECS || d->nvec) {
		printf("pci: %s: cannot set up %d vectors (%d already; at most %d)\n", pci_bdf(d, b), nvec,
		       d->nvec, PCI_MAX_VECS);
		return -1;
	}
	int n = -1;
	if (int_mode >= INT_MODE_MSIX && d->cap_msix && d->msix_size >= nvec)
		n = setup_msix(d, nvec, handlers, args, names);
	if (n < 0 && int_mode >= INT_MODE_MSI && d->cap_msi)
		n = setup_msi(d, handlers, args, names);
	if (n > 0) {
		/* Messages only: keep INTx quiet (PCI 3.0 6.8). */
		pci_write16(d, PCI_COMMAND, pci_read16(d, PCI_COMMAND) | PCI_COMMAND_INTX_DISABLE);
	} else if (d->irq_pin) {
		n = setup_intx(d, handlers[0], args ? args[0] : 0);
	}
	if (n < 0) {
		printf("pci: %s: no interrupt (IntMode=%ld; MSI-X %u vectors, MSI %s, INTx pin %s)\n",
		       pci_bdf(d, b), int_mode, d->cap_msix ? d->msix_size : 0, d->cap_msi ? "yes" : "no",
		       d->irq_pin ? "yes" : "none");
		d->int_mode = INT_MODE_NONE;
		return -1;
	}
	d->nvec = n;
	return n;
}

int pci_irq_set_handler(struct pci_dev *d, int k, irq_handler_t handler, void *arg)
{
	if (k < 0 || k >= d->nvec)
		return -1;
	if (d->int_mode != INT_MODE_INTX) {
		vector_set(d->vectors[k], handler, arg, vec_names[d - pci_devs][k]);
		return 0;
	}
	for (int i = 0; i < INTX_LINES; i++)
		for (int u = 0; lines[i].vector == d->vectors[0] && u < lines[i].nusers; u++)
			if (lines[i].users[u].d == d) {
				uint64_t f = irq_save();
				lines[i].users[u].handler = handler;
				lines[i].users[u].arg = arg;
				irq_restore(f);
				return 0;
			}
	return -1;
}

int pci_int_mode(void)
{
	return (int)int_mode;
}

void pci_msix_mask(struct pci_dev *d, int k, int masked)
{
	volatile uint32_t *t = msix_tables[d - pci_devs];
	if (d->int_mode != INT_MODE_MSIX || !t || k < 0 || k >= d->msix_size)
		return;
	volatile uint32_t *ctrl = t + k * PCI_MSIX_ENTRY_SIZE / 4 + PCI_MSIX_ENTRY_CTRL / 4;
	*ctrl = masked ? *ctrl | PCI_MSIX_ENTRY_CTRL_MASKBIT : *ctrl & ~PCI_MSIX_ENTRY_CTRL_MASKBIT;
	(void)*ctrl;	/* flush the posted write */
}

int pci_irq_set_cpu(struct pci_dev *d, int k, uint32_t apic_id)
{
	volatile uint32_t *t = msix_tables[d - pci_devs];
	if (d->int_mode != INT_MODE_MSIX || !t || k < 0 || k >= d->nvec || apic_id > MSI_DEST_MAX)
		return -1;
	volatile uint32_t *e = t + k * PCI_MSIX_ENTRY_SIZE / 4;
	uint32_t ctrl = e[PCI_MSIX_ENTRY_CTRL / 4];
	/* The message may change only while its vector is masked (PCIe 6.8.2.9). */
	e[PCI_MSIX_ENTRY_CTRL / 4] = ctrl | PCI_MSIX_ENTRY_CTRL_MASKBIT;
	e[PCI_MSIX_ENTRY_ADDR_LO / 4] = MSI_ADDRESS_BASE | apic_id << 12;
	e[PCI_MSIX_ENTRY_CTRL / 4] = ctrl;
	(void)e[PCI_MSIX_ENTRY_CTRL / 4];
	return 0;
}

/* Offset of the MSI mask register, or 0 without per-vector masking. */
static uint16_t msi_mask_reg(const struct pci_dev *d)
{
	uint16_t flags = pci_read16(d, d->cap_msi + PCI_MSI_FLAGS);
	if (!(flags & PCI_MSI_FLAGS_MASKBIT))
		return 0;
	return d->cap_msi + (flags & PCI_MSI_FLAGS_64BIT ? PCI_MSI_MASK_64 : PCI_MSI_MASK_32);
}

int pci_irq_mask(struct pci_dev *d, int k, int masked)
{
	if (k < 0 || k >= d->nvec)
		return -1;
	if (d->int_mode == INT_MODE_MSIX) {
		pci_msix_mask(d, k, masked);
		return 0;
	}
	if (d->int_mode == INT_MODE_MSI) {
		uint16_t reg = msi_mask_reg(d);
		if (!reg)
			return -1;
		uint32_t v = pci_read32(d, reg);
		pci_write32(d, reg, masked ? v | 1u << k : v & ~(1u << k));
		return 0;
	}
	if (d->int_mode == INT_MODE_INTX) {
		uint16_t cmd = pci_read16(d, PCI_COMMAND);
		pci_write16(d, PCI_COMMAND, masked ? cmd | PCI_COMMAND_INTX_DISABLE : cmd & ~PCI_COMMAND_INTX_DISABLE);
		return 0;
	}
	return -1;
}

int pci_irq_pending(struct pci_dev *d, int k)
{
	if (k < 0 || k >= d->nvec)
		return -1;
	if (d->int_mode == INT_MODE_MSIX) {
		struct pci_cfg c;
		struct pci_msix_info m;
		pci_cfg_of(d, &c);
		pci_msix_decode(&c, d->cap_msix, &m);
		volatile uint8_t *bar = pci_map_bar(d, m.pba_bir);
		if (!bar)
			return -1;
		volatile uint32_t *pba = (volatile uint32_t *)(bar + m.pba_off);	/* dword reads: 7.7.2 */
		return (pba[k / 32] >> (k % 32)) & 1;
	}
	if (d->int_mode == INT_MODE_MSI) {
		uint16_t reg = msi_mask_reg(d);
		return reg ? (int)((pci_read32(d, reg + 4) >> k) & 1) : -1;
	}
	if (d->int_mode == INT_MODE_INTX)
		return !!(pci_read16(d, PCI_STATUS) & PCI_STATUS_INTERRUPT);
	return -1;
}

static void intx_leave(struct pci_dev *d)
{
	for (int i = 0; i < INTX_LINES; i++) {
		struct intx_line *l = &lines[i];
		for (int u = 0; l->vector && u < l->nusers; u++) {
			if (l->users[u].d != d)
				continue;
			uint64_t f = irq_save();
			l->users[u] = l->users[--l->nusers];
			irq_restore(f);
			if (!l->nusers) {
				ioapic_mask(l->gsi, 1);
				vector_free(l->vector);
				l->vector = 0;
			}
			return;
		}
	}
}

void pci_irq_free(struct pci_dev *d)
{
	if (d->int_mode == INT_MODE_MSIX) {
		uint16_t flags = pci_read16(d, d->cap_msix + PCI_MSIX_FLAGS);
		pci_write16(d, d->cap_msix + PCI_MSIX_FLAGS, flags | PCI_MSIX_FLAGS_MASKALL);
		for (int k = 0; k < d->nvec; k++)
			pci_msix_mask(d, k, 1);
		pci_write16(d, d->cap_msix + PCI_MSIX_FLAGS, flags & ~PCI_MSIX_FLAGS_ENABLE & ~PCI_MSIX_FLAGS_MASKALL);
		msix_tables[d - pci_devs] = 0;
		free_vectors(d, d->nvec);
	} else if (d->int_mode == INT_MODE_MSI) {
		uint16_t reg = msi_mask_reg(d);
		if (reg)
			pci_write32(d, reg, pci_read32(d, reg) | 1);
		pci_write16(d, d->cap_msi + PCI_MSI_FLAGS,
			    pci_read16(d, d->cap_msi + PCI_MSI_FLAGS) & ~PCI_MSI_FLAGS_ENABLE);
		free_vectors(d, d->nvec);
	} else if (d->int_mode == INT_MODE_INTX) {
		pci_write16(d, PCI_COMMAND, pci_read16(d, PCI_COMMAND) | PCI_COMMAND_INTX_DISABLE);
		intx_leave(d);
	}
	d->int_mode = INT_MODE_NONE;
	d->nvec = 0;
}
