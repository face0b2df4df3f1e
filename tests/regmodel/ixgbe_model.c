/*
 * The 82599 (ixgbe) in the register model (model.c calls in here when
 * M.flav is M_82599; built with MODEL_IXGBE). Offsets and semantics are
 * written from the 82599 datasheet (8.2.3), apart from the driver's
 * header: CTRL.RST/LRST reset the MAC (self-clearing); the EEPROM
 * auto-read (EEC.ARD) and the DMA initialisation (RDRXCTL.DMAIDONE)
 * complete a scripted number of reads after it; PCIe master requests
 * drain after CTRL.PCIE_MASTER_DISABLE; AUTOC.AN_RESTART self-clears and
 * brings LINKS up at 10 Gb/s; EICR clears on read (queue causes only
 * with GPIE.OCD) and on writing 1; RXDCTL/TXDCTL.ENABLE follow writes
 * after a lag, TXDCTL.ENABLE only with DMATXCTL.TE; the statistics clear
 * on read, GORC/GOTC 36 bits wide. SWSM and SW_FW_SYNC as igb's (the
 * SMBI read-to-set, SWESMBI refused while the firmware holds it, the
 * firmware's SW_FW_SYNC bits at 9:5); I2CCTL drives an SFP+ module: an
 * I2C slave at A0h (UM10204: START, STOP, bytes MSB first sampled while
 * SCL is high, the acknowledge bit, sequential reads) serving M.sfp, its
 * SDA and SCL wired-AND with the driver's. TX context descriptors fill
 * the queue's two context slots; data descriptors with POPTS have their
 * checksums inserted from them. VLANs (8.2.3.7.2 VLNCTRL, reset value
 * VET 0x8100; VFTA[128] at 0x0A000; 8.2.3.8.6 RXDCTL.VME per queue): with VFE a frame
 * tagged VET whose VID has no VFTA bit is dropped before any queue or
 * counter (GPRC counts after the filter); with the queue's VME the tag is
 * taken out of the frame into the write-back's VLAN field with status VP.
 * The time sync block is tsync.c's (the
 * 82599's offsets mapped to it; SYSTIM counts in cycles of 6.4 ns at
 * 10 Gb/s or no link, 64 ns at 1 Gb/s, 640 ns at 100 Mb/s, by LINKS; on
 * the X540 TIMINCA whole each cycle, no IncPeriod).
 * With M.s.x540, the X540 where its datasheet differs: SWSM has no
 * SWESMBI (writes of bit 1 lost); SW_FW_SYNC.REGSMP (bit 31) is set by
 * the read that finds it clear and cleared by writing 0 (held for good
 * with fw_holds_swesmbi); CTRL.RST counts rst_unowned without the port's
 * SW_PHY_SM bit; AUTOC does nothing; the internal PHY answers clause 45
 * frames through MSCA/MSRWD at MDIO address 1 (elsewhere reads are
 * 0xffff, the pull-up): identifier 0x01540201 at 1.2-3, auto-negotiation
 * in MMD 7, whose restart (7.0 bit 9, self-clearing) brings LINKS up at
 * the best speed both the advertisement (7.32 bit 12 10G, 7.0xC400 bit 15
 * 1G, 7.16 bit 8 100M) and M.s.lp_speed allow. The advertisement starts
 * empty here, so a test sees what the driver wrote (on silicon the NVM's
 * defaults may already advertise: not modelled). ixgbe_model_x550 makes
 * it the X550-T: the X540 mode with the X550's PHY identifier 0x01540221
 * (Linux X550_PHY_ID3) and 2.5G/5GBASE-T advertised from power-on
 * (7.0xC400 bits 10, 11: an NVM that advertises them, assumed), and
 * its SYSTIME (tsync.c): seconds and ns at 1 ns a ns whatever the link
 * speed, SYSTIMR (0x8C58) latching SYSTIML/H, TIMINCA a signed
 * correction of the 12.5 ns period, stopped while TSAUXC (0x8C20) bit 31
 * is set, as at power-on (Linux ixgbe_ptp.c; assumed); RX stamps in the
 * buffer, after the frame (tsync_rx_in_buf). The wire: ixgbe_model_rx puts a frame
 * into RX queue q's next descriptor as the DMA engine does (advanced
 * write-back), ixgbe_model_tx sends what TX queue q holds.
 */
