/*
 * The one hand-off from every boot path (Multiboot2, PVH, the GNU-EFI
 * loader) to kernel_main. Shared with boot/efi/loader.c, so it uses only
 * fixed-width types and no kernel headers.
 */
#ifndef BOOT_INFO_H
#define BOOT_INFO_H

#define BOOT_MMAP_MAX 128
/* Command line bytes kept, NUL included: room for 64 route= words and
 * every other knob many times over. Multiboot2, PVH and EFI set no limit;
 * beyond this whole words are refused, never shortened (cmdline_cut). */
#define BOOT_CMDLINE_MAX 16384
/* sizeof(struct boot_info), for boot/entry.S, which copies it. */
#define BOOT_INFO_SIZE (48 + 32 + 24 * BOOT_MMAP_MAX + BOOT_CMDLINE_MAX)

/* Boot path values, also used by boot/entry.S. */
#define BOOT_MULTIBOOT2 1
#define BOOT_PVH 2
#define BOOT_UEFI 3

/*
 * ELF note that tells the EFI loader where the kernel's 64-bit entry is:
 * owner "linerate", type LINERATE_NOTE_EFI_ENTRY, desc = 8-byte address of
 * a function void entry(struct boot_info *) called with the SysV ABI, in
 * long mode, interrupts off, with the firmware's identity mapping.
 */
#define LINERATE_NOTE_EFI_ENTRY 1

#ifndef __ASSEMBLER__
#include <stdint.h>

/* Memory region types: the ACPI/E820 numbering (ACPI 6.4 section 15.1). */
enum mem_type {
	MEM_USABLE = 1,
	MEM_RESERVED = 2,
	MEM_ACPI = 3,	/* ACPI reclaimable */
	MEM_NVS = 4,	/* ACPI NVS */
	MEM_BAD = 5,
};

/* One physical memory region: [base, base + len) in bytes. */
struct mem_region {
	uint64_t base;
	uint64_t len;
	uint32_t type;	/* enum mem_type */
	uint32_t pad;
};

/* boot_fb.type: what the loader left on the screen. */
#define BOOT_FB_NONE 0	/* nothing said (PVH, a loader without one) */
#define BOOT_FB_RGB 1	/* a linear framebuffer, direct colour */
#define BOOT_FB_TEXT 2	/* VGA text mode: 16-bit cells (Multiboot2 "EGA text") */
#define BOOT_FB_OTHER 3	/* a palette (Multiboot2 type 0) or no framebuffer (GOP PixelBltOnly) */

/*
 * The screen the loader set up: the Multiboot2 framebuffer tag (type 8,
 * Multiboot2 spec 3.6.12) or the UEFI GOP's mode (UEFI 2.10 12.9,
 * EFI_GRAPHICS_OUTPUT_MODE_INFORMATION).
 */
struct boot_fb {
	uint64_t addr;		/* physical address of pixel (0,0) or of the first cell */
	uint32_t pitch;		/* bytes per line of pixels (text: per row of cells) */
	uint32_t width, height;	/* pixels (text: characters) */
	uint8_t type;		/* BOOT_FB_* */
	uint8_t bpp;		/* bits per pixel */
	uint8_t red_pos, red_size;	/* RGB: each colour's lowest bit and its width */
	uint8_t green_pos, green_size;
	uint8_t blue_pos, blue_size;
	uint32_t pad;
};

/* Value of boot_info.magic when the EFI loader hands over. */
#define BOOT_INFO_MAGIC 0x6c696e65u /* "line" */

/*
 * Everything the kernel needs from its loader. The kernel copies it into
 * its own .bss before it allocates any memory, so the loader's copy may
 * live in memory the map calls usable.
 */
struct boot_info {
	uint32_t magic;		/* BOOT_INFO_MAGIC (EFI path) */
	uint32_t path;		/* BOOT_MULTIBOOT2, BOOT_PVH or BOOT_UEFI */
	uint64_t rsdp;		/* physical address of the ACPI RSDP, 0 if unknown */
	uint64_t entry_tsc;	/* TSC read at the first kernel instruction */
	uint32_t nregions;
	uint32_t cmdline_cut;	/* bytes of the loader's command line left out */
	/* The first boot module (Multiboot2 spec 3.6.6 module tag: GRUB's
	 * module2; PVH hvm_modlist_entry: QEMU's -initrd), 0, 0 when none:
	 * its physical address and bytes. replay's pcap file. */
	uint64_t module_base, module_len;
	struct boot_fb fb;	/* the screen, type BOOT_FB_NONE if none was said */
	struct mem_region regions[BOOT_MMAP_MAX];
	char cmdline[BOOT_CMDLINE_MAX];	/* NUL-terminated, ASCII */
};

_Static_assert(sizeof(struct boot_fb) == 32, "boot_fb layout");
_Static_assert(sizeof(struct boot_info) == BOOT_INFO_SIZE, "boot_info layout");

/*
 * s[0..len) holds the first len bytes of a command line of total bytes,
 * next the byte after them (0 at the end). If bytes were left out, the word
 * cut in two goes too, so that no word is shortened into another value.
 * Writes the NUL; returns the bytes left out (for cmdline_cut).
 */
static inline uint32_t boot_cmdline_words(char *s, uint64_t len, uint64_t total, char next)
{
	if (total > len && next != ' ' && next != '\t')
		while (len > 0 && s[len - 1] != ' ' && s[len - 1] != '\t')
			len--;
	s[len] = 0;
	return (uint32_t)(total - len);
}
#endif /* __ASSEMBLER__ */
#endif
