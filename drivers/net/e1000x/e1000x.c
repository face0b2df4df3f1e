/* Code the three gigabit families share; see e1000x.h. */
#include <stdlib.h>
#include <string.h>
#include "drivers/net/e1000x/e1000x.h"
#include "drivers/pci/pcidecode.h"
#include "net/addr.h"

int wait_reg32(volatile uint8_t *base, const char *who, uint32_t reg, uint32_t mask,
	       uint32_t want, uint64_t timeout_us)
{
	uint64_t end = now_ns() + timeout_us * 1000;
	uint32_t v;
	while (((v = rd32(base, reg)) & mask) != want) {
		if (now_ns() > end) {
			printf("%s: timeout after %lu us waiting for reg %#x & %#x == %#x (is %#x)\n",
			       who, timeout_us, reg, mask, want, v);
			return -1;
		}
		udelay(10);
	}
	return 0;
}

int e1000x_read_mac(volatile uint8_t *base, uint8_t mac[6])
{
	uint32_t lo = rd32(base, RAL(0)), hi = rd32(base, RAH(0));
	for (int i = 0; i < 4; i++)
		mac[i] = (uint8_t)(lo >> (8 * i));
	mac[4] = (uint8_t)hi;
	mac[5] = (uint8_t)(hi >> 8);
	if (!(hi & RAH_AV) || (mac[0] & 1) || !(lo | (hi & 0xffff)))
		return -1;
	return 0;
}

void e1000x_tctl_set(volatile uint8_t *base, uint32_t bits)
{
	uint32_t v = rd32(base, TCTL) & ~(TCTL_CT(0xff) | TCTL_COLD(0x3ff));
	wr32(base, TCTL, v | bits);	/* silicon review 2026-12-02 N16 */
}

void e1000x_set_filters(volatile uint8_t *base, const uint8_t mac[6], int nregs)
{
	wr32(base, RAL(0), (uint32_t)mac[0] | mac[1] << 8 | mac[2] << 16 | (uint32_t)mac[3] << 24);
	wr32(base, RAH(0), (uint32_t)mac[4] | mac[5] << 8 | RAH_AV);
	for (int i = 1; i < nregs; i++) {
		wr32(base, RAL(i), 0);
		wr32(base, RAH(i), 0);
	}
	for (int i = 0; i < 128; i++)
		wr32(base, MTA(i), 0);
}

void e1000x_ring_regs(volatile uint8_t *base, uint32_t blk, const volatile void *ring, uint32_t bytes)
{
	uint64_t a = (uint64_t)ring;
	wr32(base, blk + RING_DBAL, (uint32_t)a);
	wr32(base, blk + RING_DBAH, (uint32_t)(a >> 32));
	wr32(base, blk + RING_DLEN, bytes);
	wr32(base, blk + RING_DH, 0);
	wr32(base, blk + RING_DT, 0);
}

void e1000x_port_set_mc(struct nic *nic)
{
	volatile uint8_t *base = to_port(nic)->regs;
	for (int i = 0; i < nic->nmc; i++) {
		/* RCTL.MO 00: the hash is address bits 47:36 (8254x 13.4.22) */
		const uint8_t *m = nic->mc[i];
		uint32_t h = ((uint32_t)m[4] >> 4 | (uint32_t)m[5] << 4) & 0xfff;
		set_flags32(base, MTA(h >> 5), 1u << (h & 31));
	}
}