#include <string.h>
#include "tests/regmodel/model.h"
#ifdef MODEL_PTP
#include "tests/regmodel/tsync.h"

/* The 82599's time sync registers (8.2.3.26) and where tsync.c, which
 * models the block, keeps each (the 82576's offsets). */
static const uint32_t tsync_map[][2] = {
	{ 0x8c0c, 0xb600 }, { 0x8c10, 0xb604 }, { 0x8c14, 0xb608 }, { 0x8c00, 0xb614 }, { 0x8c04, 0xb618 },
	{ 0x8c08, 0xb61c }, { 0x5188, 0xb620 }, { 0x51e8, 0xb624 }, { 0x51a4, 0xb628 }, { 0x51a0, 0xb62c },
	{ 0x51a8, 0xb630 }, { 0x8c58, 0xb6f8 }, { 0x8c20, 0xb640 },	/* X550: SYSTIMR, TSAUXC */
};

static int tsync_reg(uint32_t reg, uint32_t *t)
{
	for (size_t i = 0; i < sizeof(tsync_map) / sizeof(tsync_map[0]); i++)
		if (tsync_map[i][0] == reg) {
			*t = tsync_map[i][1];
			return 1;
		}
	return 0;
}
#else
static int tsync_reg(uint32_t reg, uint32_t *t) { (void)reg; (void)t; return 0; }
static int tsync_read(uint32_t reg, uint32_t *v) { (void)reg; (void)v; return 0; }
static int tsync_write(uint32_t reg, uint32_t v) { (void)reg; (void)v; return 0; }
static void tsync_reset(void) {}
static void tsync_clock_change(void) {}
static int tsync_rx_in_buf(uint64_t *raw) { (void)raw; return 0; }
#endif

enum {
	X_CTRL = 0x0, X_STATUS = 0x8, X_CTRL_EXT = 0x18, X_EICR = 0x800, X_EICS = 0x808,
	X_EIMS = 0x880, X_EIMC = 0x888, X_GPIE = 0x898, X_RDRXCTL = 0x2f00, X_RXCTRL = 0x3000,
	X_FCTRL = 0x5080, X_AUTOC = 0x42a0, X_LINKS = 0x42a4, X_DMATXCTL = 0x4a80,
	X_RAL0 = 0xa200, X_RAH0 = 0xa204, X_EEC = 0x10010, X_I2CCTL = 0x28, X_SWSM = 0x10140,
	X_SW_FW_SYNC = 0x10160, X_MSCA = 0x425c, X_MSRWD = 0x4260,
	X_GPRC = 0x4074, X_GPTC = 0x4080, X_GORCL = 0x4088, X_GOTCL = 0x4090, X_BPRC = 0x4078,
	X_MPRC = 0x407c, X_BPTC = 0x40f4, X_MPTC = 0x40f0, X_VLNCTRL = 0x5088, X_VFTA = 0xa000,
};
#define X_RXQ(q)	(0x1000 + 0x40 * (q))	/* RDBAL; RDH +0x10, RDT +0x18, RXDCTL +0x28 */
#define X_TXQ(q)	(0x6000 + 0x40 * (q))	/* TDBAL; TDH +0x10, TDT +0x18, TXDCTL +0x28 */
#define X_QPRDC(q)	(0x1430 + 0x40 * (q))
#define X_SRRCTL(q)	(0x1014 + 0x40 * (q))
#define X_DCA_RXCTRL(q)	(0x100c + 0x40 * (q))
#define X_DCA_TXCTRL(q)	(0x600c + 0x40 * (q))
#define X_MPC0		0x3fa0
#define ENABLE		(1u << 25)
/* AUTOC as an EEPROM might load it: KX4/KX support (31:30), KR support
 * (16), LMS 001, parallel PMA/PMD KX4; AUTOC2 (0x42a8) with a bit in its
 * upper half and serial PMA/PMD XFI (01), which SFI boards must change. */
