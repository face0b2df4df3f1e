/*
 * GNU-EFI loader: boots the linerate kernel ELF embedded in this image.
 *
 * Steps: load the PT_LOAD segments at their physical addresses, find the
 * 64-bit entry in the "linerate" ELF note, fill a struct boot_info (ACPI
 * RSDP, command line, the boot module named by initrd=, the GOP's
 * framebuffer, memory map), leave boot services and call the entry.
 * The contract is kernel/boot_info.h. References are to UEFI 2.10.
 *
 * Built with -DGNU_EFI_USE_MS_ABI: firmware calls go straight through the
 * ms_abi function pointers, and everything in this file, efi_main included
 * (crt0 calls it with rdi/rsi), uses the SysV ABI.
 */
#include <efi.h>
#include <efilib.h>
#include <elf.h>
#include "kernel/boot_info.h"

/* The kernel ELF, linked in by boot/efi/efi.mk (objcopy -I binary). */
extern const UINT8 _binary_kernel_elf_start[] __attribute__((visibility("hidden")));
extern const UINT8 _binary_kernel_elf_end[] __attribute__((visibility("hidden")));

/* Spare memory map slots for descriptors added after the size probe. */
#define MAP_SLACK 32
/* ExitBootServices attempts before giving up on a changing map. */
#define EBS_TRIES 8

typedef void kernel_entry(struct boot_info *) __attribute__((sysv_abi));

/* A firmware memory map and the buffer it is read into. */
struct efi_map {
	EFI_MEMORY_DESCRIPTOR *buf;
	UINTN cap;	/* bytes allocated */
	UINTN size;	/* bytes filled by GetMemoryMap */
	UINTN key;
	UINTN dsize;	/* bytes per descriptor, may exceed sizeof */
	UINT32 dver;
};

static UINT64 page_down(UINT64 a) { return a & ~(UINT64)EFI_PAGE_MASK; }
static UINT64 page_up(UINT64 a) { return page_down(a + EFI_PAGE_MASK); }

/* Check that the image is an x86_64 ELF64 executable whose program headers fit. */
static EFI_STATUS check_elf(const UINT8 *img, UINTN size)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;

	if (size < sizeof *eh || CompareMem(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_machine != EM_X86_64 || eh->e_type != ET_EXEC ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff % 8 != 0 ||
	    eh->e_phoff > size || eh->e_phnum > (size - eh->e_phoff) / sizeof(Elf64_Phdr)) {
		Print(L"linerate: embedded kernel is not an x86_64 ELF64 executable\n");
		return EFI_LOAD_ERROR;
	}
	return EFI_SUCCESS;
}

/*
 * Allocate the pages of [p_paddr, p_paddr + p_memsz) at that address, copy
 * the segment there and zero its .bss tail. Executable segments get
 * EfiLoaderCode (firmware may map EfiLoaderData no-execute), others
 * EfiLoaderData. *seg_end is where the previous segment ended, *alloc_end
 * the end of the pages allocated so far: a page shared with the previous
 * segment is not allocated twice. Segments must come in ascending order
 * (ELF gABI) and be identity-linked (p_vaddr == p_paddr), as the entry runs
 * on the firmware's identity map.
 */
static EFI_STATUS load_segment(const UINT8 *img, UINTN size, const Elf64_Phdr *ph,
			       UINT64 *seg_end, UINT64 *alloc_end)
{
	UINT64 start = page_down(ph->p_paddr), end = page_up(ph->p_paddr + ph->p_memsz);
	EFI_MEMORY_TYPE type = (ph->p_flags & PF_X) ? EfiLoaderCode : EfiLoaderData;
	EFI_PHYSICAL_ADDRESS at;
	EFI_STATUS status;

	if (ph->p_vaddr != ph->p_paddr || ph->p_filesz > ph->p_memsz ||
	    ph->p_offset > size || ph->p_filesz > size - ph->p_offset ||
	    end < ph->p_paddr || ph->p_paddr < *seg_end) {
		Print(L"linerate: bad PT_LOAD segment at 0x%lx\n", ph->p_paddr);
		return EFI_LOAD_ERROR;
	}
	if (start < *alloc_end)
		start = *alloc_end;
	if (start < end) {
		at = start;
		status = BS->AllocatePages(AllocateAddress, type, (end - start) >> EFI_PAGE_SHIFT, &at);
		if (EFI_ERROR(status)) {
			Print(L"linerate: cannot allocate 0x%lx-0x%lx for the kernel: %r\n",
			      start, end, status);
			return status;
		}
		*alloc_end = end;
	}
	*seg_end = ph->p_paddr + ph->p_memsz;
	CopyMem((void *)ph->p_paddr, img + ph->p_offset, ph->p_filesz);
	ZeroMem((void *)(ph->p_paddr + ph->p_filesz), ph->p_memsz - ph->p_filesz);
	return EFI_SUCCESS;
}

