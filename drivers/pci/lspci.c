/*
 * The device list, in the style of Linux `lspci -vvnn`: the boot report
 * prints it and so does the `lspci` shell command. Reads config space live
 * (command register, capability fields), so it shows the current state.
 */
#include <stdio.h>
#include "drivers/pci/pcipriv.h"
#include "kernel/shell.h"

/* Sizes as lspci prints them: 32, 4K, 128K, 16M. */
static const char *size_str(char *buf, size_t len, uint64_t x)
{
	static const char unit[] = " KMGTPE";
	int i = 0;
	while (x >= 1024 && !(x & 1023) && i < 6) {
		x >>= 10;
		i++;
	}
	if (i)
		snprintf(buf, len, "%lu%c", x, unit[i]);
	else
		snprintf(buf, len, "%lu", x);
	return buf;
}

static void print_bars(const struct pci_dev *d, uint16_t cmd)
{
	char s[24];	/* a 64-bit size and its unit */
	for (int i = 0; i < 6; i++) {
		const struct pci_bar *b = &d->bar[i];
		if (b->type == PCI_BAR_NONE)
			continue;
		printf("\tRegion %d: ", i);
		const char *what = b->type == PCI_BAR_IO ? "I/O ports" : "Memory";
		if (b->addr)
			printf(b->type == PCI_BAR_IO ? "%s at %04lx" : "%s at %08lx", what, b->addr);
		else
			printf("%s at <unassigned>", what);
		if (b->type != PCI_BAR_IO)
			printf(" (%d-bit, %sprefetchable)", b->type == PCI_BAR_MEM64 ? 64 : 32,
			       b->prefetch ? "" : "non-");
		int on = cmd & (b->type == PCI_BAR_IO ? PCI_COMMAND_IO : PCI_COMMAND_MEMORY);
		printf("%s [size=%s]\n", on ? "" : " [disabled]", size_str(s, sizeof(s), b->size));
	}
}

static void print_window(const char *what, uint64_t base, uint64_t limit)
{
	if (base > limit)
		printf("\t%s behind bridge: [disabled]\n", what);
	else
		printf("\t%s behind bridge: %08lx-%08lx\n", what, base, limit);
}

static void print_bridge(const struct pci_cfg *c)
{
	struct pci_bridge_info br;
	pci_bridge_decode(c, &br);
	printf("\tBus: primary=%02x, secondary=%02x, subordinate=%02x\n", br.primary, br.secondary,
	       br.subordinate);
	print_window("I/O", br.io_base, br.io_limit);
	print_window("Memory", br.mem_base, br.mem_limit);
	print_window("Prefetchable memory", br.pref_base, br.pref_limit);
}

static void print_caps(const struct pci_cfg *c)
{
	struct pci_cap caps[PCI_CAPS_MAX];
	char err[96], line[160];
	int n = pci_caps_walk(c, caps, PCI_CAPS_MAX, err, sizeof(err));
	for (int i = 0; i < n; i++) {
		pci_cap_describe(c, &caps[i], line, sizeof(line));
		if (caps[i].ext)
			printf("\tCapabilities: [%03x v%u] %s\n", caps[i].off, caps[i].ver, line);
		else
			printf("\tCapabilities: [%02x] %s\n", caps[i].off, line);
	}
	if (err[0])
		printf("\tCapabilities: error: %s\n", err);
}

static void print_irq(const struct pci_dev *d)
{
	static const char *const modes[] = { "INTx", "MSI", "MSI-X" };
	if (d->irq_pin)
		printf("\tInterrupt: pin %c routed to IRQ %u\n", 'A' + d->irq_pin - 1,
		       pci_read8(d, PCI_INTERRUPT_LINE));
	if (d->int_mode < INT_MODE_INTX || d->int_mode > INT_MODE_MSIX || !d->nvec)
		return;
	printf("\tInterrupts: %s, vector%s", modes[d->int_mode], d->nvec > 1 ? "s" : "");
	for (int k = 0; k < d->nvec; k++)
		printf(" %#x", d->vectors[k]);
	printf("\n");
}

static void print_dev(const struct pci_dev *d)
{
	char b[PCI_BDF_LEN];
	struct pci_cfg c;
	const struct pci_driver *drv = 0;
	const struct pci_id *id = pci_match(d, &drv);
	uint16_t cmd = pci_read16(d, PCI_COMMAND);

	pci_cfg_of(d, &c);
	printf("%s %s [%02x%02x]: %s [%04x:%04x] (rev %02x)\n", pci_bdf(d, b),
	       pci_class_name(d->class, d->subclass), d->class, d->subclass, id ? id->name : "Device",
	       d->vendor, d->device, d->rev);
	if (d->hdr_type == PCI_HEADER_NORMAL)
		printf("\tSubsystem: [%04x:%04x]\n", d->subsys_vendor, d->subsys);
	printf("\tControl: I/O%c Mem%c BusMaster%c DisINTx%c\n", cmd & PCI_COMMAND_IO ? '+' : '-',
	       cmd & PCI_COMMAND_MEMORY ? '+' : '-', cmd & PCI_COMMAND_MASTER ? '+' : '-',
	       cmd & PCI_COMMAND_INTX_DISABLE ? '+' : '-');
	print_irq(d);
	print_bars(d, cmd);
	if (d->hdr_type == PCI_HEADER_BRIDGE)
		print_bridge(&c);
	print_caps(&c);
	if (d->driver)
		printf("\tKernel driver in use: %s\n", d->driver->name);
	else if (drv)
		printf("\tKernel modules: %s\n", drv->name);
}

void pci_print(void)
{
	char how[PCI_ACCESS_LEN];
	pci_size_bars();
	pci_access_str(how);
	printf("pci: %d functions, config space through %s\n", pci_ndevs, how);
	for (int i = 0; i < pci_nnotes; i++)
		printf("pci: %s\n", pci_notes[i]);
	for (int i = 0; i < pci_ndevs; i++)
		print_dev(&pci_devs[i]);
}

static int cmd_lspci(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		printf("usage: lspci (no arguments)\n");
		return -1;
	}
	pci_print();
	return 0;
}
SHELL_CMD(lspci, "lspci", "lspci", "PCI functions: IDs, BARs, capabilities, interrupts, drivers", cmd_lspci);
