/*
 * SFP+ module identification on the 82599's SFI ports: the module's ID
 * page (SFF-8472 section 4, two-wire address A0h) read over the cage's
 * I2C bus, which the 82599 gives software as two lines in I2CCTL
 * (driven bit by bit), under the port's PHY semaphore (SW_FW_SYNC
 * SW_PHY_SM0/1: the firmware reads the module too). Timing is I2C
 * standard mode (NXP UM10204 table 10, 100 kHz); every line change is
 * written, read back, then waited on (82599 Specification Update,
 * software clarification 3: a read between a write and its delay). The
 * decision follows Linux ixgbe_identify_sfp_module for the 82599.
 */
#include <stdio.h>
#include <string.h>
#include "drivers/net/ixgbe/ixgbe.h"
#include "drivers/net/ixgbe/regs.h"
#include "kernel/knobs.h"

int64_t ixgbe_allow_unsupported_sfp;
static const struct knob_range allow_range[] = { { 0, 1 } };
KNOB(allow_unsupported_sfp, .name = "allow_unsupported_sfp", .type = KNOB_INT, .ranges = allow_range, .nranges = 1,
     .ival = &ixgbe_allow_unsupported_sfp,
     .help = "ixgbe: 1 takes SFP+ optics of other vendors than Intel, untested (Linux ixgbe's parameter); default 0");

/* SFF-8472 ID page (A0h) bytes */
#define SFF_IDENTIFIER	0	/* 03h: SFP or SFP+ */
#define SFF_10GBE_COMP	3	/* 10G Ethernet compliance codes */
#define SFF_1GBE_COMP	6	/* Ethernet compliance codes */
#define SFF_CABLE_TECH	8	/* SFP+ cable technology */
#define SFF_VENDOR_NAME	20	/* 16 bytes, ASCII, space padded */
#define SFF_VENDOR_OUI	37	/* 3 bytes */
#define SFF_VENDOR_PN	40	/* 16 bytes */
#define SFF_CABLE_SPEC	60	/* with an active cable: its compliance */
#define SFF_ID_LEN	64	/* the bytes read */
#define SFF_IDENTIFIER_SFP 0x03
#define SFF_10GBASE_SR	(1u << 4)
#define SFF_10GBASE_LR	(1u << 5)
#define SFF_1GBASE_SX	(1u << 0)
#define SFF_1GBASE_LX	(1u << 1)
#define SFF_1GBASE_T	(1u << 3)
#define SFF_DA_PASSIVE	(1u << 2)
#define SFF_DA_ACTIVE	(1u << 3)
#define SFF_DA_SPEC_ACTIVE_LIMITING (1u << 2)	/* SFF-8431 appendix E, limiting */
#define SFP_I2C_ADDR	0xa0	/* the ID page's 8-bit write address */
#define INTEL_OUI	0x001b21

/* UM10204 table 10, standard mode, rounded up to whole us */
enum { T_LOW = 5, T_HIGH = 4, T_SU_STA = 5, T_HD_STA = 4, T_SU_DAT = 1, T_SU_STO = 4, T_BUF = 5,
       T_RISE = 1, STRETCH_TRIES = 500 };

struct i2c {
	struct e1000x_port *p;
	uint32_t out;		/* I2CCTL as last written */
	int stuck;		/* SCL never rose (held low by the module) */
};

/* Drive the lines (1 releases one), read them back, wait us. */
static uint32_t lines(struct i2c *b, int scl, int sda, unsigned us)
{
	b->out = (scl ? IXGBE_I2C_CLK_OUT : 0) | (sda ? IXGBE_I2C_DATA_OUT : 0);
	wr32(b->p->regs, IXGBE_I2CCTL, b->out);
	uint32_t in = rd32(b->p->regs, IXGBE_I2CCTL);
	udelay(us);
	return in;
}

/* SCL released and awaited (a slave may stretch the clock; 500 tries,
 * Linux's bound, then the bus is taken for stuck and not waited on again),
 * held T_HIGH; the lines as read once SCL was up (SDA is stable while
 * SCL is high, UM10204 3.1.3). */
