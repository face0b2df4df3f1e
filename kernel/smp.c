/*
 * Application processor start-up and per-core identity (kernel/smp.h).
 *
 * Sequence per AP (SDM vol. 3A 8.4.4.1, "typical BSP initialization"):
 * INIT IPI, 10 ms wait on CPUs older than family 6 (later ones need none,
 * as Linux's init_udelay), STARTUP IPI with the trampoline's page, 200 us,
 * a second STARTUP IPI if the AP has not answered, then up to 10 s for the
 * AP to reach C (Linux's do_boot_cpu waits as long: under TCG on a loaded
 * host the AP's thread can wait for the host CPU well past 100 ms, the
 * wait this had before, and an AP that woke after it triple-faulted on the
 * freed trampoline and reset the box; with -no-reboot QEMU then exits).
 * An AP that does not answer is parked: the trampoline becomes a halt and
 * the AP gets INIT again, so if it wakes late it halts instead of running
 * on a stack given back. APs are started one at a time because they share
 * the trampoline's parameter block.
 *
 * TSC: every core must count at the same rate from the same origin for
 * per-core CPU% and for timestamps compared across cores. Rate: the TSC
 * must be invariant (CPUID 0x80000007 EDX bit 8), reported at boot.
 * Origin: measured, not assumed, by a ping-pong between the BSP and the AP
 * (as NTP does over a link): the BSP publishes t0, the AP reads it at its
 * t1 and publishes t2, the BSP reads that at t3; skew = ((t1 - t0) -
 * (t3 - t2)) / 2, the minimum-round-trip sample of 32 kept. The skew is
 * reported per core with its uncertainty (half the best round trip) and
 * kept in struct cpu; it is not written back into the TSC. Under TCG on a
 * loaded host the round trip can reach milliseconds, so read the skew with
 * its bound.
 */
#include <stdio.h>
#include <string.h>
#include "kernel/cpu.h"
#include "kernel/knobs.h"
#include "kernel/acpi.h"
#include "kernel/lapic.h"
#include "kernel/mem.h"
#include "kernel/smp.h"
#include "kernel/stacks.h"
#include "kernel/time.h"
#include "kernel/trap.h"

#define MSR_GS_BASE 0xc0000101
#define SYNC_ROUNDS 32
#define AP_WAIT_US 10000000	/* for the AP to reach C after the second STARTUP IPI */

struct cpu cpus[MAX_CPUS];
int ncpus = 1;
static uint32_t failed_ids[MAX_CPUS];
static int nfailed;

/* A fault to try the path of a CPU that never answers: the AP with this
 * APIC ID gets a trampoline of "cli; hlt; jmp back to hlt" instead of the
 * real one, so it wakes from the STARTUP IPI and never reaches C, as a
 * dead core would; the BSP then waits out the 10 s and reports it. */
static int64_t dead_apicid = -1;
static const struct knob_range apicid_range[] = { { -1, 255 } };
KNOB(smp_dead_apicid, .name = "smp_dead_apicid", .type = KNOB_INT, .ranges = apicid_range, .nranges = 1,
     .ival = &dead_apicid,
     .help = "test: the CPU with this APIC ID is started into a halt, as one that never answers INIT-SIPI-SIPI; "
	     "-1 none; default -1");
static const uint8_t halt_forever[] = { 0xfa, 0xf4, 0xeb, 0xfd };	/* cli; 1: hlt; jmp 1b */

extern const char ap_tramp_start[], ap_tramp_end[], ap_params[];
extern char boot_stack[], boot_stack_top[];
extern const uint8_t gdt64_ptr[];

static void set_gs(struct cpu *c)
{
	c->self = c;
	wrmsr(MSR_GS_BASE, (uint64_t)c);
}

void smp_init_bsp(void)
{
	uint32_t r[4];
	cpuid(0, 0, r);
	int leaf_b = r[0] >= 0xb;
	cpuid(1, 0, r);
	cpus[0].id = 0;
	cpus[0].apic_id = r[1] >> 24;	/* initial APIC ID: the LAPIC is not mapped yet */
	if (leaf_b) {	/* the x2APIC ID, all 32 bits (SDM vol. 3A 11.12.8.1) */
		cpuid(0xb, 0, r);
		if (r[1] & 0xffff)	/* EBX 0: leaf 0xB not implemented */
			cpus[0].apic_id = r[3];
	}
	cpus[0].stack_lo = (uint64_t)boot_stack;
	cpus[0].stack_hi = (uint64_t)boot_stack_top;
	cpus[0].started = 1;
	set_gs(&cpus[0]);
}

/* The TSC ping-pong: one word each way, SYNC_ROUNDS times. */
static volatile uint64_t sync_bsp, sync_ap;
static volatile int sync_round;

static int64_t tsc_sync_bsp(uint64_t *rtt)
{
	int64_t best = 0;
	uint64_t best_rtt = ~0ull;
	for (int r = 1; r <= SYNC_ROUNDS; r++) {
		uint64_t t0 = rdtsc();
		sync_bsp = t0;
		sync_round = r;
		while (sync_round != -r)
			cpu_relax();
		uint64_t t3 = rdtsc(), t1 = sync_ap, t2 = sync_bsp;
		int64_t there = (int64_t)(t1 - t0), back = (int64_t)(t3 - t2);
		if ((uint64_t)(there + back) < best_rtt) {
			best_rtt = (uint64_t)(there + back);
			best = (there - back) / 2;
		}
	}
	*rtt = best_rtt;
	return best;
}

