/*
 * ixgbe: the port's PHY semaphore (82599 and X540) and the X540's internal
 * 10GBASE-T PHY over MDIO (the X550's too: its identifier, and NBASE-T
 * taken out of its advertisement). The X540 has no AUTOC link set-up: its MAC
 * follows the copper PHY, which software reaches with IEEE 802.3 clause 45
 * frames through MSCA/MSRWD under the port's SW_PHY_SM bit, and whose
 * auto-negotiation result LINKS reports (100 Mb/s, 1 Gb/s, 10 Gb/s). The
 * steps follow Linux ixgbe_x540.c and ixgbe_phy.c (read, not copied):
 * ixgbe_identify_phy_generic's address scan, ixgbe_setup_phy_link_generic's
 * advertisement and restart.
 */
#include <stdio.h>
#include "drivers/net/ixgbe/ixgbe.h"
#include "drivers/net/ixgbe/regs.h"

/* The semaphores (82599 8.2.3.4.10-11; the X540's SWFW_SYNC at the same
 * offset, REGSMP in place of SWSM.SWESMBI). A stale SMBI is cleared at
 * each 100 ms timeout, as Linux's ixgbe_get_swfw_sync_semaphore does. */
static const struct e1000x_swfw swfw_82599 = { IXGBE_SWSM, IXGBE_SW_FW_SYNC, IXGBE_SW_FW_SYNC_FW_SHIFT, 1, 0 };
static const struct e1000x_swfw swfw_x540 = { IXGBE_SWSM, IXGBE_SW_FW_SYNC, IXGBE_SW_FW_SYNC_FW_SHIFT, 1,
					      IXGBE_SW_FW_SYNC_REGSMP };

static uint32_t phy_sem(struct e1000x_port *p)
{
	return IXGBE_STATUS_LAN_ID(rd32(p->regs, IXGBE_STATUS)) ? IXGBE_SW_FW_SYNC_SW_PHY_SM1 :
	       IXGBE_SW_FW_SYNC_SW_PHY_SM0;
}

int ixgbe_phy_lock(struct e1000x_port *p)
{
	return e1000x_swfw_acquire(p, ixgbe_is_x540(p) ? &swfw_x540 : &swfw_82599, phy_sem(p));
}

void ixgbe_phy_unlock(struct e1000x_port *p)
{
	e1000x_swfw_release(p, ixgbe_is_x540(p) ? &swfw_x540 : &swfw_82599, phy_sem(p));
}

/* One MSCA frame started, MDICMD awaited (10 ms; a frame takes ~40 us at
 * the MDC's 2.4 MHz). 0, or -1 printed. */
static int mdio_frame(struct e1000x_port *p, uint32_t msca)
{
	wr32(p->regs, IXGBE_MSCA, msca | IXGBE_MSCA_MDICMD);
	if (!wait_reg32(p->regs, p->nic.name, IXGBE_MSCA, IXGBE_MSCA_MDICMD, 0, 10000))
		return 0;
	printf("%s: MSCA.MDICMD still set 10 ms after an MDIO frame to PHY address %u: "
	       "the PHY does not answer\n", p->nic.name, (unsigned)(msca >> 21 & 31));
	return -1;
}

/* Clause 45 read and write of MMD dev register reg at PHY address addr:
 * an address frame, then the read or write frame. 0, or -1 printed. */
static int mdio_read(struct e1000x_port *p, unsigned addr, unsigned dev, uint16_t reg, uint16_t *v)
{
	uint32_t a = IXGBE_MSCA_PHYADD(addr) | IXGBE_MSCA_DEVADD(dev);
	if (mdio_frame(p, a | IXGBE_MSCA_OP_ADDR | reg) || mdio_frame(p, a | IXGBE_MSCA_OP_READ))
		return -1;
	*v = IXGBE_MSRWD_RDDATA(rd32(p->regs, IXGBE_MSRWD));
	return 0;
}

