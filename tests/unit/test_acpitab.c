/* Unit tests for kernel/acpitab.c with lying tables (found by
 * tests/fuzz/fuzz_acpi): each image is a heap block of its exact size and
 * ok() accepts exactly it, so ASan catches a read past it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>
#include "kernel/acpi.h"

static uint8_t *img;
static size_t img_len;

static int ok(uint64_t addr, uint64_t len)
{
	uint64_t a = (uint64_t)img;
	return addr >= a && len <= img_len && addr - a <= img_len - len;
}

static void sum(uint8_t *p, size_t len, size_t at)
{
	uint8_t s = 0;
	p[at] = 0;
	for (size_t i = 0; i < len; i++)
		s += p[i];
	p[at] = (uint8_t)-s;
}

/* An image of n bytes: RSDP (revision rev) at 0 with an RSDT at 36; for
 * n >= 88, an XSDT at 36 (revision 2) listing one table at 80 of tlen
 * bytes with signature sig, body from body. */
static void make(size_t n, int rev, const char *sig, uint32_t tlen, const uint8_t *body, size_t blen)
{
	img = calloc(1, n);
	img_len = n;
	uint64_t base = (uint64_t)img;
	memcpy(img, "RSD PTR ", 8);
	img[15] = (uint8_t)rev;
	if (n >= 36) {
		uint32_t rsdt = (uint32_t)(base + 36), len = 36;
		uint64_t xsdt = base + 36;
		memcpy(img + 16, &rsdt, 4);
		memcpy(img + 20, &len, 4);
		if (rev >= 2)
			memcpy(img + 24, &xsdt, 8);
	}
	sum(img, 20, 8);
	if (n >= 36)
		sum(img, 36, 32);
	if (n >= 80 + 8) {
		uint32_t rl = 44;
		uint64_t t = base + 80;
		memcpy(img + 36, "XSDT", 4);
		memcpy(img + 40, &rl, 4);
		memcpy(img + 72, &t, 8);
		sum(img + 36, 44, 9);
		memcpy(img + 80, sig, 4);
		memcpy(img + 84, &tlen, 4);
		memcpy(img + 80 + 36, body, blen);
		sum(img + 80, n - 80, 9);
	}
}

static void test_rsdp_rev2_cut_short(void **state)
{
	(void)state;
	/* Revision 2 in a 20-byte image: its length field lies beyond. */
	make(20, 2, "", 0, 0, 0);
	struct acpi_info ai = { 0 };
	assert_int_equal(acpi_rsdp_valid((uint64_t)img, ok), 0);
	assert_int_equal(acpi_parse(&ai, (uint64_t)img, ok), -1);
	free(img);
}

static void test_root_outside_memory(void **state)
{
	(void)state;
	/* The RSDT pointer leads outside what may be read: no tables. */
	make(36, 0, "", 0, 0, 0);
	struct acpi_info ai = { 0 };
	assert_int_equal(acpi_parse(&ai, (uint64_t)img, ok), -1);
	assert_int_equal(ai.ntables, 0);
	free(img);
}

static void test_madt_short_entry(void **state)
{
	(void)state;
	/* A MADT whose last entry claims to be a LAPIC in 2 bytes, at the very
	 * end of memory. */
	uint8_t body[8 + 8 + 2] = { 0 };
	uint8_t lapic[8] = { 0, 8, 0, 3, 1, 0, 0, 0 };
	memcpy(body + 8, lapic, 8);
	body[16] = 0;
	body[17] = 2;
	make(80 + 36 + sizeof(body), 2, "APIC", 36 + sizeof(body), body, sizeof(body));
	struct acpi_info ai = { 0 };
	assert_int_equal(acpi_parse(&ai, (uint64_t)img, ok), 0);
	assert_int_equal(ai.ntables, 2);
	assert_int_equal(ai.ncpus, 1);
	assert_int_equal(ai.apic_ids[0], 3);
	free(img);
}

static void test_madt_x2apic(void **state)
{
	(void)state;
	/* A MADT with a LAPIC (ID 3) and an x2APIC entry (ID 0x1234, above
	 * the 8 bits of a LAPIC entry), both enabled, and a disabled x2APIC,
	 * then one online capable but not enabled. */
	uint8_t body[8 + 8 + 16 + 16] = { 0 };
	uint8_t lapic[8] = { 0, 8, 0, 3, 1, 0, 0, 0 };
	uint8_t x2[16] = { 9, 16, 0, 0, 0x34, 0x12, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0 };
	memcpy(body + 8, lapic, 8);
	memcpy(body + 16, x2, 16);
	memcpy(body + 32, x2, 16);
	body[32 + 4] = 0x99;
	body[32 + 8] = 0;	/* not enabled, not online capable */
	make(80 + 36 + sizeof(body), 2, "APIC", 36 + sizeof(body), body, sizeof(body));
	struct acpi_info ai = { 0 };
	assert_int_equal(acpi_parse(&ai, (uint64_t)img, ok), 0);
	assert_int_equal(ai.ncpus, 2);
	assert_int_equal(ai.apic_ids[0], 3);
	assert_int_equal(ai.apic_ids[1], 0x1234);
	free(img);
	/* Online capable but not enabled (ACPI 6.5 5.2.12.2): not there at
	 * boot, so not counted (starting it would wait out smp's 10 s). */
	body[32 + 8] = 2;
	make(80 + 36 + sizeof(body), 2, "APIC", 36 + sizeof(body), body, sizeof(body));
	ai = (struct acpi_info){ 0 };
	assert_int_equal(acpi_parse(&ai, (uint64_t)img, ok), 0);
	assert_int_equal(ai.ncpus, 2);
	free(img);
}