/* Tag stripping and the VLAN filter for the VLANs in p->vids (82574
 * 10.2.2.1 CTRL.VME, 10.2.5.1 RCTL.VFE, 10.2.5.19 VFTA; 82576 8.2.1
 * CTRL.VME, 8.10.1 RCTL.VFE, 8.10.19 VFTA: bit vid & 31 of VFTA[vid >> 5]).
 * With VME the NIC takes the tag of every frame whose EtherType is VET
 * (0x8100 from reset) off and writes its TCI to the descriptor with status
 * VP (82574 7.1.4.2, 82576 7.1.5.2); with VFE it drops a tagged frame whose
 * VID has no VFTA bit (VID 0's is set, as Linux's 8021q adds it) before any descriptor (82574 7.1.1, 82576 7.1.2):
 * no host counter sees it, and GPRC does not count it on the 82574/82576
 * (counted after filtering). QEMU 10.0 does both (hw/net/e1000x_common.c
 * e1000x_rx_vlan_filter, e1000e_core.c / igb_core.c strip on
 * e1000x_vlan_enabled, i.e. CTRL.VME, VMDq off) and drops the filtered frame
 * before its statistics (e1000e_receive_filter, igb_receive_assign).
 * With vlan_filter 0 VFE is cleared (every tag stripped, fwd counts the
 * VLANs of no sub-interface vlan_unknown); with vlan_strip 0 (at run
 * time: `set portN vlan_strip 0`) VME and VFE are cleared and the VFTA left as it is, as Linux's e1000e
 * e1000e_vlan_strip_disable and e1000e_vlan_filter_disable; QEMU reads
 * both bits frame by frame. */
static void vlan_apply(struct e1000x_port *p)
{
	if (!p->nvids)
		return;
	e1000x_vp_on(p);
	if (!p->nic.cfg.vlan_strip || !p->nic.cfg.vlan_filter) {	/* untouched unless set (no CTRL write at boot) */
		if (rd32(p->regs, RCTL) & RCTL_VFE)
			clear_flags32(p->regs, RCTL, RCTL_VFE);
	}
	if (!p->nic.cfg.vlan_strip) {
		if (rd32(p->regs, CTRL) & CTRL_VME)
			clear_flags32(p->regs, CTRL, CTRL_VME);
		return;
	}
	wr32(p->regs, VET, 0x8100);	/* the C-tag TPID, its reset value; QEMU's e1000e neither
					   filtered nor stripped until it was written (seen) */
	set_flags32(p->regs, VFTA(0), 1u);	/* VID 0, a priority tag: the port's frame (802.1Q 6.9) */
	for (int i = 0; i < p->nvids; i++)
		set_flags32(p->regs, VFTA(p->vids[i] >> 5), 1u << (p->vids[i] & 31));
	set_flags32(p->regs, CTRL, CTRL_VME);
	if (p->nic.cfg.vlan_filter)
		set_flags32(p->regs, RCTL, RCTL_VFE);
}

void e1000x_vp_on(struct e1000x_port *p)
{
	for (int q = 0; q < p->nic.nqueues; q++)
		p->rxq[q].vp_bit = RXDEXT_VP;
}

int e1000x_vid_keep(struct e1000x_port *p, uint16_t vid)
{
	if (vid == 0 || vid > 4094 || p->nvids == (int)(sizeof(p->vids) / sizeof(p->vids[0])))
		return -1;
	p->vids[p->nvids++] = vid;
	return 0;
}

int e1000x_port_vlan_rx_add_vid(struct nic *nic, uint16_t vid)
{
	struct e1000x_port *p = to_port(nic);
	if (e1000x_vid_keep(p, vid))
		return -1;
	vlan_apply(p);
	return nic->cfg.vlan_strip ? 0 : -1;
}

int e1000x_port_vlan_strip_set(struct nic *nic)
{
	struct e1000x_port *p = to_port(nic);
	if (!p->nvids)
		return -1;
	vlan_apply(p);
	return 0;
}

uint32_t e1000x_rctl_filters(void)
{
	return RCTL_BAM | (nic_cfg.promisc ? RCTL_UPE | RCTL_MPE : 0);
}