#define AUTOC_RESET	(0xc0000000u | 1u << 16 | 1u << 13 | 1u << 7)
#define AUTOC2_RESET	(0x80000000u | 1u << 16)

static int ee_reads, dma_reads, status_reads, master_off;
/* The module's I2C state: the lines as it drives them, what it does */
static struct {
	int scl, sda;		/* the bus as last seen (wired-AND) */
	int pull_sda;		/* the module holds SDA low */
	enum { I_IDLE, I_RX, I_ACK, I_TX, I_MACK } st;
	int bits, rw, addressed, nack;
	uint8_t shift, ptr;
} i2c;
static int lag[2][8];
static uint32_t shown[2][8];
/* The X540's PHY: its clause 45 registers (MMD, register, value) and each
 * MMD's address register; kept over MAC resets. */
#define X540_MDIO_ADDR 1
#define REGSMP (1u << 31)
static struct { uint8_t dev; uint16_t reg, val; } c45[16];
static int nc45;
static uint16_t c45_ptr[32];

static uint32_t *r(uint32_t reg) { return &M.reg[reg / 4]; }

static uint16_t *c45_reg(unsigned dev, uint16_t reg)
{
	for (int i = 0; i < nc45; i++)
		if (c45[i].dev == dev && c45[i].reg == reg)
			return &c45[i].val;
	if (nc45 == (int)(sizeof(c45) / sizeof(c45[0])))
		return 0;
	c45[nc45].dev = (uint8_t)dev, c45[nc45].reg = reg, c45[nc45].val = 0;
	return &c45[nc45++].val;
}

/* The X540 PHY's power-on (model_init): identifier, AN enabled (7.0 bit
 * 12), selector 802.3 in 7.16. */
void ixgbe_model_power_on(void)
{
	nc45 = 0;
	memset(c45_ptr, 0, sizeof(c45_ptr));
	*c45_reg(1, 2) = 0x0154;
	*c45_reg(1, 3) = 0x0201;
	*c45_reg(7, 0) = 1u << 12;
	*c45_reg(7, 0x10) = 0x0001;
}

uint16_t ixgbe_model_phy_reg(unsigned dev, uint16_t reg)
{
	return *c45_reg(dev, reg);
}

void ixgbe_model_x550(void)
{
	M.s.x540 = 1;
	M.s.x550 = 1;
	tsync_reset();	/* its SYSTIME stopped (TSAUXC) */
	*c45_reg(1, 3) = 0x0221;
	*c45_reg(7, 0xc400) |= 3u << 10;
}

void ixgbe_model_links(uint32_t v)
{
	tsync_clock_change();	/* the time sync clock's period follows the speed */
	*r(X_LINKS) = v;
}

/* 7.0's restart: LINKS at the best speed both sides have, or down. */
static void c45_autoneg(void)
{
	int lp = M.s.lp_speed ? M.s.lp_speed : 10000;
	uint32_t sp = (*c45_reg(7, 0x20) & 1u << 12) && lp >= 10000 ? 3 :
		      (*c45_reg(7, 0xc400) & 1u << 15) && lp >= 1000 ? 2 :
		      (*c45_reg(7, 0x10) & 1u << 8) && lp >= 100 ? 1 : 0;
	ixgbe_model_links(sp && !M.s.link_down ? 1u << 30 | sp << 28 | 1u << 7 : 0);
}

static int phy_sm_held(void)
{
	return (model_peek(X_SW_FW_SYNC) >> (1 + (M.s.fn & 1))) & 1;
}

