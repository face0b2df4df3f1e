/* Local APIC: timer, EOI, IPIs, in x2APIC mode (MSRs) when the CPU has it,
 * else xAPIC (MMIO). Intel SDM vol. 3A chapter 11. */
#ifndef LAPIC_H
#define LAPIC_H
#include <stdint.h>

/* Enable this CPU's LAPIC with the spurious vector (SDM 11.4.3, 11.9), in
 * x2APIC mode when CPUID.1:ECX[21] says the CPU has it or the firmware
 * left it on, else in xAPIC mode. */
void lapic_init(void);
/* "x2APIC (MSRs)" or "xAPIC (MMIO)": the mode lapic_init chose. */
const char *lapic_mode(void);
/* nox2apic= after the command line and ACPI, before the timer: leave
 * x2APIC for xAPIC unless an APIC ID needs more than 8 bits (the report's
 * mode says which). Core 0 only, before the other cores start. */
void lapic_apply_nox2apic(void);
/* The MADT's Local APIC NMI and Local x2APIC NMI entries that name this
 * core or all (ACPI 6.4 5.2.12.7, 5.2.12.13): each LINTn pin they give
 * delivers an NMI (SDM 11.5.1: edge, the polarity from the MPS INTI
 * flags). Core 0 only, after ACPI and lapic_apply_nox2apic: as Linux
 * (setup_local_APIC), the other cores keep LINT1 masked, so a platform NMI
 * is reported once. Returns the pins set (bit n: LINTn). */
unsigned lapic_nmi_init(void);
/* Count LAPIC timer decrements (divide by 16) across a window of
 * window_us measured by the caller (the TSC calibration window). */
void lapic_calibrate_start(void);
void lapic_calibrate_finish(uint64_t window_us);
/* Start the periodic timer at hz ticks per second on VEC_TIMER,
 * calibrated against the TSC (SDM 11.5.4). */
void timer_init(uint32_t hz);
void lapic_eoi(void);
/* Enable an AP's LAPIC in the BSP's mode (its lapic_init chose it). */
void lapic_init_ap(void);
/* Start this core's periodic timer at the rate timer_init chose. */
void lapic_timer_start(void);

/* ICR command words (SDM vol. 3A 11.6.1): delivery mode, level assert. */
#define LAPIC_ICR_FIXED 0x4000
#define LAPIC_ICR_INIT 0x4500
#define LAPIC_ICR_STARTUP 0x4600
/* Send an IPI (icr: a command word | vector) to the LAPIC with apic_id and
 * wait, bounded, until the LAPIC has sent it (delivery status idle). */
void lapic_ipi(uint32_t apic_id, uint32_t icr);
/* This CPU's APIC ID. */
uint32_t lapic_id(void);
/* Physical base of the LAPIC registers (IA32_APIC_BASE). */
uint64_t lapic_base(void);
#endif