/* One MDIC operation (8254x 13.4.7): poll READY for up to 10 ms. */
static int mdic(struct e1000x_port *p, uint32_t cmd, uint16_t *v)
{
	wr32(p->regs, MDIC, cmd);
	for (int i = 0; i < 1000; i++) {
		uint32_t r = rd32(p->regs, MDIC);
		if (r & MDIC_ERROR) {
			printf("%s: MDIC error on PHY register %u\n", p->nic.name, (cmd >> 16) & 0x1f);
			return -1;
		}
		if (r & MDIC_READY) {
			if (v)
				*v = (uint16_t)MDIC_DATA(r);
			return 0;
		}
		udelay(10);
	}
	printf("%s: MDIC not ready after 10 ms (PHY register %u)\n", p->nic.name, (cmd >> 16) & 0x1f);
	return -1;
}

/* MDIC inside the family's PHY ownership (82574 EXTCNF_CTRL, igb SW_FW_SYNC). */
static int phy_op(struct e1000x_port *p, uint32_t cmd, uint16_t *v)
{
	const struct e1000x_family *f = p->family;
	if (f->phy_acquire && f->phy_acquire(p))
		return -1;
	int r = mdic(p, cmd | MDIC_PHY(p->phy_addr), v);
	if (f->phy_release)
		f->phy_release(p);
	return r;
}

int e1000x_phy_read(struct e1000x_port *p, uint32_t reg, uint16_t *v)
{
	return phy_op(p, MDIC_OP_READ | MDIC_REG(reg), v);
}

int e1000x_phy_write(struct e1000x_port *p, uint32_t reg, uint16_t v)
{
	return phy_op(p, MDIC_OP_WRITE | MDIC_REG(reg) | v, 0);
}

int e1000x_copper_link_setup(struct e1000x_port *p)
{
	uint16_t bmcr;
	set_flags32(p->regs, CTRL, CTRL_SLU);
	clear_flags32(p->regs, CTRL, CTRL_FRCSPD | CTRL_FRCDPLX | CTRL_RFCE | CTRL_TFCE);
	if (e1000x_phy_read(p, PHY_BMCR, &bmcr) ||
	    e1000x_phy_write(p, PHY_ANAR, ANAR_10_100_ALL) ||
	    e1000x_phy_write(p, PHY_1000T_CTRL, CTRL1000_FD) ||
	    e1000x_phy_write(p, PHY_BMCR, (uint16_t)((bmcr & ~(BMCR_PDOWN | BMCR_ISOLATE)) |
						      BMCR_ANENABLE | BMCR_ANRESTART))) {
		printf("%s: PHY set-up through MDIC failed; the link may stay down\n", p->nic.name);
		return -1;
	}
	return 0;
}

/*
 * A 32-bit statistics register as the count since the last call. Silicon
 * clears them on read (RC: 8254x 13.7, 82574 10.2.5, 82576 8.19). The
 * registers in p->stat_cumulative do not clear (QEMU's e1000 keeps MPC and
 * RNBC as plain registers): their delta comes from the last raw value.
 */
static uint32_t stat32(struct e1000x_port *p, uint32_t reg)
{
	uint32_t i = (reg - CRCERRS) / 4;
	if (p->absent_stats & (1ull << i))
		return 0;	/* the part has no such register: not read */
	uint32_t v = rd32(p->regs, reg);
	if (!(p->stat_cumulative & (1ull << i)))
		return v;
	uint32_t d = v - p->stat_last[i];
	p->stat_last[i] = v;
	return d;
}

/* 64-bit octet counters: read low then high; the high read clears both (8254x 13.7.21). */
static uint64_t rd64(volatile uint8_t *base, uint32_t lo)
{
	uint64_t l = rd32(base, lo);
	return l | (uint64_t)rd32(base, lo + 4) << 32;
}

