/*
 * What the Intel gigabit families share beyond registers and their
 * access helpers (regs.h) and descriptors (desc.h): the port state, the
 * family hooks and the code in e1000x.c; the rings are in ring.h, rx.c
 * and tx.c.
 */
#ifndef E1000X_H
#define E1000X_H
#include <stdint.h>
#include <stdio.h>
#include "drivers/net/nic.h"
#include "kernel/time.h"
#include "drivers/net/e1000x/regs.h"

/* QEMU's NICs carry subsystem vendor 1af4 (Red Hat; igb, and e1000 as
 * 1af4:1100), which no Intel board uses: where QEMU lacks a silicon step
 * (igb EECD.AUTO_RD, CFG_DONE) the driver tests this, and only this. */
#define QEMU_SUBSYS_VENDOR 0x1af4
static inline int e1000x_is_qemu(const struct nic *nic)
{
	return nic->pci->subsys_vendor == QEMU_SUBSYS_VENDOR;
}

#include "drivers/net/e1000x/ring.h"

struct e1000x_family;

/*
 * A port of any of the three families: the generic struct nic first, then
 * what the shared code needs. e1000x_reset stops and resets the port; the
 * family's hw_init then sets up everything but the PCI vectors. Both run
 * at probe and to recover from a TX hang.
 */
struct e1000x_port {
	struct nic nic;
	volatile uint8_t *regs;
	uint16_t io;		/* I/O BAR port base, 0 if none or not used */
	struct e1000x_rxq rxq[NIC_MAX_QUEUES];
	struct e1000x_txq txq[NIC_MAX_QUEUES];
	int msix;		/* 1 when each queue pair has its own MSI-X vector */
	const struct e1000x_family *family;
	/* The port's nic_ops (nic.ops points here): the family's, with the
	 * rx_burst and tx_burst of the rings' descriptor formats, chosen by
	 * e1000x_setup_rxq and e1000x_setup_txq (DPDK's rx_pkt_burst). */
	struct nic_ops ops;
	const void *part;	/* the family's per-device data (struct igb_part...) */
	uint16_t vids[8];	/* VLANs in the VFTA (vlan_rx_add_vid), put back after a reset */
	int nvids;
	uint64_t stat_cumulative;	/* statistics registers that do not clear on read, by STAT_BIT */
	uint64_t absent_stats;		/* statistics registers the part lacks (not read), by STAT_BIT */
	uint32_t stat_last[64];		/* their last raw values, by (reg - 0x4000) / 4 */
	uint8_t phy_addr;	/* MDIO address of the PHY (1 on the internal copper PHYs) */
	int phy_hang_count;	/* 82574: watchdogs in a row that found the PHY hung */
	int phy_hang_resets;	/* 82574: port resets for it since the PHY last looked well */
	int down_flushed;	/* reset for TX work queued since the link went down */
	int smbi_cleared;	/* a stale SWSM.SMBI was cleared (e1000x_swfw) */
	volatile int reset_pending;	/* the watchdog resets the port: 1 a cause (igb DRSTA)
				   asked for it, 2 the shell did */
	int rx_ts_in_buf;	/* set before hw_init (PTP): RX timestamps in the buffer
				 * (igb I350/I210 SRRCTL.TIMESTAMP), see e1000x_rxq.tsip_bit */
};

static inline struct e1000x_port *to_port(struct nic *nic)
{
	return (struct e1000x_port *)nic;
}

/* 1 if queue q's next RX descriptor is done (a frame waits): DD is bit 0
 * of the legacy status byte and of the extended staterr alike (desc.h).
 * The nic_ops rx_pending, and inline in the families' irq_enable. */
static inline int e1000x_rx_pending(struct nic *nic, int q)
{
	const struct e1000x_rxq *rq = &to_port(nic)->rxq[q];
	volatile const union rx_desc *d = &rq->ring[rq->next];
	return (rq->fmt == RXF_LEGACY ? d->legacy.status : d->wb.staterr) & RXDEXT_DD;
}

/* What differs between the families. The hooks marked optional may be 0. */
struct e1000x_family {
	const char *driver;		/* "e1000e" */
	const struct nic_ops *ops;
	int max_queues;
	int int_delays;			/* 1: RDTR/RADV/TIDV/TADV exist (e1000, e1000e; igb has EITR only) */
	uint32_t eimc;			/* extended interrupt mask clear register, 0 if none */
	int pcie;			/* 1: CTRL.GIO_MASTER_DISABLE and DRV_LOAD exist */
	uint32_t icr_reset;		/* ICR causes asking for a port reset (igb DRSTA), 0 if none */
	/* Optional, at probe before the port is registered: per-device set-up
	 * (p->part, queue count, DMA limit, PCI errata); 0, or -1 after
	 * printing why the device is refused. */
	int (*attach)(struct e1000x_port *p, const struct pci_id *id);
	/* Get the PCI vectors and set p->msix; may lower nic.nqueues. */
	int (*setup_vectors)(struct e1000x_port *p);
	/* Everything after e1000x_reset: link, rings, filters, interrupts. */
	int (*hw_init)(struct e1000x_port *p);
	/* Optional: right before CTRL.RST (82574: take MDIO ownership). */
	int (*pre_reset)(struct e1000x_port *p);
	/* Optional: write CTRL with RST set (82540EM: through the I/O BAR). */
	void (*write_rst)(struct e1000x_port *p, uint32_t ctrl);
	/* After CTRL.RST cleared: wait for the NVM load and the PHY set-up
	 * (auto-read, PHY configuration time, CFG_DONE). 0 or -1. */
	int (*post_reset)(struct e1000x_port *p);
	/* Optional: own the PHY (MDIO) against firmware; 0 or -1. */
	int (*phy_acquire)(struct e1000x_port *p);
	void (*phy_release)(struct e1000x_port *p);
	/* Optional: once a second, after the link check: 1 asks for a reset
	 * (82574 PHY hang). */
	int (*check_hang)(struct e1000x_port *p);
};

