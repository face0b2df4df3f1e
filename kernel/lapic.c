/*
 * Local APIC (Intel SDM vol. 3A chapter 11): in x2APIC mode when CPUID
 * offers it or the firmware handed over in it (11.12), its registers then
 * MSRs 0x800 + offset / 16 (11.12.1.2), else in xAPIC mode through the
 * MMIO page at IA32_APIC_BASE.
 */
#include "kernel/acpi.h"
#include "kernel/cpu.h"
#include "kernel/knobs.h"
#include "kernel/lapic.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/trap.h"

#define LAPIC_ID 0x020
#define LAPIC_EOI 0x0b0
#define LAPIC_SVR 0x0f0
#define LAPIC_LVT_TIMER 0x320
#define LAPIC_ICR_LO 0x300
#define LAPIC_ICR_HI 0x310
#define ICR_BUSY (1u << 12)
#define LAPIC_TIMER_ICR 0x380
#define LAPIC_TIMER_CCR 0x390
#define LAPIC_TIMER_DCR 0x3e0
#define LAPIC_LVT_LINT0 0x350	/* LINT1's at 0x360 */
#define SVR_ENABLE (1u << 8)
#define LVT_DM_NMI (4u << 8)
#define LVT_ACTIVE_LOW (1u << 13)
#define LVT_PERIODIC (1u << 17)
#define LVT_MASKED (1u << 16)
#define APIC_BASE_EXTD (1u << 10)	/* IA32_APIC_BASE: x2APIC mode (SDM 11.12.1) */
#define APIC_BASE_EN (1u << 11)		/* IA32_APIC_BASE: APIC global enable */
#define CPUID1_ECX_X2APIC (1u << 21)
#define MSR_X2APIC(reg) (0x800 + (reg) / 16)	/* SDM 11.12.1.2, table 11-6 */

static volatile uint32_t *lapic;
static int x2apic;	/* 1: registers are MSRs (SDM 11.12) */
static int64_t nox2apic;
static int nox2apic_refused;	/* an APIC ID needs x2APIC */
static const struct knob_range bit[] = { { 0, 1 } };
KNOB(nox2apic, .name = "nox2apic", .type = KNOB_INT, .ranges = bit, .nranges = 1, .ival = &nox2apic, .flag = 1,
     .help = "the local APIC in xAPIC mode (MMIO) even when the CPU offers x2APIC, as Linux's nox2apic (the bare "
	     "word or nox2apic=1); x2APIC kept when an APIC ID needs more than 8 bits; default 0");
volatile uint64_t ticks;
uint32_t tick_hz;

static inline uint32_t lapic_read(uint32_t reg)
{
	return x2apic ? (uint32_t)rdmsr(MSR_X2APIC(reg)) : lapic[reg / 4];
}

static inline void lapic_write(uint32_t reg, uint32_t v)
{
	if (x2apic) {
		wrmsr(MSR_X2APIC(reg), v);
		return;
	}
	lapic[reg / 4] = v;
	(void)lapic[LAPIC_ID / 4];	/* flush the posted write */
}

uint64_t lapic_base(void)
{
	return rdmsr(MSR_APIC_BASE) & ~0xfffull;
}

/* Mask the legacy 8259 PICs after moving them off the exception vectors. */
static void pic_disable(void)
{
	outb(0x20, 0x11); outb(0xa0, 0x11);	/* ICW1: init, ICW4 follows */
	outb(0x21, 0x20); outb(0xa1, 0x28);	/* ICW2: vectors 0x20, 0x28 */
	outb(0x21, 0x04); outb(0xa1, 0x02);	/* ICW3: cascade on IRQ2 */
	outb(0x21, 0x01); outb(0xa1, 0x01);	/* ICW4: 8086 mode */
	outb(0x21, 0xff); outb(0xa1, 0xff);	/* mask all */
}

/* Global enable, then x2APIC mode when chosen: xAPIC to x2APIC is one
 * write with EN kept (SDM 11.12.5, figure 11-27). */
static void enable(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);

	if (!(base & APIC_BASE_EN))
		wrmsr(MSR_APIC_BASE, base |= APIC_BASE_EN);
	if (x2apic && !(base & APIC_BASE_EXTD))
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_EXTD);
	lapic_write(LAPIC_SVR, SVR_ENABLE | VEC_SPURIOUS);
}

void lapic_init(void)
{
	uint32_t r[4];

	pic_disable();
	cpuid(1, 0, r);
	x2apic = (r[2] & CPUID1_ECX_X2APIC) || (rdmsr(MSR_APIC_BASE) & APIC_BASE_EXTD);
	lapic = (volatile uint32_t *)lapic_base();
	enable();
}

void lapic_init_ap(void)
{
	enable();
}

/* An APIC ID above 254 (the xAPIC broadcast ID is 255): x2APIC only. */
static int id_needs_x2apic(void)
{
	if (lapic_id() > 254)
		return 1;
	for (int i = 0; i < acpi.ncpus; i++)
		if (acpi.apic_ids[i] > 254)
			return 1;
	return 0;
}

