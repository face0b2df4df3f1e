/*
 * IDT setup, exception reports and dispatch of interrupt vectors
 * (Intel SDM vol. 3A chapter 6).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "kernel/cpu.h"
#include "kernel/lapic.h"
#include "kernel/mem.h"
#include "kernel/smp.h"
#include "kernel/stacks.h"
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

void idt_use_ist(int vec, int ist)
{
	idt[vec].ist = (uint8_t)ist;
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

/* A stack's guard page or a part of the kernel image, by name: 1, else 0. */
static int address_name(uint64_t addr, char *buf, size_t len)
{
	const char *part = mem_kernel_part(addr);
	if (stacks_guard_name(addr, buf, len))
		return 1;
	if (part)
		snprintf(buf, len, "%s", part);
	return part != 0;
}

static void exception(struct trapframe *tf)
{
	const char *name = tf->vector < 22 ? exc_names[tf->vector] : "reserved";
	raw_printf("\n*** EXCEPTION %lu %s, error code %#lx, core %d\n", tf->vector, name, tf->error, cpu_id());
	raw_printf("RIP 0x%016lx  CS %#lx  RFLAGS %#lx  RSP 0x%016lx  SS %#lx\n",
		   tf->rip, tf->cs, tf->rflags, tf->rsp, tf->ss);
	char what[48];
	uint64_t cr2 = read_cr2();
	int named = address_name(cr2, what, sizeof(what));
	raw_printf("CR2 0x%016lx%s%s%s  CR3 0x%016lx\n", cr2, named ? " (" : "", named ? what : "", named ? ")" : "",
		   read_cr3());
	raw_printf("RAX 0x%016lx RBX 0x%016lx RCX 0x%016lx RDX 0x%016lx\n", tf->rax, tf->rbx, tf->rcx, tf->rdx);
	raw_printf("RSI 0x%016lx RDI 0x%016lx RBP 0x%016lx R8  0x%016lx\n", tf->rsi, tf->rdi, tf->rbp, tf->r8);
	raw_printf("R9  0x%016lx R10 0x%016lx R11 0x%016lx R12 0x%016lx\n", tf->r9, tf->r10, tf->r11, tf->r12);
	raw_printf("R13 0x%016lx R14 0x%016lx R15 0x%016lx\n", tf->r13, tf->r14, tf->r15);
	backtrace(tf->rbp, tf->rip);
	raw_printf("halted\n");
	qemu_exit(EXIT_FAIL);
}

/* The stack protector's canary (-mstack-protector-guard=global). */
uintptr_t __stack_chk_guard;

static int rdrand64(uint64_t *v)
{
	uint8_t ok;
	__asm__ volatile("rdrand %0; setc %1" : "=r"(*v), "=qm"(ok));
	return ok;
}

/* No canary of its own: it would be checked against the new value. */
const char * __attribute__((no_stack_protector)) canary_init(void)
{
	uint32_t r[4];
	uint64_t v = 0;
	const char *from = "TSC";
	cpuid(1, 0, r);
	for (int try = 0; (r[2] >> 30 & 1) && try < 10 && !v; try++)	/* CPUID.1:ECX.RDRAND; SDM vol. 1 7.3.17.1 */
		if (rdrand64(&v))
			from = "RDRAND";
	if (!v) {	/* the TSC's low bits at two points apart, through splitmix64's finalizer */
		v = rdtsc();
		cpuid(0, 0, r);
		v = (v << 32 | (rdtsc() & 0xffffffff)) + 0x9e3779b97f4a7c15ull;
		v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ull;
		v = (v ^ (v >> 27)) * 0x94d049bb133111ebull;
		v ^= v >> 31;
	}
	__stack_chk_guard = v & ~0xffull;	/* a zero byte first: string copies stop at it */
	return from;
}

/* Called by a function whose canary was overwritten, before it returns. */
void __attribute__((noreturn)) __stack_chk_fail(void)
{
	uint64_t *frame = __builtin_frame_address(0), rip = frame[1];
	raw_printf("\n*** STACK SMASHED: canary overwritten in the function at 0x%016lx, core %d\n", rip, cpu_id());
	backtrace(frame[0], rip);
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
