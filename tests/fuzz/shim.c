/* What the kernel code compiled into the fuzz harnesses needs from the
 * rest of the kernel: memory from malloc, a fake clock, console output
 * thrown away unless FUZZ_VERBOSE is set, no PCI, one core. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "apps/app.h"
#include "drivers/net/nic.h"
#include "kernel/console.h"
#include "kernel/mem.h"
#include "kernel/time.h"
#include "run/lcore.h"

uint64_t fuzz_tsc = 1000000000ull;
struct tsc_info tsc = { .hz = 1000000000ull };
struct cpu cpus[MAX_CPUS];
int ncpus = 1;
/* run/lcore.c (the cores' poll loops) is not built for the host: one core,
 * whose counters the pages (fuzz_http) and netserver's CPU% read. */
struct lcore lcores[MAX_CPUS];
int nlcores = 1;

void smp_wake(int core)
{
	(void)core;
}
struct mem_info mem;

/* Port clocks (drivers/net/phc.c, linked by fuzz_ptpport only): nic.c's
 * housekeeping and ethtool -T. */
__attribute__((weak)) void phc_housekeeping(struct nic *nic) { (void)nic; }
__attribute__((weak)) void phc_ethtool_T(struct nic *nic) { (void)nic; }

/* Set by a harness to take DMA memory from its own arena (fuzz_lwip). */
void *(*fuzz_dma_alloc)(size_t bytes, size_t align);

void *dma_alloc(size_t bytes, size_t align)
{
	if (fuzz_dma_alloc)
		return fuzz_dma_alloc(bytes, align);
	size_t a = align < 4096 ? 4096 : align;
	void *p = aligned_alloc(a, (bytes + a - 1) / a * a);
	if (p)
		memset(p, 0, bytes);
	return p;
}

void *dma_alloc_below(size_t bytes, size_t align, uint64_t limit)
{
	(void)limit;
	return dma_alloc(bytes, align);
}

void dma_free(void *p, size_t bytes)
{
	(void)bytes;
	free(p);
}

uint64_t now_ns(void)
{
	return fuzz_tsc;
}

uint64_t tsc_to_ns(uint64_t cycles)
{
	return cycles;
}

/* The console: one, what the shell echoes goes nowhere; no input. */
int console_count(void)
{
	return 1;
}

void console_out(int which, const char *s, size_t n)
{
	(void)which;
	(void)s;
	(void)n;
}

void console_out_raw(int which, const char *s, size_t n)
{
	(void)which;
	(void)s;
	(void)n;
}

void console_queue(const char *s, size_t n)
{
	(void)s;
	(void)n;
}

int console_drain(void)
{
	return 0;
}

int console_getc(int which)
{
	(void)which;
	return -1;
}

/* Harness set-up: console output (printf) to /dev/null unless FUZZ_VERBOSE
 * is set; libFuzzer reports on stderr. */
__attribute__((constructor)) static void quiet(void)
{
	if (!getenv("FUZZ_VERBOSE"))
		freopen("/dev/null", "w", stdout);
}
