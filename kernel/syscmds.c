/* Shell commands about the machine itself: version, uptime, mem, reboot. */
#include <stdio.h>
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

/* Reset through the PCI reset control register 0xcf9, then the 8042
 * keyboard controller, then a triple fault. */
static int cmd_reboot(int argc, char **argv)
{
	(void)argv;
	if (usage(argc, "reboot"))
		return -1;
	printf("rebooting\n");
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
SHELL_CMD(reboot, "reboot", "reboot", "reset the machine", cmd_reboot);
