/* Memory map, page allocator and page tables (Intel SDM vol. 3A 4.5). */
#include <string.h>
#include "kernel/cpu.h"
#include "kernel/knobs.h"
#include "kernel/mem.h"
#include "kernel/memmap.h"
#include "kernel/smp.h"

#define PTE_P 0x1ull
#define PTE_W 0x2ull
#define PTE_PWT 0x8ull
#define PTE_PCD 0x10ull
#define PTE_PS 0x80ull
#define PTE_NX (1ull << 63)	/* with EFER.NXE (SDM vol. 3A 4.6.2) */
#define PTE_ADDR 0x000ffffffffff000ull
#define BIG_PAGE (2ull << 20)
#define GIB (1ull << 30)
#define MSR_EFER 0xc0000080
#define EFER_NXE (1ull << 11)
#define CR0_WP (1ull << 16)
#define PTE_MMIO (PTE_P | PTE_W | PTE_PCD | PTE_PWT | PTE_NX)

extern char _kernel_start[], _etext[], _erodata[], _kernel_end[];
struct mem_info mem;
static uint64_t *pml4;

int mem_init(const struct boot_info *bi)
{
	int n = bi->nregions > BOOT_MMAP_MAX ? BOOT_MMAP_MAX : (int)bi->nregions;
	memcpy(mem.map, bi->regions, sizeof(struct mem_region) * (size_t)n);
	n = memmap_sanitize(mem.map, n, BOOT_MMAP_MAX);
	if (n > 0)
		n = memmap_reserve(mem.map, n, BOOT_MMAP_MAX, 0, 1u << 20);
	if (n > 0)
		n = memmap_reserve(mem.map, n, BOOT_MMAP_MAX, (uint64_t)_kernel_start,
				   (uint64_t)(_kernel_end - _kernel_start));
	if (n > 0 && bi->module_len) {
		n = memmap_reserve(mem.map, n, BOOT_MMAP_MAX, bi->module_base, bi->module_len);
		mem.module_base = bi->module_base;
		mem.module_len = bi->module_len;
	}
	if (n <= 0)
		return -1;
	mem.nmap = n;
	mem.usable_bytes = memmap_usable_bytes(mem.map, n);

	/* The bitmap goes at the start of the first usable region below 4 GiB big enough. */
	uint64_t top = memmap_top(mem.map, n, MEM_USABLE);
	uint64_t npages = top / PAGE_SIZE;
	uint64_t bytes = palloc_bitmap_words(npages) * 8;
	for (int i = 0; i < n; i++) {
		struct mem_region *r = &mem.map[i];
		if (r->type != MEM_USABLE || r->len < bytes || r->base + bytes > (4ull << 30))
			continue;
		palloc_init(&mem.pa, 0, npages, (uint64_t *)r->base);
		for (int j = 0; j < n; j++)
			if (mem.map[j].type == MEM_USABLE)
				palloc_add_range(&mem.pa, mem.map[j].base, mem.map[j].len);
		palloc_reserve_range(&mem.pa, r->base, bytes);
		return 0;
	}
	return -1;
}

static uint64_t *table_alloc(void)
{
	uint64_t p = palloc_alloc(&mem.pa, 1, 0);
	if (p)
		memset((void *)p, 0, PAGE_SIZE);
	return (uint64_t *)p;
}

/* Page-directory entry for the 2 MiB page at addr, creating tables on the way. */
static uint64_t *pde_of(uint64_t addr)
{
	uint64_t *t = pml4;
	for (int shift = 39; shift > 21; shift -= 9) {
		uint64_t *e = &t[(addr >> shift) & 511];
		if (!(*e & PTE_P)) {
			uint64_t *next = table_alloc();
			if (!next)
				return 0;
			*e = (uint64_t)next | PTE_P | PTE_W;
		}
		t = (uint64_t *)(*e & PTE_ADDR);
	}
	return &t[(addr >> 21) & 511];
}

static int is_ram(uint64_t addr, uint64_t len)
{
	for (int i = 0; i < mem.nmap; i++) {
		const struct mem_region *r = &mem.map[i];
		int ram = r->type == MEM_USABLE || r->type == MEM_ACPI || r->type == MEM_NVS;
		if (ram && r->base < addr + len && addr < r->base + r->len)
			return 1;
	}
	return 0;
}

/* Entry for the 4 KiB page at addr: a 2 MiB page there is first split
 * into 512 with its attributes (PAT unused: PCD/PWT only). */
static uint64_t *pte_of(uint64_t addr)
{
	uint64_t *pde = pde_of(addr);
	if (!pde || !(*pde & PTE_P))
		return 0;	/* outside the identity map */
	if (*pde & PTE_PS) {
		uint64_t *pt = table_alloc(), big = *pde & PTE_ADDR & ~(BIG_PAGE - 1);
		if (!pt)
			return 0;
		for (int i = 0; i < 512; i++)
			pt[i] = (big + (uint64_t)i * PAGE_SIZE) | (*pde & (PTE_P | PTE_W | PTE_PCD | PTE_PWT | PTE_NX));
		*pde = (uint64_t)pt | PTE_P | PTE_W;
	}
	return (uint64_t *)(*pde & PTE_ADDR) + ((addr >> 12) & 511);
}

