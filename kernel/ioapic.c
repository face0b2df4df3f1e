/* I/O APIC redirection table (Intel 82093AA datasheet 3.2). */
#include "kernel/acpi.h"
#include "kernel/cpu.h"
#include "kernel/ioapic.h"
#include "kernel/mem.h"

#define IOREGSEL 0x00
#define IOWIN 0x10
#define IOAPICVER 0x01		/* RO: max redirection entry bits 23:16 */
#define IOREDTBL(pin) (0x10 + 2 * (pin))	/* RW, 64 bits as two dwords */
#define RTE_POLARITY_LOW (1u << 13)
#define RTE_TRIGGER_LEVEL (1u << 15)
#define RTE_MASKED (1u << 16)

static struct {
	volatile uint32_t *regs;
	uint32_t gsi_base, pins;
} ioapics[ACPI_MAX_IOAPICS];
static int nioapics;

static uint32_t ioapic_read(volatile uint32_t *regs, uint32_t reg)
{
	regs[IOREGSEL / 4] = reg;
	return regs[IOWIN / 4];
}

static void ioapic_write(volatile uint32_t *regs, uint32_t reg, uint32_t v)
{
	regs[IOREGSEL / 4] = reg;
	regs[IOWIN / 4] = v;
}

int ioapic_init(void)
{
	if (nioapics)
		return nioapics;
	for (int i = 0; i < acpi.nioapics; i++) {
		if (mmio_map(acpi.ioapics[i].addr, 4096))
			continue;
		volatile uint32_t *regs = (volatile uint32_t *)phys(acpi.ioapics[i].addr);
		uint32_t pins = ((ioapic_read(regs, IOAPICVER) >> 16) & 0xff) + 1;
		for (uint32_t p = 0; p < pins; p++)
			ioapic_write(regs, IOREDTBL(p), RTE_MASKED);
		ioapics[nioapics].regs = regs;
		ioapics[nioapics].gsi_base = acpi.ioapics[i].gsi_base;
		ioapics[nioapics].pins = pins;
		nioapics++;
	}
	return nioapics;
}

struct ioapic_line ioapic_isa_line(uint8_t irq, int pci)
{
	struct ioapic_line l = { .gsi = irq, .level = !!pci, .active_low = !!pci };
	for (int i = 0; i < acpi.noverrides; i++) {
		const struct acpi_override *o = &acpi.overrides[i];
		if (o->irq != irq)
			continue;
		l.gsi = o->gsi;
		/* MPS INTI flags: polarity 01 high, 11 low; trigger 01 edge, 11 level. */
		if ((o->flags & 3) == 1 || (o->flags & 3) == 3)
			l.active_low = (o->flags & 3) == 3;
		if (((o->flags >> 2) & 3) == 1 || ((o->flags >> 2) & 3) == 3)
			l.level = ((o->flags >> 2) & 3) == 3;
	}
	return l;
}

/* The I/O APIC registers and pin of gsi, or NULL. */
static volatile uint32_t *find(uint32_t gsi, uint32_t *pin)
{
	for (int i = 0; i < nioapics; i++)
		if (gsi >= ioapics[i].gsi_base && gsi < ioapics[i].gsi_base + ioapics[i].pins) {
			*pin = gsi - ioapics[i].gsi_base;
			return ioapics[i].regs;
		}
	return 0;
}

int ioapic_route(const struct ioapic_line *line, uint8_t vector, uint8_t apic_id)
{
	uint32_t pin;
	volatile uint32_t *regs = find(line->gsi, &pin);
	if (!regs)
		return -1;
	uint32_t lo = vector | RTE_MASKED | (line->level ? RTE_TRIGGER_LEVEL : 0) |
		      (line->active_low ? RTE_POLARITY_LOW : 0);
	uint64_t flags = irq_save();
	ioapic_write(regs, IOREDTBL(pin), RTE_MASKED);
	ioapic_write(regs, IOREDTBL(pin) + 1, (uint32_t)apic_id << 24);
	ioapic_write(regs, IOREDTBL(pin), lo);
	irq_restore(flags);
	return 0;
}

void ioapic_mask(uint32_t gsi, int masked)
{
	uint32_t pin;
	volatile uint32_t *regs = find(gsi, &pin);
	if (!regs)
		return;
	uint64_t flags = irq_save();
	uint32_t lo = ioapic_read(regs, IOREDTBL(pin));
	ioapic_write(regs, IOREDTBL(pin), masked ? lo | RTE_MASKED : lo & ~RTE_MASKED);
	irq_restore(flags);
}