void e1000x_update_stats(struct e1000x_port *p)
{
	volatile uint8_t *base = p->regs;
	uint64_t *s = p->nic.stats;
	nic_stats_fold(&p->nic);
	uint64_t crc = stat32(p, CRCERRS), algn = stat32(p, ALGNERRC), rxerr = stat32(p, RXERRC);
	uint64_t mpc = stat32(p, MPC), ruc = stat32(p, RUC), roc = stat32(p, ROC);
	uint64_t cext = stat32(p, CEXTERR);
	uint64_t ecol = stat32(p, ECOL), latecol = stat32(p, LATECOL), mprc = stat32(p, MPRC);

	s[NS_rx_packets] += stat32(p, GPRC);
	s[NS_tx_packets] += stat32(p, GPTC);
	s[NS_rx_bytes] += rd64(base, GORCL);
	s[NS_tx_bytes] += rd64(base, GOTCL);
	s[NS_rx_broadcast] += stat32(p, BPRC);
	s[NS_tx_broadcast] += stat32(p, BPTC);
	s[NS_rx_multicast] += mprc;
	s[NS_multicast] += mprc;
	s[NS_tx_multicast] += stat32(p, MPTC);
	s[NS_collisions] += stat32(p, COLC);
	s[NS_rx_crc_errors] += crc;
	s[NS_rx_frame_errors] += algn;
	s[NS_rx_align_errors] += algn;
	s[NS_rx_no_buffer_count] += stat32(p, RNBC);
	s[NS_rx_missed_errors] += mpc;
	s[NS_rx_short_length_errors] += ruc;
	s[NS_rx_long_length_errors] += roc;
	s[NS_rx_length_errors] += ruc + roc;
	s[NS_rx_errors] += rxerr + crc + algn + ruc + roc + cext;
	s[NS_tx_aborted_errors] += ecol;
	s[NS_tx_window_errors] += latecol;
	s[NS_tx_errors] += ecol + latecol;
	s[NS_tx_carrier_errors] += stat32(p, TNCRS);
	s[NS_tx_deferred_ok] += stat32(p, DC);
	s[NS_tx_single_coll_ok] += stat32(p, SCC);
	s[NS_tx_multi_coll_ok] += stat32(p, MCC);
	s[NS_rx_flow_control_xon] += stat32(p, XONRXC);
	s[NS_rx_flow_control_xoff] += stat32(p, XOFFRXC);
	s[NS_tx_flow_control_xon] += stat32(p, XONTXC);
	s[NS_tx_flow_control_xoff] += stat32(p, XOFFTXC);
}

int e1000x_check_link(struct nic *nic, volatile uint8_t *base)
{
	static const uint32_t speeds[4] = { 10, 100, 1000, 1000 };
	uint32_t st = rd32(base, STATUS);
	int up = !!(st & STATUS_LU);
	nic->speed = speeds[STATUS_SPEED(st)];
	nic->full_duplex = !!(st & STATUS_FD);
	if (up == nic->link_up)
		return 0;
	if (nic->link_up >= 0)	/* -1: first look after probe */
		nic->stats[NS_link_changes]++;
	nic->link_up = up;
	if (up)
		printf("%s: link up, %u Mb/s, %s duplex\n", nic->name, nic->speed,
		       nic->full_duplex ? "full" : "half");
	else
		printf("%s: link down\n", nic->name);
	return 1;
}

void e1000x_port_update_stats(struct nic *nic)
{
	e1000x_update_stats(to_port(nic));
}

void e1000x_port_tx_clean(struct nic *nic, int q)
{
	e1000x_tx_reclaim(&to_port(nic)->txq[q]);
}

void e1000x_port_request_reset(struct nic *nic)
{
	to_port(nic)->reset_pending = 2;
	nic->other_pending = 1;	/* the watchdog runs at core 0's next shell tick */
}

void e1000x_clear_stats(struct e1000x_port *p)
{
	e1000x_update_stats(p);
	for (int i = 0; i < NIC_STAT_N; i++)
		p->nic.stats[i] = 0;
}

