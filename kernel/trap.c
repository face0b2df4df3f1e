/*
 * IDT setup, exception reports and dispatch of interrupt vectors
 * (Intel SDM vol. 3A chapter 6).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "kernel/cpu.h"
#include "kernel/lapic.h"
#include "kernel/smp.h"
#include "kernel/trap.h"
#include "kernel/console.h"

struct idt_gate {
	uint16_t off_lo, sel;
	uint8_t ist, type;
	uint16_t off_mid;
	uint32_t off_hi, zero;
} __attribute__((packed));

struct vector_entry {
	irq_handler_t handler;
	void *arg;
	const char *name;
};

extern const char trap_stubs[];
static struct idt_gate idt[256] __attribute__((aligned(16)));
static struct vector_entry vectors[256];
static uint64_t counts[MAX_CPUS][256];	/* one writer per row: its core */
uint64_t irq_unhandled;

static const char *const exc_names[32] = {
	"#DE divide error", "#DB debug", "NMI", "#BP breakpoint", "#OF overflow",
	"#BR bound range", "#UD invalid opcode", "#NM device not available",
	"#DF double fault", "coprocessor overrun", "#TS invalid TSS",
	"#NP segment not present", "#SS stack fault", "#GP general protection",
	"#PF page fault", "reserved 15", "#MF x87 error", "#AC alignment check",
	"#MC machine check", "#XM SIMD exception", "#VE virtualization",
	"#CP control protection",
};

void idt_init(void)
{
	for (int i = 0; i < 256; i++) {
		uint64_t a = (uint64_t)(trap_stubs + 16 * i);
		idt[i] = (struct idt_gate){
			.off_lo = (uint16_t)a, .sel = 0x08, .ist = 0,
			.type = 0x8e,	/* present, DPL 0, 64-bit interrupt gate */
			.off_mid = (uint16_t)(a >> 16), .off_hi = (uint32_t)(a >> 32),
		};
	}
	vectors[VEC_WAKE] = (struct vector_entry){ 0, 0, "wake" };
	idt_load();
}

void idt_load(void)
{
	struct { uint16_t limit; uint64_t base; } __attribute__((packed)) ptr = {
		sizeof(idt) - 1, (uint64_t)idt,
	};
	__asm__ volatile("lidt %0" : : "m"(ptr));
}

void vector_set(int vec, irq_handler_t handler, void *arg, const char *name)
{
	vectors[vec] = (struct vector_entry){ handler, arg, name };
	for (int c = 0; c < MAX_CPUS; c++)
		counts[c][vec] = 0;
}

int vector_alloc(irq_handler_t handler, void *arg, const char *name)
{
	for (int v = VEC_FIRST_DYNAMIC; v < VEC_TIMER; v++)
		if (!vectors[v].handler) {
			vector_set(v, handler, arg, name);
			return v;
		}
	return -1;
}

void vector_free(int vec)
{
	vectors[vec].handler = 0;
	vectors[vec].arg = 0;
	vectors[vec].name = 0;
}

uint64_t vector_count(int vec)
{
	uint64_t n = 0;
	for (int c = 0; c < MAX_CPUS; c++)
		n += counts[c][vec];
	return n;
}

uint64_t vector_count_cpu(int vec, int cpu)
{
	return counts[cpu][vec];
}

const char *vector_name(int vec)
{
	return vectors[vec].name;
}

static int under_hypervisor(void)
{
	uint32_t r[4];
	cpuid(1, 0, r);
	return (r[2] >> 31) & 1;	/* CPUID.1:ECX.hypervisor */
}

void qemu_exit(int code)
{
	if (under_hypervisor())
		outb(0xf4, (uint8_t)code);
	for (;;)
		__asm__ volatile("cli; hlt");
}

/* Print with snprintf and raw UART writes to every console: safe even if stdio was mid-call. */
static void raw_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void raw_printf(const char *fmt, ...)
{
	char buf[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	console_out(CONSOLE_ALL, buf, strlen(buf));
}

/* Follow the frame-pointer chain while it stays inside this core's stack. */
static void backtrace(uint64_t rbp, uint64_t rip)
{
	raw_printf("backtrace (addr2line -e build/linerate.elf ADDR):\n  0x%016lx\n", rip);
	uint64_t lo = cpus[cpu_id()].stack_lo, hi = cpus[cpu_id()].stack_hi;
	for (int depth = 0; depth < 16; depth++) {
		if (rbp < lo || rbp + 16 > hi || (rbp & 7))
			break;
		uint64_t *frame = (uint64_t *)rbp;
		if (frame[1] == 0)
			break;
		raw_printf("  0x%016lx\n", frame[1]);
		rbp = frame[0];
	}
}

static void exception(struct trapframe *tf)
{
	const char *name = tf->vector < 22 ? exc_names[tf->vector] : "reserved";
	raw_printf("\n*** EXCEPTION %lu %s, error code %#lx, core %d\n", tf->vector, name, tf->error, cpu_id());
	raw_printf("RIP 0x%016lx  CS %#lx  RFLAGS %#lx  RSP 0x%016lx  SS %#lx\n",
		   tf->rip, tf->cs, tf->rflags, tf->rsp, tf->ss);
	raw_printf("CR2 0x%016lx  CR3 0x%016lx\n", read_cr2(), read_cr3());
	raw_printf("RAX 0x%016lx RBX 0x%016lx RCX 0x%016lx RDX 0x%016lx\n", tf->rax, tf->rbx, tf->rcx, tf->rdx);
	raw_printf("RSI 0x%016lx RDI 0x%016lx RBP 0x%016lx R8  0x%016lx\n", tf->rsi, tf->rdi, tf->rbp, tf->r8);
	raw_printf("R9  0x%016lx R10 0x%016lx R11 0x%016lx R12 0x%016lx\n", tf->r9, tf->r10, tf->r11, tf->r12);
	raw_printf("R13 0x%016lx R14 0x%016lx R15 0x%016lx\n", tf->r13, tf->r14, tf->r15);
	backtrace(tf->rbp, tf->rip);
	raw_printf("halted\n");
	qemu_exit(EXIT_FAIL);
}

/* Called from kernel/vectors.S for every vector. */
void trap(struct trapframe *tf)
{
	if (tf->vector < 32) {
		exception(tf);
		return;
	}
	struct vector_entry *v = &vectors[tf->vector];
	counts[cpu_id()][tf->vector]++;
	if (tf->vector == VEC_SPURIOUS)
		return;	/* no EOI for spurious (SDM vol. 3A 11.9) */
	if (v->handler)
		v->handler(tf, v->arg);
	else if (tf->vector != VEC_WAKE)
		irq_unhandled++;
	lapic_eoi();
}
