/*
 * Fault injection for the tests of issue 16 ("faults under traffic"),
 * linked only into build/linerate-fault.elf, never into linerate.elf: the
 * shell command `fault`.
 *
 *   fault txhang <port>    clear TCTL.EN (82574 10.2.5.1, 82576 8.9.1): the
 *                          transmit unit stops taking descriptors, as a
 *                          hung one does; the watchdog must find the hang
 *                          (no descriptor done for 2 s), count it in
 *                          tx_timeout_count and reset the port
 *   fault hold <port> [n]  take n buffers (default all free) out of the
 *                          port's RX pool, as a consumer that keeps them
 *   fault release          give every held buffer back
 *
 * and for the hardening of issue 31 (tests/qemu/test_harden.py), each of
 * which must end in its report and QEMU exit status 35:
 *   fault wtext            write to the kernel's text (read-only: #PF)
 *   fault xheap            call a ret put in the heap (no-execute: #PF)
 *   fault stack [core]     recurse until the stack of this core (or of
 *                          core, from an IPI's handler there) reaches its
 *                          guard page (#DF on its own stack)
 *   fault canary           overrun a local array over its frame's canary
 *
 * and for the hardware watchdog of issue 24 (tests/qemu/test_watchdog.py):
 *   fault stall            core 0 spins with interrupts off, its poll loop
 *                          stopped for good: the watchdog must reset the box
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "drivers/net/e1000x/e1000x.h"
#include "drivers/net/nic.h"
#include "kernel/shell.h"
#include "kernel/lapic.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/trap.h"

#define HOLD_MAX 16384

static struct pkt *held[HOLD_MAX];
static int nheld;

#define USAGE "fault txhang <port> | fault hold <port> [n] | fault release | fault wtext|xheap|canary | " \
	"fault stack [core] | fault stall"

static int usage(void)
{
	printf("usage: " USAGE "\n");
	return -1;
}

static int wtext(void)
{
	printf("fault: writing to the kernel text at %p\n", (void *)wtext);
	*(volatile uint8_t *)wtext = 0xc3;
	return 0;
}

static int xheap(void)
{
	uint8_t *code = malloc(16);
	printf("fault: calling the heap at %p\n", (void *)code);
	code[0] = 0xc3;	/* ret */
	((void (*)(void))code)();
	free(code);
	return 0;
}

static int __attribute__((noinline)) recurse(int depth)
{
	volatile char pad[1024];
	pad[0] = (char)depth;
	return depth < (1 << 30) ? recurse(depth + 1) + pad[0] : 0;
}

static void recurse_here(struct trapframe *tf, void *arg)
{
	(void)tf;
	(void)arg;
	recurse(0);
}

/* Core c's stack overflowed from an interrupt handler on it; the box halts
 * from there, so this core waits (quiet: the report must not mix with a
 * prompt) for up to 5 s. */
static int stack(int c)
{
	printf("fault: recursing, 1 KiB a call, into core %d's guard page\n", c);
	if (c == cpu_id())
		return recurse(0);
	int vec = vector_alloc(recurse_here, 0, "fault");
	if (vec < 0)
		return -1;
	lapic_ipi(cpus[c].apic_id, LAPIC_ICR_FIXED | (uint32_t)vec);
	udelay(5000000);
	vector_free(vec);
	printf("fault: core %d did not fault\n", c);
	return -1;
}

static int stack_here(void)
{
	return stack(cpu_id());
}

static volatile size_t smash_len = 64;

static void __attribute__((noinline)) smash(void)
{
	char buf[16];
	memset(buf, 'A', smash_len);
	__asm__ volatile("" : : "r"(buf) : "memory");
}

static int canary(void)
{
	printf("fault: writing %zu bytes into a 16-byte local array\n", smash_len);
	smash();
	return 0;
}

static int txhang(struct nic *nic)
{
	if (!strcmp(nic->driver, "virtio_net")) {
		printf("fault: txhang clears an Intel port's TCTL.EN; %s is virtio_net\n", nic->name);
		return -1;
	}
	clear_flags32(to_port(nic)->regs, TCTL, TCTL_EN);
	printf("fault: %s TCTL.EN cleared (TX stopped)\n", nic->name);
	return 0;
}

static int hold(struct nic *nic, long n)
{
	int got = 0;
	struct pkt *p;
	while (got < n && nheld < HOLD_MAX && (p = pkt_alloc(nic->pool))) {
		held[nheld++] = p;
		got++;
	}
	printf("fault: holding %d buffers of %s (pool_free now %u)\n", got, nic->name, nic->pool->nfree);
	return 0;
}

static int stall(void)
{
	printf("fault: core 0 stalls (interrupts off, its loop stopped)\n");
	fflush(stdout);
	irq_off();
	for (;;)
		cpu_relax();
	return 0;
}

static int cmd_fault(int argc, char **argv)
{
	static const struct { const char *name; int (*fn)(void); } harden[] = {
		{ "wtext", wtext }, { "xheap", xheap }, { "stack", stack_here }, { "canary", canary },
		{ "stall", stall },
	};
	for (size_t i = 0; argc == 2 && i < sizeof(harden) / sizeof(harden[0]); i++)
		if (!strcmp(argv[1], harden[i].name))
			return harden[i].fn();
	if (argc == 2 && !strcmp(argv[1], "release")) {
		printf("fault: released %d buffers\n", nheld);
		pkt_free_bulk(held, nheld);
		nheld = 0;
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "stack")) {
		char *end;
		long c = strtol(argv[2], &end, 10);
		if (*end || c < 0 || c >= ncpus)
			return usage();
		return stack((int)c);
	}
	struct nic *nic = argc >= 3 ? nic_find(argv[2]) : 0;
	if (!nic)
		return usage();
	if (argc == 3 && !strcmp(argv[1], "txhang"))
		return txhang(nic);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "hold")) {
		char *end = 0;
		long n = argc == 4 ? strtol(argv[3], &end, 10) : HOLD_MAX;
		if (end && (*end || n < 0))
			return usage();
		return hold(nic, n);
	}
	return usage();
}
SHELL_CMD(fault, "fault", USAGE,
	  "test image only: stop a port's TX unit, hold/release RX pool buffers, or break a protection "
	  "(write text, run heap, overflow the stack, smash a canary), stall core 0 for the watchdog", cmd_fault);
