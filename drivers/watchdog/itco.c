/*
 * The TCO watchdog timer of Intel's ICH9 (QEMU's q35 LPC bridge 00:1f.0;
 * Intel I/O Controller Hub 9 datasheet: LPC configuration registers PMBASE
 * 0x40, ACPI_CNTL 0x44 and RCBA 0xf0, the TCO I/O registers at PMBASE +
 * 0x60, GCS in chipset configuration space at RCBA + 0x3410; Linux's
 * iTCO_wdt, "version 2", as the reference for their use). The timer counts
 * TCO_TMR ticks of 0.6 s; the first time it reaches zero it sets TIMEOUT
 * and starts again, the second time it resets the box, unless GCS's
 * NO_REBOOT (cleared here) or the board's NO_REBOOT strap (QEMU's
 * ICH9-LPC.noreboot) forbids it. A write to TCO_RLD starts both rounds
 * afresh; SECOND_TO_STS, in the resume well, says after the reset that the
 * timer caused it.
 */
#include <stdio.h>
#include "drivers/pci/pci.h"
#include "drivers/watchdog/wdt.h"
#include "kernel/cpu.h"
#include "kernel/mem.h"

#define PMBASE 0x40		/* LPC config: ACPI I/O base, bits 15:7 */
#define PMBASE_MASK 0xff80
#define ACPI_CNTL 0x44
#define ACPI_CNTL_EN (1 << 7)	/* the PMBASE I/O range decodes */
#define RCBA 0xf0		/* LPC config: chipset configuration space base, bits 31:14 */
#define RCBA_EN (1 << 0)
#define RCBA_MASK 0xffffc000u
#define GCS 0x3410		/* general control and status */
#define GCS_NO_REBOOT (1 << 5)

#define SMI_EN 0x30		/* from PMBASE */
#define SMI_EN_TCO_EN (1 << 13)	/* TIMEOUT raises an SMI: left to the OS here, as Linux */
#define TCO 0x60		/* TCO registers, from PMBASE */
#define TCO_RLD 0x00		/* any write reloads the timer */
#define TCO1_STS 0x04
#define TCO1_STS_TIMEOUT (1 << 3)
#define TCO2_STS 0x06
#define TCO2_STS_SECOND_TO (1 << 1)	/* the second timeout: it reset the box (write 1 clears) */
#define TCO1_CNT 0x08
#define TCO1_CNT_TMR_HLT (1 << 11)	/* the timer stands still */
#define TCO_TMR 0x12		/* initial value in ticks, 10 bits; 0 and 1 are ignored */
#define TCO_TMR_MAX 0x3ff
#define TICK_MS 600
/* Two rounds of TCO_TMR_MAX ticks: the longest watchdog= this timer gives. */
#define SECONDS_MAX (2 * TCO_TMR_MAX * TICK_MS / 1000)

static uint16_t tco;		/* I/O port of the TCO registers */

/* The feed (wdt_claim): reload, both rounds start again. */
static void keepalive(void)
{
	outw(tco + TCO_RLD, 1);
}

/* GCS's NO_REBOOT cleared; 0, or -1 when it stays set (firmware lock). */
static int allow_reboot(struct pci_dev *d, const char *bdf)
{
	uint32_t rcba = pci_read32(d, RCBA);
	if (!(rcba & RCBA_EN) || mmio_map(rcba & RCBA_MASK, 0x4000) != 0) {
		printf("watchdog: iTCO %s: chipset configuration space (RCBA %#x) not enabled: not armed\n", bdf, rcba);
		return -1;
	}
	volatile uint32_t *gcs = (volatile uint32_t *)(uintptr_t)((rcba & RCBA_MASK) + GCS);
	*gcs &= ~(uint32_t)GCS_NO_REBOOT;
	if (*gcs & GCS_NO_REBOOT) {
		printf("watchdog: iTCO %s: GCS NO_REBOOT stays set (the firmware's lock): not armed\n", bdf);
		return -1;
	}
	return 0;
}

static int itco_probe(struct pci_dev *d, const struct pci_id *id)
{
	char bdf[PCI_BDF_LEN], who[32];
	uint16_t pmbase = pci_read16(d, PMBASE) & PMBASE_MASK;

	(void)id;
	pci_bdf(d, bdf);
	snprintf(who, sizeof(who), "iTCO %s", bdf);
	if (!pmbase || !(pci_read8(d, ACPI_CNTL) & ACPI_CNTL_EN)) {
		printf("watchdog: iTCO %s: the firmware left PMBASE off (%#x): not used\n", bdf, pmbase);
		return -1;
	}
	tco = (uint16_t)(pmbase + TCO);
	const char *last = inw(tco + TCO2_STS) & TCO2_STS_SECOND_TO ? "; the last reset was this watchdog's" : "";
	if (!wdt_seconds) {
		printf("watchdog: iTCO %s (ICH9 TCO at %#x), off (watchdog=0)%s\n", bdf, tco, last);
		return 0;
	}
	if (wdt_seconds > SECONDS_MAX) {
		printf("watchdog: iTCO %s: watchdog=%ld is more than its %d s: not armed\n", bdf, wdt_seconds,
		       SECONDS_MAX);
		return -1;
	}
	if (allow_reboot(d, bdf) != 0 || wdt_claim(who, keepalive) != 0)
		return -1;
	/* Two rounds before the reset: each half of watchdog=, rounded up to ticks. */
	uint16_t ticks = (uint16_t)((wdt_seconds * 1000 + 2 * TICK_MS - 1) / (2 * TICK_MS));
	outl(pmbase + SMI_EN, inl(pmbase + SMI_EN) & ~(uint32_t)SMI_EN_TCO_EN);
	outw(tco + TCO1_CNT, inw(tco + TCO1_CNT) | TCO1_CNT_TMR_HLT);
	outw(tco + TCO_TMR, ticks < 2 ? 2 : ticks);
	outw(tco + TCO1_STS, TCO1_STS_TIMEOUT);	/* write 1 clears */
	outw(tco + TCO2_STS, TCO2_STS_SECOND_TO);
	outw(tco + TCO1_CNT, inw(tco + TCO1_CNT) & ~TCO1_CNT_TMR_HLT);
	keepalive();
	printf("watchdog: iTCO %s (ICH9 TCO at %#x) armed: a reset %ld s after the cores' loops stop%s\n", bdf, tco,
	       wdt_seconds, last);
	return 0;
}

/* ICH9 LPC interface bridges (the family's TCO v2). */
static const struct pci_id itco_ids[] = {
	{ 0x8086, 0x2918, "82801IB (ICH9) LPC Interface Controller" },
	{ 0x8086, 0x2916, "82801IR (ICH9R) LPC Interface Controller" },
	{ 0x8086, 0x2912, "82801IH (ICH9DH) LPC Interface Controller" },
	{ 0x8086, 0x2914, "82801IO (ICH9DO) LPC Interface Controller" },
	{ 0x8086, 0x2917, "ICH9M-E LPC Interface Controller" },
	{ 0x8086, 0x2919, "ICH9M LPC Interface Controller" },
	{ 0, 0, 0 },
};
PCI_DRIVER(itco, .name = "iTCO", .ids = itco_ids, .probe = itco_probe, .other = "watchdog");