/*
 * Find the entry address in a PT_NOTE note owned by "linerate" with type
 * LINERATE_NOTE_EFI_ENTRY and an 8-byte desc. Name and desc are padded to
 * 4 bytes, or 8 in a segment aligned to 8 (ELF gABI, "Note Section").
 * Returns 0 if there is no such note.
 */
static UINT64 find_entry(const UINT8 *img, UINTN size)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(img + eh->e_phoff);
	static const char owner[] = "linerate";

	for (UINTN i = 0; i < eh->e_phnum; i++) {
		UINT64 pad = ph[i].p_align == 8 ? 7 : 3, off = ph[i].p_offset, end;

		if (ph[i].p_type != PT_NOTE || off > size || ph[i].p_filesz > size - off)
			continue;
		end = off + ph[i].p_filesz;
		while (end - off >= sizeof(Elf64_Nhdr)) {
			Elf64_Nhdr n;
			UINT64 name, desc, entry;

			CopyMem(&n, img + off, sizeof n);
			name = off + sizeof n;
			desc = name + ((n.n_namesz + pad) & ~pad);
			off = desc + ((n.n_descsz + pad) & ~pad);
			if (off > end)
				break;
			if (n.n_namesz == sizeof owner && n.n_type == LINERATE_NOTE_EFI_ENTRY &&
			    n.n_descsz == sizeof entry &&
			    CompareMem(img + name, owner, sizeof owner) == 0) {
				CopyMem(&entry, img + desc, sizeof entry);
				return entry;
			}
		}
	}
	return 0;
}

/*
 * Load the embedded kernel and return its entry address in *entry.
 * Errors: EFI_LOAD_ERROR for a malformed image, a missing note or an entry
 * outside the loaded segments; AllocatePages' status if a range is taken.
 * Pages already allocated stay allocated on error.
 */
static EFI_STATUS load_kernel(UINT64 *entry)
{
	const UINT8 *img = _binary_kernel_elf_start;
	UINTN size = _binary_kernel_elf_end - _binary_kernel_elf_start;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	const Elf64_Phdr *ph;
	UINT64 lo = ~0ull, seg_end = 0, alloc_end = 0;
	EFI_STATUS status;

	status = check_elf(img, size);
	if (EFI_ERROR(status))
		return status;
	ph = (const Elf64_Phdr *)(img + eh->e_phoff);
	for (UINTN i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || ph[i].p_memsz == 0)
			continue;
		status = load_segment(img, size, &ph[i], &seg_end, &alloc_end);
		if (EFI_ERROR(status))
			return status;
		if (ph[i].p_paddr < lo)
			lo = ph[i].p_paddr;
	}
	*entry = find_entry(img, size);
	if (*entry == 0) {
		Print(L"linerate: no \"linerate\" entry note (type %d) in the kernel's PT_NOTE segments\n",
		      LINERATE_NOTE_EFI_ENTRY);
		return EFI_LOAD_ERROR;
	}
	if (*entry < lo || *entry >= alloc_end) {
		Print(L"linerate: entry 0x%lx is outside the kernel image 0x%lx-0x%lx\n",
		      *entry, lo, alloc_end);
		return EFI_LOAD_ERROR;
	}
	Print(L"linerate: kernel loaded at 0x%lx-0x%lx, entry 0x%lx\n", lo, alloc_end, *entry);
	return EFI_SUCCESS;
}

