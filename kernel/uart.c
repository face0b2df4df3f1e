/* 16550 UART (National PC16550D datasheet: registers, LSR bits). */
#include <string.h>
#include "kernel/cpu.h"
#include "kernel/uart.h"

#define COM1 0x3f8
#define RBR 0	/* receive buffer (DLAB=0) */
#define THR 0	/* transmit holding (DLAB=0) */
#define IER 1
#define DLL 0	/* divisor latch (DLAB=1) */
#define DLM 1
#define FCR 2
#define LCR 3
#define MCR 4
#define LSR 5
#define LSR_DR 0x01	/* data ready */
#define LSR_THRE 0x20	/* transmit holding register empty */

void uart_init(void)
{
	outb(COM1 + IER, 0);
	outb(COM1 + LCR, 0x80);		/* DLAB */
	outb(COM1 + DLL, 1);		/* 115200 = 1.8432 MHz / 16 / 1 */
	outb(COM1 + DLM, 0);
	outb(COM1 + LCR, 0x03);		/* 8N1 */
	outb(COM1 + FCR, 0x07);		/* enable and clear FIFOs */
	outb(COM1 + MCR, 0x03);		/* DTR, RTS */
}

#define FIFO_DEPTH 16
static int tx_room;	/* bytes the transmit FIFO takes before LSR is read again */

/* THRE means the whole 16-byte FIFO is empty: fill it without re-reading LSR. */
static void uart_putc(char c)
{
	if (!tx_room) {
		for (int i = 0; i < 100000 && !(inb(COM1 + LSR) & LSR_THRE); i++)
			cpu_relax();
		tx_room = FIFO_DEPTH;
	}
	outb(COM1 + THR, (uint8_t)c);
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
	if (!(inb(COM1 + LSR) & LSR_DR))
		return -1;
	return inb(COM1 + RBR);
}
