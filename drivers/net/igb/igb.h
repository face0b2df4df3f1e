/*
 * igb: what igb.c (rings, interrupts, probe) and igb_hw.c (reset,
 * firmware arbitration, PHY, NVM) share: the parts the driver knows.
 */
#ifndef IGB_H
#define IGB_H
#include <stdint.h>
#include "drivers/net/e1000x/e1000x.h"

enum igb_mac { IGB_82576, IGB_I350, IGB_I210, IGB_I211 };

/* One device ID and what differs between the parts (82576 datasheet
 * 7.3/8.8.15, I350 and I210 datasheets 7.3/8.8). */
struct igb_part {
	uint16_t device;	/* PCI device ID */
	uint8_t mac;		/* enum igb_mac */
	uint8_t copper;		/* 0: fiber, SerDes or SGMII: refused (no PCS set-up here) */
	const char *name;
};

/* Per-MAC facts, by enum igb_mac. */
struct igb_mac_info {
	const char *name;	/* "82576" */
	int queues;		/* RSS queue pairs the driver uses */
	int ivar_row_major;	/* 82580 and later: IVAR[q / 2], queue q & 1 in the upper half */
	int systim_ns;		/* SYSTIM counts ns (82580 and later); 82576: TIMINCA units */
	int rqdpc_rw;		/* RQDPC does not clear on read: written 0 after reading (I210) */
	int rx_ts_in_buf;	/* SRRCTL.TIMESTAMP exists */
	uint32_t eemngctl;	/* register holding CFG_DONE */
};
extern const struct igb_mac_info igb_macs[];

static inline const struct igb_part *igb_part_of(const struct e1000x_port *p)
{
	return p->part;
}

static inline const struct igb_mac_info *igb_mac_of(const struct e1000x_port *p)
{
	return &igb_macs[igb_part_of(p)->mac];
}

/* The family hooks for e1000x: PHY ownership, and the waits after reset
 * (auto-read, CFG_DONE of the port, I210 PLL work-around). */
int igb_phy_acquire(struct e1000x_port *p);
void igb_phy_release(struct e1000x_port *p);
int igb_post_reset(struct e1000x_port *p);
/* Word addr of the I210/I211 iNVM (I210 6.3): 0, or -1 if no record has it. */
int igb_invm_read(struct e1000x_port *p, uint8_t addr, uint16_t *v);
/* The PHY's MDIO address (I350/I210: MDICNFG, 8.2.5). */
uint8_t igb_phy_addr(struct e1000x_port *p);
#endif
