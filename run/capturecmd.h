/* The console's `capture` command (run/capturecmd.c). */
#ifndef RUN_CAPTURECMD_H
#define RUN_CAPTURECMD_H
/* Print what a console capture has copied since the last call (at most one
 * frame in text2pcap form, a few summary lines: the UART is slow and core 0
 * polls queues too) and end it after its count; core 0, every ms. */
void capture_console_poll(void);
#endif
