/*
 * Per-core stacks and the TSS (Intel SDM vol. 3A 7.7, 6.14.5): an
 * unmapped guard page under every core's stack and under each of its
 * exception stacks; double fault, NMI and machine check always run on their
 * own stacks (IST1-3 of the core's TSS), so a stack that overflows into its
 * guard ends in a #DF report naming the guard instead of a triple fault.
 */
#ifndef KERNEL_STACKS_H
#define KERNEL_STACKS_H
#include <stddef.h>
#include <stdint.h>
#include "kernel/smp.h"

#define CORE_STACK_SIZE (64 * 1024)	/* an AP's stack (the BSP's: boot/entry.S) */
#define IST_STACK_SIZE (16 * 1024)	/* each exception stack */

/* Give core c its stacks: an AP's stack (c->stack_lo/hi), the BSP's guard
 * under boot_stack, and the three exception stacks, each over a guard
 * page. Returns 0, or -1 when memory runs out (then nothing is kept). */
int stacks_init(struct cpu *c);
/* Give back what stacks_init took for an AP that did not start. */
void stacks_free(struct cpu *c);
/* On core c itself: its TSS descriptor into the GDT, then LTR; on the BSP
 * then the IST on in the shared IDT (idt_use_ist). An AP does it before it
 * loads the IDT. */
void stacks_load(struct cpu *c);
/* Whether addr lies in a guard page: writes its name ("stack guard of
 * core 1", "#DF stack guard of core 0") to buf and returns 1, else 0. */
int stacks_guard_name(uint64_t addr, char *buf, size_t len);
#endif
