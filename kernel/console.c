/*
 * The console= knob: which 16550s the consoles are on, in Linux's forms
 * (Documentation/admin-guide/serial-console.rst: ttyS<n>[,<baud><parity><bits>],
 * several console= at once; kernel-parameters.txt, earlycon:
 * uart,io|mmio|mmio32,<addr>[,<baud>]). Parsed with the other knobs before
 * the first boot line; console_apply() then moves the consoles there. A
 * refused value leaves COM1 at 115200 8N1. Without console=, the ACPI SPCR
 * table names the port, as Linux's earlycon (drivers/acpi/spcr.c) takes it.
 * console=tty0 is the screen (kernel/fb.c) with the PS/2 keyboard
 * (kernel/kbd.c); without console= it is added when the loader set up one.
 */
#include <stdio.h>
#include <string.h>
#include "drivers/pci/pciserial.h"
#include "kernel/acpi.h"
#include "kernel/console.h"
#include "kernel/fb.h"
#include "kernel/fmt.h"
#include "kernel/kbd.h"
#include "kernel/knobs.h"
#include "kernel/mem.h"
#include "kernel/uart.h"

#define LCR_WLS(bits) ((bits) - 5)	/* word length select: 5..8 bits */
#define LCR_PEN 0x08			/* parity enable */
#define LCR_EPS 0x10			/* even parity select */

/* The legacy COM ports as Linux's ttyS0-3 (arch/x86 SERIAL_PORT_DFNS). */
static const uint16_t com_base[4] = { 0x3f8, 0x2f8, 0x3e8, 0x2e8 };
static const uint32_t bauds[] = { 1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200 };

/* A console's port and line settings, and where they came from. */
struct console_cfg {
	char name[8];		/* "ttyS1", "tty0" (the screen), or "uart" for earlycon's form */
	int screen;		/* tty0: kernel/fb.c, input from kernel/kbd.c */
	int pci;		/* ttyS4 and up: PCI port pci - 1 (base found after pci_init), else 0 */
	struct uart uart;
	uint32_t baud;
	char parity;		/* 'n', 'o', 'e' */
	int bits;		/* 5..8 */
	const char *from;	/* "default", "from console=", "from SPCR" */
};
#define COM1 { "ttyS0", 0, 0, { UART_IO, 0x3f8, 0 }, UART_BAUD_BASE, 'n', 8, "default" }
#define PCI_PORTS 6	/* ttyS4-ttyS9 */
static const struct console_cfg com1 = COM1;
static struct console_cfg cons[CONSOLE_MAX] = { COM1 };
static int ncons = 1;
static int from_knob;	/* console= was given: its ports replace COM1 */
static struct console_cfg missing[CONSOLE_MAX];	/* console= named a port where no UART answers */
static int nmissing;
static int npci;	/* 16550 ports found on PCI serial cards */
static char spcr_err[120];	/* why the SPCR's port was not used, "" if it was or none */
static char screen_err[160];	/* why the screen is not used, "" if it is or none was asked for or found */
static int keyboard;		/* an i8042 answered: the screen takes input */

static const char *const iotype_name[] = { [UART_IO] = "io", [UART_MMIO] = "mmio", [UART_MMIO32] = "mmio32" };

static int baud_ok(uint64_t b)
{
	for (size_t i = 0; i < sizeof(bauds) / sizeof(bauds[0]); i++)
		if (b == bauds[i])
			return 1;
	return 0;
}

/* The n bytes at s as a number (decimal or 0x hex) into *v, and as text
 * (cut to len bytes) for a message; 0, or -1 if they are no number. */
static int field(const char *s, size_t n, uint64_t *v, char *text, size_t len)
{
	snprintf(text, len, "%.*s", (int)(n < len - 1 ? n : len - 1), s);
	return n == 0 || n >= len || parse_u64(text, v) != 0 ? -1 : 0;
}

/* "BAUD[PARITY[BITS]]" as Linux's uart_parse_options(); 0 or -1 with why. */
static int parse_options(const char *s, struct console_cfg *c, char *err, size_t len)
{
	char num[12];
	size_t n = strspn(s, "0123456789");
	uint64_t b;

	if (field(s, n, &b, num, sizeof(num)) != 0 || !baud_ok(b)) {
		snprintf(err, len, "baud '%s' is not one of 1200..115200", num);
		return -1;
	}
	c->baud = (uint32_t)b;
	s += n;
	if (*s != '\0' && !strchr("noe", *s)) {
		snprintf(err, len, "parity '%c' is not n, o or e", *s);
		return -1;
	}
	if (*s != '\0')
		c->parity = *s++;
	if (*s != '\0' && (*s < '5' || *s > '8' || s[1] != '\0')) {
		snprintf(err, len, "'%s' after the parity is not 5, 6, 7 or 8 bits", s);
		return -1;
	}
	if (*s != '\0')
		c->bits = *s - '0';
	return 0;
}