static void tsc_sync_ap(void)
{
	for (int r = 1; r <= SYNC_ROUNDS; r++) {
		while (sync_round != r)
			cpu_relax();
		uint64_t t1 = rdtsc();
		sync_ap = t1;
		sync_bsp = rdtsc();	/* t2 */
		sync_round = -r;
	}
}

/* C entry of an AP, on its own stack (boot/ap.S). */
static void __attribute__((noreturn)) ap_main(struct cpu *c)
{
	set_gs(c);
	stacks_load(c);
	idt_load();
	lapic_init_ap();
	c->started = 1;
	tsc_sync_ap();
	lapic_timer_start();
	irq_on();
	while (!c->run)
		safe_halt();
	write_cr3(read_cr3());	/* drop the trampoline's executable TLB entry (smp_start) */
	c->run();
	for (;;)
		safe_halt();
}

static int cpu_family(void)
{
	uint32_t r[4];
	cpuid(1, 0, r);
	int fam = (r[0] >> 8) & 0xf;
	return fam == 0xf ? fam + (int)((r[0] >> 20) & 0xff) : fam;
}

static int wait_started(struct cpu *c, uint64_t us)
{
	uint64_t end = rdtsc() + tsc.hz / 1000000 * us;
	while (!c->started && rdtsc() < end)
		cpu_relax();
	return c->started;
}

/* An AP that did not answer: a halt in the trampoline, then INIT (back
 * to wait-for-SIPI, SDM vol. 3A 8.4.1). Mid-way through the trampoline it
 * stops; a STARTUP IPI still pending for it (QEMU keeps one across INIT)
 * lands on the halt, unless the next AP's start has copied the real
 * trampoline back by then: that window stays open. */
static void park_ap(struct cpu *c, uint8_t *tramp)
{
	memcpy(tramp, halt_forever, sizeof(halt_forever));
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	lapic_ipi(c->apic_id, LAPIC_ICR_INIT);
}

/* INIT-SIPI-SIPI for one AP; 1 when it runs C. */
static int start_ap(struct cpu *c)
{
	size_t len = (size_t)(ap_tramp_end - ap_tramp_start);
	uint8_t *tramp = phys(AP_TRAMPOLINE);
	if (stacks_init(c))
		return 0;
	if (c->apic_id == dead_apicid)
		memcpy(tramp, halt_forever, sizeof(halt_forever));
	else
		memcpy(tramp, ap_tramp_start, len);
	struct ap_params *p = (struct ap_params *)(tramp + (ap_params - ap_tramp_start));
	*p = (struct ap_params){ .cr3 = read_cr3(), .gdt_ptr = (uint64_t)gdt64_ptr, .stack = c->stack_hi,
				 .entry = (uint64_t)ap_main, .arg = (uint64_t)c };
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	lapic_ipi(c->apic_id, LAPIC_ICR_INIT);
	if (cpu_family() < 6)
		udelay(10000);
	for (int sipi = 0; sipi < 2 && !c->started; sipi++) {
		lapic_ipi(c->apic_id, LAPIC_ICR_STARTUP | (AP_TRAMPOLINE >> 12));
		wait_started(c, sipi ? AP_WAIT_US : 200);
	}
	if (!c->started) {
		park_ap(c, tramp);
		stacks_free(c);
		return 0;
	}
	c->tsc_skew = tsc_sync_bsp(&c->tsc_rtt);
	return 1;
}

int smp_start(int want)
{
	if (want <= 0 || want > MAX_CPUS)
		want = MAX_CPUS;
	for (int i = 0; i < acpi.ncpus && ncpus < want; i++) {
		uint32_t id = acpi.apic_ids[i];
		if (id == cpus[0].apic_id)
			continue;
		struct cpu *c = &cpus[ncpus];
		*c = (struct cpu){ .id = ncpus, .apic_id = id };
		if (start_ap(c))
			ncpus++;
		else if (nfailed < MAX_CPUS)
			failed_ids[nfailed++] = id;
	}
	mem_protect(AP_TRAMPOLINE, PAGE_SIZE, MEM_R | MEM_W);	/* W^X from here: no more code there */
	return ncpus;
}

void smp_report(void)
{
	printf("smp: %d core(s) running (MADT lists %d), TSC %s:", ncpus, acpi.ncpus,
	       tsc.invariant ? "invariant" : "NOT invariant (CPU% and rates may drift between cores)");
	for (int i = 0; i < ncpus; i++)
		printf(" core%d apic %u skew %ld+-%lu", i, cpus[i].apic_id,
		       (long)(cpus[i].tsc_skew * 1000000 / (int64_t)(tsc.hz / 1000)), tsc_to_ns(cpus[i].tsc_rtt / 2));
	printf(" (ns)\n");
	for (int i = 0; i < nfailed; i++)
		printf("smp: CPU with APIC ID %u did not start (no answer to INIT-SIPI-SIPI within 10 s)\n",
		       failed_ids[i]);
}

void smp_wake(int core)
{
	lapic_ipi(cpus[core].apic_id, LAPIC_ICR_FIXED | VEC_WAKE);
}

void smp_release(void (*fn)(void))
{
	for (int i = 1; i < ncpus; i++) {
		cpus[i].run = fn;
		smp_wake(i);
	}
}