int e1000x_setup_rxq(struct e1000x_port *p, int q, uint32_t rdt, int fmt, uint32_t ts_bit)
{
	struct e1000x_rxq *rq = &p->rxq[q];
	*rq = (struct e1000x_rxq){ .nic = &p->nic, .q = q, .qs = &p->nic.q[q], .sw = p->nic.qsw[q],
				   .n = (uint32_t)p->nic.rxd, .regs = p->regs,
				   .rdt = rdt, .fmt = fmt, .ts_bit = ts_bit,
				   .ring = rq->ring, .bufs = rq->bufs };
	static int (*const burst[])(struct nic *, int, struct pkt **, int) = {
		[RXF_EXT] = e1000x_rx_burst_ext, [RXF_LEGACY] = e1000x_rx_burst_legacy,
		[RXF_82599] = e1000x_rx_burst_82599,
	};
	p->ops.rx_burst = burst[fmt];
	p->nic.rx_short_counted = 1;	/* rx.c: only rx_rare delivers them, and counts */
	return e1000x_rxq_init(rq);
}

int e1000x_setup_txq(struct e1000x_port *p, int q, uint32_t tdt, int adv)
{
	struct e1000x_txq *tq = &p->txq[q];
	*tq = (struct e1000x_txq){ .nic = &p->nic, .q = q, .qs = &p->nic.q[q], .sw = p->nic.qsw[q],
				   .n = (uint32_t)p->nic.txd, .regs = p->regs,
				   .tdt = tdt, .adv = adv, .ring = tq->ring, .bufs = tq->bufs,
				   .rs_at = tq->rs_at };
	p->ops.tx_burst = adv ? e1000x_tx_burst_adv : e1000x_tx_burst_legacy;
	p->nic.tx_csum6 = p->nic.tx_csum;	/* both formats' contexts take IPv6 (desc.h) */
	return e1000x_txq_init(tq);
}

#define TX_TIMEOUT_NS 2000000000ull

/* TX hang, or a reset the hardware asked for: stop the port (bus
 * mastering off, reset) before its buffers go back to the pool, set it up
 * again and carry on. */
static void recover(struct e1000x_port *p, const char *why)
{
	struct nic *nic = &p->nic;
	uint64_t keep[NIC_STAT_N];
	nic_reset_begin(nic, why);
	int err = e1000x_reset(p, 1);	/* CTRL.RST clears the statistics registers */
	for (int q = 0; q < nic->nqueues; q++) {
		e1000x_rxq_release(&p->rxq[q]);
		e1000x_txq_release(&p->txq[q]);
	}
	nic_stats_fold(nic);	/* the queues' counts, tx_dropped by release too */
	if (!err) {	/* hw_init zeroes the counters: keep them across it */
		for (int i = 0; i < NIC_STAT_N; i++)
			keep[i] = nic->stats[i];
		err = p->family->hw_init(p);
		for (int i = 0; i < NIC_STAT_N; i++)
			nic->stats[i] += keep[i];
		if (!err) {
			e1000x_port_set_mc(nic);
			vlan_apply(p);
		}
	}
	p->reset_pending = 0;
	p->phy_hang_count = 0;
	nic_reset_end(nic, err);
}

/* Link down with frames queued: the MAC stops DMA and cannot send them;
 * Linux's watchdog resets the port "to flush the Tx FIFO"
 * (e1000_watchdog_task, igb_watchdog_task), once per down period
 * (silicon review 2026-12-02 N5). */
int e1000x_down_with_tx_queued(struct e1000x_port *p)
{
	struct nic *nic = &p->nic;
	if (nic->link_up == 1)
		p->down_flushed = 0;
	if (nic->link_up != 0 || p->down_flushed)
		return 0;
	for (int q = 0; q < nic->nqueues; q++)
		if (e1000x_tx_pending(&p->txq[q]))
			return p->down_flushed = 1;
	return 0;
}

