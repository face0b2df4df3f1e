/* IDT, exceptions and interrupt vectors. */
#ifndef TRAP_H
#define TRAP_H
#include <stdint.h>

/* Saved state, as pushed by kernel/vectors.S (lowest address first). For
 * an interrupt (vector >= 32) the first six are not saved (C code keeps
 * them) and hold whatever the stack held; exceptions save them all. */
struct trapframe {
	uint64_t r15, r14, r13, r12, rbx, rbp;
	uint64_t r11, r10, r9, r8, rdi, rsi, rdx, rcx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;	/* pushed by the CPU */
};

/* An interrupt handler: runs with interrupts off, on the interrupted stack. */
typedef void (*irq_handler_t)(struct trapframe *tf, void *arg);

#define VEC_FIRST_DYNAMIC 0x30	/* first vector handed out by vector_alloc */
#define VEC_TIMER 0xf0		/* LAPIC timer */
#define VEC_WAKE 0xf1		/* IPI that wakes a halted core; no work of its own */
#define VEC_SPURIOUS 0xff	/* LAPIC spurious (SDM vol. 3A 11.9) */

/* Fill the IDT with all 256 stubs and load it (SDM vol. 3A 6.10). */
void idt_init(void);
/* Load the IDT idt_init filled on this core (the APs). */
void idt_load(void);
/* Run vector vec on stack ist (1-7) of the core's TSS (SDM vol. 3A 6.14.5). */
void idt_use_ist(int vec, int ist);
/* Draw the stack protector's canary (__stack_chk_guard): RDRAND when CPUID
 * has it, else TSC readings mixed; before any function that checks it
 * returns. Returns where it came from ("RDRAND" or "TSC"). */
const char *canary_init(void);
/* Claim a free vector for handler; returns the vector, or -1 if none is left. */
int vector_alloc(irq_handler_t handler, void *arg, const char *name);
/* Install a handler on a fixed vector. */
void vector_set(int vec, irq_handler_t handler, void *arg, const char *name);
/* Release vec: it has no handler or name again (interrupts on it count as
 * unhandled); its count stays until vector_alloc/vector_set reuse it. */
void vector_free(int vec);
/* Interrupts taken on vec since boot, on every core. */
uint64_t vector_count(int vec);
/* Interrupts taken on vec since boot by core cpu. */
uint64_t vector_count_cpu(int vec, int cpu);
/* The name vec was given, or NULL when it has no handler. */
const char *vector_name(int vec);
/* Interrupts that arrived on a vector with no handler. */
extern uint64_t irq_unhandled;

/* Exit QEMU through isa-debug-exit (port 0xf4) with status (code << 1) | 1,
 * when running under a hypervisor; otherwise halt. Never returns. */
void qemu_exit(int code) __attribute__((noreturn));
#define EXIT_OK 0x10	/* QEMU exit status 33 */
#define EXIT_FAIL 0x11	/* QEMU exit status 35 */

#endif
