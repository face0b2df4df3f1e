/* 16550 UART (National PC16550D datasheet: registers, LSR bits). */
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
#define SCR 7	/* scratch */

#define FIFO_DEPTH 16

static uint8_t in(struct uart *u, int reg)
{
	switch (u->iotype) {
	case UART_MMIO:
		return *(volatile uint8_t *)(u->base + reg);
	case UART_MMIO32:
		return (uint8_t)*(volatile uint32_t *)(u->base + 4 * reg);
	default:
		return inb((uint16_t)(u->base + reg));
	}
}

static void out(struct uart *u, int reg, uint8_t v)
{
	switch (u->iotype) {
	case UART_MMIO:
		*(volatile uint8_t *)(u->base + reg) = v;
		break;
	case UART_MMIO32:
		*(volatile uint32_t *)(u->base + 4 * reg) = v;
		break;
	default:
		outb((uint16_t)(u->base + reg), v);
	}
}

void uart_init(struct uart *u, uint32_t baud, uint8_t lcr)
{
	uint32_t div = UART_BAUD_BASE / baud;	/* 1.8432 MHz / 16 / divisor */

	u->tx_room = 0;
	out(u, IER, 0);
	out(u, LCR, LCR_DLAB);
	out(u, DLL, div & 0xff);
	out(u, DLM, div >> 8);
	out(u, LCR, lcr);
	out(u, FCR, 0x07);	/* enable and clear FIFOs */
	out(u, MCR, 0x03);	/* DTR, RTS */
}

uint32_t uart_baud(struct uart *u)
{
	uint8_t lcr = in(u, LCR);

	out(u, LCR, lcr | LCR_DLAB);
	uint32_t div = in(u, DLL) | (uint32_t)in(u, DLM) << 8;
	out(u, LCR, lcr);
	return UART_BAUD_BASE / (div ? div : 1);
}

int uart_present(struct uart *u)
{
	out(u, SCR, 0x55);
	if (in(u, SCR) != 0x55)
		return 0;
	out(u, SCR, 0xaa);
	return in(u, SCR) == 0xaa;
}

/* THRE means the whole 16-byte FIFO is empty: fill it without re-reading LSR. */
int uart_tx_ready(struct uart *u)
{
	if (!u->tx_room && (in(u, LSR) & LSR_THRE))
		u->tx_room = FIFO_DEPTH;
	return u->tx_room > 0;
}

int uart_tx_wait(struct uart *u)
{
	for (int i = 0; i < 100000; i++) {
		if (uart_tx_ready(u))
			return 0;
		cpu_relax();
	}
	return -1;
}

size_t uart_write(struct uart *u, const char *s, size_t n)
{
	size_t k = n < (size_t)u->tx_room ? n : (size_t)u->tx_room;

	if (u->iotype == UART_IO)	/* the common case: a port write a byte */
		for (size_t i = 0; i < k; i++)
			outb((uint16_t)(u->base + THR), (uint8_t)s[i]);
	else
		for (size_t i = 0; i < k; i++)
			out(u, THR, (uint8_t)s[i]);
	u->tx_room -= (int)k;
	return k;
}

int uart_getc(struct uart *u)
{
	if (!(in(u, LSR) & LSR_DR))
		return -1;
	return in(u, RBR);
}
