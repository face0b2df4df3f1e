/* igb 82576 IEEE 1588 clock and timestamps (drivers/net/igb/ptp.c). */
#ifndef IGB_PTP_H
#define IGB_PTP_H
#include "drivers/net/e1000x/e1000x.h"

/* Register the port's SYSTIM clock with phc (drivers/net/phc.h) at probe,
 * or restore its timestamping set-up after a reset: 82576, I350, I210 and
 * I211 (the later three's RX stamps come in the buffer: rx_ts_in_buf). */
void igb_ptp_init(struct e1000x_port *p);
#endif