/* An MSCA frame (MDICMD set): address, write or read of the PHY. */
static void mdio_frame(uint32_t v)
{
	unsigned addr = v >> 21 & 31, dev = v >> 16 & 31, op = v >> 26 & 3;
	uint16_t *reg;
	M.mdio_frames++;
	if (!phy_sm_held())
		M.mdic_unowned++;
	if (addr != X540_MDIO_ADDR || (v >> 28 & 3)) {	/* nobody there, or not clause 45 */
		if (op == 3)
			*r(X_MSRWD) = 0xffffu << 16 | (*r(X_MSRWD) & 0xffff);
		return;
	}
	if (op == 0) {
		c45_ptr[dev] = (uint16_t)v;
		return;
	}
	if (!(reg = c45_reg(dev, c45_ptr[dev])))
		return;
	if (op == 3) {
		*r(X_MSRWD) = (uint32_t)*reg << 16 | (*r(X_MSRWD) & 0xffff);
		return;
	}
	*reg = (uint16_t)*r(X_MSRWD);
	if (dev == 7 && c45_ptr[dev] == 0 && (*reg & 1u << 9)) {
		*reg &= (uint16_t)~(1u << 9);
		c45_autoneg();
	}
}

void ixgbe_model_reset(void)
{
	memset(M.reg, 0, sizeof(M.reg));
	M.resets++;
	ee_reads = dma_reads = status_reads = master_off = 0;
	memset(lag, 0, sizeof(lag));
	memset(shown, 0, sizeof(shown));
	memset(&i2c, 0, sizeof(i2c));
	memset(M.tx_ctx, 0, sizeof(M.tx_ctx));	/* the context slots do not survive a reset */
	tsync_reset();
	i2c.scl = i2c.sda = 1;
	*r(X_I2CCTL) = 0xa;	/* both lines released */
	*r(X_STATUS) = (uint32_t)M.s.fn << 2 | 1u << 19;
	*r(X_EEC) = 1u << 8;
	*r(X_AUTOC) = AUTOC_RESET;
	*r(0x42a8) = AUTOC2_RESET;
	*r(X_RAL0) = M.nvm_ral;
	*r(X_RAH0) = M.nvm_rah;
	*r(X_DMATXCTL) = 0x8100u << 16;	/* VT: the VLAN EtherType */
	*r(X_VLNCTRL) = 0x8100;		/* VET */
	/* DCA_RXCTRL: reserved bit 12 (reset value 1), relaxed ordering of RX
	 * data (13) and header (15) writes; DCA_TXCTRL: of descriptor
	 * write-backs (11). The relaxed-ordering bits are set at reset here:
	 * Linux ixgbe_start_hw_gen2 clears them. */
	for (int q = 0; q < 8; q++) {
		*r(X_DCA_RXCTRL(q)) = 1u << 12 | 1u << 13 | 1u << 15;
		*r(X_DCA_TXCTRL(q)) = 1u << 11;
	}
}

/* Queue register: 0 RX or 1 TX ENABLE register, the queue in *q; else -1. */
static int xdctl(uint32_t reg, int *q)
{
	for (int k = 0; k < 2; k++) {
		uint32_t base = k ? 0x6028 : 0x1028;
		if (reg >= base && reg < base + 8 * 0x40 && (reg - base) % 0x40 == 0) {
			*q = (int)((reg - base) / 0x40);
			return k;
		}
	}
	return -1;
}

static int is_stat(uint32_t reg)
{
	return (reg >= 0x4000 && reg <= 0x4120) || (reg >= X_MPC0 && reg < X_MPC0 + 32) || reg == 0x3f60 ||
	       reg == 0x3f68 || reg == 0x41a4 || reg == 0x41a8 ||
	       (reg >= 0x1430 && reg < 0x1430 + 16 * 0x40 && (reg - 0x1430) % 0x40 == 0);
}

/* A byte came in (the 8th bit's SCL fall): the address (A0h or A1h;
 * M.s.sfp_nacks first ones left alone) or the offset; acknowledged or not. */
