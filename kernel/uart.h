/* 16550 UART console, polled: COM1 (0x3f8) 115200 8N1 until console= picks another. */
#ifndef UART_H
#define UART_H
#include <stddef.h>
#include <stdint.h>

/* The UART's reference clock over 16: the highest baud rate (divisor 1). */
#define UART_BAUD_BASE 115200

/*
 * Program the 16550 at I/O port base for baud (UART_BAUD_BASE divided by
 * a whole divisor) and line control lcr (LCR bits: word length, parity),
 * with FIFOs (PC16550D datasheet, register set), and make it the console.
 */
void uart_init(uint16_t base, uint32_t baud, uint8_t lcr);
/* 1 if a UART answers at I/O port base (LSR does not read 0xff, the value
 * of an empty ISA bus, as Linux's 8250 probe checks). */
int uart_present(uint16_t base);
/* Write n bytes, turning "\n" into "\r\n". Blocks until the FIFO takes them. */
void uart_write(const char *s, size_t n);
/* Write n bytes as they are (terminal control from the line editor). */
void uart_write_raw(const char *s, size_t n);
void uart_puts(const char *s);
/* One received byte (0..255), or -1 if none is waiting. */
int uart_getc(void);
#endif
