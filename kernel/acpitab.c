/* ACPI tables (ACPI 6.4 5.2.5 - 5.2.12; PCI Firmware 3.2 4.1.2; Microsoft
 * SPCR spec, revision 2): RSDP, XSDT/RSDT, MADT, MCFG, SPCR, FADT and the
 * DSDT's \_S5 package. Portable: every address is checked with the
 * caller's ok() before it is read, so lying lengths and pointers are
 * refused (tests/fuzz/fuzz_acpi.c). */
#include <string.h>
#include "kernel/acpi.h"

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

static int checksum_ok(const void *p, uint32_t len)
{
	uint8_t sum = 0;
	for (uint32_t i = 0; i < len; i++)
		sum += ((const uint8_t *)p)[i];
	return sum == 0;
}

int acpi_rsdp_valid(uint64_t addr, acpi_mapped_fn ok)
{
	const struct rsdp *r = (const struct rsdp *)addr;
	if (!ok(addr, 20) || memcmp(r->sig, "RSD PTR ", 8) || !checksum_ok(r, 20))
		return 0;
	if (r->revision < 2)
		return 1;
	return ok(addr, 24) && r->length >= sizeof(*r) && r->length <= ACPI_TABLE_MAX && ok(addr, r->length) &&
	       checksum_ok(r, r->length);
}

/* MADT: Processor Local APIC (0), I/O APIC (1), Interrupt Source Override
 * (2), Local APIC NMI (4), x2APIC (9), Local x2APIC NMI (0xA). An entry
 * shorter than its type's structure is skipped. */
static const uint8_t madt_min_len[11] = { [0] = 8, [1] = 12, [2] = 10, [4] = 6, [9] = 16, [10] = 12 };

static void add_nmi(struct acpi_info *ai, uint32_t uid, const uint8_t *flags, uint8_t lint)
{
	if (ai->nnmis < ACPI_MAX_NMIS) {
		struct acpi_nmi *n = &ai->nmis[ai->nnmis++];
		n->uid = uid;
		memcpy(&n->flags, flags, 2);
		n->lint = lint;
	}
}