static void i2c_byte_in(void)
{
	int ack = 1;
	if (!i2c.addressed) {
		ack = (i2c.shift & 0xfe) == 0xa0 && !M.s.sfp_absent && !(M.s.sfp_nacks > 0 && M.s.sfp_nacks--);
		i2c.addressed = ack;
		i2c.rw = i2c.shift & 1;
	} else
		i2c.ptr = i2c.shift;
	i2c.nack = !ack;
	i2c.st = I_ACK;
	i2c.pull_sda = ack;
}

/* SCL fell: the module moves to its next bit. */
static void i2c_scl_fall(void)
{
	switch (i2c.st) {
	case I_RX:
		if (i2c.bits == 8)
			i2c_byte_in();
		return;
	case I_ACK:
		i2c.pull_sda = 0;
		if (i2c.nack) {
			i2c.st = I_IDLE;
			return;
		}
		if (!i2c.rw) {
			i2c.st = I_RX, i2c.bits = 0, i2c.shift = 0;
			return;
		}
		i2c.st = I_TX, i2c.bits = 0, i2c.shift = M.sfp[i2c.ptr++];
		M.i2c_reads++;
		i2c.pull_sda = !(i2c.shift & 0x80);
		return;
	case I_TX:
		if (++i2c.bits == 8) {
			i2c.st = I_MACK;
			i2c.pull_sda = 0;
		} else
			i2c.pull_sda = !(i2c.shift & (0x80 >> i2c.bits));
		return;
	case I_MACK:
		if (i2c.nack) {
			i2c.st = I_IDLE;	/* NACK: the master ends the read */
			return;
		}
		i2c.st = I_TX, i2c.bits = 0, i2c.shift = M.sfp[i2c.ptr++];
		M.i2c_reads++;
		i2c.pull_sda = !(i2c.shift & 0x80);
		return;
	default:
		return;
	}
}

/* The driver wrote I2CCTL: the bus is the AND of both sides' drivers. */
static void i2c_lines(uint32_t v)
{
	if (!((model_peek(X_SW_FW_SYNC) >> (1 + (M.s.fn & 1))) & 1))
		M.i2c_unowned++;
	int scl = !!(v & 2) && !M.s.sfp_scl_low, msda = !!(v & 8);
	int sda = msda && !i2c.pull_sda;
	if (scl && i2c.scl && i2c.sda != sda) {	/* SDA moved while SCL was high */
		if (!sda) {			/* START */
			M.i2c_starts++;
			i2c.st = I_RX, i2c.bits = 0, i2c.shift = 0, i2c.addressed = 0;
			i2c.pull_sda = 0;
		} else
			i2c.st = I_IDLE, i2c.pull_sda = 0;	/* STOP */
		sda = msda && !i2c.pull_sda;
	} else if (scl && !i2c.scl) {		/* SCL rose: sample SDA */
		if (i2c.st == I_RX && i2c.bits < 8)
			i2c.shift = (uint8_t)(i2c.shift << 1 | sda), i2c.bits++;
		else if (i2c.st == I_MACK)
			i2c.nack = sda;
	} else if (!scl && i2c.scl) {		/* SCL fell */
		i2c_scl_fall();
		sda = msda && !i2c.pull_sda;
	}
	i2c.scl = scl;
	i2c.sda = sda;
}

void ixgbe_model_sfp(uint8_t ident, uint8_t comp10g, uint8_t comp1g, uint8_t cable, const char *vendor,
		     uint32_t oui, const char *pn)
{
	memset(M.sfp, 0, sizeof(M.sfp));
	M.sfp[0] = ident;
	M.sfp[3] = comp10g;
	M.sfp[6] = comp1g;
	M.sfp[8] = cable;
	memset(M.sfp + 20, ' ', 16);
	memcpy(M.sfp + 20, vendor, strlen(vendor));
	M.sfp[37] = (uint8_t)(oui >> 16), M.sfp[38] = (uint8_t)(oui >> 8), M.sfp[39] = (uint8_t)oui;
	memset(M.sfp + 40, ' ', 16);
	memcpy(M.sfp + 40, pn, strlen(pn));
}

