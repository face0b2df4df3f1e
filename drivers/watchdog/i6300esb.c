/*
 * Intel 6300ESB watchdog timer (QEMU's -device i6300esb; Intel 6300ESB I/O
 * Controller Hub datasheet, section 16 "Watchdog timer"; register use as
 * Linux's drivers/watchdog/i6300esb.c). Two stages count down from their
 * preload at about 1 kHz; the first expiring raises nothing here (its
 * interrupt type is "none"), the second asserts WDT_OUTPUT: a reset.
 */
#include <stdio.h>
#include "drivers/pci/pci.h"
#include "drivers/watchdog/wdt.h"
#include "kernel/knobs.h"

#define TIMER1 0x00	/* first stage preload (20 bits) */
#define TIMER2 0x04	/* second stage preload */
#define RELOAD 0x0c	/* reload register, 16 bits */
#define RELOAD_RELOAD (1 << 8)	/* restart both stages */
#define RELOAD_TIMEOUT (1 << 9)	/* the second stage expired: the last reset was ours (write 1 clears) */
#define UNLOCK1 0x80	/* written to RELOAD before each write to TIMER1/2 or RELOAD */
#define UNLOCK2 0x86
#define CONFIG 0x60	/* PCI config: WDT configuration register */
#define CONFIG_OUTPUT_OFF (1 << 5)	/* 0: WDT_OUTPUT (reset) on the second stage */
#define CONFIG_1MHZ (1 << 2)		/* 0: the ~1 kHz prescaler */
#define CONFIG_INT_NONE 0x3		/* first stage: no interrupt */
#define LOCK 0x68	/* PCI config: WDT lock register */
#define LOCK_ENABLE (1 << 1)
#define LOCK_LOCKED (1 << 0)	/* firmware locked it (until reset) */
#define SECONDS_MAX 2046	/* preload seconds << 9 within 20 bits, as Linux */

static int64_t seconds;
/* 1 s is refused: the feed comes once a second, as late as the reset. */
static const struct knob_range range[] = { { 0, 0 }, { 2, SECONDS_MAX } };
KNOB(watchdog, .name = "watchdog", .type = KNOB_INT, .ranges = range, .nranges = 2, .ival = &seconds,
     .help = "seconds a wedged core has before the hardware watchdog (i6300esb) resets the box; fed once a "
	     "second while every core's poll loop runs (so at least 2); 0 off; default 0");

static volatile uint8_t *regs;

static void unlock(void)
{
	*(volatile uint16_t *)(regs + RELOAD) = UNLOCK1;
	*(volatile uint16_t *)(regs + RELOAD) = UNLOCK2;
}

static void write_reload(uint16_t v)
{
	unlock();
	*(volatile uint16_t *)(regs + RELOAD) = v;
}

int wdt_armed(void)
{
	return regs != 0;
}

void wdt_keepalive(void)
{
	if (regs)
		write_reload(RELOAD_RELOAD);
}

static int esb_probe(struct pci_dev *d, const struct pci_id *id)
{
	char bdf[PCI_BDF_LEN];
	volatile uint8_t *r = pci_map_bar(d, 0);

	(void)id;
	pci_bdf(d, bdf);
	if (!r) {
		printf("watchdog: i6300esb %s: BAR 0 not mapped: not used\n", bdf);
		return -1;
	}
	uint16_t was = *(volatile uint16_t *)(r + RELOAD);
	if (!seconds) {
		printf("watchdog: i6300esb %s, off (watchdog=0)%s\n", bdf,
		       was & RELOAD_TIMEOUT ? "; the last reset was this watchdog's" : "");
		return 0;
	}
	if (pci_read8(d, LOCK) & LOCK_LOCKED) {
		printf("watchdog: i6300esb %s is locked by the firmware: watchdog=%ld not armed\n", bdf, seconds);
		return -1;
	}
	regs = r;
	pci_write16(d, CONFIG, CONFIG_INT_NONE);	/* reset on stage 2, 1 kHz */
	pci_write8(d, LOCK, 0);
	write_reload(RELOAD_TIMEOUT | RELOAD_RELOAD);	/* clear the flag */
	uint32_t preload = (uint32_t)seconds << 9;	/* each stage: half of it */
	unlock();
	*(volatile uint32_t *)(regs + TIMER1) = preload;
	unlock();
	*(volatile uint32_t *)(regs + TIMER2) = preload;
	write_reload(RELOAD_RELOAD);
	pci_write8(d, LOCK, LOCK_ENABLE);
	printf("watchdog: i6300esb %s armed: a reset %ld s after the cores' loops stop%s\n", bdf, seconds,
	       was & RELOAD_TIMEOUT ? "; the last reset was this watchdog's" : "");
	return 0;
}

static const struct pci_id esb_ids[] = {
	{ 0x8086, 0x25ab, "6300ESB Watchdog Timer" },
	{ 0, 0, 0 },
};
PCI_DRIVER(i6300esb, .name = "i6300esb", .ids = esb_ids, .probe = esb_probe, .other = "watchdog");
