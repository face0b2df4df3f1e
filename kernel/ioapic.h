/*
 * I/O APIC: routes global system interrupts (GSIs) to LAPIC vectors, for
 * legacy PCI INTx. Intel 82093AA datasheet 3.2; ACPI 6.4 5.2.12.3 (I/O
 * APIC structure) and 5.2.12.5 (interrupt source overrides).
 */
#ifndef IOAPIC_H
#define IOAPIC_H
#include <stdint.h>

/* Map every I/O APIC listed in the MADT (acpi.ioapics), read its pin
 * count and mask every pin. Safe to call more than once. Returns the number
 * of I/O APICs. */
int ioapic_init(void);

/* How a GSI is wired. */
struct ioapic_line {
	uint32_t gsi;
	uint8_t level;		/* 1 level-triggered, 0 edge */
	uint8_t active_low;	/* 1 active low, 0 active high */
};

/*
 * The GSI, trigger and polarity of ISA IRQ irq (0-15) as wired through the
 * MADT interrupt source overrides; an IRQ without an override is GSI irq.
 * pci gives the defaults where the override says "conforms to the bus" (or
 * there is none): 1 for a PCI interrupt (level, active low), 0 for ISA
 * (edge, active high).
 */
struct ioapic_line ioapic_isa_line(uint8_t irq, int pci);

/*
 * Program the redirection entry of line->gsi: fixed delivery of vector to
 * the LAPIC with ID apic_id (physical destination), trigger and polarity
 * from line, left masked. Returns 0, or -1 when no I/O APIC has that GSI.
 */
int ioapic_route(const struct ioapic_line *line, uint8_t vector, uint8_t apic_id);

/* Mask (1) or unmask (0) the pin of gsi; no-op for an unknown GSI. */
void ioapic_mask(uint32_t gsi, int masked);
#endif
