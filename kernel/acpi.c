/* ACPI table discovery (ACPI 6.4 sections 5.2.5 - 5.2.12; PCI Firmware 3.2 4.1.2). */
#include <string.h>
#include "kernel/acpi.h"
#include "kernel/cpu.h"

struct rsdp {
	char sig[8];
	uint8_t checksum;
	char oem[6];
	uint8_t revision;
	uint32_t rsdt;
	uint32_t length;
	uint64_t xsdt;
	uint8_t xchecksum, reserved[3];
} __attribute__((packed));

struct sdt_header {
	char sig[4];
	uint32_t length;
	uint8_t revision, checksum;
	char oem[6], oem_table[8];
	uint32_t oem_rev, creator, creator_rev;
} __attribute__((packed));

struct acpi_info acpi;

static int checksum_ok(const void *p, uint32_t len)
{
	uint8_t sum = 0;
	for (uint32_t i = 0; i < len; i++)
		sum += ((const uint8_t *)p)[i];
	return sum == 0;
}

static int rsdp_valid(uint64_t addr)
{
	const struct rsdp *r = (const struct rsdp *)addr;
	if (memcmp(r->sig, "RSD PTR ", 8) || !checksum_ok(r, 20))
		return 0;
	return r->revision < 2 || checksum_ok(r, r->length);
}

/* The RSDP sits on a 16-byte boundary in the first KiB of the EBDA or in 0xe0000-0xfffff. */
static uint64_t rsdp_scan(void)
{
	uint64_t ebda = (uint64_t)*(volatile uint16_t *)phys(0x40e) << 4;
	if (ebda >= 0x80000 && ebda < 0xa0000)
		for (uint64_t a = ebda; a < ebda + 1024; a += 16)
			if (rsdp_valid(a))
				return a;
	for (uint64_t a = 0xe0000; a < 0x100000; a += 16)
		if (rsdp_valid(a))
			return a;
	return 0;
}

/* MADT: Processor Local APIC (0), I/O APIC (1), Interrupt Source Override (2), x2APIC (9). */
static void parse_madt(const struct sdt_header *h)
{
	const uint8_t *p = (const uint8_t *)h;
	acpi.lapic_addr = *(const uint32_t *)(p + 36);
	for (uint32_t off = 44; off + 2 <= h->length;) {
		uint8_t type = p[off], len = p[off + 1];
		if (len < 2 || off + len > h->length)
			break;
		const uint8_t *e = p + off;
		uint32_t flags;
		switch (type) {
		case 0:
			memcpy(&flags, e + 4, 4);
			if ((flags & 3) && acpi.ncpus < ACPI_MAX_CPUS)
				acpi.apic_ids[acpi.ncpus++] = e[3];
			break;
		case 9:
			memcpy(&flags, e + 8, 4);
			if ((flags & 3) && acpi.ncpus < ACPI_MAX_CPUS)
				acpi.apic_ids[acpi.ncpus++] = e[4];
			break;
		case 1:
			if (acpi.nioapics < ACPI_MAX_IOAPICS) {
				int i = acpi.nioapics++;
				acpi.ioapics[i].id = e[2];
				memcpy(&acpi.ioapics[i].addr, e + 4, 4);
				memcpy(&acpi.ioapics[i].gsi_base, e + 8, 4);
			}
			break;
		case 2:
			if (acpi.noverrides < ACPI_MAX_OVERRIDES) {
				struct acpi_override *o = &acpi.overrides[acpi.noverrides++];
				o->irq = e[3];
				memcpy(&o->gsi, e + 4, 4);
				memcpy(&o->flags, e + 8, 2);
			}
			break;
		}
		off += len;
	}
}

/* MCFG: 16-byte entries after a 44-byte header. */
static void parse_mcfg(const struct sdt_header *h)
{
	const uint8_t *p = (const uint8_t *)h;
	for (uint32_t off = 44; off + 16 <= h->length && acpi.nmcfg < ACPI_MAX_MCFG; off += 16) {
		struct acpi_mcfg *m = &acpi.mcfg[acpi.nmcfg++];
		memcpy(&m->base, p + off, 8);
		memcpy(&m->segment, p + off + 8, 2);
		m->bus_start = p[off + 10];
		m->bus_end = p[off + 11];
	}
}

static void parse_table(uint64_t addr)
{
	const struct sdt_header *h = (const struct sdt_header *)addr;
	if (!addr || h->length < sizeof(*h) || !checksum_ok(h, h->length))
		return;
	if (acpi.ntables < ACPI_MAX_TABLES)
		memcpy(acpi.tables[acpi.ntables++], h->sig, 4);
	if (!memcmp(h->sig, "APIC", 4))
		parse_madt(h);
	else if (!memcmp(h->sig, "MCFG", 4))
		parse_mcfg(h);
}

int acpi_init(uint64_t rsdp)
{
	acpi.rsdp_source = "boot info";
	if (!rsdp || !rsdp_valid(rsdp)) {
		rsdp = rsdp_scan();
		acpi.rsdp_source = "BIOS area scan";
	}
	if (!rsdp)
		return -1;
	acpi.rsdp = rsdp;
	const struct rsdp *r = (const struct rsdp *)rsdp;
	acpi.revision = r->revision;
	int wide = r->revision >= 2 && r->xsdt;
	const struct sdt_header *root = (const struct sdt_header *)(wide ? r->xsdt : r->rsdt);
	if (!checksum_ok(root, root->length))
		return -1;
	memcpy(acpi.tables[acpi.ntables++], root->sig, 4);
	uint32_t esize = wide ? 8 : 4;
	const uint8_t *entries = (const uint8_t *)root + sizeof(*root);
	for (uint32_t i = 0; i < (root->length - sizeof(*root)) / esize; i++) {
		uint64_t a = 0;
		memcpy(&a, entries + i * esize, esize);
		parse_table(a);
	}
	return 0;
}
