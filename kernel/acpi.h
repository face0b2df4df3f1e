/* ACPI tables the kernel uses: RSDP, XSDT/RSDT, MADT, MCFG (ACPI 6.4
 * chapter 5), SPCR (Microsoft's Serial Port Console Redirection Table),
 * FADT and the DSDT's \_S5 (reset and poweroff). */
#ifndef ACPI_H
#define ACPI_H
#include <stdint.h>

#define ACPI_MAX_TABLES 32
#define ACPI_MAX_CPUS 64
#define ACPI_MAX_IOAPICS 4
#define ACPI_MAX_OVERRIDES 16
#define ACPI_MAX_MCFG 4

/* One ECAM window from MCFG (PCI Firmware spec 3.2, table 4-3). */
struct acpi_mcfg {
	uint64_t base;
	uint16_t segment;
	uint8_t bus_start, bus_end;
};

/* An interrupt source override from MADT (ACPI 6.4 5.2.12.5). */
struct acpi_override {
	uint8_t irq;		/* ISA IRQ */
	uint32_t gsi;
	uint16_t flags;		/* MPS INTI flags: polarity bits 1:0, trigger 3:2 */
};

/* The SPCR's console port as the table gives it (SPCR spec, table 3);
 * kernel/console.c decides whether it is a usable 16550. */
#define ACPI_SPCR_MIN_LEN 80	/* revision 1 and 2 tables */
struct acpi_spcr {
	uint32_t length;	/* the table's bytes, 0: no SPCR */
	uint8_t interface_type;	/* DBG2 serial subtype: 0 16550, 1 16450, 0x12 16550 with GAS */
	uint8_t space_id;	/* GAS: 0 system memory, 1 system I/O */
	uint8_t access_size;	/* GAS: 0 undefined, 1 byte, 2 word, 3 dword, 4 qword */
	uint64_t address;	/* GAS: the register base */
	uint8_t baud_code;	/* 0 as is, 3 9600, 4 19200, 6 57600, 7 115200 */
	uint8_t bad_checksum;	/* 1: its bytes do not sum to 0 (the fields are not read) */
};

/* What reset and poweroff need from the FADT (ACPI 6.4 5.2.9) and the
 * DSDT's \_S5 package (7.4.2). */
#define ACPI_FADT_RESET_REG_SUP (1u << 10)	/* FADT Flags: RESET_REG is usable */
struct acpi_fadt {
	uint32_t length;	/* the FADT's bytes, 0: no FADT */
	uint32_t flags;
	uint8_t reset_space;	/* RESET_REG's GAS: 0 memory, 1 I/O, 2 PCI config */
	uint64_t reset_addr;
	uint8_t reset_value;
	uint32_t pm1a_cnt, pm1b_cnt;	/* PM1x_CNT_BLK I/O ports, 0: none */
	int s5;				/* 1: \_S5 was found in the DSDT */
	uint8_t slp_typa, slp_typb;	/* its first two elements: SLP_TYP for PM1a/PM1b_CNT */
};

/* A MADT Local APIC NMI (type 4, ACPI 6.4 5.2.12.7) or Local x2APIC NMI
 * (type 0xA, 5.2.12.13) entry: the processors whose LINTn pin the
 * platform wires to NMI. */
struct acpi_nmi {
	uint32_t uid;		/* ACPI processor UID; ACPI_UID_ALL: every processor */
	uint16_t flags;		/* MPS INTI flags: polarity in bits 1:0 (3: active low) */
	uint8_t lint;		/* 0 or 1 */
};
#define ACPI_UID_ALL 0xffffffffu	/* type 4's 0xFF, type 0xA's 0xFFFFFFFF */
#define ACPI_MAX_NMIS 8

struct acpi_info {
	uint64_t rsdp;			/* physical address, 0 if not found */
	const char *rsdp_source;	/* "boot info", "BIOS area scan" */
	int revision;			/* RSDP revision: 0 = ACPI 1.0, 2 = 2.0+ */
	int ntables;
	char tables[ACPI_MAX_TABLES][5];	/* signatures found */
	int ncpus;			/* enabled LAPICs in MADT */
	uint32_t apic_ids[ACPI_MAX_CPUS];	/* xAPIC IDs (type 0) and x2APIC IDs (type 9, all 32 bits) */
	uint32_t apic_uids[ACPI_MAX_CPUS];	/* their ACPI processor UIDs, which NMI entries name */
	int nnmis;
	struct acpi_nmi nmis[ACPI_MAX_NMIS];
	uint64_t lapic_addr;
	int nioapics;
	struct { uint8_t id; uint32_t addr, gsi_base; } ioapics[ACPI_MAX_IOAPICS];
	int noverrides;
	struct acpi_override overrides[ACPI_MAX_OVERRIDES];
	int nmcfg;
	struct acpi_mcfg mcfg[ACPI_MAX_MCFG];
	struct acpi_spcr spcr;
	struct acpi_fadt fadt;
};
extern struct acpi_info acpi;

/* Find and parse the tables, starting from rsdp (0: scan the BIOS areas,
 * ACPI 6.4 5.2.5.1). Returns 0, or -1 if no valid RSDP was found. */
int acpi_init(uint64_t rsdp);

/* Largest table read, bytes: a longer length is a lie. */
#define ACPI_TABLE_MAX (1u << 20)
/* 1 if [addr, addr + len) may be read (the kernel: inside its identity map). */
typedef int (*acpi_mapped_fn)(uint64_t addr, uint64_t len);
/* 1 if addr holds a valid RSDP (signature, checksums, revision 2 length). */
int acpi_rsdp_valid(uint64_t addr, acpi_mapped_fn ok);
/* Parse the tables from a valid RSDP into *ai (kernel/acpitab.c): the
 * XSDT (revision 2 with an address) or RSDT, then each table it lists;
 * MADT, MCFG and SPCR are decoded (an SPCR shorter than
 * ACPI_SPCR_MIN_LEN: only its length), and the FADT with the \_S5 package
 * of the DSDT it points to. A table outside ok(), shorter than its
 * header, longer than ACPI_TABLE_MAX or with a bad checksum is skipped.
 * Returns 0, or -1 if the RSDP or root table is not valid. */
int acpi_parse(struct acpi_info *ai, uint64_t rsdp, acpi_mapped_fn ok);
#endif
