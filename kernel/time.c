/* TSC calibration and the ns clock (Intel SDM vol. 3B 17.17). */
#include "kernel/cpu.h"
#include "kernel/lapic.h"
#include "kernel/time.h"

struct tsc_info tsc;
static uint64_t tsc_base;
static uint64_t ns_mult;	/* ns per cycle, 32.32 fixed point */

#define PIT_HZ 1193182
#define PIT_MS 2
#define PIT_TRIES 8	/* fresh windows after a lost one */

/* CPUID 0x15: TSC = crystal * EBX / EAX, when ECX gives the crystal (SDM vol. 3B 18.7.3). */
static uint64_t tsc_from_cpuid(void)
{
	uint32_t r[4];
	cpuid(0, 0, r);
	if (r[0] < 0x15)
		return 0;
	cpuid(0x15, 0, r);
	if (!r[0] || !r[1] || !r[2])
		return 0;
	return (uint64_t)r[2] * r[1] / r[0];
}

/*
 * Calibration runs across a window of PIT channel 2 (8254 datasheet, mode 0,
 * counting down from 0xffff at 1.193182 MHz, gated by port 0x61) while the
 * kernel does other work: start latches the count and the TSC (and the LAPIC
 * timer's count, so it is calibrated by the same window), finish waits until
 * at least PIT_MS have passed and latches them again.
 */
static uint64_t cal_tsc0;
static uint16_t cal_pit0;
static int cal_pit_ok;

static uint16_t pit2_count(void)
{
	outb(0x43, 0x80);	/* latch channel 2 */
	uint8_t lo = inb(0x42);
	return (uint16_t)(inb(0x42) << 8 | lo);
}

void tsc_calibrate_start(void)
{
	outb(0x61, (inb(0x61) & ~0x02) | 0x01);	/* gate on, speaker off */
	outb(0x43, 0xb0);			/* channel 2, lo/hi, mode 0, binary */
	outb(0x42, 0xff);
	outb(0x42, 0xff);
	cal_pit0 = pit2_count();
	cal_tsc0 = rdtsc();
	lapic_calibrate_start();
	cal_pit_ok = cal_pit0 != 0xffff || pit2_count() != 0xffff;	/* it counts: a PIT is there */
}

/* TSC cycles per second over the PIT window, or 0 if the window was lost. */
static uint64_t tsc_from_pit(void)
{
	uint16_t need = PIT_HZ * PIT_MS / 1000, now;
	if (!cal_pit_ok)
		return 0;
	while ((uint16_t)(cal_pit0 - (now = pit2_count())) < need && !(inb(0x61) & 0x20))
		cpu_relax();
	uint64_t t1 = rdtsc();
	lapic_calibrate_finish((uint64_t)(uint16_t)(cal_pit0 - now) * 1000000 / PIT_HZ);
	if (inb(0x61) & 0x20)
		return 0;	/* OUT went high: the count wrapped past 0, window unknown */
	return (t1 - cal_tsc0) * PIT_HZ / (uint16_t)(cal_pit0 - now);
}

void tsc_calibrate(void)
{
	uint32_t r[4];
	cpuid(0x80000000, 0, r);
	if (r[0] >= 0x80000007) {
		cpuid(0x80000007, 0, r);
		tsc.invariant = (r[3] >> 8) & 1;
	}
	tsc.hz = tsc_from_pit();
	/* The overlapped window outlived the PIT's 16-bit count (init took
	 * over 54 ms, as on a loaded TCG host): measure fresh ones now, a few
	 * times, as the vCPU can be off the host CPU for a whole window too
	 * (one retry fell back to 1 GHz beside a CI run, halving every wait). */
	for (int i = 0; !tsc.hz && cal_pit_ok && i < PIT_TRIES; i++) {
		tsc_calibrate_start();
		tsc.hz = tsc_from_pit();
	}
	tsc.method = "PIT channel 2, >= 2 ms";
	uint64_t crystal = tsc_from_cpuid();
	if (crystal) {
		tsc.hz = crystal;
		tsc.method = "CPUID 0x15";
	}
	if (!tsc.hz) {
		tsc.hz = 1000000000;
		tsc.method = "no PIT and no CPUID 0x15: assuming 1 GHz";
	}
	ns_mult = ((uint64_t)1000000000 << 32) / tsc.hz;
	tsc_base = cal_tsc0;
}

uint64_t tsc_to_ns(uint64_t cycles)
{
	return (uint64_t)(((unsigned __int128)cycles * ns_mult) >> 32);
}

uint64_t now_ns(void)
{
	return tsc_to_ns(rdtsc() - tsc_base);
}

void udelay(uint64_t us)
{
	uint64_t end = rdtsc() + us * tsc.hz / 1000000;
	while (rdtsc() < end)
		cpu_relax();
}