int mem_protect(uint64_t addr, uint64_t len, int prot)
{
	uint64_t flags = (prot & MEM_R ? PTE_P : 0) | (prot & MEM_W ? PTE_W : 0) | (prot & MEM_X ? 0 : PTE_NX);
	for (uint64_t a = addr & ~(PAGE_SIZE - 1); a < addr + len; a += PAGE_SIZE) {
		uint64_t *e = pte_of(a);
		if (!e)
			return -1;
		*e = a | flags;
		__asm__ volatile("invlpg (%0)" : : "r"(a) : "memory");
	}
	return 0;
}

const char *mem_kernel_part(uint64_t addr)
{
	if (addr < (uint64_t)_kernel_start || addr >= (uint64_t)_kernel_end)
		return 0;
	return addr < (uint64_t)_etext ? "kernel text" : addr < (uint64_t)_erodata ? "kernel rodata" : "kernel data";
}

/* W^X over the kernel image (boot/kernel.ld aligns its parts to pages):
 * text read-only and executable, notes and rodata read-only, data and
 * bss writable; everything else paging_init mapped no-execute. The AP
 * trampoline stays executable until smp_start is done with it. */
static int protect_kernel(void)
{
	uint64_t text = (uint64_t)_kernel_start, ro = (uint64_t)_etext, rw = (uint64_t)_erodata;
	return mem_protect(text, ro - text, MEM_R | MEM_X) | mem_protect(ro, rw - ro, MEM_R) |
	       mem_protect(rw, (uint64_t)_kernel_end - rw, MEM_R | MEM_W) |
	       mem_protect(AP_TRAMPOLINE, PAGE_SIZE, MEM_R | MEM_W | MEM_X);
}

int paging_init(void)
{
	pml4 = table_alloc();
	if (!pml4)
		return -1;
	uint64_t top = 0;
	for (int i = 0; i < mem.nmap; i++)
		if (is_ram(mem.map[i].base, mem.map[i].len) && mem.map[i].base + mem.map[i].len > top)
			top = mem.map[i].base + mem.map[i].len;
	if (top < 4 * GIB)
		top = 4 * GIB;
	top = (top + BIG_PAGE - 1) & ~(BIG_PAGE - 1);
	/* Every 2 MiB page uncached, a page directory (1 GiB) at a time, then
	 * the pages that hold RAM cached: the same map as is_ram() per page,
	 * in a few thousand stores (boot time under TCG). All no-execute. */
	uint64_t *pd = 0;
	for (uint64_t a = 0; a < top; a += BIG_PAGE) {
		if (!(a & (GIB - 1)) && !(pd = pde_of(a)))
			return -1;
		pd[(a >> 21) & 511] = a | PTE_MMIO | PTE_PS;
	}
	for (int i = 0; i < mem.nmap; i++) {
		const struct mem_region *r = &mem.map[i];
		if (!is_ram(r->base, r->len) || !r->len)
			continue;
		for (uint64_t a = r->base & ~(BIG_PAGE - 1); a < r->base + r->len && a < top; a += BIG_PAGE)
			*pde_of(a) &= ~(PTE_PCD | PTE_PWT);
	}
	if (protect_kernel())
		return -1;
	mem.mapped_top = top;
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
	write_cr3((uint64_t)pml4);
	write_cr0(read_cr0() | CR0_WP);	/* supervisor writes obey R/W too (SDM vol. 3A 4.1.3) */
	return 0;
}

int mmio_map(uint64_t phys, uint64_t len)
{
	uint64_t end = phys + len;
	int changed = 0;
	for (uint64_t a = phys & ~(BIG_PAGE - 1); a < end; a += BIG_PAGE) {
		uint64_t *e = pde_of(a), mmio = a | PTE_MMIO | PTE_PS;
		if (!e)
			return -1;
		if (*e != mmio && (!(*e & PTE_P) || !is_ram(a, BIG_PAGE))) {
			*e = mmio;
			changed = 1;
		}
	}
	/* Below 4 GiB paging_init mapped it so already: no TLB flush (under
	 * TCG a flush and the refills after it are boot time). */
	if (changed)
		write_cr3(read_cr3());
	return 0;
}

/* dma_high=1: DMA memory from above 4 GiB first, as it lands on a large
 * machine or in a guest whose RAM is mostly high; tests that devices and
 * drivers use 64-bit addresses. */
static int64_t dma_high;
static const struct knob_range bool_range[] = { { 0, 1 } };
KNOB(dma_high, .name = "dma_high", .type = KNOB_INT, .ranges = bool_range, .nranges = 1, .ival = &dma_high,
     .help = "1: DMA memory (rings, packet buffers) from above 4 GiB first, below only for "
	     "32-bit devices or when none is left; default 0");

void *dma_alloc_below(size_t bytes, size_t align, uint64_t limit)
{
	uint64_t n = (bytes + PAGE_SIZE - 1) / PAGE_SIZE, a = align < PAGE_SIZE ? 0 : align;
	uint64_t hi = limit ? limit : UINT64_MAX, p = 0;
	if (!n)
		n = 1;
	if (dma_high && !limit)
		p = palloc_alloc_range(&mem.pa, n, a, 1ull << 32, UINT64_MAX);
	if (!p)
		p = palloc_alloc_range(&mem.pa, n, a, 0, hi);
	if (p)
		memset((void *)p, 0, n * PAGE_SIZE);
	return (void *)p;
}

void *dma_alloc(size_t bytes, size_t align)
{
	return dma_alloc_below(bytes, align, 0);
}

void dma_free(void *p, size_t bytes)
{
	palloc_free(&mem.pa, (uint64_t)p, (bytes + PAGE_SIZE - 1) / PAGE_SIZE);
}
