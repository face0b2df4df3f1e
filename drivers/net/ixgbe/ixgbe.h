/*
 * What ixgbe.c, sfp.c and ptp.c share: the SFP+ module identification of
 * the 82599's SFI ports, the port clock.
 */
#ifndef IXGBE_H
#define IXGBE_H
#include <stdint.h>
#include "drivers/net/e1000x/e1000x.h"

/* What the SFP+ cage holds, from its SFF-8472 ID page (Linux's sfp_type). */
enum ixgbe_sfp {
	IXGBE_SFP_NONE,		/* nothing answers at I2C address 0xA0 */
	IXGBE_SFP_SR,		/* 10GBASE-SR */
	IXGBE_SFP_LR,		/* 10GBASE-LR */
	IXGBE_SFP_DA_PASSIVE,	/* direct attach copper, passive */
	IXGBE_SFP_DA_ACTIVE,	/* direct attach, active limiting (SFF-8431) */
	IXGBE_SFP_UNSUPPORTED,	/* anything else: refused, with why */
};

/* Read the module's ID page and decide (Linux ixgbe_identify_sfp_module
 * for the 82599): SR, LR and direct attach are taken; an optical module
 * whose vendor OUI is not Intel's only with allow_unsupported; 1 Gb/s
 * modules, other identifiers and unknown kinds refused. Prints the
 * module's vendor and part number, or why it is refused. */
enum ixgbe_sfp ixgbe_sfp_identify(struct e1000x_port *p, int allow_unsupported);

/* Register the port's clock (ptp.c) with the link speed's SYSTIM
 * increment; at every hw_init (a reset restarts SYSTIM). */
void ixgbe_ptp_init(struct e1000x_port *p);
/* After a link change: register again if the speed's increment differs. */
void ixgbe_ptp_link(struct e1000x_port *p);

/* The allow_unsupported_sfp knob (Linux ixgbe's module parameter): 1 lets
 * optical modules of other vendors than Intel in. */
extern int64_t ixgbe_allow_unsupported_sfp;
#endif