uint32_t ixgbe_model_read(uint32_t reg)
{
	uint32_t *p = r(reg), v = *p, t;
	int q, k;
	if (tsync_reg(reg, &t) && tsync_read(t, &v))
		return v;
	switch (reg) {
	case X_STATUS:
		if (master_off && M.s.gio_polls >= 0 && ++status_reads > M.s.gio_polls)
			*p &= ~(1u << 19);
		return *p;
	case X_EEC:
		if (M.s.auto_rd_reads >= 0 && ee_reads++ >= M.s.auto_rd_reads)
			*p |= 1u << 9;
		return *p;
	case X_RDRXCTL:
		if (M.s.dmaidone_reads >= 0 && dma_reads++ >= M.s.dmaidone_reads)
			*p |= 1u << 3;
		return *p;
	case X_RAL0:
	case X_RAH0:
		return *r(X_EEC) & (1u << 9) ? v : 0;	/* loaded by the auto-read */
	case X_EICR:
		*p &= *r(X_GPIE) & (1u << 5) ? ~0xffffu : 0;	/* OCD: other causes stay */
		return v;
	case X_EIMS:
		return M.eims;
	case X_SWSM:
		*p |= 1u;	/* SMBI: the read that finds it clear sets it */
		return M.s.smbi_held || M.s.smbi_stale ? v | 1u : v;
	case X_SW_FW_SYNC:
		if (M.s.x540)
			*p |= REGSMP;	/* the read that finds it clear sets it */
		return v | M.s.fw_sync | (M.s.x540 && M.s.fw_holds_swesmbi ? REGSMP : 0);
	case X_I2CCTL:
		return (v & 0xa) | (i2c.scl && !M.s.sfp_scl_low ? 1u : 0) | (i2c.sda ? 4u : 0);
	}
	if ((k = xdctl(reg, &q)) >= 0) {
		if (lag[k][q] > 0 && --lag[k][q] == 0)
			shown[k][q] = v & ENABLE;
		return (v & ~ENABLE) | shown[k][q];
	}
	if (is_stat(reg))
		*p = 0;
	if (reg == X_GORCL + 4 || reg == X_GOTCL + 4)
		return v & 0xf;	/* 35:32 */
	return v;
}

void ixgbe_model_write(uint32_t reg, uint32_t v)
{
	uint32_t *p = r(reg), t;
	int q, k;
	if (tsync_reg(reg, &t) && tsync_write(t, v))
		return;
	switch (reg) {
	case X_CTRL:
		if (v & 1u << 2)
			master_off = 1, status_reads = 0;
		if (M.s.x540 && (v & 1u << 26) && !phy_sm_held())
			M.rst_unowned++;
		if (v & (1u << 26 | 1u << 3)) {
			ixgbe_model_reset();
			if (M.s.rst_stuck)
				*p = 1u << 26;
			return;
		}
		*p = v;
		return;
	case X_STATUS:
	case X_LINKS:
		return;		/* RO */
	case X_RDRXCTL:	/* DMAIDONE is RO */
		*p = (v & ~(1u << 3)) | (*p & (1u << 3));
		return;
	case X_EICR:
		*p &= ~v;
		return;
	case X_EICS:
		*r(X_EICR) |= v;
		return;
	case X_EIMS:
		M.eims |= v;
		return;
	case X_EIMC:
		M.eims &= ~v;
		return;
	case X_SWSM:
		*p = M.s.fw_holds_swesmbi || M.s.x540 ? v & ~2u : v;	/* the X540 has no SWESMBI */
		if (!(v & 1u))
			M.s.smbi_stale = 0;
		return;
	case X_SW_FW_SYNC:
		*p = v & (0x1f | (M.s.x540 ? REGSMP : 0));	/* software bits 4:0, REGSMP */
		return;
	case X_MSCA:
		*p = v;
		if (M.s.x540 && (v & 1u << 30))
			mdio_frame(v);
		if (!M.s.mdic_never_ready)
			*p &= ~(1u << 30);	/* MDICMD: the frame is done */
		return;
	case X_I2CCTL:
		*p = v & 0xa;
		i2c_lines(v);
		return;
	case X_AUTOC:
		*p = v & ~(1u << 12);	/* AN_RESTART self-clears */
		if ((v & 1u << 12) && !M.s.link_down && !M.s.x540)
			ixgbe_model_links(1u << 30 | 3u << 28 | 1u << 7);	/* up, 10 Gb/s */
		return;
	}
	if ((k = xdctl(reg, &q)) >= 0) {
		int takes = !k || (*r(X_DMATXCTL) & 1u);	/* TX ENABLE only after DMATXCTL.TE */
		lag[k][q] = !takes || M.s.queue_enable_polls < 0 ? -1 : M.s.queue_enable_polls;
		if (!lag[k][q])
			shown[k][q] = v & ENABLE;
		if (!takes)
			shown[k][q] = 0;
	}
	*p = v;
}

