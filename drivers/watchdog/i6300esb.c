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

/* The feed (wdt_claim): restart both stages. */
static void keepalive(void)
{
	write_reload(RELOAD_RELOAD);
}

static int esb_probe(struct pci_dev *d, const struct pci_id *id)
{
	char bdf[PCI_BDF_LEN], who[32];
	volatile uint8_t *r = pci_map_bar(d, 0);

	(void)id;
	pci_bdf(d, bdf);
	if (!r) {
		printf("watchdog: i6300esb %s: BAR 0 not mapped: not used\n", bdf);
		return -1;
	}
	uint16_t was = *(volatile uint16_t *)(r + RELOAD);
	snprintf(who, sizeof(who), "i6300esb %s", bdf);
	if (!wdt_seconds) {
		printf("watchdog: i6300esb %s, off (watchdog=0)%s\n", bdf,
		       was & RELOAD_TIMEOUT ? "; the last reset was this watchdog's" : "");
		return 0;
	}
	if (pci_read8(d, LOCK) & LOCK_LOCKED) {
		printf("watchdog: i6300esb %s is locked by the firmware: watchdog=%ld not armed\n", bdf, wdt_seconds);
		return -1;
	}
	if (wdt_claim(who, keepalive) != 0)
		return -1;
	regs = r;
	pci_write16(d, CONFIG, CONFIG_INT_NONE);	/* reset on stage 2, 1 kHz */
	pci_write8(d, LOCK, 0);
	write_reload(RELOAD_TIMEOUT | RELOAD_RELOAD);	/* clear the flag */
	uint32_t preload = (uint32_t)wdt_seconds << 9;	/* each stage: half of it; 20 bits up to WDT_SECONDS_MAX */
	unlock();
	*(volatile uint32_t *)(regs + TIMER1) = preload;
	unlock();
	*(volatile uint32_t *)(regs + TIMER2) = preload;
	write_reload(RELOAD_RELOAD);
	pci_write8(d, LOCK, LOCK_ENABLE);
	printf("watchdog: i6300esb %s armed: a reset %ld s after the cores' loops stop%s\n", bdf, wdt_seconds,
	       was & RELOAD_TIMEOUT ? "; the last reset was this watchdog's" : "");
	return 0;
}

static const struct pci_id esb_ids[] = {
	{ 0x8086, 0x25ab, "6300ESB Watchdog Timer" },
	{ 0, 0, 0 },
};
PCI_DRIVER(i6300esb, .name = "i6300esb", .ids = esb_ids, .probe = esb_probe, .other = "watchdog");