static uint32_t scl_high(struct i2c *b, int sda)
{
	uint32_t in = lines(b, 1, sda, T_RISE);
	for (int i = 0; !(in & IXGBE_I2C_CLK_IN) && !b->stuck && i < STRETCH_TRIES; i++)
		in = lines(b, 1, sda, T_RISE);
	if (!(in & IXGBE_I2C_CLK_IN))
		b->stuck = 1;
	udelay(T_HIGH);
	return in;
}

/* START (or repeated START): SDA falls while SCL is high. */
static void i2c_start(struct i2c *b)
{
	lines(b, b->out & IXGBE_I2C_CLK_OUT, 1, T_SU_DAT);
	scl_high(b, 1);
	udelay(T_SU_STA - T_HIGH);
	lines(b, 1, 0, T_HD_STA);
	lines(b, 0, 0, T_LOW);
}

/* STOP: SDA rises while SCL is high. */
static void i2c_stop(struct i2c *b)
{
	lines(b, 0, 0, T_SU_DAT);
	scl_high(b, 0);
	udelay(T_SU_STO - T_HIGH);
	lines(b, 1, 1, T_BUF);
}

/* One bit out; the SDA line as seen while SCL was high comes back. */
static int i2c_bit(struct i2c *b, int bit)
{
	lines(b, 0, bit, T_SU_DAT);
	int in = !!(scl_high(b, bit) & IXGBE_I2C_DATA_IN);
	lines(b, 0, bit, T_LOW);
	return in;
}

/* A byte out, MSB first; 1 if the slave acknowledged (pulled SDA low). */
static int i2c_write_byte(struct i2c *b, uint8_t v)
{
	for (int i = 7; i >= 0; i--)
		i2c_bit(b, (v >> i) & 1);
	return !i2c_bit(b, 1);
}

/* A byte in (SDA released), then ACK (more to come) or NACK. */
static uint8_t i2c_read_byte(struct i2c *b, int ack)
{
	uint8_t v = 0;
	for (int i = 0; i < 8; i++)
		v = (uint8_t)(v << 1 | i2c_bit(b, 1));
	i2c_bit(b, !ack);
	return v;
}

/* Nine clocks with SDA released free a slave left mid-byte, then STOP
 * (UM10204 3.1.16 bus clear). */
static void i2c_bus_clear(struct i2c *b)
{
	for (int i = 0; i < 9; i++)
		i2c_bit(b, 1);
	i2c_stop(b);
}

enum { I2C_OK, I2C_NO_MODULE, I2C_FAILED };

/* Random read then sequential read of n bytes from off at dev (SFF-8472
 * 4.1: the write of the offset, a repeated START, the read address). */
static int i2c_read(struct i2c *b, uint8_t dev, uint8_t off, uint8_t *buf, int n)
{
	i2c_start(b);
	if (!i2c_write_byte(b, dev)) {
		i2c_stop(b);
		return b->stuck ? I2C_FAILED : I2C_NO_MODULE;
	}
	if (!i2c_write_byte(b, off)) {
		i2c_stop(b);
		return I2C_FAILED;
	}
	i2c_start(b);
	if (!i2c_write_byte(b, dev | 1)) {
		i2c_stop(b);
		return I2C_FAILED;
	}
	for (int i = 0; i < n; i++)
		buf[i] = i2c_read_byte(b, i + 1 < n);
	i2c_stop(b);
	return b->stuck ? I2C_FAILED : I2C_OK;
}

/* The ID page under the PHY semaphore, three tries (a bus clear between
 * them); I2C_OK, I2C_NO_MODULE or I2C_FAILED (printed). */
static int sfp_read_id(struct e1000x_port *p, uint8_t *id)
{
	int r = I2C_FAILED;
	for (int tries = 0; tries < 3 && r != I2C_OK; tries++) {
		struct i2c b = { .p = p, .out = IXGBE_I2C_CLK_OUT | IXGBE_I2C_DATA_OUT };
		if (ixgbe_phy_lock(p))
			return I2C_FAILED;
		if (tries)
			i2c_bus_clear(&b);
		r = i2c_read(&b, SFP_I2C_ADDR, 0, id, SFF_ID_LEN);
		ixgbe_phy_unlock(p);
	}
	if (r == I2C_FAILED)
		printf("%s: SFP+ module: the I2C read of its ID page failed 3 times (no acknowledge "
		       "after the address, or SCL held low)\n", p->nic.name);
	return r;
}

