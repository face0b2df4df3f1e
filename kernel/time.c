/* TSC calibration and the ns clock (Intel SDM vol. 3B 17.17). */
#include "kernel/cpu.h"
#include "kernel/time.h"

struct tsc_info tsc;
static uint64_t tsc_base;
static uint64_t ns_mult;	/* ns per cycle, 32.32 fixed point */

#define PIT_HZ 1193182
#define PIT_MS 2

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

/* Count TSC cycles across PIT_MS of PIT channel 2 in mode 0, gated by port 0x61. */
static uint64_t tsc_from_pit(void)
{
	uint16_t latch = PIT_HZ * PIT_MS / 1000;
	outb(0x61, (inb(0x61) & ~0x02) | 0x01);	/* gate on, speaker off */
	outb(0x43, 0xb0);			/* channel 2, lo/hi, mode 0, binary */
	outb(0x42, latch & 0xff);
	outb(0x42, latch >> 8);
	uint64_t t0 = rdtsc();
	for (uint64_t n = 0; !(inb(0x61) & 0x20); n++)
		if (n > 100000000)
			return 0;	/* no PIT */
	return (rdtsc() - t0) * 1000 / PIT_MS;
}

void tsc_calibrate(void)
{
	uint32_t r[4];
	cpuid(0x80000000, 0, r);
	if (r[0] >= 0x80000007) {
		cpuid(0x80000007, 0, r);
		tsc.invariant = (r[3] >> 8) & 1;
	}
	tsc.hz = tsc_from_cpuid();
	tsc.method = "CPUID 0x15";
	if (!tsc.hz) {
		tsc.hz = tsc_from_pit();
		tsc.method = "PIT channel 2, 2 ms";
	}
	if (!tsc.hz) {
		tsc.hz = 1000000000;
		tsc.method = "none worked: assuming 1 GHz";
	}
	ns_mult = ((uint64_t)1000000000 << 32) / tsc.hz;
	tsc_base = rdtsc();
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