/* The NMI entries: a Local APIC NMI for all processors (UID 0xFF) on
 * LINT1, a Local x2APIC NMI for UID 7 on LINT0 active low, a type-4
 * entry one byte short (skipped); the processors' UIDs kept beside their
 * APIC IDs. */
static void test_madt_nmi(void **state)
{
	(void)state;
	uint8_t body[8 + 8 + 16 + 6 + 12 + 5] = { 0 };
	uint8_t lapic[8] = { 0, 8, 1, 3, 1, 0, 0, 0 };
	uint8_t x2[16] = { 9, 16, 0, 0, 0x34, 0x12, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0 };
	uint8_t nmi[6] = { 4, 6, 0xff, 0x05, 0, 1 };
	uint8_t x2nmi[12] = { 10, 12, 0x0f, 0, 7, 0, 0, 0, 0, 0, 0, 0 };
	uint8_t short_nmi[5] = { 4, 5, 0xff, 0, 0 };
	memcpy(body + 8, lapic, 8);
	memcpy(body + 16, x2, 16);
	memcpy(body + 32, nmi, 6);
	memcpy(body + 38, x2nmi, 12);
	memcpy(body + 50, short_nmi, 5);
	make(80 + 36 + sizeof(body), 2, "APIC", 36 + sizeof(body), body, sizeof(body));
	struct acpi_info ai = { 0 };
	assert_int_equal(acpi_parse(&ai, (uint64_t)img, ok), 0);
	assert_int_equal(ai.ncpus, 2);
	assert_int_equal(ai.apic_uids[0], 1);
	assert_int_equal(ai.apic_uids[1], 7);
	assert_int_equal(ai.nnmis, 2);
	assert_int_equal(ai.nmis[0].uid, ACPI_UID_ALL);
	assert_int_equal(ai.nmis[0].flags, 0x05);
	assert_int_equal(ai.nmis[0].lint, 1);
	assert_int_equal(ai.nmis[1].uid, 7);
	assert_int_equal(ai.nmis[1].flags, 0x0f);
	assert_int_equal(ai.nmis[1].lint, 0);
	free(img);
}

static void test_spcr_mmio32(void **state)
{
	(void)state;
	/* An SPCR for a 16550 with GAS (0x12), memory space, dword access, at
	 * 0xfe030000, 115200 baud (code 7): the fields Linux's earlycon reads. */
	uint8_t body[44] = { 0 };
	uint64_t addr = 0xfe030000;
	body[0] = 0x12;
	body[4] = 0;	/* GAS: system memory, 32 bits wide, offset 0, dword access */
	body[5] = 32;
	body[7] = 3;
	memcpy(body + 8, &addr, 8);
	body[22] = 7;
	make(80 + 36 + sizeof(body), 2, "SPCR", 36 + sizeof(body), body, sizeof(body));
	struct acpi_info ai = { 0 };
	assert_int_equal(acpi_parse(&ai, (uint64_t)img, ok), 0);
	assert_int_equal(ai.spcr.length, ACPI_SPCR_MIN_LEN);
	assert_int_equal(ai.spcr.interface_type, 0x12);
	assert_int_equal(ai.spcr.space_id, 0);
	assert_int_equal(ai.spcr.access_size, 3);
	assert_int_equal(ai.spcr.address, addr);
	assert_int_equal(ai.spcr.baud_code, 7);
	free(img);
}

/* An SPCR whose checksum is wrong: its length and the fault are kept, no
 * field is read, and the table is not listed as used. */
static void test_spcr_bad_checksum(void **state)
{
	(void)state;
	uint8_t body[44] = { 0 };
	body[22] = 7;
	make(80 + 36 + sizeof(body), 2, "SPCR", 36 + sizeof(body), body, sizeof(body));
	img[80 + 9]++;
	struct acpi_info ai = { 0 };
	assert_int_equal(acpi_parse(&ai, (uint64_t)img, ok), 0);
	assert_int_equal(ai.spcr.length, ACPI_SPCR_MIN_LEN);
	assert_int_equal(ai.spcr.bad_checksum, 1);
	assert_int_equal(ai.spcr.baud_code, 0);
	assert_int_equal(ai.ntables, 1);	/* the XSDT only */
	free(img);
}

