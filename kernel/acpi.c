/* ACPI table discovery (ACPI 6.4 5.2.5): the RSDP from the loader or the
 * BIOS areas, then the tables through acpitab.c. */
#include "kernel/acpi.h"
#include "kernel/cpu.h"
#include "kernel/mem.h"

struct acpi_info acpi;

/* Tables are read through the identity map: they must lie inside it. */
static int mapped(uint64_t addr, uint64_t len)
{
	return addr && addr + len >= addr && addr + len <= mem.mapped_top;
}

/* The RSDP sits on a 16-byte boundary in the first KiB of the EBDA or in 0xe0000-0xfffff. */
static uint64_t rsdp_scan(void)
{
	uint64_t ebda = (uint64_t)*(volatile uint16_t *)phys(0x40e) << 4;
	if (ebda >= 0x80000 && ebda < 0xa0000)
		for (uint64_t a = ebda; a < ebda + 1024; a += 16)
			if (acpi_rsdp_valid(a, mapped))
				return a;
	for (uint64_t a = 0xe0000; a < 0x100000; a += 16)
		if (acpi_rsdp_valid(a, mapped))
			return a;
	return 0;
}

int acpi_init(uint64_t rsdp)
{
	acpi.rsdp_source = "boot info";
	if (!rsdp || !acpi_rsdp_valid(rsdp, mapped)) {
		rsdp = rsdp_scan();
		acpi.rsdp_source = "BIOS area scan";
	}
	if (!rsdp)
		return -1;
	return acpi_parse(&acpi, rsdp, mapped);
}
