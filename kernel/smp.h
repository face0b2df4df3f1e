/*
 * More than one core (Intel SDM vol. 3A 8.4 MP initialization): the
 * application processors the MADT lists are started one at a time with
 * INIT-SIPI-SIPI through the trampoline in boot/ap.S, each on its own stack
 * with the shared IDT, its LAPIC enabled and its own LAPIC timer. Every
 * core finds its struct cpu through the GS base (cpu_id()).
 */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H
#ifndef MAX_CPUS	/* the fuzz harnesses run one core (tests/fuzz/shim/kernel/smp.h) */
#define MAX_CPUS 8
#endif
#define AP_TRAMPOLINE 0x8000	/* below 1 MiB, never handed out by the page allocator */
#ifndef __ASSEMBLER__
#include <stdint.h>

/* One core. cpus[0] is the BSP; ids are dense in start order. */
struct cpu {
	struct cpu *self;	/* at %gs:0 */
	int id;			/* index in cpus[] */
	uint32_t apic_id;
	uint64_t stack_lo, stack_hi;	/* its stack (the BSP's: boot_stack) */
	volatile int started;	/* set by the AP once it runs C */
	int64_t tsc_skew;	/* TSC minus the BSP's, cycles, from the sync check */
	uint64_t tsc_rtt;	/* best round trip of that check, cycles: skew is +- half */
	void (*volatile run)(void);	/* what the AP does once released */
};

/* What boot/ap.S reads from its copy at AP_TRAMPOLINE (struct order fixed). */
struct ap_params {
	uint64_t cr3, gdt_ptr, stack, entry, arg;
};

extern struct cpu cpus[MAX_CPUS];
extern int ncpus;	/* cores running (the BSP and the APs that started) */

/* This core's index in cpus[] (0 on the BSP). */
static inline int cpu_id(void)
{
	int id;
	__asm__ volatile("movl %%gs:%c1, %0" : "=r"(id) : "i"(__builtin_offsetof(struct cpu, id)));
	return id;
}

/* cpu_id() for fast paths that run only on a core that is up (poll loop,
 * apps): not volatile, so the compiler reads %gs once per function and
 * reuses it (a core's id never changes under its code). */
static inline int cpu_id_fast(void)
{
	int id;
	__asm__("movl %%gs:%c1, %0" : "=r"(id) : "i"(__builtin_offsetof(struct cpu, id)));
	return id;
}

/* Make the BSP cpus[0]; before anything calls cpu_id(). */
void smp_init_bsp(void);
/* Start up to want - 1 APs from the MADT (want <= 0: all). An AP that does
 * not report within 10 s is parked (halted), listed as failed and not
 * waited for again.
 * Returns the number of cores running. */
int smp_start(int want);
/* Print the cores, their APIC IDs, TSC skew and any AP that did not start. */
void smp_report(void);
/* Wake core (out of hlt) with an IPI on VEC_WAKE. */
void smp_wake(int core);
/* Release every started AP into fn (never returns on the AP). */
void smp_release(void (*fn)(void));
#endif
#endif