/* "IOTYPE,ADDR[,BAUD]" after earlycon's "uart,": a 16550 at an I/O port
 * (io) or at a physical address (mmio: byte registers, mmio32: 32-bit). */
static int parse_earlycon(const char *s, struct console_cfg *c, char *err, size_t len)
{
	char addr[20];
	size_t n = strcspn(s, ",");
	uint64_t a;
	int t;

	for (t = UART_MMIO32; t >= UART_IO; t--)
		if (strncmp(s, iotype_name[t], n) == 0 && iotype_name[t][n] == '\0')
			break;
	if (t < UART_IO) {
		snprintf(err, len, "'%.*s' is not io, mmio or mmio32", (int)(n < 12 ? n : 12), s);
		return -1;
	}
	s += n + (s[n] == ',');
	n = strcspn(s, ",");
	if (t == UART_IO && (field(s, n, &a, addr, sizeof(addr)) != 0 || a == 0 || a > 0xfff8)) {
		snprintf(err, len, "I/O address '%s' is not 0x1-0xfff8", addr);
		return -1;
	}
	if (t != UART_IO && (field(s, n, &a, addr, sizeof(addr)) != 0 || a == 0 || a >> 48 || a % (t == UART_MMIO32 ? 4 : 1))) {
		snprintf(err, len, "MMIO address '%s' is not a physical address%s", addr,
			 t == UART_MMIO32 ? " on a 4-byte boundary" : "");
		return -1;
	}
	strcpy(c->name, "uart");
	c->uart.iotype = (enum uart_iotype)t;
	c->uart.base = a;
	return s[n] == ',' ? parse_options(s + n + 1, c, err, len) : 0;
}

static int parse_console(const char *v, char *err, size_t len)
{
	struct console_cfg c = com1;

	if (strncmp(v, "uart,", 5) == 0 || strncmp(v, "uart8250,", 9) == 0) {
		if (parse_earlycon(strchr(v, ',') + 1, &c, err, len))
			return -1;
	} else if (strcmp(v, "tty0") == 0) {
		strcpy(c.name, "tty0");
		c.screen = 1;
		c.uart.base = 0;
	} else if (strncmp(v, "tty", 3) == 0 && v[3] >= '1' && v[3] <= '9') {
		snprintf(err, len, "the screen is tty0 (there are no other virtual terminals)");
		return -1;
	} else if (strncmp(v, "ttyS", 4) == 0 && v[4] >= '0' && v[4] <= '9' && (v[5] == '\0' || v[5] == ',')) {
		snprintf(c.name, sizeof(c.name), "ttyS%c", v[4]);
		c.pci = v[4] >= '4' ? v[4] - '4' + 1 : 0;
		c.uart.base = c.pci ? 0 : com_base[v[4] - '0'];
		if (v[5] == ',' && parse_options(v + 6, &c, err, len))
			return -1;
	} else {
		snprintf(err, len, "names no port");
		return -1;
	}
	if (!from_knob)
		ncons = 0;	/* the first console= replaces COM1 */
	for (int i = 0; i < ncons; i++)
		if (cons[i].uart.iotype == c.uart.iotype && cons[i].uart.base == c.uart.base && cons[i].pci == c.pci) {
			snprintf(err, len, "an earlier console= names the same port");
			return -1;
		}
	if (ncons == CONSOLE_MAX) {
		snprintf(err, len, "more than %d consoles", CONSOLE_MAX);
		return -1;
	}
	from_knob = 1;
	c.from = "from console=";
	cons[ncons++] = c;
	return 0;
}

static void show_one(const struct console_cfg *c, char *buf, size_t len)
{
	if (c->screen)
		snprintf(buf, len, "tty0");
	else if (strcmp(c->name, "uart") == 0)
		snprintf(buf, len, "uart,%s,%#lx,%u", iotype_name[c->uart.iotype], c->uart.base, c->baud);
	else
		snprintf(buf, len, "%s,%u%c%d", c->name, c->baud, c->parity, c->bits);
}

