/*
 * A register model of the Intel gigabit NICs for host tests of the
 * drivers (tests/regmodel/): a register file with per-register semantics
 * as the datasheets give them (RW, RO, clear-on-read, self-clearing,
 * write-1-to-clear, read-to-set semaphores), fake DMA memory, a PHY behind
 * MDIC, an I/O BAR window, PCI config space, and scripted device
 * behaviour (the NVM auto-read completes after N reads; bus mastering
 * stops after N polls; firmware holds a semaphore). Every register access
 * is logged in order, so tests can assert which write came before which.
 * The driver files are built with E1000X_HOST_MODEL (rd32/wr32 come here)
 * and printf renamed to model_printf (the console is captured).
 */
#ifndef REGMODEL_H
#define REGMODEL_H
#include <stdint.h>
#include "drivers/net/e1000x/e1000x.h"

enum model_flavour { M_82540EM, M_82574, M_82576, M_I350, M_I210, M_82599 };

/* One logged access. */
struct model_access {
	char op;		/* 'R' read, 'W' write (MMIO or through the I/O window),
				 * 'F' a packet buffer given back to its pool */
	uint32_t reg;
	uint32_t val;		/* value read or written */
	int via_io;		/* the write came through IOADDR/IODATA */
};

/* Device behaviour a test scripts before the probe; -1 = never. */
struct model_script {
	int auto_rd_reads;	/* EECD reads after a reset until AUTO_RD sets (0: at once) */
	int gio_polls;		/* STATUS reads after GIO_MASTER_DISABLE until GIO_MASTER_ENABLE clears */
	int cfg_done_reads;	/* EEMNGCTL reads after a reset until the port's CFG_DONE sets */
	int queue_enable_polls;	/* RXDCTL/TXDCTL reads until ENABLE follows the written value */
	int rst_stuck;		/* CTRL.RST never clears */
	int mdic_never_ready;
	int fw_holds_mdio;	/* 82574: EXTCNF_CTRL.MDIO_SW_OWNERSHIP never sticks */
	int fw_holds_swesmbi;	/* igb, 82599: SWSM.SWESMBI never sticks */
	int smbi_held;		/* igb, 82599: another software agent holds SWSM.SMBI */
	int smbi_stale;		/* igb, 82599: SWSM.SMBI left set (a previous OS died holding it)
				 * until software writes it clear */
	uint32_t fw_sync;	/* igb: firmware bits held in SW_FW_SYNC (upper half);
				 * 82599: its bits 9:5 */
	int qemu_nvm;		/* QEMU igb: EECD never shows AUTO_RD, RAL0/RAH0 loaded at once */
	int io_stub;		/* 82540EM I/O BAR reads 0 and drops writes (QEMU) */
	uint16_t subsys_vendor;	/* PCI subsystem vendor (0x1af4: QEMU) */
	int phy_pll_bad_reads;	/* I210: PHY PLL register reads 0xff this many times */
	uint16_t phy_bmcr;	/* BMCR at power-on (e.g. with power-down set) */
	int flashless;		/* I210: EECD.FLASH_DETECTED clear */
	int int_mode;		/* enum pci_int_mode pci_irq_setup gives */
	int nvec;		/* vectors pci_irq_setup gives at most */
	uint8_t fn;		/* PCI function (STATUS.FUNC_ID) */
	int qemu_timinca;	/* 82574: INCVALUE per 16 ns, as QEMU 10 counts (docs/qemu-nics.md C.1) */
	int phy_hung;		/* 82574: PHY receive error counter 0xffff and idle error count 0xff
				 * until a BMCR write with RESET (bit 15) */
	uint32_t manc;		/* MANC as the NVM loads it at every reset */
	int link_down;		/* STATUS.LU clear, resets included */
	int systim_garbage;	/* 82574: every Nth SYSTIML read, SYSTIMH comes with bit 0 flipped (0: never) */
	int dmaidone_reads;	/* 82599: RDRXCTL reads after a reset until DMAIDONE sets */
	int sfp_absent;		/* 82599: no module in the SFP+ cage (nothing acknowledges) */
	int sfp_nacks;		/* 82599: the module leaves its address unacknowledged this many times */
	int sfp_scl_low;	/* 82599: the module holds SCL low (stuck bus) */
	int x540;		/* 82599 flavour as the X540 (ixgbe_model.c): no SWESMBI,
				 * SW_FW_SYNC.REGSMP, an internal PHY over MDIO */
	int x550;		/* with x540: the X550's SYSTIME (seconds and ns, SYSTIMR, TSAUXC) */
	int lp_speed;		/* X540: the link partner's best copper speed in Mb/s
				 * (0: 10000); auto-negotiation takes the best both have */
};

