/* The consoles, chosen by the console= knob (kernel/console.c): serial
 * ports and the screen; their output buffers (kernel/conout.c). */
#ifndef CONSOLE_H
#define CONSOLE_H
#include <stddef.h>
#include "kernel/boot_info.h"
#include "kernel/uart.h"

#define CONSOLE_MAX 4	/* console= words kept */
#define CONSOLE_ALL -1	/* console_out's which: every console */

/* Program the console UARTs as they stand: COM1 115200 8N1 before knobs_parse. */
void console_init(void);
/* After knobs_parse, paging_init, acpi_init and pci_init: move to the
 * ports console= chose (ttyS4 and up: PCI serial cards' ports), or without
 * console= to the ACPI SPCR table's port (as Linux's earlycon), MMIO ones
 * mapped uncached, where a UART answers (if none does, COM1 stays;
 * console_report says so). The screen (tty0) is fb, the loader's (uefi:
 * the GOP's), or on BIOS boots VGA text mode; without console= it is
 * added when fb says there is one. */
void console_apply(const struct boot_fb *fb, int uefi);
/* The boot report's lines, one per console in use, one per port that did
 * not answer and one for an SPCR not used (and why): "console: ttyS1 0x2f8 57600 8N1 (from console=)". */
void console_report(void);
/* The number of consoles in use, 1..CONSOLE_MAX; they are 0..n-1. */
int console_count(void);
/* Console i's UART, and its name as console= shows it ("ttyS1,57600n8"). */
struct uart *console_uart(int i);
void console_name(int i, char *buf, size_t len);
/* 1 if console i is the screen (kernel/fb.c, input kernel/kbd.c), not a UART. */
int console_is_screen(int i);
/* Write n bytes to console which (or CONSOLE_ALL), "\n" as "\r\n", and
 * wait until each UART took them (a stalled one: not; dropped, counted). */
void console_out(int which, const char *s, size_t n);
/* The same, bytes as they are (terminal control from the line editor). */
void console_out_raw(int which, const char *s, size_t n);
/* Queue n bytes for every console ("\n" as "\r\n") without waiting: what
 * does not fit a console's 4 KiB buffer is dropped and counted (the
 * `console` command shows it). For messages from a core that forwards. */
void console_queue(const char *s, size_t n);
/* Send what is queued as far as the UARTs take it now, never waiting.
 * Returns 1 while some is left. */
int console_drain(void);
/* Bytes every console's buffer can still take (a stalled console, which
 * drops what it is given, does not count): how much a long answer written
 * from a poll loop can queue now without a byte dropped. */
size_t console_room(void);
/* One byte received on console which (0..255), or -1 if none waits. */
int console_getc(int which);
#endif