/* Physical address of the ACPI RSDP from the configuration table (4.6), 2.0 preferred; 0 if none. */
static UINT64 find_rsdp(EFI_SYSTEM_TABLE *st)
{
	EFI_GUID acpi20 = ACPI_20_TABLE_GUID, acpi10 = ACPI_TABLE_GUID;
	UINT64 rsdp = 0;

	for (UINTN i = 0; i < st->NumberOfTableEntries; i++) {
		EFI_CONFIGURATION_TABLE *t = &st->ConfigurationTable[i];

		if (CompareGuid(&t->VendorGuid, &acpi20) == 0)
			return (UINT64)t->VendorTable;
		if (CompareGuid(&t->VendorGuid, &acpi10) == 0)
			rsdp = (UINT64)t->VendorTable;
	}
	return rsdp;
}

/* Is the UTF-16 word w[0..n) a file name ending in ".efi", any case? */
static int is_efi_name(const CHAR16 *w, UINTN n)
{
	static const char ext[] = ".efi";

	if (n < 4)
		return 0;
	for (UINTN i = 0; i < 4; i++)
		if ((w[n - 4 + i] | 0x20) != ext[i])	/* '.' | 0x20 == '.' */
			return 0;
	return 1;
}

/*
 * Convert the image's LoadOptions (UTF-16, `bytes` long, possibly not
 * NUL-terminated) to the ASCII command line in out[BOOT_CMDLINE_MAX]:
 * drop a leading "*.efi" word (the EFI shell passes the program's own path
 * first), trim spaces, replace non-ASCII and control characters with '?',
 * keep what fits in BOOT_CMDLINE_MAX - 1 characters in whole words and
 * return the characters left out (boot_cmdline_words). No options: "".
 */
static UINT32 set_cmdline(char *out, const CHAR16 *opt, UINTN bytes)
{
	UINTN n = bytes / sizeof(CHAR16), i = 0, w, len = 0;

	for (w = 0; w < n && opt[w] != 0; w++)
		;
	n = w;				/* stop at the first NUL */
	while (i < n && opt[i] == ' ')
		i++;
	for (w = i; w < n && opt[w] != ' '; w++)
		;
	if (is_efi_name(opt + i, w - i))
		i = w;
	while (i < n && opt[i] == ' ')
		i++;
	while (n > i && opt[n - 1] == ' ')
		n--;
	for (; i < n && len < BOOT_CMDLINE_MAX - 1; i++)
		out[len++] = opt[i] >= 0x20 && opt[i] < 0x7f ? (char)opt[i] : '?';
	return boot_cmdline_words(out, len, len + (n - i), i < n ? (char)opt[i] : 0);
}

/*
 * Take the word "initrd=PATH" out of the command line (Linux's EFI stub
 * option, Documentation/admin-guide/efi-stub.rst: a file on the volume
 * this image was loaded from, '\' or '/' between names) into path[cap]
 * as UTF-16 with '\' separators. Returns 1 if the word was there.
 */
static int take_initrd(char *cmdline, CHAR16 *path, UINTN cap)
{
	static const char key[] = "initrd=";
	for (char *w = cmdline; *w; ) {
		char *end = w;
		while (*end && *end != ' ')
			end++;
		if (end - w > (long)sizeof(key) - 1 && CompareMem(w, key, sizeof(key) - 1) == 0) {
			UINTN n = 0;
			for (char *c = w + sizeof(key) - 1; c < end && n + 1 < cap; c++)
				path[n++] = *c == '/' ? L'\\' : (CHAR16)*c;
			path[n] = 0;
			while (*end == ' ')
				end++;
			CopyMem(w, end, strlena((CHAR8 *)end) + 1);
			for (UINTN len = strlena((CHAR8 *)cmdline); len && cmdline[len - 1] == ' '; len--)
				cmdline[len - 1] = 0;
			return 1;
		}
		w = *end ? end + 1 : end;
	}
	return 0;
}

/*
 * Read the file at path on the image's volume (UEFI 2.10 13.4-13.5,
 * EFI_SIMPLE_FILE_SYSTEM_PROTOCOL and EFI_FILE_PROTOCOL) into pages below
 * 4 GiB and above 1 MiB (EfiLoaderData: the kernel keeps the range out of
 * its allocator, as it does GRUB's module2): the boot module, as
 * module_base and module_len. A file that cannot be read is said and the
 * boot goes on without it.
 */