void e1000x_port_watchdog(struct nic *nic)
{
	struct e1000x_port *p = to_port(nic);
	nic->other_pending = 0;
	e1000x_check_link(nic, p->regs);
	if (e1000x_down_with_tx_queued(p))
		recover(p, "link down with TX work queued");
	for (int q = 0; q < nic->nqueues; q++)
		if (e1000x_tx_hung(&p->txq[q], TX_TIMEOUT_NS)) {
			nic->stats[NS_tx_timeout_count]++;
			recover(p, "TX hang (no descriptor done for 2000 ms with work pending)");
			break;
		}
	if (p->reset_pending)
		recover(p, p->reset_pending == 2 ? "reset asked for from the shell" : "the NIC asked for a reset");
	else if (p->family->check_hang && nic->link_up == 1 && p->family->check_hang(p))
		recover(p, "PHY hung");
	napi_watchdog(nic);
}

void e1000x_print_probe(struct e1000x_port *p)
{
	struct nic *nic = &p->nic;
	struct pci_dev *d = nic->pci;
	static const char *const modes[] = { "INTx", "MSI", "MSI-X" };
	char m[MAC_STR_MAX];
	printf("%s: %s %s at %02x:%02x.%x, MAC %s, %d queue(s), rxd %d txd %d, %s\n", nic->name, nic->driver,
	       nic->model, d->bus, d->dev, d->fn, mac_str(m, nic->mac), nic->nqueues, nic->rxd, nic->txd,
	       d->int_mode >= 0 && d->int_mode <= 2 ? modes[d->int_mode] : "no interrupts");
	printf("%s: DMA: RX ring %#lx, buffers %#lx%s\n", nic->name, (unsigned long)p->rxq[0].ring,
	       (unsigned long)nic->pool->mem, nic->dma_limit ? " (32-bit device: below 4 GiB)" : "");
}

/* Mask every interrupt cause (IMC, and EIMC where the family has it). */
static void mask_all(struct e1000x_port *p)
{
	wr32(p->regs, IMC, 0xffffffff);
	if (p->family->eimc)
		wr32(p->regs, p->family->eimc, 0xffffffff);
}

/* PCIe master disable (82574 4.6.2 / 5.2.5, 82576 4.3.1.1): no new
 * requests, then wait up to 80 ms for those pending to complete. */
static int master_disable(struct e1000x_port *p)
{
	set_flags32(p->regs, CTRL, CTRL_GIO_MASTER_DISABLE);
	if (wait_reg32(p->regs, p->nic.name, STATUS, STATUS_GIO_MASTER_ENABLE, 0, 80000)) {
		printf("%s: STATUS.GIO_MASTER_ENABLE still set 80 ms after CTRL.GIO_MASTER_DISABLE: "
		       "master requests pending; resetting anyway\n", p->nic.name);
		return -1;
	}
	return 0;
}

int e1000x_wait_auto_rd(struct e1000x_port *p)
{
	if (wait_reg32(p->regs, p->nic.name, EECD, EECD_AUTO_RD, EECD_AUTO_RD, 20000)) {
		printf("%s: EECD.AUTO_RD not set 20 ms after reset: NVM auto-read did not complete\n",
		       p->nic.name);
		return -1;
	}
	return 0;
}

int e1000x_reset(struct e1000x_port *p, int read_stats)
{
	const struct e1000x_family *f = p->family;
	mask_all(p);
	if (f->pcie)
		master_disable(p);	/* as Linux: a timeout is reported, the reset still done */
	wr32(p->regs, RCTL, 0);
	wr32(p->regs, TCTL, TCTL_PSP);
	(void)rd32(p->regs, STATUS);
	udelay(10000);	/* let pending DMA finish (Linux waits 10 ms) */
	if (read_stats)
		p->nic.ops->update_stats(&p->nic);
	if (f->pre_reset && f->pre_reset(p))
		return -1;
	uint32_t ctrl = rd32(p->regs, CTRL) | CTRL_RST;
	if (f->write_rst)
		f->write_rst(p, ctrl);
	else
		wr32(p->regs, CTRL, ctrl);
	udelay(1000);
	if (wait_reg32(p->regs, p->nic.name, CTRL, CTRL_RST, 0, 100000)) {
		printf("%s: CTRL.RST did not clear within 100 ms\n", p->nic.name);
		return -1;
	}
	if (f->post_reset(p))
		return -1;
	mask_all(p);
	(void)rd32(p->regs, ICR);
	if (f->pcie)
		set_flags32(p->regs, CTRL_EXT, CTRL_EXT_DRV_LOAD);	/* 82574 10.2.2.5, 82576 8.2.3 */
	return 0;
}