/* Probe a port of family f: map BAR0, attach, register the port, reset,
 * read the MAC, get vectors, make the pools, hw_init. 0, or -1 after
 * printing why. */
int e1000x_probe(struct pci_dev *d, const struct pci_id *id, const struct e1000x_family *f);
/* Vectors from the PCI layer: queue pair q on vector q (napi_queue_irq) and
 * other causes on vector nqueues when MSI-X gives them all (p->msix = 1);
 * else every cause on one vector (e1000x_legacy_irq) and one queue. 0 or -1. */
int e1000x_setup_vectors(struct e1000x_port *p, irq_handler_t other);
/* The single vector of INTx or MSI, the same on the three families
 * (8254x 13.4.17, 82574 10.2.4.1, 82576 8.8.1): reading ICR clears it; link
 * changes go to the watchdog, family->icr_reset causes ask for a reset,
 * ICR_RX_CAUSES schedule queue 0. */
void e1000x_legacy_irq(struct trapframe *tf, void *arg);
/*
 * Stop and reset the port (8254x 14.3 and 14.8, 82574 4.6.1-4.6.2, 82576
 * 4.3.1 and 4.5.1): interrupts masked; on PCIe parts bus mastering
 * stopped (CTRL.GIO_MASTER_DISABLE, STATUS.GIO_MASTER_ENABLE polled
 * clear) so no DMA is in flight; RX and TX off; CTRL.RST; the family's
 * post_reset (NVM auto-read, PHY configuration); interrupts masked and
 * ICR cleared again; CTRL_EXT.DRV_LOAD on PCIe parts. Buffers the rings
 * hold may be given back only after this. With read_stats (a running
 * port), the statistics registers are read into nic->stats once RX has
 * stopped, before CTRL.RST clears them, so every frame written to the RX
 * ring is in rx_packets. 0, or -1 after printing which step did not
 * complete.
 */
int e1000x_reset(struct e1000x_port *p, int read_stats);
/* Wait for EECD.AUTO_RD after a reset (82574 4.6.2, 82576 4.5.1): 0, or -1
 * after printing. */
int e1000x_wait_auto_rd(struct e1000x_port *p);
/* Copper link by auto-negotiation (8254x 14.3, 82574 4.6.4, 82576
 * 4.5.7.2): CTRL.SLU, no forced speed or duplex, flow control off; the
 * PHY powered up (BMCR.PDOWN and ISOLATE cleared: a previous driver may
 * have left it down), advertising 10/100/1000 full and 10/100 half, and
 * auto-negotiation restarted. 0, or -1 after printing. */
int e1000x_copper_link_setup(struct e1000x_port *p);

/* nic_ops shared by the families. */
void e1000x_port_update_stats(struct nic *nic);
void e1000x_port_tx_clean(struct nic *nic, int q);
void e1000x_port_request_reset(struct nic *nic);
/* Link check, TX hang recovery (count tx_timeout_count, reset, restore,
 * carry on), ITR simplified mode (napi_watchdog). */
void e1000x_port_watchdog(struct nic *nic);
/* 1 once per link-down period when frames wait in a TX ring: the watchdog
 * resets the port to flush them (silicon review 2026-12-02 N5). */
int e1000x_down_with_tx_queued(struct e1000x_port *p);
/* The nic_ops fields every family fills the same way, written once; each
 * family's table adds its interrupt calls and update_stats. rx_burst and
 * tx_burst are the port's own (e1000x_port.ops). */
#define E1000X_COMMON_OPS \
	.rx_pending = e1000x_rx_pending, .watchdog = e1000x_port_watchdog, \
	.tx_clean = e1000x_port_tx_clean, .reset = e1000x_port_request_reset, .set_mc = e1000x_port_set_mc
/* Zero the counters after a reset (reading the statistics registers clears them). */
void e1000x_clear_stats(struct e1000x_port *p);
/* Set up rings as far as the shared code goes, and choose the port's
 * burst call for the descriptor format (RX: fmt, RXF_* of ring.h; TX:
 * advanced or legacy); the family writes the registers. Returns 0 or -1
 * (no memory). */