static void load_initrd(EFI_LOADED_IMAGE *li, const CHAR16 *path, struct boot_info *bi)
{
	EFI_FILE_HANDLE root = LibOpenRoot(li->DeviceHandle), fh;
	EFI_FILE_INFO *info;
	EFI_PHYSICAL_ADDRESS at = 0xffffffff;
	EFI_STATUS status = root ? root->Open(root, &fh, (CHAR16 *)path, EFI_FILE_MODE_READ, 0) : EFI_NOT_FOUND;
	if (EFI_ERROR(status)) {
		Print(L"linerate: initrd %s: %r; booting without a module\n", path, status);
		return;
	}
	info = LibFileInfo(fh);
	UINTN size = info ? info->FileSize : 0;
	if (info)
		FreePool(info);
	status = size ? BS->AllocatePages(AllocateMaxAddress, EfiLoaderData, EFI_SIZE_TO_PAGES(size), &at)
		      : EFI_END_OF_FILE;
	if (!EFI_ERROR(status) && at < 0x100000) {
		BS->FreePages(at, EFI_SIZE_TO_PAGES(size));
		status = EFI_OUT_OF_RESOURCES;
	}
	if (!EFI_ERROR(status)) {
		UINTN got = size;
		status = fh->Read(fh, &got, (void *)at);
		if (!EFI_ERROR(status) && got != size)
			status = EFI_END_OF_FILE;
		if (EFI_ERROR(status))
			BS->FreePages(at, EFI_SIZE_TO_PAGES(size));
	}
	fh->Close(fh);
	if (EFI_ERROR(status)) {
		Print(L"linerate: initrd %s (%ld bytes): %r; booting without a module\n", path, (UINT64)size, status);
		return;
	}
	bi->module_base = at;
	bi->module_len = size;
	Print(L"linerate: initrd %s: %ld bytes at 0x%lx\n", path, (UINT64)size, at);
}

/* boot_info memory type for an EFI memory type (7.2, Table 7.10; ACPI 6.4 15.4). */
static UINT32 region_type(UINT32 efi_type)
{
	switch (efi_type) {
	case EfiConventionalMemory:
	case EfiBootServicesCode:
	case EfiBootServicesData:
	case EfiLoaderCode:
	case EfiLoaderData:
		return MEM_USABLE;
	case EfiACPIReclaimMemory:
		return MEM_ACPI;
	case EfiACPIMemoryNVS:
		return MEM_NVS;
	case EfiUnusableMemory:
		return MEM_BAD;
	default:
		return MEM_RESERVED;
	}
}

/* The i-th descriptor of the map. */
static EFI_MEMORY_DESCRIPTOR *map_desc(const struct efi_map *m, UINTN i)
{
	return (EFI_MEMORY_DESCRIPTOR *)((UINT8 *)m->buf + i * m->dsize);
}

/*
 * Sort the map by address in place (firmware need not sort it; OVMF lists
 * MMIO last). Insertion sort, swapping bytes as descriptors are dsize long:
 * the map is short and nearly sorted. No firmware calls.
 */
static void sort_map(const struct efi_map *m)
{
	UINTN n = m->size / m->dsize;

	for (UINTN i = 1; i < n; i++) {
		for (UINTN j = i; j > 0 && map_desc(m, j - 1)->PhysicalStart >
					   map_desc(m, j)->PhysicalStart; j--) {
			UINT8 *a = (UINT8 *)map_desc(m, j - 1), *b = (UINT8 *)map_desc(m, j);

			for (UINTN k = 0; k < m->dsize; k++) {
				UINT8 t = a[k];

				a[k] = b[k];
				b[k] = t;
			}
		}
	}
}

/*
 * Fill bi->regions from the sorted map, merging each region
 * into the previous one when it has the same type and starts where that
 * one ends. With skip_reserved, MEM_RESERVED regions are left out (the
 * kernel treats unlisted memory as unusable). Returns how many regions
 * did not fit in BOOT_MMAP_MAX and were dropped. No firmware calls.
 */