static void test_spcr_short(void **state)
{
	(void)state;
	/* An SPCR of 60 bytes, the end of memory right after it: only its
	 * length is kept (ASan: nothing beyond is read). */
	uint8_t body[24];
	memset(body, 0xff, sizeof(body));
	make(80 + 36 + sizeof(body), 2, "SPCR", 36 + sizeof(body), body, sizeof(body));
	struct acpi_info ai = { 0 };
	assert_int_equal(acpi_parse(&ai, (uint64_t)img, ok), 0);
	assert_int_equal(ai.spcr.length, 60);
	assert_int_equal(ai.spcr.interface_type, 0);
	assert_int_equal(ai.spcr.address, 0);
	free(img);
}

/* A FADT of 148 bytes at 80 whose X_DSDT points at a DSDT right after it,
 * holding aml (alen bytes) after its header; both checksummed. Returns the
 * parse. */
static struct acpi_info fadt_dsdt(const uint8_t *aml, size_t alen)
{
	enum { FLEN = 148 };
	uint8_t body[FLEN - 36] = { 0 };
	uint32_t pm1a = 0x604, flags = ACPI_FADT_RESET_REG_SUP, dlen = (uint32_t)(36 + alen);
	uint64_t reset = 0xcf9;
	memcpy(body + 64 - 36, &pm1a, 4);
	memcpy(body + 112 - 36, &flags, 4);
	body[116 - 36] = 1;	/* RESET_REG: system I/O */
	memcpy(body + 120 - 36, &reset, 8);
	body[128 - 36] = 6;
	make(80 + FLEN + dlen, 2, "FACP", FLEN, body, sizeof(body));
	uint8_t *d = img + 80 + FLEN;
	uint64_t da = (uint64_t)d;
	memcpy(img + 80 + 140, &da, 8);
	sum(img + 80, FLEN, 9);
	memcpy(d, "DSDT", 4);
	memcpy(d + 4, &dlen, 4);
	memcpy(d + 36, aml, alen);
	sum(d, dlen, 9);
	struct acpi_info ai = { 0 };
	assert_int_equal(acpi_parse(&ai, (uint64_t)img, ok), 0);
	free(img);
	return ai;
}

static void test_fadt_s5(void **state)
{
	(void)state;
	/* Scope (\_SB) bytes, then Name (\_S5, Package (4) {5, 5, Zero, Zero}). */
	const uint8_t aml[] = { 0x10, 0x05, '_', 'S', 'B', '_', 0x08, '\\', '_', 'S', '5', '_', 0x12, 0x08, 0x04,
				0x0a, 0x05, 0x0a, 0x05, 0x00, 0x00 };
	struct acpi_info ai = fadt_dsdt(aml, sizeof(aml));
	assert_int_equal(ai.fadt.length, 148);
	assert_int_equal(ai.fadt.pm1a_cnt, 0x604);
	assert_int_equal(ai.fadt.flags & ACPI_FADT_RESET_REG_SUP, ACPI_FADT_RESET_REG_SUP);
	assert_int_equal(ai.fadt.reset_space, 1);
	assert_int_equal(ai.fadt.reset_addr, 0xcf9);
	assert_int_equal(ai.fadt.reset_value, 6);
	assert_int_equal(ai.fadt.s5, 1);
	assert_int_equal(ai.fadt.slp_typa, 5);
	assert_int_equal(ai.fadt.slp_typb, 5);
}

static void test_fadt_s5_not_found(void **state)
{
	(void)state;
	/* _S5_ as a method (MethodOp 0x14): not a package. */
	const uint8_t method[] = { 0x14, 0x08, '_', 'S', '5', '_', 0x00, 0xa4, 0x00, 0x00 };
	assert_int_equal(fadt_dsdt(method, sizeof(method)).fadt.s5, 0);
	/* The package cut by the table's end after SLP_TYPa's BytePrefix (ASan:
	 * nothing beyond is read). */
	const uint8_t cut[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x08, 0x04, 0x0a, 0x05, 0x0a };
	assert_int_equal(fadt_dsdt(cut, sizeof(cut)).fadt.s5, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rsdp_rev2_cut_short),
		cmocka_unit_test(test_root_outside_memory),
		cmocka_unit_test(test_madt_short_entry),
		cmocka_unit_test(test_madt_x2apic),
		cmocka_unit_test(test_madt_nmi),
		cmocka_unit_test(test_spcr_mmio32),
		cmocka_unit_test(test_spcr_short),
		cmocka_unit_test(test_spcr_bad_checksum),
		cmocka_unit_test(test_fadt_s5),
		cmocka_unit_test(test_fadt_s5_not_found),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
