/* The serial console's port, chosen by the console= knob (kernel/console.c). */
#ifndef CONSOLE_H
#define CONSOLE_H

/* Program the console UART as it stands: COM1 115200 8N1 before knobs_parse. */
void console_init(void);
/* After knobs_parse: move the console to the port console= chose, if a
 * UART answers there (else COM1 stays; console_report says so). */
void console_apply(void);
/* The boot report's line: "console: ttyS1 0x2f8 57600 8N1 (from console=)". */
void console_report(void);
#endif