void lapic_apply_nox2apic(void)
{
	if (!nox2apic || !x2apic)
		return;
	if (id_needs_x2apic()) {
		nox2apic_refused = 1;
		return;
	}
	/* x2APIC to xAPIC only through disabled (SDM 11.12.5, figure 11-27);
	 * the disable resets the APIC's registers: enable() sets SVR again. */
	uint64_t base = rdmsr(MSR_APIC_BASE);
	wrmsr(MSR_APIC_BASE, base & ~(uint64_t)(APIC_BASE_EN | APIC_BASE_EXTD));
	wrmsr(MSR_APIC_BASE, (base & ~(uint64_t)APIC_BASE_EXTD) | APIC_BASE_EN);
	x2apic = 0;
	enable();
}

/* This core's ACPI processor UID, found by its APIC ID in the MADT;
 * ACPI_UID_ALL (matching only the entries for all) if it is not there. */
static uint32_t own_uid(void)
{
	for (int i = 0; i < acpi.ncpus; i++)
		if (acpi.apic_ids[i] == lapic_id())
			return acpi.apic_uids[i];
	return ACPI_UID_ALL;
}

unsigned lapic_nmi_init(void)
{
	unsigned pins = 0;
	uint32_t uid = own_uid();
	for (int i = 0; i < acpi.nnmis; i++) {
		const struct acpi_nmi *n = &acpi.nmis[i];
		if (n->lint > 1 || (n->uid != ACPI_UID_ALL && n->uid != uid))
			continue;
		lapic_write(LAPIC_LVT_LINT0 + 0x10 * n->lint, LVT_DM_NMI | ((n->flags & 3) == 3 ? LVT_ACTIVE_LOW : 0));
		pins |= 1u << n->lint;
	}
	return pins;
}

const char *lapic_mode(void)
{
	if (nox2apic_refused)
		return "x2APIC (MSRs; nox2apic not followed: an APIC ID needs more than 8 bits)";
	if (nox2apic)
		return "xAPIC (MMIO, nox2apic)";
	return x2apic ? "x2APIC (MSRs)" : "xAPIC (MMIO)";
}

void lapic_ipi(uint32_t apic_id, uint32_t icr)
{
	if (x2apic) {	/* one 64-bit write, no delivery status to wait for (SDM 11.12.9) */
		wrmsr(MSR_X2APIC(LAPIC_ICR_LO), (uint64_t)apic_id << 32 | icr);
		return;
	}
	lapic_write(LAPIC_ICR_HI, apic_id << 24);
	lapic_write(LAPIC_ICR_LO, icr);
	for (int i = 0; i < 100000 && (lapic_read(LAPIC_ICR_LO) & ICR_BUSY); i++)
		cpu_relax();
}

uint32_t lapic_id(void)
{
	return x2apic ? lapic_read(LAPIC_ID) : lapic_read(LAPIC_ID) >> 24;	/* x2APIC: all 32 bits (SDM 11.12.5.1) */
}

void lapic_eoi(void)
{
	if (x2apic)
		wrmsr(MSR_X2APIC(LAPIC_EOI), 0);
	else if (lapic)
		lapic[LAPIC_EOI / 4] = 0;
}

static void timer_tick(struct trapframe *tf, void *arg)
{
	(void)tf;
	(void)arg;
	if (cpu_id() == 0)	/* every core has a timer; the BSP's keeps time */
		ticks++;
}

static uint32_t lapic_per_ms;

void lapic_calibrate_start(void)
{
	lapic_write(LAPIC_TIMER_DCR, 0x3);	/* divide by 16 */
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED);
	lapic_write(LAPIC_TIMER_ICR, 0xffffffff);
}

void lapic_calibrate_finish(uint64_t window_us)
{
	uint32_t counted = 0xffffffff - lapic_read(LAPIC_TIMER_CCR);
	lapic_write(LAPIC_TIMER_ICR, 0);
	lapic_per_ms = window_us ? (uint32_t)((uint64_t)counted * 1000 / window_us) : 0;
}

void timer_init(uint32_t hz)
{
	if (!lapic_per_ms) {	/* no PIT window: measure 1 ms of TSC instead */
		lapic_calibrate_start();
		udelay(1000);
		lapic_calibrate_finish(1000);
	}
	tick_hz = hz;
	vector_set(VEC_TIMER, timer_tick, 0, "timer");
	lapic_timer_start();
}

void lapic_timer_start(void)
{
	lapic_write(LAPIC_TIMER_DCR, 0x3);	/* divide by 16, as calibrated */
	lapic_write(LAPIC_LVT_TIMER, VEC_TIMER | LVT_PERIODIC);
	lapic_write(LAPIC_TIMER_ICR, lapic_per_ms * 1000 / tick_hz);
}