static void parse_madt(struct acpi_info *ai, const struct sdt_header *h)
{
	const uint8_t *p = (const uint8_t *)h;
	if (h->length < 44)
		return;
	uint32_t lapic;
	memcpy(&lapic, p + 36, 4);	/* tables need not be aligned */
	ai->lapic_addr = lapic;
	for (uint32_t off = 44; off + 2 <= h->length;) {
		uint8_t type = p[off], len = p[off + 1];
		if (len < 2 || off + len > h->length)
			break;
		const uint8_t *e = p + off;
		uint32_t flags;
		if (type < sizeof(madt_min_len) && len < madt_min_len[type]) {
			off += len;
			continue;
		}
		/* Flags bit 0, Enabled: the processor is there (ACPI 6.5
		 * 5.2.12.2). Bit 1 alone, Online Capable, is a hot-add slot: not
		 * counted, as Linux starts only enabled ones at boot. */
		switch (type) {
		case 0:
			memcpy(&flags, e + 4, 4);
			if ((flags & 1) && ai->ncpus < ACPI_MAX_CPUS) {
				ai->apic_uids[ai->ncpus] = e[2];
				ai->apic_ids[ai->ncpus++] = e[3];
			}
			break;
		case 9:	/* Processor Local x2APIC (ACPI 6.4 5.2.12.12): the ID at 4, 32 bits */
			memcpy(&flags, e + 8, 4);
			if ((flags & 1) && ai->ncpus < ACPI_MAX_CPUS) {
				memcpy(&ai->apic_uids[ai->ncpus], e + 12, 4);
				memcpy(&ai->apic_ids[ai->ncpus++], e + 4, 4);
			}
			break;
		case 4:	/* Local APIC NMI: UID at 2 (0xFF: all), flags at 3, LINT# at 5 */
			add_nmi(ai, e[2] == 0xff ? ACPI_UID_ALL : e[2], e + 3, e[5]);
			break;
		case 10: {	/* Local x2APIC NMI: flags at 2, UID at 4 (32 bits), LINT# at 8 */
			uint32_t uid;
			memcpy(&uid, e + 4, 4);
			add_nmi(ai, uid, e + 2, e[8]);
			break;
		}
		case 1:
			if (ai->nioapics < ACPI_MAX_IOAPICS) {
				int i = ai->nioapics++;
				ai->ioapics[i].id = e[2];
				memcpy(&ai->ioapics[i].addr, e + 4, 4);
				memcpy(&ai->ioapics[i].gsi_base, e + 8, 4);
			}
			break;
		case 2:
			if (ai->noverrides < ACPI_MAX_OVERRIDES) {
				struct acpi_override *o = &ai->overrides[ai->noverrides++];
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
static void parse_mcfg(struct acpi_info *ai, const struct sdt_header *h)
{
	const uint8_t *p = (const uint8_t *)h;
	for (uint32_t off = 44; off + 16 <= h->length && ai->nmcfg < ACPI_MAX_MCFG; off += 16) {
		struct acpi_mcfg *m = &ai->mcfg[ai->nmcfg++];
		memcpy(&m->base, p + off, 8);
		memcpy(&m->segment, p + off + 8, 2);
		m->bus_start = p[off + 10];
		m->bus_end = p[off + 11];
	}
}

/* SPCR: interface type at 36, the base address's GAS (ACPI 6.4 5.2.3.2)
 * at 40, the baud rate code at 58. */
static void parse_spcr(struct acpi_info *ai, const struct sdt_header *h)
{
	const uint8_t *p = (const uint8_t *)h;
	struct acpi_spcr *s = &ai->spcr;

	s->length = h->length;
	if (h->length < ACPI_SPCR_MIN_LEN)
		return;
	s->interface_type = p[36];
	s->space_id = p[40];
	s->access_size = p[43];
	memcpy(&s->address, p + 44, 8);
	s->baud_code = p[58];
}

/* A table's header and length, checked: inside memory the kernel may read,
 * at least a header, at most ACPI_TABLE_MAX, checksum zero. */
static const struct sdt_header *table_at(uint64_t addr, acpi_mapped_fn ok)
{
	const struct sdt_header *h = (const struct sdt_header *)addr;
	if (!ok(addr, sizeof(*h)) || h->length < sizeof(*h) || h->length > ACPI_TABLE_MAX ||
	    !ok(addr, h->length) || !checksum_ok(h, h->length))
		return 0;
	return h;
}

/* An AML integer at p (ACPI 6.4 20.2.3: ZeroOp, OneOp, OnesOp, BytePrefix,
 * WordPrefix) into *v; its bytes, or 0 if it is none of them or passes end. */
static int aml_int(const uint8_t *p, const uint8_t *end, uint8_t *v)
{
	if (p >= end)
		return 0;
	if (*p <= 0x01 || *p == 0xff) {
		*v = *p;
		return 1;
	}
	if ((*p == 0x0a && p + 2 <= end) || (*p == 0x0b && p + 3 <= end)) {
		*v = p[1];
		return *p == 0x0a ? 2 : 3;
	}
	return 0;
}

/*
 * \_S5 without an AML interpreter, as small kernels do: the bytes
 * NameOp (0x08) "_S5_" (a "\" before the name allowed) PackageOp (0x12),
 * PkgLength (1-4 bytes: the lead byte's bits 7:6 count the ones after it),
 * NumElements, then SLP_TYPa and SLP_TYPb as AML integers. A \_S5 built
 * by a method, or inside a conditional, is not found.
 */
static void find_s5(struct acpi_fadt *f, const struct sdt_header *dsdt)
{
	const uint8_t *p = (const uint8_t *)dsdt, *end = p + dsdt->length;

	for (const uint8_t *q = p + sizeof(*dsdt) + 1; q + 6 <= end; q++) {
		if (memcmp(q, "_S5_", 4) || q[4] != 0x12 || (q[-1] != 0x08 && (q[-1] != '\\' || q[-2] != 0x08)))
			continue;
		const uint8_t *e = q + 5 + 1 + (q[5] >> 6) + 1;	/* PkgLength, NumElements */
		int n = aml_int(e, end, &f->slp_typa);
		if (n && aml_int(e + n, end, &f->slp_typb)) {
			f->s5 = 1;
			return;
		}
	}
}

/* FADT: DSDT at 40 (X_DSDT at 140 from ACPI 2.0), PM1a/b_CNT_BLK at 64/68,
 * Flags at 112, RESET_REG's GAS at 116, RESET_VALUE at 128. */
static void parse_fadt(struct acpi_info *ai, const struct sdt_header *h, acpi_mapped_fn ok)
{
	const uint8_t *p = (const uint8_t *)h;
	struct acpi_fadt *f = &ai->fadt;
	uint32_t dsdt32 = 0;
	uint64_t dsdt = 0;

	f->length = h->length;
	if (h->length < 116)
		return;
	memcpy(&dsdt32, p + 40, 4);
	memcpy(&f->pm1a_cnt, p + 64, 4);
	memcpy(&f->pm1b_cnt, p + 68, 4);
	memcpy(&f->flags, p + 112, 4);
	if (h->length >= 129) {
		f->reset_space = p[116];
		memcpy(&f->reset_addr, p + 120, 8);
		f->reset_value = p[128];
	}
	if (h->length >= 148)
		memcpy(&dsdt, p + 140, 8);
	const struct sdt_header *d = table_at(dsdt ? dsdt : dsdt32, ok);
	if (d && !memcmp(d->sig, "DSDT", 4))
		find_s5(f, d);
}

/* An SPCR that table_at refused for its checksum alone: kept as such, so
 * the console can say why its port is not used. */
static void spcr_bad_checksum(struct acpi_info *ai, uint64_t addr, acpi_mapped_fn ok)
{
	const struct sdt_header *h = (const struct sdt_header *)addr;
	if (ok(addr, sizeof(*h)) && !memcmp(h->sig, "SPCR", 4) && h->length >= sizeof(*h) &&
	    h->length <= ACPI_TABLE_MAX && ok(addr, h->length)) {
		ai->spcr.length = h->length;
		ai->spcr.bad_checksum = 1;
	}
}

static void parse_table(struct acpi_info *ai, uint64_t addr, acpi_mapped_fn ok)
{
	const struct sdt_header *h = table_at(addr, ok);
	if (!h) {
		spcr_bad_checksum(ai, addr, ok);
		return;
	}
	if (ai->ntables < ACPI_MAX_TABLES)
		memcpy(ai->tables[ai->ntables++], h->sig, 4);
	if (!memcmp(h->sig, "APIC", 4))
		parse_madt(ai, h);
	else if (!memcmp(h->sig, "MCFG", 4))
		parse_mcfg(ai, h);
	else if (!memcmp(h->sig, "SPCR", 4))
		parse_spcr(ai, h);
	else if (!memcmp(h->sig, "FACP", 4))
		parse_fadt(ai, h, ok);
}

int acpi_parse(struct acpi_info *ai, uint64_t rsdp, acpi_mapped_fn ok)
{
	if (!acpi_rsdp_valid(rsdp, ok))
		return -1;
	ai->rsdp = rsdp;
	const struct rsdp *r = (const struct rsdp *)rsdp;
	ai->revision = r->revision;
	int wide = r->revision >= 2 && r->xsdt;
	const struct sdt_header *root = table_at(wide ? r->xsdt : r->rsdt, ok);
	if (!root)
		return -1;
	if (ai->ntables < ACPI_MAX_TABLES)
		memcpy(ai->tables[ai->ntables++], root->sig, 4);
	uint32_t esize = wide ? 8 : 4;
	const uint8_t *entries = (const uint8_t *)root + sizeof(*root);
	for (uint32_t i = 0; i < (root->length - sizeof(*root)) / esize; i++) {
		uint64_t a = 0;
		memcpy(&a, entries + i * esize, esize);
		parse_table(ai, a, ok);
	}
	return 0;
}