/* 16 bytes of ASCII, space padded, into a string. */
static void sff_text(const uint8_t *f, char *s)
{
	int n = 16;
	while (n > 0 && (f[n - 1] == ' ' || f[n - 1] == 0))
		n--;
	for (int i = 0; i < n; i++)
		s[i] = f[i] >= 0x20 && f[i] < 0x7f ? (char)f[i] : '?';
	s[n] = 0;
}

static enum ixgbe_sfp refuse(struct e1000x_port *p, const char *why)
{
	printf("%s: unsupported SFP+ module: %s; port left out\n", p->nic.name, why);
	return IXGBE_SFP_UNSUPPORTED;
}

enum ixgbe_sfp ixgbe_sfp_identify(struct e1000x_port *p, int allow_unsupported)
{
	static const char *const kinds[] = { "", "10GBASE-SR", "10GBASE-LR", "direct attach (passive)",
					     "direct attach (active limiting)" };
	uint8_t id[SFF_ID_LEN];
	int r = sfp_read_id(p, id);
	if (r == I2C_NO_MODULE) {
		printf("%s: no SFP+ module in the cage (nothing answers at I2C address A0h); port left out\n",
		       p->nic.name);
		return IXGBE_SFP_NONE;
	}
	if (r != I2C_OK)
		return refuse(p, "its ID page could not be read");
	char vendor[17], pn[17], why[120];
	sff_text(id + SFF_VENDOR_NAME, vendor);
	sff_text(id + SFF_VENDOR_PN, pn);
	uint32_t oui = (uint32_t)id[SFF_VENDOR_OUI] << 16 | id[SFF_VENDOR_OUI + 1] << 8 | id[SFF_VENDOR_OUI + 2];
	printf("%s: SFP+ module %s %s (OUI %06x)\n", p->nic.name, vendor, pn, oui);
	enum ixgbe_sfp kind;
	if (id[SFF_IDENTIFIER] != SFF_IDENTIFIER_SFP) {
		snprintf(why, sizeof(why), "identifier %02xh is not SFP/SFP+ (SFF-8472 byte 0: 03h)", id[0]);
		return refuse(p, why);
	}
	if (id[SFF_CABLE_TECH] & SFF_DA_PASSIVE)
		kind = IXGBE_SFP_DA_PASSIVE;
	else if (id[SFF_CABLE_TECH] & SFF_DA_ACTIVE) {
		if (!(id[SFF_CABLE_SPEC] & SFF_DA_SPEC_ACTIVE_LIMITING))
			return refuse(p, "an active direct attach cable that is not SFF-8431 limiting (byte 60)");
		kind = IXGBE_SFP_DA_ACTIVE;
	} else if (id[SFF_10GBE_COMP] & SFF_10GBASE_SR)
		kind = IXGBE_SFP_SR;
	else if (id[SFF_10GBE_COMP] & SFF_10GBASE_LR)
		kind = IXGBE_SFP_LR;
	else if (id[SFF_1GBE_COMP] & (SFF_1GBASE_SX | SFF_1GBASE_LX | SFF_1GBASE_T))
		return refuse(p, "a 1000BASE-SX/LX/T module: only 10 Gb/s SFI is set up here");
	else {
		snprintf(why, sizeof(why), "no 10GBASE-SR/LR or direct attach code (bytes 3, 6, 8: %02xh %02xh %02xh)",
			 id[SFF_10GBE_COMP], id[SFF_1GBE_COMP], id[SFF_CABLE_TECH]);
		return refuse(p, why);
	}
	if (kind != IXGBE_SFP_DA_PASSIVE && oui != INTEL_OUI) {
		if (!allow_unsupported)
			return refuse(p, "not an Intel module (vendor OUI other than 00:1b:21), which Linux "
					 "ixgbe refuses too; allow_unsupported_sfp=1 takes it, untested");
		printf("%s: allow_unsupported_sfp=1: using a module Intel has not tested\n", p->nic.name);
	}
	printf("%s: SFP+ module %s\n", p->nic.name, kinds[kind]);
	return kind;
}
