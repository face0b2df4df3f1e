/* kernel_main: bring the core up in order and print the boot report. */
#include <stdio.h>
#include <string.h>
#include "apps/app.h"
#include "apps/selftest/irqtest.h"
#include "drivers/net/capture.h"
#include "drivers/net/nic.h"
#include "drivers/net/phc.h"
#include "drivers/pci/pci.h"
#include "kernel/acpi.h"
#include "kernel/boot.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/config.h"
#include "kernel/fmt.h"
#include "kernel/knobs.h"
#include "kernel/lapic.h"
#include "run/lcore.h"
#include "run/netconsole.h"
#include "kernel/mem.h"
#include "kernel/memmap.h"
#include "kernel/shell.h"
#include "kernel/smp.h"
#include "kernel/stacks.h"
#include "kernel/time.h"
#include "kernel/trap.h"
#include "kernel/version.h"

#define TICK_HZ 100

static struct boot_info bi;
static char cpu_brand[49];

enum { PH_ENTRY, PH_C, PH_MEMORY, PH_CMDLINE, PH_ACPI, PH_TSC, PH_LAPIC, PH_PCI, PH_SMP, PH_READY, PH_N };
static const char *const phase_names[PH_N] = {
	"entry", "to C", "memory", "cmdline", "acpi", "tsc", "lapic", "pci", "smp", "rest",
};
static uint64_t phase_tsc[PH_N];

static const char *const selftest_choices[] = {
	"none", "exit", "pagefault", "divzero", "ud", "gp", 0,
};
static int64_t selftest;
KNOB(selftest, .name = "selftest", .type = KNOB_ENUM,
     .help = "after ready: exit QEMU (exit) or raise an exception to test the fault report; default none",
     .choices = selftest_choices, .ival = &selftest);

static void cpu_identify(void)
{
	uint32_t r[4];
	cpuid(0x80000000, 0, r);
	if (r[0] < 0x80000004) {
		strcpy(cpu_brand, "unknown");
		return;
	}
	for (uint32_t i = 0; i < 3; i++)
		cpuid(0x80000002 + i, 0, (uint32_t *)(cpu_brand + 16 * i));
	cpu_brand[48] = 0;
}

static void report_memory(void)
{
	char b[32];
	printf("memory: %lu bytes (%s) usable in %d regions, identity-mapped to %#lx\n",
	       mem.usable_bytes, fmt_bytes(b, sizeof(b), mem.usable_bytes),
	       memmap_count_type(mem.map, mem.nmap, MEM_USABLE), mem.mapped_top);
	for (int i = 0; i < mem.nmap; i++)
		printf("  [0x%012lx-0x%012lx] %s\n", mem.map[i].base,
		       mem.map[i].base + mem.map[i].len - 1, memmap_type_name(mem.map[i].type));
	if (mem.high_check)
		printf("memory: above 4 GiB: page %#lx written and read back\n", mem.high_check);
}

/* Write and read back the top usable page above 4 GiB, if there is one. */
static void check_high_memory(void)
{
	for (int i = mem.nmap - 1; i >= 0; i--) {
		struct mem_region *r = &mem.map[i];
		if (r->type != MEM_USABLE || r->base + r->len <= (4ull << 30))
			continue;
		volatile uint64_t *p = (volatile uint64_t *)(r->base + r->len - PAGE_SIZE);
		uint64_t old = *p;
		*p = 0x6c696e6572617465ull;
		if (*p == 0x6c696e6572617465ull)
			mem.high_check = (uint64_t)p;
		*p = old;
		return;
	}
}

static void report_acpi(void)
{
	if (!acpi.rsdp) {
		printf("acpi: no RSDP found\n");
		return;
	}
	printf("acpi: RSDP %#lx rev %d (%s); tables:", acpi.rsdp, acpi.revision, acpi.rsdp_source);
	for (int i = 0; i < acpi.ntables; i++)
		printf(" %s", acpi.tables[i]);
	printf("\nacpi: MADT %d CPU(s), APIC IDs", acpi.ncpus);
	for (int i = 0; i < acpi.ncpus; i++)
		printf(" %u", acpi.apic_ids[i]);
	for (int i = 0; i < acpi.nioapics; i++)
		printf("; IOAPIC %u at %#x GSI %u", acpi.ioapics[i].id, acpi.ioapics[i].addr,
		       acpi.ioapics[i].gsi_base);
	printf("\n");
	if (!acpi.nmcfg)
		printf("acpi: no MCFG (PCI config through ports 0xcf8/0xcfc)\n");
	for (int i = 0; i < acpi.nmcfg; i++)
		printf("acpi: MCFG ECAM %#lx segment %u buses %u-%u\n", acpi.mcfg[i].base,
		       acpi.mcfg[i].segment, acpi.mcfg[i].bus_start, acpi.mcfg[i].bus_end);
}

static void report_boot_time(void)
{
	printf("boot time (us):");
	for (int i = 1; i < PH_N; i++)
		printf(" %s %lu%s", phase_names[i], tsc_to_ns(phase_tsc[i] - phase_tsc[i - 1]) / 1000,
		       i + 1 < PH_N ? "," : "\n");
	printf("linerate: ready in %lu us (report printed in %lu us)\n",
	       tsc_to_ns(phase_tsc[PH_READY] - phase_tsc[PH_ENTRY]) / 1000,
	       tsc_to_ns(rdtsc() - phase_tsc[PH_READY]) / 1000);
}