void e1000x_legacy_irq(struct trapframe *tf, void *arg)
{
	struct e1000x_port *p = arg;
	uint32_t icr = rd32(p->regs, ICR);
	if (!icr)
		return;		/* a shared INTx line, not us */
	if (icr & ICR_LSC)
		p->nic.other_pending = 1;
	if (icr & p->family->icr_reset)
		p->reset_pending = 1;
	if (icr & ICR_RX_CAUSES)
		napi_queue_irq(tf, napi_queue_arg(&p->nic, 0));
}

int e1000x_setup_vectors(struct e1000x_port *p, irq_handler_t other)
{
	int msix = nic_setup_vectors(&p->nic, other, p, "other");
	if (msix < 0)
		return -1;
	p->msix = msix;
	if (!msix)
		pci_irq_set_handler(p->nic.pci, 0, e1000x_legacy_irq, p);
	return 0;
}

/* A port refused after its reset lets go of the device as Linux's remove
 * does: DRV_LOAD clear (e1000e_release_hw_control, igb_release_hw_control)
 * so firmware and a BMC see no driver, its vectors freed, bus mastering
 * off (silicon review 2026-12-02 N17). Returns -1. */
static int refuse(struct e1000x_port *p)
{
	struct pci_dev *d = p->nic.pci;
	if (p->family->pcie)
		clear_flags32(p->regs, CTRL_EXT, CTRL_EXT_DRV_LOAD);
	if (d->nvec)
		pci_irq_free(d);
	pci_write16(d, PCI_COMMAND, (uint16_t)(pci_read16(d, PCI_COMMAND) & ~PCI_COMMAND_MASTER));
	nic_unregister(&p->nic);
	return -1;
}

int e1000x_probe(struct pci_dev *d, const struct pci_id *id, const struct e1000x_family *f)
{
	struct e1000x_port *p = calloc(1, sizeof(*p));
	if (!p)
		return -1;
	struct nic *nic = &p->nic;
	p->ops = *f->ops;
	*nic = (struct nic){ .driver = f->driver, .model = id->name, .pci = d, .ops = &p->ops,
			     .link_up = -1, .tx_csum = 1, .max_queues = f->max_queues, .int_delays = f->int_delays };
	nic_config_init(nic);
	nic->nqueues = nic->cfg.queues < f->max_queues ? (int)nic->cfg.queues : f->max_queues;
	p->family = f;
	p->phy_addr = 1;
	p->regs = (volatile uint8_t *)pci_map_bar(d, 0);
	if (!p->regs || (f->attach && f->attach(p, id)) || nic_register(nic) < 0) {
		free(p);
		return -1;
	}
	d->priv = p;
	if ((int)nic->cfg.queues > nic->nqueues)
		printf("%s: queues=%lld: the %s has %d queue pair(s); using %d\n", nic->name,
		       (long long)nic->cfg.queues, nic->model, nic->nqueues, nic->nqueues);
	if (e1000x_reset(p, 0))
		return refuse(p);
	if (e1000x_read_mac(p->regs, nic->mac)) {
		printf("%s: no valid MAC address in RAL0/RAH0 after the NVM load\n", nic->name);
		return refuse(p);
	}
	if (f->setup_vectors(p) || nic_pools_create(nic) || f->hw_init(p)) {
		/* No port without its memory: stop the device and let the rest run. */
		e1000x_reset(p, 0);
		return refuse(p);
	}
	e1000x_check_link(nic, p->regs);
	e1000x_print_probe(p);
	return 0;
}
