/* TSC-based monotonic clock and the LAPIC periodic tick. */
#ifndef TIME_H
#define TIME_H
#include <stdint.h>

/* How the TSC frequency was found. */
struct tsc_info {
	uint64_t hz;		/* TSC cycles per second */
	const char *method;	/* "CPUID 0x15", "PIT 2 ms" */
	int invariant;		/* CPUID 0x80000007 EDX bit 8 */
};
extern struct tsc_info tsc;

/* Open the calibration window (PIT channel 2; the LAPIC timer too). */
void tsc_calibrate_start(void);
/* Close it, at least 2 ms after the start, and set the TSC frequency:
 * CPUID leaf 0x15 when it names the crystal, else the PIT window. */
void tsc_calibrate(void);
/* Nanoseconds since tsc_calibrate (monotonic). */
uint64_t now_ns(void);
/* Convert TSC cycles to ns / us. */
uint64_t tsc_to_ns(uint64_t cycles);
/* Busy-wait for at least us microseconds. */
void udelay(uint64_t us);

/* Ticks of the LAPIC timer since timer_init; tick_hz per second. */
extern volatile uint64_t ticks;
extern uint32_t tick_hz;
#endif