static UINTN convert_map(const struct efi_map *m, struct boot_info *bi, int skip_reserved)
{
	UINTN dropped = 0;

	bi->nregions = 0;
	for (UINTN i = 0; i < m->size / m->dsize; i++) {
		const EFI_MEMORY_DESCRIPTOR *d = map_desc(m, i);
		UINT64 base = d->PhysicalStart, len = d->NumberOfPages << EFI_PAGE_SHIFT;
		UINT32 type = region_type(d->Type);
		struct mem_region *prev = bi->nregions ? &bi->regions[bi->nregions - 1] : NULL;

		if (len == 0 || (skip_reserved && type == MEM_RESERVED))
			continue;
		if (prev && prev->type == type && prev->base + prev->len == base) {
			prev->len += len;
		} else if (bi->nregions < BOOT_MMAP_MAX) {
			bi->regions[bi->nregions++] = (struct mem_region){ base, len, type, 0 };
		} else {
			dropped++;
		}
	}
	return dropped;
}

/*
 * Sort and convert the map into bi->regions, leaving out reserved regions
 * if all of them do not fit. Returns how many regions were still dropped.
 */
static UINTN fill_regions(const struct efi_map *m, struct boot_info *bi)
{
	UINTN dropped;

	sort_map(m);
	dropped = convert_map(m, bi, 0);

	return dropped ? convert_map(m, bi, 1) : 0;
}

/* Read the current map into m->buf (7.2, GetMemoryMap). */
static EFI_STATUS read_map(struct efi_map *m)
{
	m->size = m->cap;
	return BS->GetMemoryMap(&m->size, m->buf, &m->key, &m->dsize, &m->dver);
}

/*
 * Allocate a map buffer MAP_SLACK descriptors larger than the map is now,
 * read the map into it and report how it converts. Errors: the firmware's.
 */
static EFI_STATUS prepare_map(struct efi_map *m, struct boot_info *bi)
{
	UINT64 usable = 0;
	UINTN dropped;
	EFI_STATUS status;

	m->cap = 0;
	status = BS->GetMemoryMap(&m->cap, NULL, &m->key, &m->dsize, &m->dver);
	if (status != EFI_BUFFER_TOO_SMALL)
		return EFI_ERROR(status) ? status : EFI_LOAD_ERROR;
	m->cap += MAP_SLACK * m->dsize;
	status = BS->AllocatePool(EfiLoaderData, m->cap, (void **)&m->buf);
	if (EFI_ERROR(status))
		return status;
	status = read_map(m);
	if (EFI_ERROR(status))
		return status;
	dropped = fill_regions(m, bi);
	for (UINT32 i = 0; i < bi->nregions; i++)
		if (bi->regions[i].type == MEM_USABLE)
			usable += bi->regions[i].len;
	Print(L"linerate: memory map %ld descriptors -> %d regions, %ld MiB usable\n",
	      (UINT64)(m->size / m->dsize), bi->nregions, usable >> 20);
	if (dropped)
		Print(L"linerate: warning: %ld regions beyond %d dropped\n", (UINT64)dropped,
		      BOOT_MMAP_MAX);
	return EFI_SUCCESS;
}

/*
 * Take the final memory map into bi and leave boot services. Nothing that
 * may allocate (Print included) runs between GetMemoryMap and
 * ExitBootServices; EFI_INVALID_PARAMETER means the map changed since, so
 * read it again (7.4, ExitBootServices). Errors: the firmware's.
 */
static EFI_STATUS leave_boot_services(EFI_HANDLE image, struct efi_map *m, struct boot_info *bi)
{
	EFI_STATUS status = EFI_INVALID_PARAMETER;

	for (int i = 0; i < EBS_TRIES && status == EFI_INVALID_PARAMETER; i++) {
		status = read_map(m);
		if (EFI_ERROR(status))
			return status;
		fill_regions(m, bi);
		status = BS->ExitBootServices(image, m->key);
	}
	return status;
}

/* The lowest set bit of mask and the number of bits set (a PixelBitMask
 * colour). */
static void mask_field(UINT32 mask, UINT8 *pos, UINT8 *size)
{
	*pos = 0;
	*size = 0;
	while (mask && !(mask & 1)) {
		mask >>= 1;
		(*pos)++;
	}
	while (mask & 1) {
		mask >>= 1;
		(*size)++;
	}
}

