/* Shell commands about the machine itself: version, uptime, mem, irq, reboot, poweroff. */
#include <stdio.h>
#include "kernel/acpi.h"
#include "kernel/cpu.h"
#include "kernel/fmt.h"
#include "kernel/mem.h"
#include "kernel/memmap.h"
#include "kernel/shell.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/trap.h"
#include "kernel/version.h"

static int usage(int argc, const char *form)
{
	if (argc == 1)
		return 0;
	printf("usage: %s (no arguments)\n", form);
	return -1;
}

static int cmd_version(int argc, char **argv)
{
	(void)argv;
	if (usage(argc, "version"))
		return -1;
	printf("linerate %s\n", LINERATE_VERSION);
	return 0;
}
SHELL_CMD(version, "version", "version", "print the version", cmd_version);

static int cmd_uptime(int argc, char **argv)
{
	(void)argv;
	if (usage(argc, "uptime"))
		return -1;
	uint64_t ns = now_ns();
	printf("up %lu.%03lu s (%lu timer ticks at %u Hz)\n", ns / 1000000000, ns / 1000000 % 1000,
	       ticks, tick_hz);
	return 0;
}
SHELL_CMD(uptime, "uptime", "uptime", "time since boot", cmd_uptime);

static int cmd_mem(int argc, char **argv)
{
	(void)argv;
	if (usage(argc, "mem"))
		return -1;
	char a[32], b[32], c[32], d[32];
	printf("usable %s, free pages %lu (%s), heap %s of %s\n",
	       fmt_bytes(a, sizeof(a), mem.usable_bytes), mem.pa.free_pages,
	       fmt_bytes(b, sizeof(b), mem.pa.free_pages * PAGE_SIZE),
	       fmt_bytes(c, sizeof(c), heap_in_use()), fmt_bytes(d, sizeof(d), heap_size()));
	for (int i = 0; i < mem.nmap; i++)
		printf("  [0x%012lx-0x%012lx] %s\n", mem.map[i].base,
		       mem.map[i].base + mem.map[i].len - 1, memmap_type_name(mem.map[i].type));
	return 0;
}
SHELL_CMD(mem, "mem", "mem", "memory map, free pages, heap use", cmd_mem);

/* Vectors with a handler or with interrupts taken, and the unhandled count. */
static int cmd_irq(int argc, char **argv)
{
	(void)argv;
	if (usage(argc, "irq"))
		return -1;
	printf("vector %12s", "count");
	for (int c = 0; ncpus > 1 && c < ncpus; c++)
		printf(" %11s%d", "core", c);
	printf("  name\n");
	for (int v = 32; v < 256; v++) {
		const char *name = v == VEC_SPURIOUS ? "spurious (LAPIC)" : vector_name(v);
		if (!name && !vector_count(v))
			continue;
		printf("  %#04x %12lu", v, vector_count(v));
		for (int c = 0; ncpus > 1 && c < ncpus; c++)
			printf(" %12lu", vector_count_cpu(v, c));
		printf("  %s\n", name ? name : "(no handler)");
	}
	printf("unhandled: %lu\n", irq_unhandled);
	return 0;
}
SHELL_CMD(irq, "irq", "irq", "interrupt vectors: counts (per core with more than one), owners; unhandled count",
	  cmd_irq);

/* The FADT's reset register, if it says it has one in I/O or memory space
 * (ACPI 6.4 4.8.3.6); 0, or -1 after saying why not. */