static void *ring_of(uint32_t blk)
{
	return (void *)(uintptr_t)((uint64_t)*r(blk) | (uint64_t)*r(blk + 4) << 32);
}

int ixgbe_model_rx(int q, const uint8_t *frame, uint16_t len, uint32_t staterr)
{
	uint32_t blk = X_RXQ(q), n = *r(blk + 8) / 16, h = *r(blk + 0x10), wire = len;
	int tagged = len >= 18 && (uint32_t)(frame[12] << 8 | frame[13]) == (*r(X_VLNCTRL) & 0xffff);
	uint16_t tci = tagged ? (uint16_t)(frame[14] << 8 | frame[15]) : 0, vid = tci & 0xfff;
	if (tagged && (*r(X_VLNCTRL) & (1u << 30)) && !(*r(X_VFTA + 4u * (vid >> 5)) >> (vid & 31) & 1))
		return 0;	/* VFE: filtered */
	if (!(*r(X_RXCTRL) & 1u) || !(*r(blk + 0x28) & ENABLE) || !n || h == *r(blk + 0x18)) {
		if (*r(X_SRRCTL(q)) & (1u << 28))
			(*r(X_QPRDC(q)))++;	/* DROP_EN: dropped for the queue */
		else
			(*r(X_MPC0))++;		/* missed: no room in the packet buffer's queue */
		return 0;
	}
	union rx_desc *d = (union rx_desc *)ring_of(blk) + h;
	uint8_t *buf = (uint8_t *)(uintptr_t)d->read.addr;
	d->wb.vlan = 0;
	if (tagged && (*r(blk + 0x28) & (1u << 30))) {	/* RXDCTL.VME: stripped */
		memcpy(buf, frame, 12);
		memcpy(buf + 12, frame + 16, len - 16u);
		len = (uint16_t)(len - 4);
		d->wb.vlan = tci;
		staterr |= 1u << 3;	/* VP */
	} else {
		memcpy(buf, frame, len);
	}
	uint64_t ts;
	if (tsync_rx_in_buf(&ts)) {	/* X550: SYSTIML, SYSTIMH after the frame, in its length */
		for (int i = 0; i < 8; i++)
			buf[len + i] = (uint8_t)(ts >> (8 * i));
		len = (uint16_t)(len + 8);
		staterr |= 1u << 15;	/* TSIP */
	}
	d->wb.info = 0;
	d->wb.rss_hash = 0;
	d->wb.length = len;
	d->wb.staterr = staterr | 1u | 2u;	/* DD, EOP */
	*r(blk + 0x10) = h + 1 == n ? 0 : h + 1;
	if (!(staterr & (1u << 29))) {
		(*r(X_GPRC))++;
		*r(X_GORCL) += wire + 4u;	/* octets through the FCS */
		if (frame[0] == 0xff)
			(*r(X_BPRC))++;
		else if (frame[0] & 1)
			(*r(X_MPRC))++;
	}
	*r(X_EICR) |= 1u;	/* RX queue 0 cause (IVAR entry 0) */
	return 1;
}

