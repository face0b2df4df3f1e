/* Fuzz the boot-information parsers (kernel/bootparse.c) and the memory
 * map clean-up (kernel/memmap.c) that every boot path's map goes through.
 * The first byte picks the path:
 *   even: a Multiboot2 information block (spec 3.6) of exactly the input's
 *         size (its total_size field is set to it): tags of lying sizes,
 *         command lines without a NUL, memory maps with odd entry sizes;
 *   odd:  the EFI loader's struct boot_info as bytes (a region count past
 *         BOOT_MMAP_MAX, a command line without a NUL).
 * Then the regions are sanitized and the first MiB and a kernel image
 * reserved, as mem_init does. Checks: nothing read outside the input, the
 * command line NUL-terminated within BOOT_CMDLINE_MAX, at most
 * BOOT_MMAP_MAX regions; the sanitized map sorted, disjoint, usable
 * regions whole pages; reserving never adds usable bytes. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include "kernel/boot.h"
#include "kernel/memmap.h"

uint64_t boot_entry_tsc, boot_info_addr;
uint32_t boot_magic, boot_path;

static void check_map(struct mem_region *r, int n)
{
	for (int i = 0; i < n; i++) {
		assert(r[i].len > 0);
		if (r[i].type == MEM_USABLE)
			assert(r[i].base % 4096 == 0 && r[i].len % 4096 == 0);
		if (i)
			assert(r[i - 1].base + r[i - 1].len <= r[i].base);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct boot_info bi;
	if (len < 1)
		return 0;
	int efi = data[0] & 1;
	data++;
	len--;
	uint8_t *buf;
	if (efi) {
		buf = calloc(1, sizeof(struct boot_info));
		memcpy(buf, data, len < sizeof(struct boot_info) ? len : sizeof(struct boot_info));
		boot_path = BOOT_UEFI;
	} else {
		if (len < 8)
			return 0;
		buf = malloc(len);
		memcpy(buf, data, len);
		uint32_t total = (uint32_t)len;
		memcpy(buf, &total, 4);
		boot_path = BOOT_MULTIBOOT2;
		boot_magic = 0x36d76289;
	}
	boot_info_addr = (uint64_t)buf;
	boot_parse(&bi);
	assert(memchr(bi.cmdline, 0, BOOT_CMDLINE_MAX));
	/* The EFI copy is taken as it is; mem_init clamps the count like this
	 * (it took (int)nregions before: a count of 2^31 or more went negative). */
	int n = bi.nregions > BOOT_MMAP_MAX ? BOOT_MMAP_MAX : (int)bi.nregions;
	static struct mem_region map[BOOT_MMAP_MAX];
	memcpy(map, bi.regions, sizeof(map[0]) * (size_t)n);
	n = memmap_sanitize(map, n, BOOT_MMAP_MAX);
	if (n > 0) {
		check_map(map, n);
		uint64_t usable = memmap_usable_bytes(map, n);
		int m = memmap_reserve(map, n, BOOT_MMAP_MAX, 0, 1u << 20);
		if (m > 0) {
			check_map(map, m);
			assert(memmap_usable_bytes(map, m) <= usable);
			m = memmap_reserve(map, m, BOOT_MMAP_MAX, 0x200000, 0x123456);
			if (m > 0)
				check_map(map, m);
			memmap_top(map, m > 0 ? m : n, MEM_USABLE);
		}
	}
	free(buf);
	return 0;
}