static void show_console(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < ncons && used + 1 < len; i++) {
		if (i)
			buf[used++] = ' ';
		show_one(&cons[i], buf + used, len - used);
		used += strlen(buf + used);
	}
}

KNOB(console, .name = "console", .type = KNOB_FUNC, .parse = parse_console, .show = show_console,
     .repeatable = 1,
     .help = "a serial console, as Linux's console=; repeatable, up to 4: messages go to each, the shell reads "
	     "all and answers on the one a command came from. ttyS0-ttyS3 are COM1-4 (0x3f8, 0x2f8, 0x3e8, 0x2e8), "
	     "ttyS4-ttyS9 the 16550 ports of PCI serial cards in bus order (as Linux numbers them), "
	     "options BAUD, parity n|o|e, bits 5-8 (ttyS1,57600n8); earlycon's uart,io,ADDR[,BAUD] (or uart8250,...) "
	     "for any 16550 at an I/O port, uart,mmio,ADDR / uart,mmio32,ADDR at a physical address (byte or "
	     "32-bit registers); tty0 the screen (the loader's framebuffer, else VGA text mode) with the PS/2 "
	     "keyboard; default ttyS0,115200n8, and tty0 when the loader set up a screen (a refused value keeps "
	     "them)",
     .accepted = "ttyS0-ttyS9[,BAUD[n|o|e[5-8]]], uart,io|mmio|mmio32,ADDR[,BAUD] or tty0; "
		 "BAUD 1200|2400|4800|9600|19200|38400|57600|115200");

static uint8_t lcr(const struct console_cfg *c)
{
	return LCR_WLS(c->bits) | (c->parity != 'n' ? LCR_PEN : 0) | (c->parity == 'e' ? LCR_EPS : 0);
}

void console_init(void)
{
	for (int i = 0; i < ncons; i++)
		if (!cons[i].screen)
			uart_init(&cons[i].uart, cons[i].baud, lcr(&cons[i]));
}

/* The SPCR's port as Linux's acpi_parse_spcr() takes it: a 16550 or 16450
 * (interface types 0, 0x12, 1) at an I/O port or in memory (32-bit access:
 * mmio32), the baud rate by its code (0, "as is": 0 here, read from the
 * divisor latch once the port answers). 0, or -1
 * with why. */
static int spcr_console(const struct acpi_spcr *t, struct console_cfg *c, char *err, size_t len)
{
	static const uint32_t spcr_baud[8] = { [3] = 9600, [4] = 19200, [6] = 57600, [7] = UART_BAUD_BASE };

	if (t->bad_checksum)
		snprintf(err, len, "its checksum is wrong (its %u bytes do not sum to 0)", t->length);
	else if (t->length < ACPI_SPCR_MIN_LEN)
		snprintf(err, len, "it is %u bytes, fewer than %d", t->length, ACPI_SPCR_MIN_LEN);
	else if (t->interface_type > 1 && t->interface_type != 0x12)
		snprintf(err, len, "interface type %#x is not a 16550 (0, 0x12) or 16450 (1)", t->interface_type);
	else if (t->space_id > 1)
		snprintf(err, len, "address space %u is neither memory (0) nor I/O (1)", t->space_id);
	else if (!t->address || (t->space_id == 1 && t->address > 0xfff8) || t->address >> 48)
		snprintf(err, len, "base address %#lx is no %s address", t->address, t->space_id ? "I/O" : "memory");
	else if (t->baud_code >= 8 || (t->baud_code && !spcr_baud[t->baud_code]))
		snprintf(err, len, "baud rate code %u is not 0 (as is), 3 (9600), 4 (19200), 6 (57600) or 7 (115200)",
			 t->baud_code);
	else {
		c->uart.iotype = t->space_id == 1 ? UART_IO : t->access_size == 3 ? UART_MMIO32 : UART_MMIO;
		c->uart.base = t->address;
		c->baud = spcr_baud[t->baud_code];
		strcpy(c->name, "uart");
		for (int i = 0; i < 4; i++)
			if (c->uart.iotype == UART_IO && c->uart.base == com_base[i])
				snprintf(c->name, sizeof(c->name), "ttyS%d", i);
		c->from = "from SPCR";
		return 0;
	}
	return -1;
}

/* 1 if c's UART is reachable (MMIO mapped uncached, a PCI port found)
 * and answers. */
