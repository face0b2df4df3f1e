/* 16550 UART console on COM1 (0x3f8), 115200 8N1, polled. */
#ifndef UART_H
#define UART_H
#include <stddef.h>

/* Program COM1 for 115200 8N1 with FIFOs (PC16550D datasheet, register set). */
void uart_init(void);
/* Write n bytes, turning "\n" into "\r\n". Blocks until the FIFO takes them. */
void uart_write(const char *s, size_t n);
/* Write n bytes as they are (terminal control from the line editor). */
void uart_write_raw(const char *s, size_t n);
void uart_puts(const char *s);
/* One received byte (0..255), or -1 if none is waiting. */
int uart_getc(void);
#endif
