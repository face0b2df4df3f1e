/* Interrupt self-test of the emulated Intel NICs (knob irqtest=1). */
#ifndef IRQTEST_H
#define IRQTEST_H

/*
 * With irqtest=1: for each 82540EM (8086:100e), 82574L (8086:10d3) and
 * 82576 (8086:10c9) not claimed by a driver, set up interrupts with
 * pci_irq_setup (in the mode IntMode allows), raise Link Status Change by
 * writing ICS, and count what reaches which handler on which vector; then
 * the same with the vector masked (held pending) and unmasked. Prints one
 * "irqtest:" line per step and a summary. Afterwards the device's causes
 * are masked, its interrupts released and its command register restored,
 * so the drivers find it as the bus walk left it. Call with interrupts on,
 * before pci_probe_drivers. Does nothing with irqtest=0 (the default).
 */
void irqtest_run(void);
#endif
