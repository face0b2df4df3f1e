/* e1000e 82574: IEEE 1588 clock (drivers/net/e1000e/ptp.c). */
#ifndef E1000E_PTP_H
#define E1000E_PTP_H
#include "drivers/net/e1000x/e1000x.h"

/* Start the 82574's SYSTIM at 25 MHz increments and register it with phc
 * if it counts at the rate TIMINCA sets (checked against the TSC over
 * 1 ms); else say why and leave the port on the software clock. After a
 * reset: restore it. */
void e1000e_ptp_init(struct e1000x_port *p);
#endif
