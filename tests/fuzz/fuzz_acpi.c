/* Fuzz the ACPI table parser (kernel/acpitab.c): RSDP, RSDT/XSDT, MADT and
 * MCFG with lying lengths, pointers anywhere and entries of any length.
 * The input is placed at a fixed address (ARENA, so 32-bit RSDT entries
 * can point into it) and the RSDP is its start; ok() accepts exactly the
 * input's bytes, as the kernel accepts its identity map. The first byte
 * asks the harness to fix checksums (1: RSDP, 2: the root table, 4: the
 * tables the root lists) so that mutations get past them. Checks: nothing
 * read outside the input (the arena past it is poisoned for ASan), the
 * counts within their arrays. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <sanitizer/asan_interface.h>
#include <sys/mman.h>
#include "kernel/acpi.h"

#define ARENA 0x20000000ul
#define ARENA_SIZE (1u << 16)
static uint8_t *arena;
static size_t used;

static int ok(uint64_t addr, uint64_t len)
{
	return addr >= ARENA && len <= used && addr - ARENA <= used - len;
}

static void fix(uint64_t addr, uint64_t len, size_t at)
{
	if (!ok(addr, len) || at >= len)
		return;
	uint8_t *p = (uint8_t *)addr, sum = 0;
	p[at] = 0;
	for (uint64_t i = 0; i < len; i++)
		sum += p[i];
	p[at] = (uint8_t)-sum;
}

static uint32_t get32(uint64_t a)
{
	uint32_t v;
	memcpy(&v, (void *)a, 4);
	return v;
}

static void fix_checksums(uint8_t how)
{
	uint64_t r = ARENA;
	if (!ok(r, 36))
		return;
	int wide = arena[15] >= 2 && get32(r + 24) | get32(r + 28);
	uint64_t root = wide ? (uint64_t)get32(r + 24) | (uint64_t)get32(r + 28) << 32 : get32(r + 16);
	if ((how & 4) && ok(root, 36)) {
		uint32_t rl = get32(root + 4), es = wide ? 8 : 4;
		for (uint64_t e = root + 36; rl <= ARENA_SIZE && e + es <= root + rl && ok(e, es); e += es) {
			uint64_t t = 0;
			memcpy(&t, (void *)e, es);
			if (ok(t, 8))
				fix(t, get32(t + 4), 9);
		}
	}
	if ((how & 2) && ok(root, 8))
		fix(root, get32(root + 4), 9);
	if (how & 1) {
		fix(r, 20, 8);
		fix(r, get32(r + 20), 32);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	if (!arena) {
		arena = mmap((void *)ARENA, ARENA_SIZE + 4096, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		assert(arena == (void *)ARENA);
	}
	if (len < 1)
		return 0;
	used = len - 1 < ARENA_SIZE ? len - 1 : ARENA_SIZE;
	ASAN_UNPOISON_MEMORY_REGION(arena, ARENA_SIZE);
	memset(arena, 0, ARENA_SIZE);
	memcpy(arena, data + 1, used);
	fix_checksums(data[0]);
	ASAN_POISON_MEMORY_REGION(arena + used, ARENA_SIZE - used);
	static struct acpi_info ai;
	memset(&ai, 0, sizeof(ai));
	acpi_parse(&ai, ARENA, ok);
	assert(ai.ntables <= ACPI_MAX_TABLES && ai.ncpus <= ACPI_MAX_CPUS);
	assert(ai.nioapics <= ACPI_MAX_IOAPICS && ai.noverrides <= ACPI_MAX_OVERRIDES);
	assert(ai.nmcfg <= ACPI_MAX_MCFG);
	return 0;
}