/* The ones' complement sum of n bytes at b, folded, added to sum. */
static uint32_t sum16(const uint8_t *b, uint32_t n, uint32_t sum)
{
	for (uint32_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)b[i] << 8 | b[i + 1];
	if (n & 1)
		sum += (uint32_t)b[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/* Checksum insertion (82599 7.2.4, 7.2.3.2.3): POPTS.IXSM sums the IPv4
 * header (IPLEN bytes at MACLEN) into its checksum field; POPTS.TXSM sums
 * from MACLEN + IPLEN to the end, the TCP (L4T 01) or UDP (00) checksum
 * field holding the pseudo-header's sum software put there, into that
 * field. The context is the queue's slot IDX (olinfo bit 4: two slots per
 * queue). */
static void tx_offload(int q, uint8_t *f, uint32_t len, uint32_t olinfo)
{
	const struct ixgbe_model_ctx *c = &M.tx_ctx[q][(olinfo >> 4) & 1];
	uint32_t mac = c->vlan_macip_lens >> 9 & 0x7f, ip = c->vlan_macip_lens & 0x1ff;
	if (!c->valid || mac + ip > len) {
		M.tx_ctx_bad++;
		return;
	}
	if (olinfo & 1u << 8 && (c->type_tucmd & 1u << 10)) {	/* IXSM, IPV4 */
		f[mac + 10] = f[mac + 11] = 0;
		uint16_t s = (uint16_t)~sum16(f + mac, ip, 0);
		f[mac + 10] = (uint8_t)(s >> 8), f[mac + 11] = (uint8_t)s;
	}
	if (olinfo & 1u << 9) {					/* TXSM */
		uint32_t off = mac + ip + ((c->type_tucmd >> 11 & 3) == 1 ? 16 : 6);
		uint16_t s = (uint16_t)~sum16(f + mac + ip, len - mac - ip, 0);
		f[off] = (uint8_t)(s >> 8), f[off + 1] = (uint8_t)s;
	}
	M.tx_offloaded++;
}

int ixgbe_model_tx(int q)
{
	uint32_t blk = X_TXQ(q), n = *r(blk + 8) / 16, sent = 0;
	if (!(*r(X_DMATXCTL) & 1u) || !(*r(blk + 0x28) & ENABLE) || !n)
		return 0;
	union tx_desc *ring = ring_of(blk);
	while (*r(blk + 0x10) != *r(blk + 0x18)) {
		union tx_desc *d = &ring[*r(blk + 0x10)];
		uint32_t ctl = d->d.cmd_type_len;
		if (((ctl >> 20) & 0xf) == 2 && (ctl & 1u << 29)) {	/* advanced context descriptor */
			struct ixgbe_model_ctx *c = &M.tx_ctx[q][(d->d.status >> 4) & 1];
			*c = (struct ixgbe_model_ctx){ .valid = 1, .vlan_macip_lens = (uint32_t)d->d.addr,
						       .type_tucmd = ctl };
			M.tx_ctx_descs++;
		}
		if (((ctl >> 20) & 0xf) == 3) {	/* advanced data descriptor */
			uint32_t len = ctl & 0xffff;
			uint8_t *f = (uint8_t *)(uintptr_t)d->d.addr;
			if (d->d.status & (3u << 8))
				tx_offload(q, f, len, d->d.status);
			(*r(X_GPTC))++;
			*r(X_GOTCL) += (len < 60 ? 60 : len) + 4;	/* HLREG0.TXPADEN, FCS */
			if (f[0] == 0xff)
				(*r(X_BPTC))++;
			else if (f[0] & 1)
				(*r(X_MPTC))++;
			sent++;
		}
		if (ctl & (1u << 27))	/* RS: write back DD */
			d->d.status |= 1u;
		*r(blk + 0x10) = *r(blk + 0x10) + 1 == n ? 0 : *r(blk + 0x10) + 1;
	}
	return (int)sent;
}