int e1000x_setup_rxq(struct e1000x_port *p, int q, uint32_t rdt, int fmt, uint32_t ts_bit);
int e1000x_setup_txq(struct e1000x_port *p, int q, uint32_t tdt, int adv);
/* Print the port's one-line probe summary. */
void e1000x_print_probe(struct e1000x_port *p);

/* Wait up to timeout_us for (reg & mask) == want; 0, or -1 after printing
 * the value last seen. */
int wait_reg32(volatile uint8_t *base, const char *who, uint32_t reg, uint32_t mask,
	       uint32_t want, uint64_t timeout_us);

/* Read the MAC address from RAL0/RAH0 (loaded from the EEPROM at reset).
 * Returns 0, or -1 if RAH0.AV is clear or the address is zero/multicast. */
int e1000x_read_mac(volatile uint8_t *base, uint8_t mac[6]);
/* Program RAL0/RAH0 with mac, clear the other receive addresses and the
 * multicast table (nregs receive address registers). */
void e1000x_set_filters(volatile uint8_t *base, const uint8_t mac[6], int nregs);
/* TCTL read-modify-written as Linux e1000_configure_tx / igb_setup_tctl
 * do: the collision fields replaced by those in bits, which are set (EN,
 * PSP...); the reset-default bits (MULR) kept. */
void e1000x_tctl_set(volatile uint8_t *base, uint32_t bits);
/* Point a descriptor ring's register block at ring (bytes long), head and
 * tail 0. blk is the block's RDBAL or TDBAL; the registers in it are at the
 * RING_* offsets of regs.h in every family. */
void e1000x_ring_regs(volatile uint8_t *base, uint32_t blk, const volatile void *ring, uint32_t bytes);
/* RCTL acceptance bits from the promisc knob: broadcast always (BAM);
 * with promisc=1 every unicast and multicast too (UPE, MPE). */
uint32_t e1000x_rctl_filters(void);
/* nic_ops.set_mc: set the Multicast Table Array bit of every group in nic->mc. */
void e1000x_port_set_mc(struct nic *nic);
/* nic_ops.vlan_rx_add_vid of e1000e and igb (not e1000: software tags):
 * vid kept, and with vlan_strip 1 CTRL.VME, RCTL.VFE and vid's VFTA bit.
 * 0, or -1 with vlan_strip 0 or all 8 VLANs taken. */
int e1000x_port_vlan_rx_add_vid(struct nic *nic, uint16_t vid);
/* Keep vid (1-4094) in p->vids for the VLAN filter. 0, or -1 for a bad
 * VID or all 8 taken. */
int e1000x_vid_keep(struct e1000x_port *p, uint16_t vid);
/* Have every RX queue read the descriptor's VP (stripped tag) from now on,
 * whatever vlan_strip says: VP is set only on a frame the NIC stripped, so
 * frames stripped before a run-time switch-off keep their tag; again
 * after a reset (the queues start over). */
void e1000x_vp_on(struct e1000x_port *p);
/* nic_ops.vlan_strip_set of e1000e and igb: CTRL.VME and RCTL.VFE set
 * (with VET and the kept VIDs' VFTA bits) or cleared, as vlan_strip says.
 * 0, or -1 with no VID kept. */
int e1000x_port_vlan_strip_set(struct nic *nic);
/* PHY register access through MDIC (8254x 13.4.7) to the PHY at
 * p->phy_addr, inside the family's phy_acquire/phy_release. Return 0, or
 * -1 after printing (ownership refused, MDIC error or timeout). */
int e1000x_phy_read(struct e1000x_port *p, uint32_t reg, uint16_t *v);
int e1000x_phy_write(struct e1000x_port *p, uint32_t reg, uint16_t v);
/* A family's software/firmware semaphore (swfw.c): where its SWSM and
 * SW_FW_SYNC are, the shift from a software resource bit to the
 * firmware's, and whether an SMBI held 100 ms may be cleared (taken for a
 * driver that died holding it) on this call. */
struct e1000x_swfw {
	uint32_t swsm, sync;	/* register offsets */
	int fw_shift;		/* 16 on igb (8.2.6), 5 on the 82599 (8.2.3.4.11) */
	int may_clear_smbi;	/* sets p->smbi_cleared when it does */
	uint32_t regsmp;	/* X540: SW_FW_SYNC's register semaphore bit, taken
				 * instead of SWSM.SWESMBI (0 elsewhere) */
};
/* Take SW_FW_SYNC resource bits mask (82576 4.7.1, 82599 10.5.4): 0, or
 * -1 after printing who holds what (1 s of tries at most). */
int e1000x_swfw_acquire(struct e1000x_port *p, const struct e1000x_swfw *s, uint32_t mask);
/* Give back what e1000x_swfw_acquire took (under SWSM again). */
void e1000x_swfw_release(struct e1000x_port *p, const struct e1000x_swfw *s, uint32_t mask);
/* Add the statistics registers into p->nic.stats. */
void e1000x_update_stats(struct e1000x_port *p);
/* Read STATUS into nic->link_up/speed/full_duplex; returns 1 if the link
 * state changed (printing it), else 0. */
int e1000x_check_link(struct nic *nic, volatile uint8_t *base);
#endif
