/* Physical memory: the boot memory map, the page allocator, the identity
 * map (all RAM write-back, everything else uncached) and DMA memory. */
#ifndef MEM_H
#define MEM_H
#include <stddef.h>
#include <stdint.h>
#include "kernel/boot_info.h"
#include "kernel/palloc.h"

/* The sanitized memory map and what the kernel made of it. */
struct mem_info {
	struct mem_region map[BOOT_MMAP_MAX];
	int nmap;
	uint64_t usable_bytes;	/* all MEM_USABLE bytes in the map */
	uint64_t mapped_top;	/* identity map covers [0, mapped_top) */
	uint64_t high_check;	/* page above 4 GiB written and read back, or 0 */
	uint64_t module_base;	/* the loader's first module (struct boot_info), */
	uint64_t module_len;	/* kept out of the allocator; 0, 0: none */
	struct palloc pa;
};
extern struct mem_info mem;

/* Sanitize bi's map, reserve the kernel image, the first MiB and the boot
 * module (mem.module_base/len), start the page allocator. Returns 0, or -1 when no usable memory is left. */
int mem_init(const struct boot_info *bi);
/* Replace the early map with the final identity map (2 MiB pages; RAM
 * write-back, holes uncached via PCD|PWT), W^X: all of it no-execute
 * but the kernel's text, which is read-only (4 KiB pages over the kernel
 * image); EFER.NXE and CR0.WP on. Intel SDM vol. 3A 4.5, 4.6. Returns 0,
 * or -1 when page-table memory runs out. */
int paging_init(void);
/* Access to the 4 KiB pages over [addr, addr+len): MEM_R (present), MEM_W,
 * MEM_X, or'ed; 0 unmaps them (a guard page). Write-back RAM only. This
 * core's TLB is flushed for them; other cores must not hold them yet.
 * Returns 0, or -1 when page-table memory runs out. */
int mem_protect(uint64_t addr, uint64_t len, int prot);
/* "kernel text", "kernel rodata" or "kernel data" (with bss) for an
 * address in the kernel image, else NULL: for exception reports. */
const char *mem_kernel_part(uint64_t addr);
#define MEM_R 1
#define MEM_W 2
#define MEM_X 4
/* Identity-map [phys, phys+len) uncached (for BARs outside the map).
 * Returns 0, or -1 when page-table memory runs out. */
int mmio_map(uint64_t phys, uint64_t len);
/* Physically contiguous, zeroed DMA memory: bytes rounded up to pages,
 * start aligned to align (a power of two; 0 = 4 KiB). Returns NULL if none.
 * Physical address == virtual address. */
void *dma_alloc(size_t bytes, size_t align);
/* The same, ending at or below limit (0 = anywhere): for devices that
 * address only 32 bits (limit 4 GiB). With the dma_high knob, memory
 * without a limit comes from above 4 GiB first. */
void *dma_alloc_below(size_t bytes, size_t align, uint64_t limit);
void dma_free(void *p, size_t bytes);
/* The malloc heap (kernel/syscalls.c's sbrk): a 64th of usable memory,
 * 256 KiB-64 MiB, from free pages after paging_init (half that, a quarter... when
 * no such run is free). Returns its bytes (0: none, and malloc fails). */
size_t heap_init(void);
/* Bytes of the heap handed to malloc so far, and its size. */
size_t heap_in_use(void);
size_t heap_size(void);
#endif