static void run_selftest(void)
{
	volatile uint64_t zero = 0;	/* volatile: the division happens at run time */
	switch (selftest) {
	case 1:
		qemu_exit(EXIT_OK);
	case 2:
		printf("selftest: reading unmapped address 0x700000000000\n");
		(void)*(volatile uint64_t *)phys(0x700000000000ull);
		break;
	case 3:
		printf("selftest: dividing by zero\n");
		__asm__ volatile("xor %%edx, %%edx; divl %1" : : "a"(1), "r"((uint32_t)zero) : "rdx");
		break;
	case 4:
		printf("selftest: executing ud2\n");
		__asm__ volatile("ud2");
		break;
	case 5:
		printf("selftest: reading non-canonical address\n");
		(void)*(volatile uint64_t *)phys(0x8000000000000000ull);
		break;
	}
}

/* No canary of its own: canary_init draws it here. */
void __attribute__((no_stack_protector)) kernel_main(void)
{
	phase_tsc[PH_C] = rdtsc();
	const char *canary = canary_init();
	smp_init_bsp();
	idt_init();
	console_init();
	lapic_init();
	tsc_calibrate_start();
	int boot_err = boot_parse(&bi);
	phase_tsc[PH_ENTRY] = bi.entry_tsc;
	if (mem_init(&bi)) {
		printf("\nlinerate %s\nboot: path %s, %u memory regions from the loader: no usable memory; halting\n",
		       LINERATE_VERSION, boot_path_name(bi.path), bi.nregions);
		qemu_exit(EXIT_FAIL);
	}
	if (paging_init()) {
		printf("\nlinerate %s\nboot: no memory for the page tables; halting\n", LINERATE_VERSION);
		qemu_exit(EXIT_FAIL);
	}
	heap_init();
	if (stacks_init(&cpus[0])) {
		printf("\nlinerate %s\nboot: no memory for the exception stacks; halting\n", LINERATE_VERSION);
		qemu_exit(EXIT_FAIL);
	}
	stacks_load(&cpus[0]);
	phase_tsc[PH_MEMORY] = rdtsc();
	int knob_errs = knobs_parse(bi.cmdline);
	phase_tsc[PH_CMDLINE] = rdtsc();
	acpi_init(bi.rsdp);
	phase_tsc[PH_ACPI] = rdtsc();
	tsc_calibrate();
	phase_tsc[PH_TSC] = rdtsc();
	lapic_apply_nox2apic();
	unsigned nmi_pins = lapic_nmi_init();
	timer_init(TICK_HZ);
	phase_tsc[PH_LAPIC] = rdtsc();
	pci_init();
	console_apply(&bi.fb, bi.path == BOOT_UEFI);	/* console= (PCI ports, screen) or ACPI SPCR, before the first boot line */
	phase_tsc[PH_PCI] = rdtsc();
	lcore_start_cores();
	phase_tsc[PH_SMP] = rdtsc();
	phase_tsc[PH_READY] = rdtsc();
	check_high_memory();	/* for the report, as the CPU's name */
	cpu_identify();

	printf("\nlinerate %s\n", LINERATE_VERSION);
	if (boot_err)
		printf("boot: the loader's information is malformed (path %s); continuing with what was read\n",
		       boot_path_name(bi.path));
	printf("boot: path %s, cmdline \"%s\"\n", boot_path_name(bi.path), bi.cmdline);
	if (bi.cmdline_cut)
		printf("cmdline: %u bytes beyond the first %d were refused, whole words (nothing shortened)\n",
		       bi.cmdline_cut, BOOT_CMDLINE_MAX - 1);
	if (mem.module_len)
		printf("boot: module of %lu bytes at %#lx (reserved)\n", mem.module_len, mem.module_base);
	if (knob_errs)
		knobs_report();
	console_report();
	printf("cpu: %s, APIC ID %u, TSC %lu.%03lu MHz (%s%s)\n", cpu_brand, lapic_id(),
	       tsc.hz / 1000000, tsc.hz / 1000 % 1000, tsc.method, tsc.invariant ? ", invariant" : "");
	report_memory();
	report_acpi();
	printf("lapic: %#lx, %s, timer %u Hz on vector %#x, %s%s%s\n", lapic_base(), lapic_mode(), tick_hz, VEC_TIMER,
	       nmi_pins ? "NMI on" : "no NMI pin in the MADT", nmi_pins & 1 ? " LINT0" : "", nmi_pins & 2 ? " LINT1" : "");
	smp_report();
	printf("protect: W^X (kernel text read-only, all else no-execute), CR0.WP, guard pages under every stack, "
	       "#DF/NMI/#MC on their own stacks, stack canary from %s\n", canary);
	report_boot_time();
	pci_print();
	irq_on();
	irqtest_run();
	pci_probe_drivers();
	if (!nic_count)
		pci_report_no_ports();
	else
		config_ports = nic_count;
	phc_report();
	run_selftest();
	apps_start();
	lcore_place();
	netcon_apply();
	mirror_start();
	smp_release(lcore_run);
	knobs_summary();
	shell_init();
	lcore_run();
}
