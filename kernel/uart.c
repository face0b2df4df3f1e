/* 16550 UART (National PC16550D datasheet: registers, LSR bits). */
#include <string.h>
#include "kernel/cpu.h"
#include "kernel/uart.h"

#define RBR 0	/* receive buffer (DLAB=0) */
#define THR 0	/* transmit holding (DLAB=0) */
#define IER 1
#define DLL 0	/* divisor latch (DLAB=1) */
#define DLM 1
#define FCR 2
#define LCR 3
#define LCR_DLAB 0x80	/* divisor latch access */
#define MCR 4
#define LSR 5
#define LSR_DR 0x01	/* data ready */
#define LSR_THRE 0x20	/* transmit holding register empty */

#define FIFO_DEPTH 16
static uint16_t port = 0x3f8;	/* the console's I/O base */
static int tx_room;	/* bytes the transmit FIFO takes before LSR is read again */

void uart_init(uint16_t base, uint32_t baud, uint8_t lcr)
{
	uint32_t div = UART_BAUD_BASE / baud;	/* 1.8432 MHz / 16 / divisor */

	port = base;
	tx_room = 0;
	outb(port + IER, 0);
	outb(port + LCR, LCR_DLAB);
	outb(port + DLL, div & 0xff);
	outb(port + DLM, div >> 8);
	outb(port + LCR, lcr);
	outb(port + FCR, 0x07);		/* enable and clear FIFOs */
	outb(port + MCR, 0x03);		/* DTR, RTS */
}

int uart_present(uint16_t base)
{
	return inb(base + LSR) != 0xff;
}


/* THRE means the whole 16-byte FIFO is empty: fill it without re-reading LSR. */
static void uart_putc(char c)
{
	if (!tx_room) {
		for (int i = 0; i < 100000 && !(inb(port + LSR) & LSR_THRE); i++)
			cpu_relax();
		tx_room = FIFO_DEPTH;
	}
	outb(port + THR, (uint8_t)c);
	tx_room--;
}

void uart_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			uart_putc('\r');
		uart_putc(s[i]);
	}
}

void uart_write_raw(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		uart_putc(s[i]);
}

void uart_puts(const char *s)
{
	uart_write(s, strlen(s));
}

int uart_getc(void)
{
	if (!(inb(port + LSR) & LSR_DR))
		return -1;
	return inb(port + RBR);
}
