/* 16550 UART, polled: at I/O ports (COM1-4, PCI cards) or memory-mapped
 * (earlycon's mmio and mmio32). kernel/console.c keeps the consoles. */
#ifndef UART_H
#define UART_H
#include <stddef.h>
#include <stdint.h>

/* The UART's reference clock over 16: the highest baud rate (divisor 1). */
#define UART_BAUD_BASE 115200

/* How the registers are reached, as Linux's UPIO_PORT, UPIO_MEM, UPIO_MEM32. */
enum uart_iotype {
	UART_IO,	/* I/O ports base..base+7 */
	UART_MMIO,	/* bytes at base..base+7 */
	UART_MMIO32,	/* 32-bit registers 4 bytes apart from base */
};

/* One 16550. base: an I/O port, or a physical address mapped uncached
 * (identity map: physical == virtual). */
struct uart {
	enum uart_iotype iotype;
	uint64_t base;
	int tx_room;	/* bytes the transmit FIFO takes before LSR is read again */
};

/* Program u for baud (UART_BAUD_BASE divided by a whole divisor) and line
 * control lcr (LCR bits: word length, parity), with FIFOs (PC16550D
 * datasheet, register set). */
void uart_init(struct uart *u, uint32_t baud, uint8_t lcr);
/* The baud rate u's divisor latch holds now (as firmware left it;
 * UART_BAUD_BASE / divisor, a divisor of 0 read as 1). */
uint32_t uart_baud(struct uart *u);
/* 1 if a UART answers at u: its scratch register keeps 0x55 and 0xaa (an
 * empty bus reads 0xff or 0; Linux's 8250 autoconfig tests it so too). */
int uart_present(struct uart *u);
/* 1 if the transmit FIFO takes a byte now (room left since LSR last
 * said THRE, or THRE now), else 0. Never waits. */
int uart_tx_ready(struct uart *u);
/* Wait until uart_tx_ready, at most 100000 LSR reads (milliseconds): 0, or
 * -1 when the UART takes nothing (a line held up, a vanished port). */
int uart_tx_wait(struct uart *u);
/* Send the first of s[0..n) the transmit FIFO has room for (as
 * uart_tx_ready or uart_tx_wait last found; none before either): how many. */
size_t uart_write(struct uart *u, const char *s, size_t n);
/* One received byte (0..255), or -1 if none is waiting. */
int uart_getc(struct uart *u);
#endif