static int reachable(struct console_cfg *c, const uint16_t *pci_bases, int npci)
{
	if (c->screen)
		return 1;	/* fb_init said so */
	if (c->pci && c->pci > npci)
		return 0;
	if (c->pci)
		c->uart.base = pci_bases[c->pci - 1];
	if (c->uart.iotype != UART_IO && mmio_map(c->uart.base, 8 * 4) != 0)
		return 0;
	return uart_present(&c->uart);
}

/* The screen for tty0 (console=tty0, or without console= the loader's
 * framebuffer) and the keyboard. 1 if it is used. */
static int screen(const struct boot_fb *fb, int uefi, int asked)
{
	char why[120];

	if (fb_init(fb, asked && !uefi, uefi ? "UEFI GOP" : "Multiboot2 framebuffer tag") != 0) {
		if (asked || fb->type != BOOT_FB_NONE) {
			fb_describe(why, sizeof(why));
			snprintf(screen_err, sizeof(screen_err), "tty0 is not used: %s", why);
		}
		return 0;
	}
	keyboard = kbd_init() == 0;
	return 1;
}

void console_apply(const struct boot_fb *fb, int uefi)
{
	uint16_t pci_bases[PCI_PORTS];
	int n = 0;
	int spcr = !from_knob && acpi.spcr.length && spcr_console(&acpi.spcr, &cons[0], spcr_err, sizeof(spcr_err)) == 0;
	int asked = 0;

	for (int i = 0; i < ncons; i++)
		asked |= cons[i].screen;
	if (asked && !screen(fb, uefi, 1))
		for (int i = 0; i < ncons; i++)
			if (cons[i].screen) {	/* left out, said why */
				memmove(&cons[i], &cons[i + 1], (size_t)(ncons - i - 1) * sizeof(cons[0]));
				ncons--;
			}
	if (!from_knob && fb->type != BOOT_FB_NONE && screen(fb, uefi, 0))
		cons[ncons++] = (struct console_cfg){ .name = "tty0", .screen = 1, .from = "default" };
	if (!from_knob && !spcr)
		return;	/* COM1 as console_init() left it */
	int want_pci = 0;
	for (int i = 0; i < ncons; i++)
		want_pci |= cons[i].pci;
	if (want_pci)	/* only then: finding them sizes every BAR, boot time */
		npci = pci_serial_ports(pci_bases, PCI_PORTS);
	for (int i = 0; i < ncons; i++) {
		if (reachable(&cons[i], pci_bases, npci)) {
			if (!cons[i].baud)	/* SPCR's "as is" */
				cons[i].baud = uart_baud(&cons[i].uart);
			cons[n++] = cons[i];
		}
		else
			missing[nmissing++] = cons[i];
	}
	ncons = n;
	if (!ncons)
		cons[ncons++] = com1;
	console_init();
}

void console_report(void)
{
	if (spcr_err[0])
		printf("console: the ACPI SPCR table's port is not used: %s\n", spcr_err);
	if (screen_err[0])
		printf("console: %s\n", screen_err);
	for (int i = 0; i < nmissing; i++) {
		const struct console_cfg *c = &missing[i];
		if (c->pci > npci)
			printf("console: %s is PCI serial port %d, but %d %s found: not used\n", c->name, c->pci - 1,
			       npci, npci == 1 ? "was" : "were");
		else
			printf("console: no UART answers at %#lx (%s %s %s; its scratch register does not keep "
			       "a byte): not used\n", c->uart.base, c->name, iotype_name[c->uart.iotype], c->from);
	}
	for (int i = 0; i < ncons; i++) {
		const struct console_cfg *c = &cons[i];
		if (c->screen) {
			char what[160];
			fb_describe(what, sizeof(what));
			printf("console: tty0 %s, %s (%s)\n", what,
			       keyboard ? "PS/2 keyboard" : "no i8042 answers: no keyboard", c->from);
			continue;
		}
		printf("console: %s%s%s %#lx %u %d%c1 (%s%s)\n", c->name, c->uart.iotype == UART_IO ? "" : " ",
		       c->uart.iotype == UART_IO ? "" : iotype_name[c->uart.iotype], c->uart.base, c->baud, c->bits,
		       c->parity - 'a' + 'A', c->from, c->pci ? ", a PCI serial card's port" : "");
	}
}

int console_count(void)
{
	return ncons;
}

struct uart *console_uart(int i)
{
	return &cons[i].uart;
}

int console_is_screen(int i)
{
	return cons[i].screen;
}

void console_name(int i, char *buf, size_t len)
{
	show_one(&cons[i], buf, len);
}