/* The screen's mode as the Graphics Output Protocol has it now (12.9:
 * EFI_GRAPHICS_OUTPUT_MODE_INFORMATION, EFI_GRAPHICS_PIXEL_FORMAT): a
 * framebuffer of 32 bits a pixel in RGB or BGR order or by bit masks;
 * PixelBltOnly has none (BOOT_FB_OTHER). No GOP: fb left BOOT_FB_NONE. */
static void find_gop(struct boot_fb *fb)
{
	EFI_GRAPHICS_OUTPUT_PROTOCOL *gop;
	EFI_GUID guid = EFI_GRAPHICS_OUTPUT_PROTOCOL_GUID;

	if (EFI_ERROR(BS->LocateProtocol(&guid, NULL, (void **)&gop)) || !gop->Mode || !gop->Mode->Info)
		return;
	EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *info = gop->Mode->Info;
	fb->addr = gop->Mode->FrameBufferBase;
	fb->width = info->HorizontalResolution;
	fb->height = info->VerticalResolution;
	fb->pitch = info->PixelsPerScanLine * 4;
	fb->bpp = 32;
	fb->type = BOOT_FB_RGB;
	switch (info->PixelFormat) {
	case PixelRedGreenBlueReserved8BitPerColor:
		fb->red_pos = 0, fb->green_pos = 8, fb->blue_pos = 16;
		fb->red_size = fb->green_size = fb->blue_size = 8;
		break;
	case PixelBlueGreenRedReserved8BitPerColor:
		fb->red_pos = 16, fb->green_pos = 8, fb->blue_pos = 0;
		fb->red_size = fb->green_size = fb->blue_size = 8;
		break;
	case PixelBitMask:
		mask_field(info->PixelInformation.RedMask, &fb->red_pos, &fb->red_size);
		mask_field(info->PixelInformation.GreenMask, &fb->green_pos, &fb->green_size);
		mask_field(info->PixelInformation.BlueMask, &fb->blue_pos, &fb->blue_size);
		break;
	default:
		fb->type = BOOT_FB_OTHER;
	}
	Print(L"linerate: GOP %ux%u, pixel format %u, framebuffer 0x%lx\n", fb->width, fb->height,
	      (UINT32)info->PixelFormat, fb->addr);
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
	EFI_LOADED_IMAGE *li;
	struct boot_info *bi;
	struct efi_map map;
	UINT64 entry;
	EFI_STATUS status;

	InitializeLib(image, st);
	Print(L"linerate: EFI loader starting the embedded kernel (%ld bytes)\n",
	      (UINT64)(_binary_kernel_elf_end - _binary_kernel_elf_start));
	status = load_kernel(&entry);
	if (EFI_ERROR(status))
		return status;

	status = BS->AllocatePool(EfiLoaderData, sizeof *bi, (void **)&bi);
	if (EFI_ERROR(status)) {
		Print(L"linerate: cannot allocate boot_info: %r\n", status);
		return status;
	}
	ZeroMem(bi, sizeof *bi);
	bi->magic = BOOT_INFO_MAGIC;
	bi->path = BOOT_UEFI;
	bi->rsdp = find_rsdp(st);
	status = BS->HandleProtocol(image, &LoadedImageProtocol, (void **)&li);
	if (!EFI_ERROR(status))
		bi->cmdline_cut = set_cmdline(bi->cmdline, li->LoadOptions,
					      li->LoadOptions ? li->LoadOptionsSize : 0);
	CHAR16 initrd[256];
	if (!EFI_ERROR(status) && take_initrd(bi->cmdline, initrd, sizeof(initrd) / sizeof(initrd[0])))
		load_initrd(li, initrd, bi);
	Print(L"linerate: rsdp 0x%lx, cmdline \"%a\"\n", bi->rsdp, bi->cmdline);
	find_gop(&bi->fb);

	status = prepare_map(&map, bi);
	if (EFI_ERROR(status)) {
		Print(L"linerate: cannot read the memory map: %r\n", status);
		return status;
	}
	Print(L"linerate: exiting boot services\n");
	status = leave_boot_services(image, &map, bi);
	if (EFI_ERROR(status))
		return status;	/* boot services may be half gone: no Print */

	__asm__ volatile("cli");
	((kernel_entry *)entry)(bi);
	for (;;)
		__asm__ volatile("hlt");
}
