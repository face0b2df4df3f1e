/*
 * igb bring-up below the rings: software/firmware arbitration for the PHY
 * (SWSM and SW_FW_SYNC), the waits after a reset (NVM auto-read, the
 * port's CFG_DONE), the I210/I211 iNVM and PLL work-around, the PHY
 * address. 82576 datasheet 4.5.1, 4.7 and 8.2.5-8.2.6; I210 datasheet
 * 4.6, 6.3 and 8.2; Linux igb e1000_82575.c / e1000_i210.c for what the
 * specification updates add.
 */
#include <stdio.h>
#include "drivers/net/igb/igb.h"
#include "drivers/net/igb/regs.h"
#include "drivers/pci/pcidecode.h"

/* The SW/FW semaphore (8.2.5-8.2.6). The I210/I211 clear an SMBI held
 * 100 ms once, then try again: a previous OS may have died holding it
 * (Linux igb_get_hw_semaphore_i210, clear_semaphore_once; silicon review
 * 2026-12-02 N13). */
static struct e1000x_swfw swfw_of(struct e1000x_port *p)
{
	struct e1000x_swfw s = { IGB_SWSM, IGB_SW_FW_SYNC, 16,
				 igb_part_of(p)->mac >= IGB_I210 && !p->smbi_cleared, 0 };
	return s;
}

/* The PHY semaphore of this port's PCI function (STATUS.FUNC_ID). */
static uint32_t phy_mask(struct e1000x_port *p)
{
	return SWFW_PHY_SM(STATUS_FUNC(rd32(p->regs, STATUS)));
}

int igb_phy_acquire(struct e1000x_port *p)
{
	struct e1000x_swfw s = swfw_of(p);
	return e1000x_swfw_acquire(p, &s, phy_mask(p));
}

void igb_phy_release(struct e1000x_port *p)
{
	struct e1000x_swfw s = swfw_of(p);
	e1000x_swfw_release(p, &s, phy_mask(p));
}

int igb_invm_read(struct e1000x_port *p, uint8_t addr, uint16_t *v)
{
	for (int i = 0; i < INVM_SIZE; i++) {
		uint32_t d = rd32(p->regs, IGB_INVM_DATA(i)), type = d & 7;
		if (type == INVM_UNINITIALIZED)
			break;
		if (type == INVM_CSR_AUTOLOAD)
			i += 1;
		else if (type == INVM_RSA_KEY_SHA256)
			i += 8;
		else if (type == INVM_WORD_AUTOLOAD && INVM_WORD_ADDR(d) == addr) {
			*v = INVM_WORD_DATA(d);
			return 0;
		}
	}
	return -1;
}

uint8_t igb_phy_addr(struct e1000x_port *p)
{
	if (igb_part_of(p)->mac == IGB_82576)
		return 1;
	uint32_t cfg = rd32(p->regs, IGB_MDICNFG);
	return cfg & MDICNFG_DESTINATION ? (uint8_t)MDICNFG_PHY(cfg) : 1;
}

/* A D3hot round trip through the PM capability (PCI PM 1.2 3.2.4). */
static void d3_d0(struct pci_dev *d)
{
	uint16_t ctrl = pci_read16(d, (uint16_t)(d->cap_pm + PCI_PM_CTRL));
	pci_write16(d, (uint16_t)(d->cap_pm + PCI_PM_CTRL), (uint16_t)(ctrl | 3));
	udelay(1000);
	pci_write16(d, (uint16_t)(d->cap_pm + PCI_PM_CTRL), (uint16_t)(ctrl & ~3u));
}

/*
 * I210/I211 without flash: the PHY PLL may come up unconfigured (I210
 * specification update; Linux igb_pll_workaround_i210). While the PHY's
 * PLL frequency register reads 0xff: reset the PHY, load the autoload
 * word with the PLL bit through EEARBC, cycle the function through D3hot,
 * load it back; 5 tries. Intel's code selects PHY page 0xfc0000 in a
 * 16-bit write, i.e. page 0; so does this.
 */
static int igb_pll_workaround(struct e1000x_port *p)
{
	volatile uint8_t *r = p->regs;
	uint32_t wuc = rd32(r, IGB_WUC), mdicnfg = rd32(r, IGB_MDICNFG);
	uint16_t nvm, phy;
	int ok = 0;
	wr32(r, IGB_MDICNFG, mdicnfg & ~MDICNFG_DESTINATION);
	if (igb_invm_read(p, INVM_AUTOLOAD_WORD, &nvm))
		nvm = INVM_DEFAULT_AL;
	e1000x_phy_write(p, PHY_PAGE_SELECT, 0);
	for (int i = 0; i < 5; i++) {
		ok = !e1000x_phy_read(p, PHY_PLL_FREQ_REG, &phy) &&
		     (phy & PHY_PLL_UNCONF) != PHY_PLL_UNCONF;
		if (ok)
			break;
		set_flags32(r, CTRL, CTRL_PHY_RST);
		set_flags32(r, CTRL_EXT, CTRL_EXT_PHYPDEN | CTRL_EXT_SDLPE);
		wr32(r, IGB_WUC, 0);
		wr32(r, IGB_EEARBC_I210, INVM_AUTOLOAD_WORD << 4 | (uint32_t)(nvm | INVM_PLL_WO_VAL) << 16);
		d3_d0(p->nic.pci);
		wr32(r, IGB_EEARBC_I210, INVM_AUTOLOAD_WORD << 4 | (uint32_t)nvm << 16);
		wr32(r, IGB_WUC, wuc);
	}
	e1000x_phy_write(p, PHY_PAGE_SELECT, 0);
	wr32(r, IGB_MDICNFG, mdicnfg);
	if (!ok)
		printf("%s: I210 PHY PLL still unconfigured after 5 resets\n", p->nic.name);
	return ok ? 0 : -1;
}

/*
 * After CTRL.RST (82576 4.5.1, I210 4.6.1): the NVM auto-read, then the
 * port's configuration cycle (EEMNGCTL.CFG_DONE, 100 ms) before the PHY is
 * touched. As in Linux, a part whose NVM never completes is reported and
 * still used (a blank NVM ends here). Flash-less I210/I211: the PLL
 * work-around. Then the PHY address (MDICNFG on I350/I210).
 */
int igb_post_reset(struct e1000x_port *p)
{
	const struct igb_mac_info *m = igb_mac_of(p);
	p->phy_addr = igb_phy_addr(p);
	if (e1000x_is_qemu(&p->nic))
		return 0;	/* QEMU 10's igb has neither EECD.AUTO_RD nor CFG_DONE (EECD 0x1110) */
	e1000x_wait_auto_rd(p);
	uint32_t port = m->eemngctl == IGB_EEMNGCTL ? STATUS_FUNC(rd32(p->regs, STATUS)) : 0;
	if (wait_reg32(p->regs, p->nic.name, m->eemngctl, EEMNGCTL_CFG_DONE(port),
		       EEMNGCTL_CFG_DONE(port), 100000))
		printf("%s: EEMNGCTL.CFG_DONE of port %u not set 100 ms after reset: "
		       "the NVM's PHY configuration did not complete\n", p->nic.name, port);
	if (igb_part_of(p)->mac >= IGB_I210 && !(rd32(p->regs, EECD) & EECD_FLASH_DETECTED_I210))
		igb_pll_workaround(p);
	return 0;
}
