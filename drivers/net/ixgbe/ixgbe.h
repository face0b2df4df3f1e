/*
 * What ixgbe.c, sfp.c, phy.c and ptp.c share: the part, the port's PHY
 * semaphore, the SFP+ module identification of the 82599's SFI ports, the
 * X540's copper PHY, the port clock.
 */
#ifndef IXGBE_H
#define IXGBE_H
#include <stdint.h>
#include "drivers/net/e1000x/e1000x.h"

/* The MAC generation: where the X540 differs from the 82599 (its PHY,
 * semaphore, reset, packet buffer, clock); the X550 (X550-T2/T1) as the
 * X540 (Linux's mac_ops_X550 takes ixgbe_reset_hw_X540, its semaphore,
 * copper link set-up and packet buffer) but for its PHY identifier, the
 * NBASE-T advertisement and its clock (SYSTIME in seconds and ns). */
enum ixgbe_mac { IXGBE_MAC_82599, IXGBE_MAC_X540, IXGBE_MAC_X550 };

/* One device ID: its MAC and link (AUTOC link mode and parallel PMA/PMD,
 * AUTOC2 serial PMA/PMD; 82599 4.6.4, 8.2.3.22.19-20; 0 on the X540, whose
 * link is its PHY's), or 0 in supported when the part is refused. */
struct ixgbe_part {
	uint16_t device;
	uint8_t supported;
	uint8_t mac;		/* enum ixgbe_mac */
	uint32_t autoc;		/* AUTOC LMS and 10G parallel PMA/PMD bits; with
				 * LMS_SFI, AUTOC2's serial PMA/PMD is SFI, else KR */
	const char *link;	/* "SFI (SFP+)" */
	const char *missing;	/* refused parts: what their set-up needs that is not
				 * written here (the probe message says it) */
};

/* The port's MAC generation. */
static inline enum ixgbe_mac ixgbe_mac_of(const struct e1000x_port *p)
{
	return (enum ixgbe_mac)((const struct ixgbe_part *)p->part)->mac;
}

/* 1 if the port has the X540's MAC scheme (an X540 or an X550). */
static inline int ixgbe_is_x540(const struct e1000x_port *p)
{
	return ixgbe_mac_of(p) != IXGBE_MAC_82599;
}

/* Take (0, or -1 printed) and give back the SW/FW semaphore bit of the
 * port's PHY (SW_PHY_SM0/1 by STATUS.LAN_ID), in the part's scheme: the
 * 82599's SWSM.SWESMBI or the X540's SW_FW_SYNC.REGSMP (phy.c). It guards
 * the SFP+ I2C bus, MDIO and (X540) CTRL.RST against the firmware. */
int ixgbe_phy_lock(struct e1000x_port *p);
void ixgbe_phy_unlock(struct e1000x_port *p);

/* X540/X550: find the internal PHY (the first MDIO address whose
 * identifier is the part's: Linux X540_PHY_ID, X550_PHY_ID) into
 * p->phy_addr and print it; 0, or -1 printed. */
int ixgbe_x540_phy_identify(struct e1000x_port *p);
/* X540/X550: advertise 10GBASE-T, 1000BASE-T and 100BASE-TX full duplex
 * (the X550's 2.5G/5GBASE-T taken out: LINKS's NBASE-T speeds are not
 * decoded here) and restart auto-negotiation; LINKS then says the speed.
 * 0, or -1 printed. */
int ixgbe_x540_link_setup(struct e1000x_port *p);

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
 * increment (X550: SYSTIME started, TSAUXC); at every hw_init (a reset
 * restarts SYSTIM). */
void ixgbe_ptp_init(struct e1000x_port *p);
/* After a link change: register again if the speed's increment differs. */
void ixgbe_ptp_link(struct e1000x_port *p);

/* The allow_unsupported_sfp knob (Linux ixgbe's module parameter): 1 lets
 * optical modules of other vendors than Intel in. */
extern int64_t ixgbe_allow_unsupported_sfp;
#endif
