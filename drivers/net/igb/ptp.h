/* igb 82576 IEEE 1588 clock and timestamps (drivers/net/igb/ptp.c). */
#ifndef IGB_PTP_H
#define IGB_PTP_H
#include "drivers/net/e1000x/e1000x.h"

/* Register an 82576's SYSTIM clock with phc (drivers/net/phc.h) at probe,
 * or restore its timestamping set-up after a reset. I350/I210/I211
 * (SYSTIM in ns, timestamps in the buffer) are not done yet: their ports
 * get the software clock. */
void igb_ptp_init(struct e1000x_port *p);
#endif
