/* Per-core stacks with guard pages, and the TSS with the exception stacks (kernel/stacks.h). */
#include <stdio.h>
#include "kernel/mem.h"
#include "kernel/stacks.h"
#include "kernel/trap.h"

#define GDT_TSS 0x18	/* boot/entry.S: the cores' TSS descriptors, 16 bytes each, after code and data */
#define IST_N 3

/* The 64-bit TSS (SDM vol. 3A 7.7, figure 7-11); no I/O bitmap. */
struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];	/* ist[k - 1] is IST k */
	uint64_t reserved2;
	uint16_t reserved3, iomap_base;
} __attribute__((packed));

static struct tss tss[MAX_CPUS];
static const int ist_vector[IST_N] = { 8, 2, 18 };	/* #DF, NMI, #MC on IST1, 2, 3 */
static const char *const ist_name[IST_N] = { "#DF ", "NMI ", "#MC " };
extern char boot_stack[];
extern uint8_t gdt64[];

/* A stack of bytes over an unmapped guard page; its top, or 0. */
static uint64_t guarded_alloc(size_t bytes)
{
	uint8_t *p = dma_alloc(PAGE_SIZE + bytes, 0);
	if (!p)
		return 0;
	if (mem_protect((uint64_t)p, PAGE_SIZE, 0)) {
		dma_free(p, PAGE_SIZE + bytes);
		return 0;
	}
	return (uint64_t)p + PAGE_SIZE + bytes;
}

static void guarded_free(uint64_t top, size_t bytes)
{
	if (!top)
		return;
	uint64_t guard = top - bytes - PAGE_SIZE;
	mem_protect(guard, PAGE_SIZE, MEM_R | MEM_W);
	dma_free((void *)guard, PAGE_SIZE + bytes);
}

void stacks_free(struct cpu *c)
{
	for (int k = 0; k < IST_N; k++)
		guarded_free(tss[c->id].ist[k], IST_STACK_SIZE);
	tss[c->id] = (struct tss){ 0 };
	if (c->id)
		guarded_free(c->stack_hi, CORE_STACK_SIZE);
	c->stack_lo = c->stack_hi = 0;
}

int stacks_init(struct cpu *c)
{
	if (c->id == 0) {
		if (mem_protect((uint64_t)boot_stack - PAGE_SIZE, PAGE_SIZE, 0))
			return -1;
	} else {
		c->stack_hi = guarded_alloc(CORE_STACK_SIZE);
		c->stack_lo = c->stack_hi - CORE_STACK_SIZE;
		if (!c->stack_hi)
			return -1;
	}
	tss[c->id].iomap_base = sizeof(struct tss);
	for (int k = 0; k < IST_N; k++)
		if (!(tss[c->id].ist[k] = guarded_alloc(IST_STACK_SIZE))) {
			stacks_free(c);
			return -1;
		}
	return 0;
}

void stacks_load(struct cpu *c)
{
	uint64_t base = (uint64_t)&tss[c->id], limit = sizeof(struct tss) - 1;
	uint64_t *d = (uint64_t *)(gdt64 + GDT_TSS + 16 * c->id);
	/* System-segment descriptor, type 9 (available 64-bit TSS), present (SDM vol. 3A 7.2.3). */
	d[0] = (limit & 0xffff) | (base & 0xffffff) << 16 | 0x89ull << 40 | ((limit >> 16) & 0xf) << 48 |
	       ((base >> 24) & 0xff) << 56;
	d[1] = base >> 32;
	__asm__ volatile("ltr %w0" : : "r"(GDT_TSS + 16 * c->id));
	if (c->id == 0)
		for (int k = 0; k < IST_N; k++)
			idt_use_ist(ist_vector[k], k + 1);
}

int stacks_guard_name(uint64_t addr, char *buf, size_t len)
{
	for (int i = 0; i < ncpus; i++) {
		const struct cpu *c = &cpus[i];
		if (c->stack_lo && addr >= c->stack_lo - PAGE_SIZE && addr < c->stack_lo) {
			snprintf(buf, len, "stack guard of core %d", i);
			return 1;
		}
		for (int k = 0; k < IST_N; k++) {
			uint64_t lo = tss[i].ist[k] - IST_STACK_SIZE;
			if (tss[i].ist[k] && addr >= lo - PAGE_SIZE && addr < lo) {
				snprintf(buf, len, "%sstack guard of core %d", ist_name[k], i);
				return 1;
			}
		}
	}
	return 0;
}