static int acpi_reset(void)
{
	const struct acpi_fadt *f = &acpi.fadt;

	if (!(f->flags & ACPI_FADT_RESET_REG_SUP) || f->length < 129) {
		printf("reboot: the FADT offers no reset register\n");
		return -1;
	}
	if (f->reset_space > 1 || !f->reset_addr || (f->reset_space == 1 && f->reset_addr > 0xffff) ||
	    (f->reset_space == 0 && mmio_map(f->reset_addr, 1) != 0)) {
		printf("reboot: the FADT's reset register (space %u, address %#lx) is not I/O or memory\n",
		       f->reset_space, f->reset_addr);
		return -1;
	}
	printf("reboot: ACPI reset register: %s %#lx <- %#x\n", f->reset_space ? "I/O" : "memory", f->reset_addr,
	       f->reset_value);
	fflush(stdout);
	if (f->reset_space)
		outb((uint16_t)f->reset_addr, f->reset_value);
	else
		*(volatile uint8_t *)f->reset_addr = f->reset_value;
	udelay(50000);
	return 0;
}

/* Reset through the FADT's reset register, then the PCI reset control
 * register 0xcf9, then the 8042 keyboard controller, then a triple fault
 * (Linux's reboot=acpi,pci,kbd,triple order). */
static int cmd_reboot(int argc, char **argv)
{
	(void)argv;
	if (usage(argc, "reboot"))
		return -1;
	printf("rebooting (a QEMU started with -no-reboot, as make run and make shell start it, exits instead)\n");
	acpi_reset();
	printf("reboot: port 0xcf9, then the 8042, then a triple fault\n");
	fflush(stdout);
	outb(0xcf9, 0x02);
	udelay(50);
	outb(0xcf9, 0x06);
	udelay(50000);
	outb(0x64, 0xfe);
	udelay(50000);
	struct { uint16_t limit; uint64_t base; } __attribute__((packed)) none = { 0, 0 };
	__asm__ volatile("lidt %0; int3" : : "m"(none));
	return 0;
}
SHELL_CMD(reboot, "reboot", "reboot", "reset the machine: ACPI reset register, port 0xcf9, 8042, triple fault",
	  cmd_reboot);

#define SLP_TYP_SHIFT 10	/* PM1_CNT bits 12:10 (ACPI 6.4 4.8.3.2.1) */
#define SLP_EN (1u << 13)

/* Write SLP_TYP and SLP_EN into a PM1x_CNT register (keeping its other bits). */
static void pm1_sleep(uint32_t port, uint8_t typ)
{
	uint16_t v = inw((uint16_t)port) & ~(7u << SLP_TYP_SHIFT);
	outw((uint16_t)port, v | (uint16_t)((typ & 7) << SLP_TYP_SHIFT) | SLP_EN);
}

/* ACPI S5, soft off (ACPI 6.4 16.1.7): \_S5's SLP_TYPa/b into PM1a/b_CNT
 * with SLP_EN. Refused when the DSDT's \_S5 package was not found. */
static int cmd_poweroff(int argc, char **argv)
{
	const struct acpi_fadt *f = &acpi.fadt;
	int b = f->pm1b_cnt && f->pm1b_cnt <= 0xffff;	/* a PM1b_CNT too */

	(void)argv;
	if (usage(argc, "poweroff"))
		return -1;
	if (!f->s5 || !f->pm1a_cnt || f->pm1a_cnt > 0xffff) {
		printf("poweroff: refused: %s (a \\_S5 package read from the DSDT's bytes, no AML interpreter)\n",
		       !f->length ? "no FADT" : !f->s5 ? "no \\_S5 package found in the DSDT" : "no PM1a_CNT port in the FADT");
		return -1;
	}
	printf("poweroff: ACPI S5: PM1a_CNT %#x SLP_TYP %u", f->pm1a_cnt, f->slp_typa);
	if (b)
		printf(", PM1b_CNT %#x SLP_TYP %u", f->pm1b_cnt, f->slp_typb);
	printf("\n");
	fflush(stdout);
	pm1_sleep(f->pm1a_cnt, f->slp_typa);
	if (b)
		pm1_sleep(f->pm1b_cnt, f->slp_typb);
	udelay(50000);
	printf("poweroff: still running after S5\n");
	return -1;
}
SHELL_CMD(poweroff, "poweroff", "poweroff", "switch off through ACPI S5 (\\_S5 from the DSDT, PM1a/b_CNT)",
	  cmd_poweroff);