static int mdio_write(struct e1000x_port *p, unsigned addr, unsigned dev, uint16_t reg, uint16_t v)
{
	uint32_t a = IXGBE_MSCA_PHYADD(addr) | IXGBE_MSCA_DEVADD(dev);
	if (mdio_frame(p, a | IXGBE_MSCA_OP_ADDR | reg))
		return -1;
	wr32(p->regs, IXGBE_MSRWD, v);
	return mdio_frame(p, a | IXGBE_MSCA_OP_WRITE);
}

/* Addresses 0-31 in turn, as Linux's scan: an address nothing answers at
 * reads 0xffff (the bus's pull-up). */
int ixgbe_x540_phy_identify(struct e1000x_port *p)
{
	uint16_t hi = 0, lo = 0;
	int found = -1, err = 0, x550 = ixgbe_mac_of(p) == IXGBE_MAC_X550;
	uint32_t want = x550 ? X550_PHY_ID : X540_PHY_ID;
	if (ixgbe_phy_lock(p))
		return -1;
	for (unsigned a = 0; a < 32 && found < 0 && !err; a++) {
		err = mdio_read(p, a, MDIO_MMD_PMAPMD, MDIO_DEVID1, &hi) ||
		      mdio_read(p, a, MDIO_MMD_PMAPMD, MDIO_DEVID2, &lo);
		if (!err && ((uint32_t)hi << 16 | lo) >> 4 == want >> 4)
			found = (int)a;
	}
	ixgbe_phy_unlock(p);
	if (err)
		return -1;
	if (found < 0) {
		printf("%s: no PHY with the %s's identifier %#010x at MDIO addresses 0-31\n", p->nic.name,
		       x550 ? "X550" : "X540", want);
		return -1;
	}
	p->phy_addr = (uint8_t)found;
	printf("%s: internal 10GBASE-T PHY at MDIO address %d, identifier %#06x%04x\n", p->nic.name, found, hi,
	       lo);
	return 0;
}

/* Each advertisement bit set read-modify-write (the X550's NBASE-T bits
 * cleared in the same write, as Linux ixgbe_setup_phy_link_generic does
 * for speeds not advertised), then AN enable and restart in 7.0 (the new
 * abilities take effect at the restart). */
int ixgbe_x540_link_setup(struct e1000x_port *p)
{
	/* register, bits set, bits cleared on the X550 */
	static const uint16_t adv[3][3] = {
		{ MDIO_AN_10GBT_CTRL, MDIO_AN_10GBT_CTRL_ADV10G, 0 },
		{ MDIO_AN_VENDOR_PROV1, MDIO_AN_VENDOR_PROV1_1000FULL, MDIO_AN_VENDOR_PROV1_NBASET },
		{ MDIO_AN_ADVERTISE, MDIO_AN_ADV_100FULL, 0 },
	};
	int x550 = ixgbe_mac_of(p) == IXGBE_MAC_X550, err = 0;
	uint16_t v = 0;
	if (ixgbe_phy_lock(p))
		return -1;
	for (int i = 0; i < 3 && !err; i++)
		err = mdio_read(p, p->phy_addr, MDIO_MMD_AN, adv[i][0], &v) ||
		      mdio_write(p, p->phy_addr, MDIO_MMD_AN, adv[i][0],
				 (uint16_t)((v | adv[i][1]) & ~(x550 ? adv[i][2] : 0)));
	if (!err)
		err = mdio_read(p, p->phy_addr, MDIO_MMD_AN, MDIO_AN_CTRL1, &v) ||
		      mdio_write(p, p->phy_addr, MDIO_MMD_AN, MDIO_AN_CTRL1,
				 (uint16_t)(v | MDIO_AN_CTRL1_ENABLE | MDIO_AN_CTRL1_RESTART));
	ixgbe_phy_unlock(p);
	return err ? -1 : 0;
}
