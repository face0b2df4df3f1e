/*
 * The console= knob: which 16550 the console is on, in Linux's forms
 * (Documentation/admin-guide/serial-console.rst: ttyS<n>[,<baud><parity><bits>];
 * kernel-parameters.txt, earlycon: uart,io,<addr>[,<baud>]). Parsed with the
 * other knobs before the first boot line; console_apply() then moves the
 * console there. A refused value leaves COM1 at 115200 8N1.
 */
#include <stdio.h>
#include <string.h>
#include "kernel/console.h"
#include "kernel/fmt.h"
#include "kernel/knobs.h"
#include "kernel/uart.h"

#define LCR_WLS(bits) ((bits) - 5)	/* word length select: 5..8 bits */
#define LCR_PEN 0x08			/* parity enable */
#define LCR_EPS 0x10			/* even parity select */

/* The legacy COM ports as Linux's ttyS0-3 (arch/x86 SERIAL_PORT_DFNS). */
static const uint16_t com_base[4] = { 0x3f8, 0x2f8, 0x3e8, 0x2e8 };
static const uint32_t bauds[] = { 1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200 };

/* A console's port and line settings, and where they came from. */
struct console_cfg {
	char name[8];		/* "ttyS1", or "uart" for earlycon's form */
	uint16_t base;		/* I/O port */
	uint32_t baud;
	char parity;		/* 'n', 'o', 'e' */
	int bits;		/* 5..8 */
	const char *from;	/* "default" or "from console=" */
};
static const struct console_cfg com1 = { "ttyS0", 0x3f8, UART_BAUD_BASE, 'n', 8, "default" };
static struct console_cfg cons = com1;
static struct console_cfg missing;	/* console= named a port where no UART answers */

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

/* "uart,io,ADDR[,BAUD]": earlycon's form for a 16550 at an I/O port. */
static int parse_earlycon(const char *s, struct console_cfg *c, char *err, size_t len)
{
	char addr[12];
	size_t n = strcspn(s, ",");
	uint64_t a;

	if (field(s, n, &a, addr, sizeof(addr)) != 0 || a == 0 || a > 0xfff8) {
		snprintf(err, len, "I/O address '%s' is not 0x1-0xfff8", addr);
		return -1;
	}
	strcpy(c->name, "uart");
	c->base = (uint16_t)a;
	return s[n] == ',' ? parse_options(s + n + 1, c, err, len) : 0;
}

static int parse_console(const char *v, char *err, size_t len)
{
	struct console_cfg c = cons;

	if (strncmp(v, "uart,io,", 8) == 0 || strncmp(v, "uart8250,io,", 12) == 0) {
		if (parse_earlycon(strchr(v, ',') + 4, &c, err, len))
			return -1;
	} else if (strncmp(v, "ttyS", 4) == 0 && v[4] >= '0' && v[4] <= '3' && (v[5] == '\0' || v[5] == ',')) {
		snprintf(c.name, sizeof(c.name), "ttyS%c", v[4]);
		c.base = com_base[v[4] - '0'];
		if (v[5] == ',' && parse_options(v + 6, &c, err, len))
			return -1;
	} else {
		snprintf(err, len, strncmp(v, "uart,mmio", 9) == 0 ? "MMIO UARTs are not supported" : "names no port");
		return -1;
	}
	c.from = "from console=";
	cons = c;
	return 0;
}

static void show_console(char *buf, size_t len)
{
	if (strcmp(cons.name, "uart") == 0)
		snprintf(buf, len, "uart,io,%#x,%u", cons.base, cons.baud);
	else
		snprintf(buf, len, "%s,%u%c%d", cons.name, cons.baud, cons.parity, cons.bits);
}

KNOB(console, .name = "console", .type = KNOB_FUNC, .parse = parse_console, .show = show_console,
     .help = "the serial console, as Linux's console=: ttyS0-ttyS3 are COM1-4 (0x3f8, 0x2f8, 0x3e8, 0x2e8), "
	     "options BAUD, parity n|o|e, bits 5-8 (ttyS1,57600n8); earlycon's uart,io,ADDR[,BAUD] (or uart8250,io,...) "
	     "for any 16550 at an I/O port; default ttyS0,115200n8 (a refused value keeps it)",
     .accepted = "ttyS0|ttyS1|ttyS2|ttyS3[,BAUD[n|o|e[5-8]]] or uart,io,ADDR[,BAUD]; "
		 "BAUD 1200|2400|4800|9600|19200|38400|57600|115200");

static uint8_t lcr(const struct console_cfg *c)
{
	return LCR_WLS(c->bits) | (c->parity != 'n' ? LCR_PEN : 0) | (c->parity == 'e' ? LCR_EPS : 0);
}

void console_init(void)
{
	uart_init(cons.base, cons.baud, lcr(&cons));
}

void console_apply(void)
{
	if (strcmp(cons.from, com1.from) == 0)
		return;	/* COM1 as console_init() left it */
	if (!uart_present(cons.base)) {
		missing = cons;
		cons = com1;
		return;
	}
	console_init();
}

void console_report(void)
{
	if (missing.base)
		printf("console: no UART answers at %#x (%s from console=, LSR reads 0xff): ttyS0 kept\n",
		       missing.base, missing.name);
	printf("console: %s %#x %u %d%c1 (%s)\n", cons.name, cons.base, cons.baud, cons.bits,
	       cons.parity - 'a' + 'A', cons.from);
}