struct model {
	enum model_flavour flav;
	struct model_script s;
	uint32_t reg[0x20000 / 4];
	uint16_t phy[32];
	uint32_t icr, ims, eicr, eims;
	int eecd_reads, status_reads, eemngctl_reads, pll_reads;
	int gio_disabled, resets;
	uint32_t ioaddr;
	uint8_t cfg[4096];		/* PCI config space */
	struct model_access log[200000];
	int nlog;
	int mdic_unowned;		/* MDIC accesses without the PHY ownership held */
	int phy_resets;			/* BMCR writes with RESET */
	int irq_frees;			/* pci_irq_free calls */
	int absent_reads;		/* reads of registers the part does not have */
	int tsync_bad_writes;		/* writes to read-only time sync registers or SYSTIM */
	uint32_t nvm_ral, nvm_rah;	/* what the NVM load puts in RAL0/RAH0 */
	uint8_t sfp[256];		/* 82599: the SFP+ module's ID page (SFF-8472 A0h) */
	int i2c_unowned;		/* 82599: I2CCTL writes without the port's SW_PHY_SM bit held */
	int i2c_reads;			/* 82599: ID page bytes the module sent */
	int i2c_starts;			/* 82599: START conditions seen on the bus */
	struct ixgbe_model_ctx {	/* 82599: a TX queue's context slot (7.2.3.2.3) */
		int valid;
		uint32_t vlan_macip_lens, type_tucmd;
	} tx_ctx[NIC_MAX_QUEUES][2];
	int tx_ctx_descs;		/* 82599: context descriptors taken */
	int tx_offloaded;		/* 82599: frames whose checksums the model inserted */
	int tx_ctx_bad;			/* 82599: POPTS without a valid context slot */
	int rst_unowned;		/* X540: CTRL.RST written without the port's SW_PHY_SM bit */
	int mdio_frames;		/* X540: MSCA frames started (mdic_unowned: without the
					 * port's SW_PHY_SM bit) */
	char console[65536];
	size_t console_len;
	/* interrupts as the fake PCI layer gave them */
	irq_handler_t handlers[PCI_MAX_VECS];
	void *args[PCI_MAX_VECS];
	int queue_irqs[NIC_MAX_QUEUES];	/* napi_queue_irq calls per queue */
	uint64_t dma_limits_seen;	/* OR of the limits passed to dma_alloc_below */
	int dma_calls_unlimited;	/* dma_alloc_below calls with no limit */
};
extern struct model M;
extern struct pci_dev model_dev;

/* Move the virtual clock on by ns. */
void model_advance_ns(uint64_t ns);
/* Called on every udelay (a driver waiting on the device): a model that
 * answers asynchronously (the virtio control queue) does it here; cleared
 * by model_init. */
extern void (*model_delay_hook)(void);
/* Reset the model to a power-on flavour with default script values. */
void model_init(enum model_flavour f);
/* Register value (no side effects, not logged) / set it. */
uint32_t model_peek(uint32_t reg);
void model_poke(uint32_t reg, uint32_t v);
/* Index in the log of the first write to reg with (val & mask) == want
 * after index from, or -1. */
int model_find_write(int from, uint32_t reg, uint32_t mask, uint32_t want);
/* Index of the first read of reg after from, or -1. */
int model_find_read(int from, uint32_t reg);
/* The last value written to reg, or -1 (as int64) if never written. */
int64_t model_last_write(uint32_t reg);
/* 1 if the console output contains s. */
int model_console_has(const char *s);
/* The probe of the family under test, as pci_probe_drivers would call it. */
int model_probe(const struct pci_driver *drv, uint16_t device);

/* The 82599 (tests/regmodel/ixgbe_model.c, built with MODEL_IXGBE): its
 * registers, and the wire. ixgbe_model_rx writes frame into RX queue q's
 * next descriptor (advanced write-back, DD and EOP with staterr's bits)
 * and counts it, or drops it as the 82599 does without a descriptor
 * (QPRDC with SRRCTL.DROP_EN, else MPC); returns 1 if it went into the
 * ring. ixgbe_model_tx sends every descriptor up to TDT, writing DD where
 * RS asks; returns the frames sent. */
void ixgbe_model_reset(void);
/* The X540's PHY registers to their power-on values (model_init). */
void ixgbe_model_power_on(void);
uint32_t ixgbe_model_read(uint32_t reg);
void ixgbe_model_write(uint32_t reg, uint32_t v);
int ixgbe_model_rx(int q, const uint8_t *frame, uint16_t len, uint32_t staterr);
int ixgbe_model_tx(int q);
/* X540/X550: the PHY's clause 45 register dev.reg now. */
uint16_t ixgbe_model_phy_reg(unsigned dev, uint16_t reg);
/* After model_init: the X550-T (see ixgbe_model.c). */
void ixgbe_model_x550(void);
/* LINKS changes to v (the link, or its speed): the time sync clock's
 * period changes with it. */
void ixgbe_model_links(uint32_t v);
/* Fill M.sfp with an SFF-8472 ID page: identifier, 10G and 1G codes, cable
 * technology, vendor name, OUI, part number (the rest zero). */
void ixgbe_model_sfp(uint8_t ident, uint8_t comp10g, uint8_t comp1g, uint8_t cable, const char *vendor,
		     uint32_t oui, const char *pn);
#endif
