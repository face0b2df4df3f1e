/*
 * Thin wrappers around x86 instructions: port I/O, MSRs, CPUID, TSC,
 * control registers. Intel SDM vol. 2 for each instruction.
 */
#ifndef CPU_H
#define CPU_H
#include <stdint.h>

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port)); }
static inline void outw(uint16_t port, uint16_t v) { __asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port)); }
static inline void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port) { uint8_t v; __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline uint16_t inw(uint16_t port) { uint16_t v; __asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline uint32_t inl(uint16_t port) { uint32_t v; __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port)); return v; }

/* Read the time-stamp counter (TSC cycles). */
static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return (uint64_t)hi << 32 | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

/* CPUID leaf/subleaf into r[0..3] = eax, ebx, ecx, edx. */
static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

static inline uint64_t read_cr0(void) { uint64_t v; __asm__ volatile("mov %%cr0, %0" : "=r"(v)); return v; }
static inline void write_cr0(uint64_t v) { __asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory"); }
static inline uint64_t read_cr2(void) { uint64_t v; __asm__ volatile("mov %%cr2, %0" : "=r"(v)); return v; }
static inline uint64_t read_cr3(void) { uint64_t v; __asm__ volatile("mov %%cr3, %0" : "=r"(v)); return v; }
static inline void write_cr3(uint64_t v) { __asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory"); }
static inline void cpu_relax(void) { __asm__ volatile("pause"); }
static inline void irq_on(void) { __asm__ volatile("sti" ::: "memory"); }
static inline void irq_off(void) { __asm__ volatile("cli" ::: "memory"); }
/* Enable interrupts and halt atomically (sti shadow covers hlt): no lost wake-up. */
static inline void safe_halt(void) { __asm__ volatile("sti; hlt" ::: "memory"); }
/* Disable interrupts; returns RFLAGS before, for irq_restore. */
static inline uint64_t irq_save(void)
{
	uint64_t f;
	__asm__ volatile("pushf; pop %0; cli" : "=r"(f) : : "memory");
	return f;
}
/* Re-enable interrupts if flags (from irq_save) had IF set. */
static inline void irq_restore(uint64_t flags)
{
	if (flags & 0x200)
		irq_on();
}
static inline void barrier(void) { __asm__ volatile("" ::: "memory"); }
/* A full fence against a device that shares memory with this core: earlier
 * stores before later loads (SDM vol. 2, MFENCE). mfence, not the locked
 * add GCC emits for a seq_cst fence: QEMU's TCG with one vCPU runs a
 * locked instruction as a plain one, with no host fence, while its device
 * threads run beside the vCPU; MFENCE it always fences. */
static inline void mfence(void) { __asm__ volatile("mfence" ::: "memory"); }

/* A pointer to physical address a (identity map). The empty asm hides the
 * constant from GCC, which otherwise warns about fixed addresses. */
static inline void *phys(uint64_t a)
{
	__asm__("" : "+r"(a));
	return (void *)a;
}

#define MSR_APIC_BASE 0x1b
#define MSR_PAT 0x277

#endif
