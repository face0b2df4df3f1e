/*
 * Turn what each loader left into one struct boot_info:
 * Multiboot2 information (Multiboot2 spec 3.6), PVH hvm_start_info
 * (Xen public/arch-x86/hvm/start_info.h), or the EFI loader's copy.
 */
#include <stdint.h>
#include <string.h>
#include "kernel/boot.h"

#define MB2_BOOT_MAGIC 0x36d76289
#define PVH_MAGIC 0x336ec578

struct mb2_tag { uint32_t type, size; };
struct mb2_mmap_entry { uint64_t base, len; uint32_t type, reserved; };

struct hvm_start_info {
	uint32_t magic, version, flags, nr_modules;
	uint64_t modlist_paddr, cmdline_paddr, rsdp_paddr;
	uint64_t memmap_paddr;	/* version >= 1 */
	uint32_t memmap_entries, reserved;
};
struct hvm_memmap_entry { uint64_t addr, size; uint32_t type, reserved; };
struct hvm_modlist_entry { uint64_t paddr, size, cmdline_paddr, reserved; };

/* mb2 tags 14/15 hold a copy of the RSDP, not its address: keep it here. */
static uint8_t rsdp_copy[36] __attribute__((aligned(16)));

static void add_region(struct boot_info *bi, uint64_t base, uint64_t len, uint32_t type)
{
	if (bi->nregions >= BOOT_MMAP_MAX)
		return;
	if (type < MEM_USABLE || type > MEM_BAD)
		type = MEM_RESERVED;
	bi->regions[bi->nregions++] = (struct mem_region){ base, len, type, 0 };
}

/* The command line at s, at most max bytes long (a Multiboot2 tag's
 * body; PVH: unbounded), whole words of it if it does not fit. */
static void set_cmdline(struct boot_info *bi, const char *s, size_t max)
{
	if (!s)
		return;
	size_t total = strnlen(s, max), len = total < BOOT_CMDLINE_MAX - 1 ? total : BOOT_CMDLINE_MAX - 1;
	memcpy(bi->cmdline, s, len);
	bi->cmdline_cut = boot_cmdline_words(bi->cmdline, len, total, len < total ? s[len] : 0);
}

/* The framebuffer tag (type 8, Multiboot2 spec 3.6.12): address, pitch,
 * width, height, bpp, type (0 indexed, 1 RGB, 2 EGA text), then for RGB
 * each colour's field position and mask size. */
static void set_fb(struct boot_info *bi, const uint8_t *body, uint32_t len)
{
	static const uint8_t type[3] = { BOOT_FB_OTHER, BOOT_FB_RGB, BOOT_FB_TEXT };
	struct boot_fb *fb = &bi->fb;

	if (len < 22)
		return;
	memcpy(&fb->addr, body, 8);
	memcpy(&fb->pitch, body + 8, 4);
	memcpy(&fb->width, body + 12, 4);
	memcpy(&fb->height, body + 16, 4);
	fb->bpp = body[20];
	fb->type = body[21] < 3 ? type[body[21]] : BOOT_FB_OTHER;
	if (fb->type == BOOT_FB_RGB && len >= 30)
		memcpy(&fb->red_pos, body + 24, 6);
	else if (fb->type == BOOT_FB_RGB)
		fb->type = BOOT_FB_OTHER;
}

static int parse_mb2(struct boot_info *bi, uint32_t magic, uint64_t info)
{
	if (magic != MB2_BOOT_MAGIC)
		return -1;
	uint32_t total = *(const uint32_t *)info;
	for (uint64_t off = 8; off + 8 <= total;) {
		const struct mb2_tag *t = (const struct mb2_tag *)(info + off);
		if (t->type == 0)
			break;
		if (t->size < 8 || off + t->size > total)
			return -1;	/* a tag past the block: stop, keep what was read */
		const uint8_t *body = (const uint8_t *)(t + 1);
		if (t->type == 1) {
			set_cmdline(bi, (const char *)body, t->size - 8);
		} else if (t->type == 6 && t->size >= 16) {
			uint32_t esize = *(const uint32_t *)body;
			if (esize < sizeof(struct mb2_mmap_entry))
				return -1;
			/* 64-bit: a lying entry size must not wrap the bound */
			for (uint64_t o = 8; o + esize <= (uint64_t)t->size - 8 && bi->nregions < BOOT_MMAP_MAX;
			     o += esize) {
				struct mb2_mmap_entry e;
				memcpy(&e, body + o, sizeof(e));	/* entry_size need not keep alignment */
				add_region(bi, e.base, e.len, e.type);
			}
		} else if (t->type == 8) {
			set_fb(bi, body, t->size - 8);
		} else if ((t->type == 14 || (t->type == 15 && !bi->rsdp)) && t->size >= 8 + 20) {
			uint32_t n = t->size - 8 < sizeof(rsdp_copy) ? t->size - 8 : sizeof(rsdp_copy);
			memcpy(rsdp_copy, body, n);
			bi->rsdp = (uint64_t)rsdp_copy;
		} else if (t->type == 3 && t->size >= 16 && !bi->module_len) {
			uint32_t start, end;	/* mod_start, mod_end: the module is [start, end) */
			memcpy(&start, body, 4);
			memcpy(&end, body + 4, 4);
			if (end > start) {
				bi->module_base = start;
				bi->module_len = end - start;
			}
		}
		off += (t->size + 7) & ~7u;
	}
	return 0;
}

static int parse_pvh(struct boot_info *bi, uint64_t info)
{
	const struct hvm_start_info *si = (const struct hvm_start_info *)info;
	if (si->magic != PVH_MAGIC)
		return -1;
	if (si->cmdline_paddr)
		set_cmdline(bi, (const char *)si->cmdline_paddr, SIZE_MAX);
	bi->rsdp = si->rsdp_paddr;
	if (si->nr_modules && si->modlist_paddr) {
		const struct hvm_modlist_entry *m = (const void *)si->modlist_paddr;
		bi->module_base = m->paddr;
		bi->module_len = m->size;
	}
	if (si->version >= 1 && si->memmap_paddr) {
		const struct hvm_memmap_entry *e = (const void *)si->memmap_paddr;
		for (uint32_t i = 0; i < si->memmap_entries; i++)
			add_region(bi, e[i].addr, e[i].size, e[i].type);
	}
	return 0;
}

int boot_parse(struct boot_info *bi)
{
	memset(bi, 0, sizeof(*bi));
	bi->path = boot_path;
	bi->entry_tsc = boot_entry_tsc;
	switch (boot_path) {
	case BOOT_MULTIBOOT2:
		return parse_mb2(bi, boot_magic, boot_info_addr);
	case BOOT_PVH:
		return parse_pvh(bi, boot_info_addr);
	case BOOT_UEFI:
		memcpy(bi, (const void *)boot_info_addr, sizeof(*bi));
		if (!memchr(bi->cmdline, 0, BOOT_CMDLINE_MAX))
			bi->cmdline_cut += boot_cmdline_words(bi->cmdline, BOOT_CMDLINE_MAX - 1,
							      BOOT_CMDLINE_MAX, 'x');
		bi->path = BOOT_UEFI;
		bi->entry_tsc = boot_entry_tsc;
		return bi->magic == BOOT_INFO_MAGIC ? 0 : -1;
	}
	return -1;
}

const char *boot_path_name(uint32_t path)
{
	switch (path) {
	case BOOT_MULTIBOOT2: return "multiboot2";
	case BOOT_PVH: return "pvh";
	case BOOT_UEFI: return "uefi";
	}
	return "unknown";
}
