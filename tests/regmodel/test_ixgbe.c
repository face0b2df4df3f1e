/* The ixgbe driver (82599) against the register model of
 * tests/regmodel/ixgbe_model.c: the reset and init order (4.6.3-4.6.8),
 * registers byte for byte, link, frames through the model's rings with
 * exact counts (four at a time in the 82599's error layout), the
 * statistics into `ethtool -S` counters, a port reset, IVAR/EITR/RSS, each bounded wait failing with its message, the parts
 * refused by ID, the SFP+ module read over I2C (SFF-8472) and each kind
 * taken or refused, the SW/FW semaphore held by the firmware, TX
 * checksum insertion through the context descriptor, the clock and seed
 * 4's RX latch; the X540 where it differs (its semaphore, reset, PHY over
 * MDIO, copper speeds, packet buffer, clock) and the X550-T where it
 * differs from the X540 (PHY identifier, NBASE-T, no clock). Offsets
 * here are the datasheet's, not the driver's. */
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "drivers/net/ixgbe/ixgbe.c"
#include "drivers/net/phc.h"
#include "kernel/time.h"
#include "tests/regmodel/model.h"
#include "tests/regmodel/tsync.h"
#include "net/ptp.h"

extern struct nic *model_nic;
/* phc.c's time base: the model's virtual ns as TSC cycles */
struct tsc_info tsc = { 1000000000, "model", 1 };
uint64_t tsc_to_ns(uint64_t cycles) { return cycles; }
struct nic *nics[NIC_MAX_PORTS];
int nic_count;

enum {
	CTRL_ = 0x0, CTRL_EXT_ = 0x18, EICR_ = 0x800, EIAC_ = 0x810, EITR0 = 0x820, EIMS_ = 0x880,
	EIMC_ = 0x888, EIAM_ = 0x890, GPIE_ = 0x898, IVAR0 = 0x900, IVAR_MISC_ = 0xa00,
	RDBAL0 = 0x1000, RDT0 = 0x1018, RXDCTL0 = 0x1028, SRRCTL0 = 0x1014, RDRXCTL_ = 0x2f00,
	RXCTRL_ = 0x3000, HLREG0_ = 0x4240, AUTOC_ = 0x42a0, DMATXCTL_ = 0x4a80, FCTRL_ = 0x5080,
	MRQC_ = 0x5818, RETA0 = 0x5c00, TXDCTL0 = 0x6028, RAL0_ = 0xa200, RAH0_ = 0xa204,
	MPSAR_LO0 = 0xa600, EEC_ = 0x10010, STATUS_ = 0x8, LINKS_ = 0x42a4, RTTDCS_ = 0x4900,
	AUTOC2_ = 0x42a8, I2CCTL_ = 0x28, SWSM_ = 0x10140, SW_FW_SYNC_ = 0x10160, VLNCTRL_ = 0x5088,
	VFTA0 = 0xa000, EIMS_EX0 = 0xaa0,
};

static int probe(uint16_t dev, int queues)
{
	nic_cfg.queues[0] = queues;
	int r = model_probe(&pci_driver_ixgbe, dev);
	nic_cfg.queues[0] = 1;
	return r;
}

static int wbit(int from, uint32_t reg, uint32_t bit)
{
	return model_find_write(from, reg, bit, bit);
}

/* Index of the first read of reg after from that saw bit set, or -1. */
static int rbit(int from, uint32_t reg, uint32_t bit)
{
	for (int i = from < 0 ? 0 : from; i < M.nlog; i++)
		if (M.log[i].op == 'R' && M.log[i].reg == reg && (M.log[i].val & bit))
			return i;
	return -1;
}

/* 4.6.3: interrupts masked, master disabled and drained, then RST with
 * LRST; after it: masked again, EEC.ARD, RDRXCTL.DMAIDONE, DRV_LOAD, the
 * MAC from RAL0/RAH0; then the link (4.6.4) before RX and TX. */
static void test_reset_order(void **st)
{
	(void)st;
	model_init(M_82599);
	assert_int_equal(probe(0x10fb, 1), 0);
	int mask = model_find_write(0, EIMC_, 0x7fffffff, 0x7fffffff);
	int mdis = wbit(0, CTRL_, 1u << 2), drained = -1;
	for (int i = mdis; i < M.nlog && drained < 0; i++)
		if (M.log[i].op == 'R' && M.log[i].reg == STATUS_ && !(M.log[i].val & (1u << 19)))
			drained = i;
	int rst = model_find_write(0, CTRL_, 1u << 26 | 1u << 3, 1u << 26 | 1u << 3);
	assert_true(mask >= 0 && mdis > mask && drained > mdis && rst > drained);
	int mask2 = model_find_write(rst, EIMC_, 0x7fffffff, 0x7fffffff);
	int ard = rbit(rst, EEC_, 1u << 9), dma = rbit(rst, RDRXCTL_, 1u << 3);
	int drv = wbit(rst, CTRL_EXT_, 1u << 28), mac = model_find_read(dma, RAL0_);
	int an = wbit(rst, AUTOC_, 1u << 12), rxen = wbit(rst, RXCTRL_, 1u);
	assert_true(mask2 > rst && ard > mask2 && dma > ard && drv > dma && mac > drv);
	assert_true(an > mac && rxen > an);
	assert_true(model_console_has("port0: SFI (SFP+) link"));
}

/* 4.6.7: queue disabled, ring, SRRCTL, ENABLE polled, RDT, and RXCTRL.RXEN
 * last; 4.6.8: ARBDIS around the rings, DMATXCTL.TE, then TXDCTL.ENABLE.
 * The registers as 4.6.7 requires them, byte for byte. */
static void test_rx_tx_init(void **st)
{
	(void)st;
	model_init(M_82599);
	assert_int_equal(probe(0x10fb, 1), 0);
	int rst = model_find_write(0, CTRL_, 1u << 26, 1u << 26);
	int bal = model_find_write(rst, RDBAL0, 0, 0), srr = model_find_write(rst, SRRCTL0, 0, 0);
	int en = wbit(rst, RXDCTL0, 1u << 25), on = rbit(en, RXDCTL0, 1u << 25);
	int rdt = model_find_write(on, RDT0, 0xffffffff, 127), rxen = wbit(rst, RXCTRL_, 1u);
	assert_true(bal > rst && srr > bal && en > srr && on > en && rdt > on && rxen > rdt);
	assert_int_equal(model_peek(SRRCTL0), 1u << 25 | 2u);	/* advanced one-buffer, 2 KiB */
	assert_int_equal(model_peek(RDRXCTL_) & (1u << 1 | 0x1fu << 17 | 1u << 25 | 1u << 26),
			 1u << 1 | 1u << 25 | 1u << 26);
	assert_int_equal(model_peek(0x100c) & (1u << 12), 0);	/* DCA_RXCTRL bit 12 */
	assert_int_equal(model_peek(HLREG0_) & (1u << 0 | 1u << 1 | 1u << 10 | 1u << 15), 1u << 0 | 1u << 1 | 1u << 10);
	assert_int_equal(model_peek(FCTRL_), 1u << 10);	/* BAM */
	assert_int_equal(model_peek(RAL0_), M.nvm_ral);
	assert_int_equal(model_peek(RAH0_), M.nvm_rah);
	assert_int_equal(model_peek(MPSAR_LO0), 1);
	assert_int_equal(model_peek(0x3c00), 0x80000);	/* RXPBSIZE0 512 KB */
	assert_int_equal(model_peek(0xcc00), 0x28000);	/* TXPBSIZE0 160 KB */
	int arb = wbit(rst, RTTDCS_, 1u << 6), arb_off = model_find_write(arb, RTTDCS_, 1u << 6, 0);
	int te = wbit(rst, DMATXCTL_, 1u), txen = wbit(rst, TXDCTL0, 1u << 25);
	assert_true(arb > rst && arb_off > arb && te > arb_off && txen > te);
	assert_true(model_peek(TXDCTL0) & (1u << 25));
	assert_int_equal(model_peek(TXDCTL0) & 0x7f7f7f, 32 | 1 << 8 | 1 << 16);
}

/* The defaults Linux ixgbe_start_hw_gen2 and ixgbe_configure_tx set on
 * every queue: relaxed ordering off for RX data and header writes
 * (DCA_RXCTRL 13, 15; the reserved bit 12 too) and for TX descriptor
 * write-backs (DCA_TXCTRL 11), so no write-back passes the data it
 * describes; DMATXCTL.TE set keeping the VLAN EtherType in VT (31:16). */
static void test_relaxed_ordering_and_dmatxctl(void **st)
{
	(void)st;
	model_init(M_82599);
	assert_int_equal(probe(0x10fb, 4), 0);
	for (int q = 0; q < 4; q++) {
		assert_int_equal(model_peek(0x100c + 0x40 * q) & (1u << 12 | 1u << 13 | 1u << 15), 0);
		assert_int_equal(model_peek(0x600c + 0x40 * q) & (1u << 11), 0);
	}
	assert_int_equal(model_peek(DMATXCTL_), 0x8100u << 16 | 1u);
	model_nic->ops->reset(model_nic);
	model_nic->ops->watchdog(model_nic);
	assert_true(model_console_has("reset asked for from the shell"));
	assert_int_equal(model_peek(0x100c + 0x40 * 3) & (1u << 13 | 1u << 15), 0);
	assert_int_equal(model_peek(0x600c + 0x40 * 3) & (1u << 11), 0);
	assert_int_equal(model_peek(DMATXCTL_), 0x8100u << 16 | 1u);
}

/* 4.6.4: AUTOC keeps what the EEPROM loaded outside the link mode, takes
 * the part's mode (SFI: LMS 10G serial, AUTOC2's serial PMA/PMD SFI;
 * KX4: LMS KX4/KX/KR, parallel PMA/PMD KX4, serial KR), then AN_RESTART;
 * LINKS says 10 Gb/s. */
static void test_link(void **st)
{
	(void)st;
	model_init(M_82599);
	assert_int_equal(probe(0x10fb, 1), 0);
	assert_int_equal(model_peek(AUTOC_), 0xc0000000u | 1u << 16 | 3u << 13);	/* KR_SUPP kept */
	assert_int_equal(model_peek(AUTOC2_), 0x80000000u | 2u << 16);
	assert_true(wbit(0, AUTOC2_, 2u << 16) < wbit(0, AUTOC_, 1u << 12));
	assert_int_equal(model_nic->link_up, 1);
	assert_int_equal(model_nic->speed, 10000);
	assert_true(model_console_has("port0: link up, 10000 Mb/s, full duplex"));
	ixgbe_model_links(0);
	model_nic->ops->watchdog(model_nic);
	assert_int_equal(model_nic->link_up, 0);
	assert_int_equal(model_nic->stats[NS_link_changes], 1);
	assert_true(model_console_has("port0: link down"));

	model_init(M_82599);
	M.s.link_down = 1;
	assert_int_equal(probe(0x10f7, 1), 0);
	assert_int_equal(model_peek(AUTOC_), 0xc0000000u | 1u << 16 | 4u << 13 | 1u << 7);
	assert_int_equal(model_peek(AUTOC2_), 0x80000000u);
	assert_int_equal(model_nic->link_up, 0);
	assert_true(model_console_has("port0: KX4 backplane link"));
	assert_true(model_console_has("port0: link down"));
}

static uint8_t frame[1514];

static const uint8_t *make_frame(int bcast)
{
	memset(frame, 0, sizeof(frame));
	memset(frame, bcast ? 0xff : 0, 6);
	if (!bcast)
		memcpy(frame, "\x00\x1b\x21\x0a\x0b\x0c", 6);
	frame[12] = 0x08;
	return frame;
}

/* Frames through the model's rings: 10 in, 10 out of rx_burst with their
 * lengths, RDT given back; the statistics registers (octets through the
 * FCS) into rx_packets, rx_bytes, rx_broadcast; 5 sent, reclaimed, and
 * tx_packets, tx_bytes (padded to 60) counted. */
static void test_rx_tx_frames(void **st)
{
	(void)st;
	model_init(M_82599);
	assert_int_equal(probe(0x10fb, 1), 0);
	struct nic *nic = model_nic;
	uint64_t bytes = 0;
	for (int i = 0; i < 10; i++) {
		assert_int_equal(ixgbe_model_rx(0, make_frame(i < 3), (uint16_t)(60 + i), 0), 1);
		bytes += 60 + i + 4;
	}
	struct pkt *pk[32];
	assert_int_equal(nic->ops->rx_burst(nic, 0, pk, 32), 10);
	for (int i = 0; i < 10; i++) {
		assert_int_equal(pk[i]->len, 60 + i);
		assert_int_equal(pk[i]->data[12], 0x08);
	}
	assert_int_equal(model_last_write(RDT0), 9);
	assert_int_equal(nic->ops->rx_burst(nic, 0, pk + 10, 22), 0);
	nic->ops->update_stats(nic);
	assert_int_equal(nic->stats[NS_rx_packets], 10);
	assert_int_equal(nic->stats[NS_rx_bytes], bytes);
	assert_int_equal(nic->stats[NS_rx_broadcast], 3);
	assert_int_equal(nic->stats[NS_rx_delivered], 10);
	uint32_t nfree = nic->pool->nfree;
	for (int i = 0; i < 5; i++)
		pk[i]->len = (uint16_t)(40 + 10 * i);	/* 40 and 50 padded to 60 */
	assert_int_equal(nic->ops->tx_burst(nic, 0, pk, 5), 5);
	assert_int_equal(model_last_write(0x6018), 5);	/* TDT */
	assert_int_equal(ixgbe_model_tx(0), 5);
	nic->ops->tx_clean(nic, 0);
	for (int i = 5; i < 10; i++)
		pkt_free(pk[i]);
	assert_int_equal(nic->pool->nfree, nfree + 10);
	nic->ops->update_stats(nic);
	assert_int_equal(nic->stats[NS_tx_packets], 5);
	assert_int_equal(nic->stats[NS_tx_bytes], (60 + 4) * 3 + (70 + 4) + (80 + 4));
	assert_int_equal(nic->stats[NS_tx_broadcast], 3);
	assert_int_equal(nic->stats[NS_tx_sent], 5);
}

/* A frame of VLAN vid (TPID 0x8100, PCP 3) to the port, 64 bytes. */
static const uint8_t *tagged_frame(uint16_t vid)
{
	make_frame(0);
	memmove(frame + 16, frame + 12, 48);
	frame[12] = 0x81;
	frame[13] = 0x00;
	frame[14] = (uint8_t)(0x60 | vid >> 8);
	frame[15] = (uint8_t)vid;
	return frame;
}

/* vlan_strip=1 with VLANs 100 and 3000 (fwd's ipN.VID=): VLNCTRL.VFE with
 * VET 0x8100, their VFTA bits and VID 0's, RXDCTL.VME; a VLAN 100 frame
 * comes stripped (PKT_RX_VLAN, TCI 0x6064, 60 bytes, IPv4's EtherType at
 * 12), VLAN 200's is filtered (no descriptor, no counter). vlan_filter 0:
 * VFE cleared, VME kept, VLAN 200 comes stripped. `set port0
 * vlan_strip 0`: VFE and VME cleared, the VFTA kept; VLAN 200 and 100
 * come with their tags in the frame; a reset keeps it off, and vlan_strip
 * 1 puts it back on the new queues. */
static void test_vlan_filter_and_strip(void **st)
{
	(void)st;
	model_init(M_82599);
	nic_cfg.vlan_strip[0] = 1;
	assert_int_equal(probe(0x10fb, 1), 0);
	nic_cfg.vlan_strip[0] = 0;
	struct nic *nic = model_nic;
	struct pkt *pk[4];
	assert_int_equal(nic->ops->vlan_rx_add_vid(nic, 100), 0);
	assert_int_equal(nic->ops->vlan_rx_add_vid(nic, 3000), 0);
	assert_int_equal(nic->ops->vlan_rx_add_vid(nic, 4095), -1);
	assert_int_equal(model_peek(VLNCTRL_), 1u << 30 | 0x8100);
	assert_int_equal(model_peek(VFTA0), 1u);
	assert_int_equal(model_peek(VFTA0 + 4 * (100 >> 5)), 1u << (100 & 31));
	assert_int_equal(model_peek(VFTA0 + 4 * (3000 >> 5)), 1u << (3000 & 31));
	assert_int_equal(model_peek(VFTA0 + 4 * (200 >> 5)), 0);
	assert_true(model_peek(RXDCTL0) & 1u << 30);
	assert_int_equal(ixgbe_model_rx(0, tagged_frame(100), 64, 0), 1);
	assert_int_equal(ixgbe_model_rx(0, tagged_frame(200), 64, 0), 0);
	assert_int_equal(nic->ops->rx_burst(nic, 0, pk, 4), 1);
	assert_true(pk[0]->flags & PKT_RX_VLAN);
	assert_int_equal(pk[0]->vlan_tci, 0x6064);
	assert_int_equal(pk[0]->len, 60);
	assert_int_equal(pk[0]->data[12], 0x08);
	pkt_free(pk[0]);
	nic->ops->update_stats(nic);
	assert_int_equal(nic->stats[NS_rx_packets], 1);

	nic->cfg.vlan_filter = 0;	/* set port0 vlan_filter 0: stripped, not filtered */
	assert_int_equal(nic->ops->vlan_strip_set(nic), 0);
	assert_int_equal(model_peek(VLNCTRL_), 0x8100);
	assert_true(model_peek(RXDCTL0) & 1u << 30);
	assert_int_equal(ixgbe_model_rx(0, tagged_frame(200), 64, 0), 1);
	assert_int_equal(nic->ops->rx_burst(nic, 0, pk, 4), 1);
	assert_true(pk[0]->flags & PKT_RX_VLAN);
	assert_int_equal(pk[0]->vlan_tci, 0x60c8);
	pkt_free(pk[0]);
	nic->cfg.vlan_filter = 1;

	nic->cfg.vlan_strip = 0;
	assert_int_equal(nic->ops->vlan_strip_set(nic), 0);
	assert_int_equal(model_peek(VLNCTRL_), 0x8100);
	assert_false(model_peek(RXDCTL0) & 1u << 30);
	assert_int_equal(model_peek(VFTA0 + 4 * (100 >> 5)), 1u << (100 & 31));
	assert_int_equal(ixgbe_model_rx(0, tagged_frame(200), 64, 0), 1);
	assert_int_equal(ixgbe_model_rx(0, tagged_frame(100), 64, 0), 1);
	assert_int_equal(nic->ops->rx_burst(nic, 0, pk, 4), 2);
	for (int i = 0; i < 2; i++) {
		assert_false(pk[i]->flags & PKT_RX_VLAN);
		assert_int_equal(pk[i]->len, 64);
		assert_int_equal(pk[i]->data[12], 0x81);
		assert_int_equal(pk[i]->data[15], i ? 100 : 200);
		pkt_free(pk[i]);
	}
	nic->ops->reset(nic);
	nic->ops->watchdog(nic);
	assert_int_equal(model_peek(VLNCTRL_), 0x8100);
	assert_false(model_peek(RXDCTL0) & 1u << 30);
	nic->cfg.vlan_strip = 1;
	assert_int_equal(nic->ops->vlan_strip_set(nic), 0);
	assert_int_equal(model_peek(VLNCTRL_), 1u << 30 | 0x8100);
	assert_true(model_peek(RXDCTL0) & 1u << 30 && model_peek(RXDCTL0) & 1u << 25);
	assert_int_equal(model_peek(VFTA0 + 4 * (3000 >> 5)), 1u << (3000 & 31));
	assert_int_equal(ixgbe_model_rx(0, tagged_frame(200), 64, 0), 0);
	assert_int_equal(ixgbe_model_rx(0, tagged_frame(3000), 64, 0), 1);
	assert_int_equal(nic->ops->rx_burst(nic, 0, pk, 4), 1);
	assert_int_equal(pk[0]->vlan_tci & 0xfff, 3000);
	pkt_free(pk[0]);
}

/* Every frame ends in one counter: 130 frames at a ring of 127 free
 * descriptors: 127 delivered, 3 missed (MPC, one queue: no DROP_EN). The
 * 82599's write-back errors (7.1.6.2): RXE drops (rx_drop_desc_error),
 * IPE and L4E flag the frame and count rx_csum_offload_errors. */
static void test_ring_full_and_errors(void **st)
{
	(void)st;
	model_init(M_82599);
	assert_int_equal(probe(0x10fb, 1), 0);
	struct nic *nic = model_nic;
	int in = 0;
	for (int i = 0; i < 130; i++)
		in += ixgbe_model_rx(0, make_frame(0), 64, 0);
	assert_int_equal(in, 127);
	struct pkt *pk[32];
	int got = 0, n;
	while ((n = nic->ops->rx_burst(nic, 0, pk, 32)) > 0) {
		got += n;
		for (int i = 0; i < n; i++)
			pkt_free(pk[i]);
	}
	assert_int_equal(got, 127);
	nic->ops->update_stats(nic);
	assert_int_equal(nic->stats[NS_rx_delivered], 127);
	assert_int_equal(nic->stats[NS_rx_missed_errors], 3);
	assert_int_equal(nic->stats[NS_rx_packets], 127);

	uint32_t ipcs = 1u << 6, l4cs = 1u << 5;
	assert_int_equal(ixgbe_model_rx(0, make_frame(0), 64, 1u << 29), 1);			/* RXE */
	assert_int_equal(ixgbe_model_rx(0, make_frame(0), 64, ipcs | l4cs | 1u << 31), 1);	/* IPE */
	assert_int_equal(ixgbe_model_rx(0, make_frame(0), 64, ipcs | l4cs | 1u << 30), 1);	/* L4E */
	assert_int_equal(ixgbe_model_rx(0, make_frame(0), 64, ipcs | l4cs), 1);		/* good */
	assert_int_equal(nic->ops->rx_burst(nic, 0, pk, 32), 3);
	assert_int_equal(pk[0]->flags & (PKT_RX_IP_CSUM_BAD | PKT_RX_L4_CSUM_BAD), PKT_RX_IP_CSUM_BAD);
	assert_int_equal(pk[1]->flags & (PKT_RX_IP_CSUM_OK | PKT_RX_L4_CSUM_BAD), PKT_RX_IP_CSUM_OK | PKT_RX_L4_CSUM_BAD);
	assert_int_equal(pk[2]->flags & (PKT_RX_IP_CSUM_OK | PKT_RX_L4_CSUM_OK), PKT_RX_IP_CSUM_OK | PKT_RX_L4_CSUM_OK);
	for (int i = 0; i < 3; i++)
		pkt_free(pk[i]);
	nic->ops->update_stats(nic);
	assert_int_equal(nic->stats[NS_rx_drop_desc_error], 1);
	assert_int_equal(nic->stats[NS_rx_csum_offload_errors], 2);
	assert_int_equal(nic->stats[NS_rx_csum_offload_good], 1);
	assert_int_equal(nic->stats[NS_rx_delivered], 130);
}

/* A burst through the four-at-a-time loop (rx.c rx_fast4) in the
 * 82599's error layout (7.1.6.2: HBO 23, RXE 29, L4E 30, IPE 31, not the
 * 82576's): five groups of four. Group 0: IPv4 and TCP checked, lengths
 * 60-63. Group 1: L4E in all four (IP good, L4 bad: with the 82576's bits
 * it would read as IPE). Group 2: IPE in all four, IPv4 alone checked
 * (outside the 82576's checksum bits). Group 3: HBO in one
 * (rx_drop_desc_error). Group 4: good again. Every packet's flags and
 * every counter exact. */
static void test_rx_groups_of_four(void **st)
{
	(void)st;
	model_init(M_82599);
	assert_int_equal(probe(0x10fb, 1), 0);
	struct nic *nic = model_nic;
	const uint32_t ipcs = 1u << 6, l4cs = 1u << 5, l4e = 1u << 30, ipe = 1u << 31, hbo = 1u << 23;
	const uint32_t ok = PKT_RX_IP_CSUM_OK | PKT_RX_L4_CSUM_OK;
	uint32_t nfree = nic->pool->nfree;
	for (uint32_t i = 0; i < 20; i++) {
		uint32_t g = i / 4, sterr = g == 1 ? ipcs | l4cs | l4e : g == 2 ? ipcs | ipe : ipcs | l4cs;
		sterr |= i == 13 ? hbo : 0;
		assert_int_equal(ixgbe_model_rx(0, make_frame(0), (uint16_t)(60 + i), sterr), 1);
	}
	struct pkt *pk[32];
	assert_int_equal(nic->ops->rx_burst(nic, 0, pk, 32), 19);
	for (int k = 0; k < 19; k++) {
		int i = k < 13 ? k : k + 1, g = i / 4;
		assert_int_equal(pk[k]->len, 60 + i);
		assert_int_equal(pk[k]->flags, g == 1 ? PKT_RX_IP_CSUM_OK | PKT_RX_L4_CSUM_BAD
					       : g == 2 ? PKT_RX_IP_CSUM_BAD : ok);
		assert_int_equal(pk[k]->port, nic->port);
		assert_int_equal(pk[k]->queue, 0);
		assert_int_equal(pk[k]->clones, 0);
		assert_ptr_equal(pk[k]->data, pk[k]->buf);
	}
	assert_int_equal(model_last_write(RDT0), 19);
	uint64_t *sw = nic->qsw[0];
	assert_int_equal(sw[NS_rx_delivered], 19);
	assert_int_equal(sw[NS_rx_csum_offload_good], 4 + 3 + 4);
	assert_int_equal(sw[NS_rx_csum_offload_errors], 4 + 4);
	assert_int_equal(sw[NS_rx_drop_desc_error], 1);
	assert_int_equal(nic->q[0].rx_bytes, 20 * 60 + 190 - 73);
	pkt_free_bulk(pk, 19);
	assert_int_equal(nic->pool->nfree, nfree);
}

/* 8.2.3.23: each statistics register into its `ethtool -S` counter (Linux
 * ixgbe's mapping), GORC/GOTC 36 bits, read-to-clear (a second read adds
 * nothing). */
static void test_stats_registers(void **st)
{
	(void)st;
	model_init(M_82599);
	assert_int_equal(probe(0x10fb, 2), 0);
	struct nic *nic = model_nic;
	static const struct { uint32_t reg, v; enum nic_stat s; } map[] = {
		{ 0x4074, 11, NS_rx_packets }, { 0x4080, 12, NS_tx_packets }, { 0x4078, 13, NS_rx_broadcast },
		{ 0x40f4, 14, NS_tx_broadcast }, { 0x407c, 15, NS_rx_multicast }, { 0x40f0, 16, NS_tx_multicast },
		{ 0x4000, 17, NS_rx_crc_errors }, { 0x4040, 18, NS_rx_length_errors },
		{ 0x40a4, 19, NS_rx_short_length_errors }, { 0x40ac, 20, NS_rx_long_length_errors },
		{ 0x41a4, 21, NS_rx_flow_control_xon }, { 0x41a8, 22, NS_rx_flow_control_xoff },
		{ 0x3f60, 23, NS_tx_flow_control_xon }, { 0x3f68, 24, NS_tx_flow_control_xoff },
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		model_poke(map[i].reg, map[i].v);
	model_poke(0x3fa0, 5);			/* MPC0 */
	model_poke(0x3fa0 + 7 * 4, 6);		/* MPC7 */
	model_poke(0x4088, 0xffffffff);		/* GORCL */
	model_poke(0x408c, 0xf);		/* GORCH: 35:32 */
	model_poke(0x4090, 7);			/* GOTCL */
	model_poke(0x4094, 1);
	model_poke(0x1430, 3);			/* QPRDC0 */
	model_poke(0x1470, 4);			/* QPRDC1 */
	nic->ops->update_stats(nic);
	nic->ops->update_stats(nic);
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		assert_int_equal(nic->stats[map[i].s], map[i].v);
	assert_int_equal(nic->stats[NS_multicast], 15);
	assert_int_equal(nic->stats[NS_rx_missed_errors], 11);
	assert_int_equal(nic->stats[NS_rx_errors], 17 + 18);
	assert_int_equal(nic->stats[NS_rx_bytes], 0xfffffffffull);
	assert_int_equal(nic->stats[NS_tx_bytes], (1ull << 32) + 7);
	assert_int_equal(nic->stats[NS_rx_fifo_errors], 7);
	assert_int_equal(nic->q[0].rx_drops, 3);
	assert_int_equal(nic->q[1].rx_drops, 4);
}

/* A reset from the shell: RST again, frames received and not delivered
 * in rx_drop_reset, frames queued and not sent in tx_dropped, counters
 * kept across it, the rings set up again and working. */
static void test_port_reset(void **st)
{
	(void)st;
	model_init(M_82599);
	assert_int_equal(probe(0x10fb, 1), 0);
	struct nic *nic = model_nic;
	for (int i = 0; i < 4; i++)
		ixgbe_model_rx(0, make_frame(0), 64, 0);
	struct pkt *pk[32];
	assert_int_equal(nic->ops->rx_burst(nic, 0, pk, 1), 1);
	assert_int_equal(nic->ops->tx_burst(nic, 0, pk, 1), 1);	/* not sent before the reset */
	int before = M.nlog;
	nic->ops->reset(nic);
	nic->ops->watchdog(nic);
	/* 5.2.5.3.2 as Linux ixgbe_stop_adapter_generic: each queue disabled
	 * with SWFLSH (bit 26), then master disable, then the reset */
	int md = model_find_write(before, CTRL_, 1u << 2, 1u << 2);
	int txoff = model_find_write(before, TXDCTL0, 0xffffffff, 1u << 26);
	int rxoff = model_find_write(before, RXDCTL0, 1u << 25 | 1u << 26, 1u << 26);
	assert_true(txoff > before && rxoff > before && md > txoff && md > rxoff);
	assert_true(model_find_write(md, CTRL_, 1u << 26, 1u << 26) > md);
	assert_int_equal(M.resets, 2);
	assert_int_equal(nic->stats[NS_resets], 1);
	assert_int_equal(nic->stats[NS_rx_drop_reset], 3);
	assert_int_equal(nic->stats[NS_tx_dropped], 1);
	assert_int_equal(nic->stats[NS_rx_packets], 4);	/* read before RST cleared them */
	assert_true(model_console_has("port0: reset asked for from the shell: resetting"));
	assert_int_equal(ixgbe_model_rx(0, make_frame(0), 64, 0), 1);
	assert_int_equal(nic->ops->rx_burst(nic, 0, pk, 32), 1);
	pkt_free(pk[0]);
	nic->ops->update_stats(nic);
	assert_int_equal(nic->stats[NS_rx_packets], 5);
	assert_int_equal(nic->stats[NS_rx_delivered], 2);
}

/* Link down with frames queued: one reset per down period flushes them
 * (tx_dropped), as the gigabit families (silicon review N5). */
static void test_link_down_with_tx_queued(void **st)
{
	(void)st;
	model_init(M_82599);
	assert_int_equal(probe(0x10fb, 1), 0);
	struct nic *nic = model_nic;
	nic->ops->watchdog(nic);
	assert_int_equal(nic->link_up, 1);
	struct pkt *pk[2] = { pkt_alloc(nic->pool), pkt_alloc(nic->pool) };
	pk[0]->len = pk[1]->len = 60;
	assert_int_equal(nic->ops->tx_burst(nic, 0, pk, 2), 2);
	ixgbe_model_links(0);
	M.s.link_down = 1;
	nic->ops->watchdog(nic);
	assert_int_equal(nic->stats[NS_resets], 1);
	assert_int_equal(nic->stats[NS_tx_dropped], 2);
	assert_true(model_console_has("port0: link down with TX work queued: resetting"));
	nic->ops->watchdog(nic);
	assert_int_equal(nic->stats[NS_resets], 1);
}

/* 7.3: MSI-X with 4 queue pairs: GPIE before the IVARs, RX q on vector q
 * (IVAR n: RX 2n at 7:0, RX 2n+1 at 23:16), TX entries invalid, other
 * causes on vector 4; EIAC/EIAM the queues; EIMS LSC, ECC, OTHER. RSS:
 * RETA over the queues, MRQC, DROP_EN in every SRRCTL. */
static void test_msix_ivar_rss(void **st)
{
	(void)st;
	model_init(M_82599);
	assert_int_equal(probe(0x10fb, 4), 0);
	int gpie = model_find_write(0, GPIE_, 0, 0), ivar = model_find_write(0, IVAR0, 0, 0);
	assert_true(gpie >= 0 && ivar > gpie);
	assert_int_equal(model_peek(GPIE_), 1u << 4 | 1u << 5 | 1u << 30 | 1u << 31);
	assert_int_equal(model_peek(IVAR0), 0x80u | 0x81u << 16);
	assert_int_equal(model_peek(IVAR0 + 4), 0x82u | 0x83u << 16);
	assert_int_equal(model_peek(IVAR_MISC_), 0x84u << 8);
	assert_int_equal(model_peek(EIAC_), 0xf);
	assert_int_equal(model_peek(EIAM_), 0xf);
	assert_int_equal(model_peek(EIMS_EX0), 1u << 4);
	assert_int_equal(M.eims, 1u << 20 | 1u << 28 | 1u << 31);
	assert_int_equal(model_peek(0x5c80), 0x6d5a6d5a);	/* RSSRK0: the ports' key */
	assert_int_equal(model_peek(0x5c80 + 9 * 4), 0x76637663);
	assert_int_equal(model_peek(RETA0), 0x03020100);
	assert_int_equal(model_peek(RETA0 + 31 * 4), 0x03020100);
	assert_int_equal(model_peek(MRQC_), 1u | 0xf3u << 16);
	for (int q = 0; q < 4; q++)
		assert_int_equal(model_peek(SRRCTL0 + 0x40 * q), 1u << 28 | 1u << 25 | 2u);
	model_nic->ops->irq_enable(model_nic, 2);
	assert_int_equal(M.eims & 0xffff, 1u << 2);
	model_nic->ops->irq_disable(model_nic, 2);
	assert_int_equal(M.eims & 0xffff, 0);
	/* the other vector: LSC to the watchdog, written back to clear (GPIE.OCD) */
	model_poke(EICR_, 1u << 20 | 1u << 31);
	M.handlers[4](0, M.args[4]);
	assert_int_equal(model_nic->other_pending, 1);
	assert_int_equal(model_peek(EICR_), 0);
}

/* EITR: 4,000,000 / ints_per_s in bits 11:3, CNT_WDIS; bounds. */
static void test_eitr(void **st)
{
	(void)st;
	model_init(M_82599);
	assert_int_equal(probe(0x10fb, 1), 0);
	struct nic *nic = model_nic;
	static const uint32_t rate[] = { 20000, 8000, 0, 500, 1000000 }, reg[] = { 200, 496, 0, 0xff8, 8 };
	for (int i = 0; i < 5; i++) {
		nic->ops->set_itr(nic, 0, rate[i]);
		assert_int_equal(model_peek(EITR0), reg[i] | 1u << 31);
		assert_int_equal(nic->q[0].itr, rate[i]);
	}
}

/* 16 queue pairs, RSS's limit on the 82599 (RETA entries of 4 bits,
 * 7.1.2.8): 17 MSI-X vectors, RX 15 on vector 15 (IVAR 7 bits 23:16),
 * the other causes on vector 16 (IVAR_MISC) unmasked in EIMS_EX(0) bit
 * 16, beyond EIMS's 15:0; EIAC/EIAM all 16 queue vectors; RETA 0-15 over
 * and over; every queue enabled with DROP_EN; a frame into queue 15 comes
 * out of its burst marked queue 15. */
static void test_sixteen_queues(void **st)
{
	(void)st;
	model_init(M_82599);
	assert_int_equal(probe(0x10fb, 16), 0);
	struct nic *nic = model_nic;
	assert_int_equal(nic->nqueues, 16);
	assert_true(to_port(nic)->msix);
	assert_int_equal(model_peek(IVAR0 + 7 * 4), 0x8eu | 0x8fu << 16);
	assert_int_equal(model_peek(IVAR_MISC_), 0x90u << 8);
	assert_int_equal(model_peek(EIAC_), 0xffff);
	assert_int_equal(model_peek(EIAM_), 0xffff);
	assert_int_equal(model_peek(EIMS_EX0), 1u << 16);
	for (int i = 0; i < 32; i++)
		assert_int_equal(model_peek(RETA0 + 4 * (uint32_t)i), i % 4 == 0 ? 0x03020100u : i % 4 == 1 ? 0x07060504u
							    : i % 4 == 2 ? 0x0b0a0908u : 0x0f0e0d0cu);
	for (uint32_t q = 0; q < 16; q++) {
		assert_true(model_peek(RXDCTL0 + 0x40 * q) & 1u << 25);
		assert_true(model_peek(TXDCTL0 + 0x40 * q) & 1u << 25);
		assert_true(model_peek(SRRCTL0 + 0x40 * q) & 1u << 28);
	}
	assert_int_equal(ixgbe_model_rx(15, make_frame(0), 60, 0), 1);
	struct pkt *pk[4];
	assert_int_equal(nic->ops->rx_burst(nic, 14, pk, 4), 0);
	assert_int_equal(nic->ops->rx_burst(nic, 15, pk, 4), 1);
	assert_int_equal(pk[0]->queue, 15);
	assert_int_equal(nic->q[15].rx_packets, 1);
	assert_int_equal(model_last_write(RDT0 + 0x40 * 15), 0);
	pkt_free(pk[0]);
}

/* EITR's unit by link speed (8.2.3.5.12): 2.048 us at 10 and 1 Gb/s,
 * 20.48 us at 100 Mb/s. With 2 queues on MSI-X at 20,000 and 8,000
 * ints/s: the link down and up at 100 Mb/s writes both EITRs again in
 * its unit (16, 48: 20 and 50 masked to 11:3), and set_itr there uses it (500
 * ints/s: 800; the shortest, 8); up at 1 Gb/s, both back to the 10 Gb/s
 * values. */
static void test_eitr_link_speed(void **st)
{
	(void)st;
	model_init(M_82599);
	assert_int_equal(probe(0x10fb, 2), 0);
	struct nic *nic = model_nic;
	const uint32_t wdis = 1u << 31, up = 1u << 30 | 1u << 7;
	nic->ops->set_itr(nic, 0, 20000);
	nic->ops->set_itr(nic, 1, 8000);
	assert_int_equal(model_peek(EITR0), 200 | wdis);
	assert_int_equal(model_peek(EITR0 + 4), 496 | wdis);
	ixgbe_model_links(0);
	nic->ops->watchdog(nic);
	ixgbe_model_links(up | 1u << 28);	/* 100 Mb/s */
	nic->ops->watchdog(nic);
	assert_true(model_console_has("port0: link up, 100 Mb/s, full duplex"));
	assert_int_equal(model_peek(EITR0), 16 | wdis);
	assert_int_equal(model_peek(EITR0 + 4), 48 | wdis);
	assert_int_equal(nic->q[0].itr, 20000);
	nic->ops->set_itr(nic, 0, 500);
	assert_int_equal(model_peek(EITR0), 800 | wdis);
	nic->ops->set_itr(nic, 0, 1000000);
	assert_int_equal(model_peek(EITR0), 8 | wdis);
	nic->ops->set_itr(nic, 0, 20000);
	ixgbe_model_links(0);
	nic->ops->watchdog(nic);
	ixgbe_model_links(up | 2u << 28);	/* 1 Gb/s */
	nic->ops->watchdog(nic);
	assert_int_equal(nic->speed, 1000);
	assert_int_equal(model_peek(EITR0), 200 | wdis);
	assert_int_equal(model_peek(EITR0 + 4), 496 | wdis);
}

/* Without MSI-X (MSI): no GPIE, RX queue 0 on EICR bit 0, its handler
 * schedules queue 0 on that bit and reading EICR clears it. */
static void test_msi_mode(void **st)
{
	(void)st;
	model_init(M_82599);
	M.s.int_mode = INT_MODE_MSI;
	assert_int_equal(probe(0x10fb, 2), 0);
	assert_int_equal(model_nic->nqueues, 1);
	assert_int_equal(model_find_write(0, GPIE_, 0, 0), -1);
	assert_int_equal(model_peek(IVAR0), 0x80u);
	ixgbe_model_rx(0, make_frame(0), 64, 0);
	M.handlers[0](0, M.args[0]);
	assert_int_equal(M.queue_irqs[0], 1);
	assert_int_equal(model_peek(EICR_), 0);
}

/* Each bounded wait fails with its message; the port is refused and let
 * go (DRV_LOAD clear, bus mastering off), or, for the master disable,
 * reported and the reset done anyway. */
/* How many writes to CTRL set RST and LRST. */
static int rst_writes(void)
{
	int n = 0;
	for (int i = 0; i < M.nlog; i++)
		n += M.log[i].op == 'W' && M.log[i].reg == CTRL_ && (M.log[i].val & (1u << 26 | 1u << 3)) == (1u << 26 | 1u << 3);
	return n;
}

static void test_waits_fail(void **st)
{
	(void)st;
	static const struct { int what; const char *msg; } c[] = {
		{ 0, "EEC.ARD not set 20 ms after reset: EEPROM auto-read did not complete" },
		{ 1, "RDRXCTL.DMAIDONE not set 20 ms after reset: DMA initialisation did not complete" },
		{ 2, "CTRL.RST did not clear within 100 ms" },
		{ 3, "RX queue 0: RXDCTL.ENABLE did not set within 10 ms" },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		model_init(M_82599);
		if (c[i].what == 0)
			M.s.auto_rd_reads = -1;
		if (c[i].what == 1)
			M.s.dmaidone_reads = -1;
		if (c[i].what == 2)
			M.s.rst_stuck = 1;
		if (c[i].what == 3)
			M.s.queue_enable_polls = -1;
		assert_int_equal(probe(0x10fb, 1), -1);
		assert_true(model_console_has(c[i].msg));
		assert_true(model_console_has("port0: ixgbe 82599ES 10-Gigabit SFI/SFP+ Network Connection not set up"));
		assert_int_equal(model_peek(CTRL_EXT_) & (1u << 28), 0);
		assert_int_equal(M.cfg[PCI_COMMAND] & PCI_COMMAND_MASTER, 0);
	}
	/* master requests that never drain: reset twice (5.2.5.3.2, Linux
	 * IXGBE_FLAGS_DOUBLE_RESET_REQUIRED), else once */
	model_init(M_82599);
	assert_int_equal(probe(0x10fb, 1), 0);
	assert_int_equal(rst_writes(), 1);
	model_init(M_82599);
	M.s.gio_polls = -1;
	assert_int_equal(probe(0x10fb, 1), 0);
	assert_true(model_console_has("STATUS.PCIE_MASTER_ENABLE still set 80 ms after CTRL.PCIE_MASTER_DISABLE: "
				      "master requests pending; resetting twice"));
	assert_int_equal(rst_writes(), 2);
	/* TXDCTL.ENABLE takes only after DMATXCTL.TE (the model's rule) */
	assert_true(model_peek(TXDCTL0) & (1u << 25));
}

/* Parts whose link set-up is not written are refused by ID, untouched,
 * the message naming what they need: the X552 (X550EM_x) and X553
 * (X550EM_a) IDs of Linux's ixgbe_type.h, the 82599 10GBASE-T LOM. */
static void test_refused_parts(void **st)
{
	(void)st;
	static const uint16_t ids[] = { 0x15aa, 0x15ab, 0x15b0, 0x15ac, 0x15ad, 0x15ae, 0x15c2, 0x15c3,
					0x15c4, 0x15ce, 0x15c6, 0x15c7, 0x15c8, 0x15e4, 0x15e5, 0x151c };
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		model_init(M_82599);
		assert_int_equal(probe(ids[i], 1), -1);
		assert_int_equal(M.nlog, 0);
		assert_true(model_console_has("link set-up not written here ("));
		assert_true(model_console_has("); device left alone"));
	}
	model_init(M_82599);
	probe(0x15ad, 1);
	probe(0x15c8, 1);
	assert_true(model_console_has("8086:15ad Ethernet Connection X552/X557-AT 10GBASE-T: X550EM_x 10GBASE-T "
				      "link set-up not written here (the external X557 PHY over MDIO and its "
				      "iXFI link through the IOSF sideband); device left alone"));
	assert_true(model_console_has("8086:15c8 Ethernet Connection X553/X557-AT 10GBASE-T: X550EM_a "
				      "10GBASE-T link set-up not written here (EEC and SW_FW_SYNC at the "
				      "X550EM_a's offsets, the link and PHY through firmware commands)"));
	for (const struct pci_id *id = ixgbe_ids; id->vendor; id++)
		assert_non_null(ixgbe_find_part(id));
}

/* ---- the X540 (M.s.x540) ---- */

enum { MSCA_ = 0x425c, RXPBSIZE0 = 0x3c00, SMBI = 1u << 0, SWESMBI = 1u << 1, REGSMP_ = 1u << 31 };

static int probe_x540(uint16_t dev, int queues)
{
	M.s.x540 = 1;
	return probe(dev, queues);
}

/* The X540 against the 82599's init: CTRL.RST alone (no LRST), written
 * while the port's SW_PHY_SM0 is held; the semaphore through
 * SW_FW_SYNC.REGSMP, SWESMBI never written; no AUTOC/AUTOC2 and no SFP+
 * I2C; its PHY found by address scan (0 reads 0xffff, 1 answers), every
 * MDIO frame under SW_PHY_SM0; link up at 10 Gb/s from LINKS; the 384 KB
 * RX packet buffer; semaphores all given back; the boot report's lines. */
static void test_x540_init(void **st)
{
	(void)st;
	model_init(M_82599);
	assert_int_equal(probe_x540(0x1528, 1), 0);
	assert_true(model_find_write(0, CTRL_, 1u << 26, 1u << 26) >= 0);
	assert_int_equal(model_find_write(0, CTRL_, 1u << 3, 1u << 3), -1);	/* LRST */
	assert_int_equal(M.rst_unowned, 0);
	assert_int_equal(model_find_write(0, SWSM_, SWESMBI, SWESMBI), -1);
	assert_true(model_find_write(0, SW_FW_SYNC_, REGSMP_ | 2u, REGSMP_ | 2u) >= 0);
	assert_int_equal(model_last_write(AUTOC_), -1);
	assert_int_equal(model_last_write(AUTOC2_), -1);
	assert_int_equal(model_last_write(I2CCTL_), -1);
	assert_int_equal(M.i2c_starts, 0);
	assert_true(M.mdio_frames >= 4 + 4 + 6 * 2 + 2 * 2);	/* scan 0 and 1, 3 advertisements, AN */
	assert_int_equal(M.mdic_unowned, 0);
	assert_int_equal(model_peek(SW_FW_SYNC_), 0);
	assert_int_equal(model_peek(SWSM_) & SMBI, 0);
	assert_int_equal(model_peek(RXPBSIZE0), 384u << 10);
	assert_int_equal(to_port(model_nic)->phy_addr, 1);
	assert_int_equal(model_nic->link_up, 1);
	assert_int_equal(model_nic->speed, 10000);
	assert_true(model_console_has("port0: internal 10GBASE-T PHY at MDIO address 1, identifier 0x01540201"));
	assert_true(model_console_has("port0: 10GBASE-T (X540 internal PHY) link"));
	assert_int_equal(model_last_write(0x8c14), 0x66666666u);	/* the clock: test_x540_clock */
	assert_true(model_console_has("port0: link up, 10000 Mb/s, full duplex"));
	/* the same on a port reset, and on 0x1560 */
	int from = M.nlog;
	model_nic->ops->reset(model_nic);
	model_nic->ops->watchdog(model_nic);
	assert_true(model_find_write(from, CTRL_, 1u << 26, 1u << 26) > from);
	assert_int_equal(M.rst_unowned, 0);
	model_nic->ops->watchdog(model_nic);	/* LINKS read again after the reset */
	assert_int_equal(model_nic->link_up, 1);
	model_init(M_82599);
	assert_int_equal(probe_x540(0x1560, 1), 0);
	assert_int_equal(model_nic->speed, 10000);
}

/* Copper speeds: the PHY advertises 10G, 1G and 100M, so a 1 Gb/s or
 * 100 Mb/s partner gives that speed in LINKS; at 100 Mb/s EITR's unit is
 * 20.48 us (400,000 / rate, 8 for 50,000: 48,828 ints/s at most), at
 * 10 Gb/s 2.048 us. 16 queue pairs with the X540's 64 MSI-X vectors,
 * the other causes on vector 16. */
static void test_x540_speeds_eitr_queues(void **st)
{
	(void)st;
	model_init(M_82599);
	M.s.lp_speed = 1000;
	assert_int_equal(probe_x540(0x1528, 1), 0);
	assert_int_equal(model_nic->speed, 1000);
	assert_true(model_console_has("port0: link up, 1000 Mb/s, full duplex"));
	model_nic->ops->set_itr(model_nic, 0, 4000);
	assert_int_equal(model_peek(EITR0), 1000u | 1u << 31);

	model_init(M_82599);
	M.s.lp_speed = 100;
	assert_int_equal(probe_x540(0x1528, 1), 0);
	assert_int_equal(model_nic->speed, 100);
	assert_true(model_console_has("port0: link up, 100 Mb/s, full duplex"));
	model_nic->ops->set_itr(model_nic, 0, 4000);
	assert_int_equal(model_peek(EITR0), 96u | 1u << 31);	/* 100 & 0xff8 */
	model_nic->ops->set_itr(model_nic, 0, 100000);
	assert_int_equal(model_peek(EITR0), 8u | 1u << 31);

	model_init(M_82599);
	M.s.lp_speed = 10;	/* 10BASE-T only: nothing in common */
	assert_int_equal(probe_x540(0x1528, 1), 0);
	assert_int_equal(model_nic->link_up, 0);
	assert_true(model_console_has("port0: link down"));

	model_init(M_82599);
	assert_int_equal(probe_x540(0x1528, 16), 0);
	assert_int_equal(model_nic->nqueues, 16);
	assert_int_equal(model_peek(IVAR_MISC_), (0x80u | 16) << 8);
	assert_int_equal(model_peek(IVAR0 + 4 * 7) & 0xff00ff, (0x80u | 14) | (0x80u | 15) << 16);
}

/* The X550-T2 (1563) and T1 (15d1) as the X540 (Linux's mac_ops_X550:
 * ixgbe_reset_hw_X540, its semaphore, copper link and 384 KB packet
 * buffer): its PHY found by the X550's identifier 0x0154022x, 1.0xC400
 * written with 1000BASE-T and without the 2.5G/5GBASE-T bits the model's
 * PHY starts with, link at 10 Gb/s, no hardware clock (said at probe). An
 * X550 whose PHY answers with the X540's identifier is left out. */
static void test_x550t_init(void **st)
{
	(void)st;
	static const uint16_t ids[] = { 0x1563, 0x15d1 };
	for (int i = 0; i < 2; i++) {
		memset(phcs, 0, sizeof(phcs));
		model_init(M_82599);
		ixgbe_model_x550();
		assert_int_equal(probe(ids[i], 1), 0);
		assert_true(model_find_write(0, CTRL_, 1u << 26, 1u << 26) >= 0);
		assert_int_equal(model_find_write(0, CTRL_, 1u << 3, 1u << 3), -1);	/* LRST */
		assert_int_equal(M.rst_unowned, 0);
		assert_int_equal(M.mdic_unowned, 0);
		assert_int_equal(model_last_write(AUTOC_), -1);
		assert_int_equal(model_peek(RXPBSIZE0), 384u << 10);
		assert_int_equal(ixgbe_model_phy_reg(7, 0xc400) & 0xfc00, 0x8000);	/* 1000BASE-T, no NBASE-T */
		assert_int_equal(model_nic->link_up, 1);
		assert_int_equal(model_nic->speed, 10000);
		assert_string_equal(phc_of(model_nic)->ops->name, "X550 SYSTIME (seconds and ns)");
		assert_int_equal(model_last_write(0x8c14), 0);	/* TIMINCA: the nominal rate */
		assert_true(model_console_has("port0: internal 10GBASE-T PHY at MDIO address 1, identifier 0x01540221"));
		assert_true(model_console_has("port0: 10GBASE-T (X550 internal PHY) link"));
		assert_false(model_console_has("not written here"));
	}
	model_init(M_82599);
	M.s.x540 = 1;	/* the X540's PHY behind an X550's ID */
	assert_int_equal(probe(0x1563, 1), -1);
	assert_true(model_console_has("port0: no PHY with the X550's identifier 0x01540220 at MDIO addresses 0-31"));
	assert_int_equal(model_peek(SW_FW_SYNC_), 0);
}

/* The X540's semaphore faults, each a message and the port left out,
 * nothing held afterwards: REGSMP held by the firmware; the firmware's
 * PHY bit (FW_PHY_SM0, bit 6) held; an MDIO frame that never ends. */
static void test_x540_faults(void **st)
{
	(void)st;
	model_init(M_82599);
	M.s.fw_holds_swesmbi = 1;
	assert_int_equal(probe_x540(0x1528, 1), -1);
	assert_true(model_console_has("port0: SW_FW_SYNC.REGSMP not granted in 100 ms: the firmware holds the semaphore"));
	assert_int_equal(model_find_write(0, CTRL_, 1u << 26, 1u << 26), -1);
	assert_int_equal(model_peek(SWSM_) & SMBI, 0);

	model_init(M_82599);
	M.s.fw_sync = 1u << 6;
	assert_int_equal(probe_x540(0x1528, 1), -1);
	assert_true(model_console_has("port0: SW_FW_SYNC resource 0x2 held for 1 s"));
	assert_true(model_console_has("by the firmware"));
	assert_int_equal(model_find_write(0, CTRL_, 1u << 26, 1u << 26), -1);
	assert_int_equal(model_peek(SW_FW_SYNC_) & (REGSMP_ | 2u), 0);

	model_init(M_82599);
	M.s.mdic_never_ready = 1;
	assert_int_equal(probe_x540(0x1528, 1), -1);
	assert_true(model_console_has("port0: MSCA.MDICMD still set 10 ms after an MDIO frame to PHY address 0: "
				      "the PHY does not answer"));
	assert_int_equal(M.mdio_frames, 1);
	assert_int_equal(model_peek(SW_FW_SYNC_), 0);
	assert_int_equal(model_peek(CTRL_EXT_) & (1u << 28), 0);	/* DRV_LOAD given back */
}

/* Accesses of reg in the log, op 'R' or 'W', from index from. */
static int count_ops(int from, char op, uint32_t reg)
{
	int n = 0;
	for (int i = from < 0 ? 0 : from; i < M.nlog; i++)
		n += M.log[i].op == op && M.log[i].reg == reg;
	return n;
}

/* Index of the last write to reg, or -1. */
static int last_write_at(uint32_t reg)
{
	for (int i = M.nlog - 1; i >= 0; i--)
		if (M.log[i].op == 'W' && M.log[i].reg == reg)
			return i;
	return -1;
}

/* The SFP+ module's ID page read over I2CCTL after the reset and before
 * the link set-up, under SW_FW_SYNC.SW_PHY_SM0 (taken before the first
 * I2CCTL write, given back after the last; SWSM around both), in one
 * random-then-sequential read: 2 STARTs x 4 line writes, (3 address and
 * offset bytes + 64 data bytes) x 9 clocked bits x 3, a STOP's 3: 1820
 * I2CCTL writes, each read back (Specification Update clarification 3);
 * the module sent 64 bytes. */
static void test_sfp_read(void **st)
{
	(void)st;
	model_init(M_82599);
	assert_int_equal(probe(0x10fb, 1), 0);
	int rst = model_find_write(0, CTRL_, 1u << 26, 1u << 26);
	int take = wbit(rst, SW_FW_SYNC_, 1u << 1), first = model_find_write(rst, I2CCTL_, 0, 0);
	int last = last_write_at(I2CCTL_), give = model_find_write(last, SW_FW_SYNC_, 1u << 1, 0);
	int an = wbit(rst, AUTOC_, 1u << 12);
	assert_true(take > rst && first > take && last > first && give > last && an > give);
	assert_true(wbit(rst, SWSM_, 1u << 1) < take);	/* SWESMBI before SW_FW_SYNC */
	assert_int_equal(model_peek(SWSM_) & 3, 0);
	assert_int_equal(model_peek(SW_FW_SYNC_), 0);
	assert_int_equal(count_ops(rst, 'W', I2CCTL_), 1820);
	assert_int_equal(count_ops(rst, 'R', I2CCTL_), 1820);
	assert_int_equal(M.i2c_starts, 2);
	assert_int_equal(M.i2c_reads, 64);
	assert_int_equal(M.i2c_unowned, 0);
	assert_int_equal(model_peek(I2CCTL_), 0xa);	/* both lines released after the STOP */
	assert_true(model_console_has("port0: SFP+ module Intel Corp FTLX8571D3BCV-IT (OUI 001b21)"));
	assert_true(model_console_has("port0: SFP+ module 10GBASE-SR"));
	assert_int_equal(model_nic->link_up, 1);

	/* the second port (STATUS.LAN_ID 1) takes SW_PHY_SM1 */
	model_init(M_82599);
	M.s.fn = 1;
	M.s.fw_sync = 1u << 6;	/* the firmware holds LAN 0's PHY: not ours */
	assert_int_equal(probe(0x10fb, 1), 0);
	assert_true(wbit(0, SW_FW_SYNC_, 1u << 2) >= 0);
	assert_int_equal(wbit(0, SW_FW_SYNC_, 1u << 1), -1);
	assert_int_equal(M.i2c_unowned, 0);
}

/* Each module kind (SFF-8472 bytes 0, 3, 6, 8, 60, 37-39): SR, LR and
 * direct attach taken; optics of another vendor only with
 * allow_unsupported_sfp=1; 1 Gb/s, QSFP+, a non-limiting active cable and
 * a page without codes refused, the port left out and let go. */
static void test_sfp_modules(void **st)
{
	(void)st;
	static const struct {
		uint8_t ident, c10, c1, cable, spec;
		uint32_t oui;
		int allow, ok;
		const char *msg;
	} c[] = {
		{ 3, 0x20, 0, 0, 0, 0x001b21, 0, 1, "port0: SFP+ module 10GBASE-LR" },
		{ 3, 0, 0, 0x04, 0, 0x009065, 0, 1, "port0: SFP+ module direct attach (passive)" },
		{ 3, 0, 0, 0x08, 0x04, 0x001b21, 0, 1, "port0: SFP+ module direct attach (active limiting)" },
		{ 3, 0x10, 0, 0, 0, 0x009065, 1, 1, "port0: allow_unsupported_sfp=1: using a module Intel has not tested" },
		{ 3, 0x10, 0, 0, 0, 0x009065, 0, 0, "port0: unsupported SFP+ module: not an Intel module (vendor OUI "
						     "other than 00:1b:21), which Linux ixgbe refuses too; "
						     "allow_unsupported_sfp=1 takes it, untested; port left out" },
		{ 3, 0, 0, 0x08, 0, 0x001b21, 0, 0, "port0: unsupported SFP+ module: an active direct attach cable "
						     "that is not SFF-8431 limiting (byte 60); port left out" },
		{ 3, 0, 0x01, 0, 0, 0x001b21, 0, 0, "port0: unsupported SFP+ module: a 1000BASE-SX/LX/T module: "
						     "only 10 Gb/s SFI is set up here; port left out" },
		{ 0x0d, 0x10, 0, 0, 0, 0x001b21, 0, 0, "port0: unsupported SFP+ module: identifier 0dh is not "
							"SFP/SFP+ (SFF-8472 byte 0: 03h); port left out" },
		{ 3, 0, 0, 0, 0, 0x001b21, 0, 0, "port0: unsupported SFP+ module: no 10GBASE-SR/LR or direct attach "
						  "code (bytes 3, 6, 8: 00h 00h 00h); port left out" },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		model_init(M_82599);
		ixgbe_model_sfp(c[i].ident, c[i].c10, c[i].c1, c[i].cable, "Vendor X", c[i].oui, "PN-1");
		M.sfp[60] = c[i].spec;
		ixgbe_allow_unsupported_sfp = c[i].allow;
		int r = probe(0x10fb, 1);
		ixgbe_allow_unsupported_sfp = 0;
		assert_int_equal(r, c[i].ok ? 0 : -1);
		assert_true(model_console_has(c[i].msg));
		assert_int_equal(M.i2c_reads, 64);
		if (!c[i].ok) {
			assert_true(model_console_has("port0: ixgbe 82599ES 10-Gigabit SFI/SFP+ Network Connection not set up"));
			assert_int_equal(model_peek(CTRL_EXT_) & (1u << 28), 0);
			assert_int_equal(wbit(0, AUTOC_, 1u << 12), -1);	/* no link set up */
		}
	}
	/* the KX4 backplane part has no cage: no I2C */
	model_init(M_82599);
	assert_int_equal(probe(0x10f7, 1), 0);
	assert_int_equal(model_find_write(0, I2CCTL_, 0, 0), -1);
}

/* No module (nothing acknowledges A0h): three tries, a bus clear before
 * the second and third, then the port left out with its message. A
 * module that leaves its address unacknowledged twice is read on the
 * third try. SCL held low: the read fails, named. */
static void test_sfp_absent_and_bus_faults(void **st)
{
	(void)st;
	model_init(M_82599);
	M.s.sfp_absent = 1;
	assert_int_equal(probe(0x10fb, 1), -1);
	assert_true(model_console_has("port0: no SFP+ module in the cage (nothing answers at I2C address A0h); "
				      "port left out"));
	assert_int_equal(M.i2c_starts, 3);
	assert_int_equal(M.i2c_reads, 0);
	assert_int_equal(M.i2c_unowned, 0);
	assert_int_equal(model_peek(SW_FW_SYNC_), 0);

	model_init(M_82599);
	M.s.sfp_nacks = 2;
	assert_int_equal(probe(0x10fb, 1), 0);
	assert_int_equal(M.i2c_starts, 4);	/* 1 + 1 NACKed, 2 for the read */
	assert_int_equal(M.i2c_reads, 64);
	assert_true(model_console_has("port0: SFP+ module 10GBASE-SR"));

	model_init(M_82599);
	M.s.sfp_scl_low = 1;
	assert_int_equal(probe(0x10fb, 1), -1);
	assert_true(model_console_has("port0: SFP+ module: the I2C read of its ID page failed 3 times"));
	assert_true(model_console_has("port0: unsupported SFP+ module: its ID page could not be read; port left out"));
	assert_int_equal(M.i2c_reads, 0);
}

/* The SW/FW semaphore: the firmware holding the port's PHY resource for
 * 1 s (200 tries), SWESMBI never granted (2000 writes), another agent
 * holding SMBI: each named, no I2C touched, the port left out; a stale
 * SMBI is cleared once and the port comes up. */
static void test_swfw_semaphore(void **st)
{
	(void)st;
	model_init(M_82599);
	M.s.fw_sync = 1u << 6;	/* FW_PHY_SM0 */
	assert_int_equal(probe(0x10fb, 1), -1);
	assert_true(model_console_has("port0: SW_FW_SYNC resource 0x2 held for 1 s (SW_FW_SYNC 0x40: by the firmware)"));
	assert_int_equal(count_ops(0, 'R', SW_FW_SYNC_), 200);
	assert_int_equal(count_ops(0, 'W', SW_FW_SYNC_), 0);
	assert_int_equal(model_find_write(0, I2CCTL_, 0, 0), -1);
	assert_true(model_console_has("port0: ixgbe 82599ES 10-Gigabit SFI/SFP+ Network Connection not set up"));

	model_init(M_82599);
	M.s.fw_holds_swesmbi = 1;
	assert_int_equal(probe(0x10fb, 1), -1);
	assert_true(model_console_has("port0: SWSM.SWESMBI not granted in 100 ms: the firmware holds the semaphore"));
	assert_int_equal(count_ops(0, 'W', SWSM_) - 1, 2000);	/* + the release */
	assert_int_equal(model_peek(SWSM_) & 1, 0);		/* SMBI given back */
	assert_int_equal(model_find_write(0, I2CCTL_, 0, 0), -1);

	model_init(M_82599);
	M.s.smbi_held = 1;
	assert_int_equal(probe(0x10fb, 1), -1);
	assert_true(model_console_has("port0: SWSM.SMBI held for 100 ms: cleared once, as Linux does"));
	assert_true(model_console_has("port0: SWSM.SMBI held by another agent for 100 ms"));
	assert_int_equal(model_find_write(0, I2CCTL_, 0, 0), -1);

	model_init(M_82599);
	M.s.smbi_stale = 1;
	assert_int_equal(probe(0x10fb, 1), 0);
	assert_true(model_console_has("port0: SWSM.SMBI held for 100 ms: cleared once, as Linux does"));
	assert_int_equal(M.i2c_reads, 64);
	assert_int_equal(M.i2c_unowned, 0);
}

/* A TCP/IPv4 frame of 62 bytes (14 + 20 + 20 + 8 of payload), its IPv4
 * checksum 0 and its TCP checksum the pseudo-header's sum, as a stack
 * asking for insertion leaves them (lwIP's csum_request, Linux
 * CHECKSUM_PARTIAL). */
static struct pkt *tcp_frame(uint32_t flags)
{
	static const uint8_t hdr[54] = {
		0x00, 0x1b, 0x21, 0x0a, 0x0b, 0x0d, 0x00, 0x1b, 0x21, 0x0a, 0x0b, 0x0c, 0x08, 0x00,
		0x45, 0, 0, 48, 0x12, 0x34, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
		0x30, 0x39, 0x00, 0x50, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x18, 0xff, 0xff, 0, 0, 0, 0,
	};
	struct pkt *p = pkt_alloc(model_nic->pool);
	memcpy(p->data, hdr, sizeof(hdr));
	memcpy(p->data + 54, "linerate", 8);
	uint32_t ph = 0x0a00 + 0x0001 + 0x0a00 + 0x0002 + 6 + 28;	/* addresses, protocol, TCP length */
	p->data[50] = (uint8_t)(ph >> 8), p->data[51] = (uint8_t)ph;
	p->len = 62;
	p->flags = flags;
	return p;
}

/* tcp_frame made a UDP/IPv4 one of 50 bytes (14 + 20 + 8 + 8), its UDP
 * checksum the pseudo-header's sum. */
static struct pkt *udp_frame(void)
{
	struct pkt *p = tcp_frame(PKT_TX_IP_CSUM | PKT_TX_L4_CSUM | PKT_TX_UDP);
	static const uint8_t udp[8] = { 0x30, 0x39, 0x00, 0x50, 0, 16, 0x14, 0x24 };	/* the pseudo-header's sum */
	p->data[17] = 36;
	p->data[23] = 17;
	memcpy(p->data + 34, udp, 8);
	memcpy(p->data + 42, "linerate", 8);
	p->len = 50;
	return p;
}

/* The ones' complement sum of n bytes, folded (RFC 1071). */
static uint16_t rfc1071(const uint8_t *b, int n, uint32_t sum)
{
	for (int i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (n & 1)
		sum += (uint32_t)b[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* TX checksum insertion (82599 7.2.3.2.3, 7.2.4) on the shared advanced
 * path: a context descriptor before the first frame of its kind (slot 0:
 * IPLEN 20, MACLEN 14, TUCMD IPV4, L4T TCP, DTYP 0010, DEXT), data
 * descriptors with POPTS IXSM/TXSM beside PAYLEN; the model sums what
 * they ask for and the wire's IPv4 and TCP checksums verify (RFC 1071), a
 * frame without the flags leaves untouched. A UDP frame gets its context
 * in slot 1 (L4T UDP, IDX 1) and its UDP checksum verifies. After a port
 * reset (the context slots lost) the context is written again before the
 * next frame. */
static void test_tx_csum(void **st)
{
	(void)st;
	model_init(M_82599);
	assert_int_equal(probe(0x10fb, 1), 0);
	struct nic *nic = model_nic;
	assert_int_equal(nic->tx_csum, 1);
	nic->tx_csum_on = 1;
	struct pkt *p[2] = { tcp_frame(PKT_TX_IP_CSUM | PKT_TX_L4_CSUM), tcp_frame(0) };
	uint8_t *f0 = p[0]->data, *f1 = p[1]->data, plain[62];
	memcpy(plain, f1, 62);
	assert_int_equal(nic->ops->tx_burst(nic, 0, p, 2), 2);
	struct e1000x_txq *tq = &to_port(nic)->txq[0];
	assert_int_equal(tq->ring[0].d.addr, 20 | 14 << 9);
	assert_int_equal(tq->ring[0].d.cmd_type_len, 1u << 10 | 1u << 11 | 2u << 20 | 1u << 29);
	assert_int_equal(tq->ring[0].d.status, 0);
	assert_int_equal(tq->ring[1].d.status, 62u << 14 | 3u << 8);
	assert_int_equal(tq->ring[2].d.status, 62u << 14);
	assert_int_equal(ixgbe_model_tx(0), 2);
	assert_int_equal(M.tx_ctx_descs, 1);
	assert_int_equal(M.tx_offloaded, 1);
	assert_int_equal(M.tx_ctx_bad, 0);
	assert_int_equal(rfc1071(f0 + 14, 20, 0), 0xffff);
	uint32_t ph = 0x0a00 + 0x0001 + 0x0a00 + 0x0002 + 6 + 28;
	assert_int_equal(rfc1071(f0 + 34, 28, ph), 0xffff);
	assert_true(f0[24] | f0[25]);
	assert_memory_equal(f1, plain, 62);
	nic->ops->tx_clean(nic, 0);

	struct pkt *p2[1] = { tcp_frame(PKT_TX_IP_CSUM | PKT_TX_L4_CSUM) };
	assert_int_equal(nic->ops->tx_burst(nic, 0, p2, 1), 1);
	assert_int_equal(ixgbe_model_tx(0), 1);
	assert_int_equal(M.tx_ctx_descs, 1);	/* once per kind */
	assert_int_equal(M.tx_offloaded, 2);
	nic->ops->tx_clean(nic, 0);

	struct pkt *pu[1] = { udp_frame() };
	uint8_t *fu = pu[0]->data;
	uint32_t t = tq->tail;
	assert_int_equal(nic->ops->tx_burst(nic, 0, pu, 1), 1);
	assert_int_equal(tq->ring[t].d.cmd_type_len, 1u << 10 | 2u << 20 | 1u << 29);	/* IPV4, L4T UDP */
	assert_int_equal(tq->ring[t].d.status, 1u << 4);
	assert_int_equal(tq->ring[t + 1].d.status, 50u << 14 | 3u << 8 | 1u << 4);
	assert_int_equal(ixgbe_model_tx(0), 1);
	assert_int_equal(M.tx_ctx_descs, 2);
	assert_int_equal(M.tx_ctx_bad, 0);
	assert_int_equal(rfc1071(fu + 14, 20, 0), 0xffff);
	assert_int_equal(rfc1071(fu + 34, 16, 0x0a00 + 0x0001 + 0x0a00 + 0x0002 + 17 + 16), 0xffff);
	nic->ops->tx_clean(nic, 0);

	nic->ops->reset(nic);
	nic->ops->watchdog(nic);
	assert_int_equal(nic->stats[NS_resets], 1);
	struct pkt *p3[1] = { tcp_frame(PKT_TX_IP_CSUM | PKT_TX_L4_CSUM) };
	uint8_t *f3 = p3[0]->data;
	assert_int_equal(nic->ops->tx_burst(nic, 0, p3, 1), 1);
	assert_int_equal(ixgbe_model_tx(0), 1);
	assert_int_equal(M.tx_ctx_descs, 3);
	assert_int_equal(M.tx_ctx_bad, 0);
	assert_int_equal(rfc1071(f3 + 34, 28, ph), 0xffff);
}

static void assert_near(int64_t v, int64_t want, int64_t slack)
{
	if (v < want || v > want + slack)
		fail_msg("%ld not in [%ld, %ld]", (long)v, (long)want, (long)(want + slack));
}

/* ns the port clock advanced over us microseconds of the model's time. */
static int64_t advance(struct phc *c, uint64_t us)
{
	int64_t t0 = phc_gettime(c);
	udelay(us);
	return phc_gettime(c) - t0;
}

/* A port of device dev (the X540's mode for 0x1528, the X550's for
 * 0x1563 and 0x15d1, 2.5 s after its clock started) with its clock up;
 * lp_speed: the X540 link partner's best speed (0: 10 Gb/s). */
static struct phc *ptp_up_dev(uint16_t dev, int lp_speed)
{
	memset(phcs, 0, sizeof(phcs));
	model_init(M_82599);
	M.s.x540 = dev == 0x1528;
	if (dev == 0x1563 || dev == 0x15d1)
		ixgbe_model_x550();
	M.s.lp_speed = lp_speed;
	assert_int_equal(probe(dev, 1), 0);
	struct phc *c = phc_of(model_nic);
	assert_true(phc_is_hw(c));
	if (M.s.x550) {	/* 2.5 s on: SYSTIMH 2, a stamp read as one 64-bit count 6 s off */
		udelay(2500000);
		phc_housekeeping(model_nic);
	}
	return c;
}

static struct phc *ptp_up(void)
{
	return ptp_up_dev(0x10fb, 0);
}

/* The clock (7.9.1; Linux ixgbe_ptp_start_cyclecounter for the 82599):
 * TIMINCA IncPeriod 1, IncValue 0xcccccc at 10 Gb/s (2^21 units per ns,
 * 6.4 ns cycles), adjfreq scaling it; at 1 Gb/s the clock registers again
 * with 0x800000 (2^17) and goes on from the time it had. */
static void test_ptp_clock(void **st)
{
	(void)st;
	struct phc *c = ptp_up();
	assert_string_equal(c->ops->name, "82599 SYSTIM (10 Gb/s increment)");
	assert_int_equal(model_last_write(0x8c14), 1u << 24 | 0xcccccc);
	assert_near(advance(c, 1000), 1000000, 1000);
	phc_adjfreq(c, 1000000);
	assert_int_equal(model_last_write(0x8c14), 1u << 24 | timinca_incvalue(0xcccccc, 1000000));
	assert_near(advance(c, 1000000), 1001000000, 1000);
	phc_adjfreq(c, 0);
	int64_t before = phc_gettime(c);
	ixgbe_model_links(0);
	model_nic->ops->watchdog(model_nic);
	ixgbe_model_links(1u << 30 | 2u << 28);	/* up, 1 Gb/s */
	model_nic->ops->watchdog(model_nic);
	assert_int_equal(model_nic->speed, 1000);
	assert_string_equal(c->ops->name, "82599 SYSTIM (1 Gb/s increment)");
	assert_int_equal(model_last_write(0x8c14), 1u << 24 | 0x800000);
	assert_true(phc_gettime(c) >= before);
	assert_near(advance(c, 1000000), 1000000000, 1000);	/* 64 ns cycles now */
	assert_int_equal(M.tsync_bad_writes, 0);	/* SYSTIM never written */
}

/* An L2 Sync of sequenceId seq from 52:54:00:ff:fe:00:00:09 port 1 into
 * buf; its length. The latch's attributes for it: RXSATRL 0x00feff00,
 * RXSATRH seq's bytes in wire order at 31:16, 0x0900 below. */
static uint16_t sync_frame(uint8_t *buf, uint16_t seq)
{
	struct ptp_msg m = { .msg_type = PTP_SYNC, .seq = seq,
			     .source = { { 0x52, 0x54, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x09 }, 1 } };
	size_t n = ptp_build(buf + ptp_frame_hlen(PTP_L2), 200, &m);
	static const uint8_t mac[6] = { 0x52, 0x54, 0, 0, 0, 9 };
	return (uint16_t)ptp_frame_build(buf, PTP_L2, mac, 0, PTP_SYNC, n);
}

static uint32_t satrh(uint16_t seq)
{
	return (uint32_t)((seq >> 8) | (seq & 0xff) << 8) << 16 | 0x0900;
}

/* A Sync on the wire: the time sync block latches it if it can; the
 * frame goes to the ring with the descriptor's TS bit only then. 1 if the
 * frame went into the ring. */
static int wire_sync(uint16_t seq)
{
	static uint8_t f[256];
	uint16_t len = sync_frame(f, seq);
	int latched = tsync_rx_latch(0x00feff00u, satrh(seq));
	return ixgbe_model_rx(0, f, len, latched ? IXGBE_RXDADV_STAT_TS : 0);
}

/* Seed 4: the 82599 keeps one RX timestamp and takes no other until
 * RXSTMPH is read. A stamped Sync dropped before software (the ring full:
 * counted rx_missed_errors) leaves the latch set, and the next Sync comes
 * unstamped; the housekeeping finds the latch held across two checks with
 * no frame read, releases it (RXSTMPH) and counts rx_hwtstamp_cleared;
 * the Sync after that is stamped again, its latch read RXSTMPL, RXSATRL,
 * RXSATRH, RXSTMPH and released. The set-up: TSYNCRXCTL EN with type V2
 * event (0x1a), ETQF 3 EtherType 0x88F7 with FILTER_EN and 1588,
 * TSYNCTXCTL EN. */
static void rx_latch_seed4(uint16_t dev)
{
	struct phc *c = ptp_up_dev(dev, 0);
	phc_hwtstamp(c, 0, 1, 1);
	assert_int_equal(model_last_write(0x5188) & 0x1e, 0x1a);
	assert_int_equal(model_peek(0x5128 + 12), 0xc00088f7u);
	assert_int_equal(model_last_write(0x8c00) & 0x10, 0x10);
	struct nic *nic = model_nic;
	for (int i = 0; i < 127; i++)
		assert_int_equal(ixgbe_model_rx(0, make_frame(0), 64, 0), 1);
	assert_int_equal(wire_sync(1), 0);	/* stamped, then dropped: no descriptor */
	assert_true(tsync_rx_valid());
	struct pkt *pk[32];
	int n, got = 0;
	while ((n = nic->ops->rx_burst(nic, 0, pk, 32)) > 0) {
		for (int i = 0; i < n; i++)
			pkt_free(pk[i]);
		got += n;
	}
	assert_int_equal(got, 127);
	assert_int_equal(wire_sync(2), 1);	/* the latch is held: no stamp */
	assert_int_equal(nic->ops->rx_burst(nic, 0, pk, 32), 1);
	assert_false(pk[0]->flags & PKT_RX_TSTAMP);
	pkt_free(pk[0]);
	assert_true(tsync_rx_valid());
	phc_housekeeping(nic);
	assert_int_equal(nic->stats[NS_rx_hwtstamp_cleared], 0);
	phc_housekeeping(nic);
	assert_int_equal(nic->stats[NS_rx_hwtstamp_cleared], 1);
	assert_false(tsync_rx_valid());
	assert_true(model_console_has("port0: RX timestamp latched with no frame for it; released "
				      "(rx_hwtstamp_cleared 1)"));
	int from = M.nlog;
	assert_int_equal(wire_sync(3), 1);
	int64_t now = phc_gettime(c);
	assert_int_equal(nic->ops->rx_burst(nic, 0, pk, 32), 1);
	assert_true(pk[0]->flags & PKT_RX_TSTAMP);
	assert_near(now - (int64_t)pk[0]->tstamp, 0, 10000);
	pkt_free(pk[0]);
	assert_false(tsync_rx_valid());
	int l = model_find_read(from, 0x51e8), al = model_find_read(l, 0x51a0), ah = model_find_read(al, 0x51a8);
	int hgh = model_find_read(ah, 0x51a4);
	assert_true(l > from && al > l && ah > al && hgh > ah);
	assert_int_equal(nic->qsw[0][NS_rx_hwtstamp_mismatch], 0);
	phc_housekeeping(nic);
	phc_housekeeping(nic);
	assert_int_equal(nic->stats[NS_rx_hwtstamp_cleared], 1);
	nic->ops->update_stats(nic);
	assert_int_equal(nic->stats[NS_rx_missed_errors], 1);
}

static void test_ptp_rx_latch_seed4(void **st)
{
	(void)st;
	rx_latch_seed4(0x10fb);
}

/* TX (7.9.2): a frame sent with PKT_TX_TSTAMP carries MAC_TSTAMP (bit 19)
 * in its advanced descriptor; the time sync block latches TXSTMPL/H when
 * it goes out (TDT 0x6018), the clock reads it and TXSTMPH releases it. */
static void tx_stamp(uint16_t dev)
{
	struct phc *c = ptp_up_dev(dev, 0);
	phc_hwtstamp(c, 0, 1, 1);
	struct pkt *p = pkt_alloc_inline(model_nic->pool);
	p->len = 60;
	p->flags = PKT_TX_TSTAMP;
	uint32_t before = phc_tx_seq(c);
	assert_int_equal(model_nic->ops->tx_burst(model_nic, 0, &p, 1), 1);
	uint32_t seq = phc_tx_seq(c);
	assert_int_equal(seq, before + 1);
	struct e1000x_txq *tq = &to_port(model_nic)->txq[0];
	assert_true(tq->ring[0].d.cmd_type_len & (1u << 19));
	int64_t ns = 0, g0 = phc_gettime(c);
	assert_int_equal(phc_tx_tstamp(c, seq, &ns), 0);	/* not sent yet */
	assert_int_equal(tsync_tx(tq->ring, tq->n, 0x6018), 1);
	int from = M.nlog;
	assert_int_equal(phc_tx_tstamp(c, seq, &ns), 1);
	assert_near(ns, g0, 2000);
	int l = model_find_read(from, 0x8c04);
	assert_true(l > from && model_find_read(l, 0x8c08) > l);
	assert_false(tsync_tx_valid());				/* released */
	assert_int_equal(model_nic->qsw[0][NS_tx_hwtstamp_skipped], 0);
}

static void test_ptp_tx_stamp(void **st)
{
	(void)st;
	tx_stamp(0x10fb);
}

/* ---- the X540's clock (M.s.x540) ---- */

/* SYSTIM as the driver reads it: SYSTIML (which latches SYSTIMH) then SYSTIMH. */
static uint64_t systim(void)
{
	uint32_t lo = ixgbe_model_read(0x8c0c);
	return (uint64_t)ixgbe_model_read(0x8c10) << 32 | lo;
}

/* Linux ixgbe_ptp_start_cyclecounter for the X540: TIMINCA the whole
 * increment (no IncPeriod) for the link speed, the count in units of
 * 2^-shift ns: 10 Gb/s 0x66666666, 2^28 (6.4 ns cycles); 1 Gb/s
 * 0x40000000, 2^24 (64 ns); 100 Mb/s 0x50000000, 2^21 (640 ns). SYSTIM
 * advances by the increment each cycle (16 ms: 2,500,000, 250,000 or
 * 25,000 of them), the clock by 1 s a second. */
static void test_x540_clock(void **st)
{
	(void)st;
	static const struct { int lp; const char *name; uint32_t inc; uint64_t cycle_ps; } sp[3] = {
		{ 0, "X540 SYSTIM (10 Gb/s increment)", 0x66666666u, 6400 },
		{ 1000, "X540 SYSTIM (1 Gb/s increment)", 0x40000000u, 64000 },
		{ 100, "X540 SYSTIM (100 Mb/s increment)", 0x50000000u, 640000 },
	};
	for (int i = 0; i < 3; i++) {
		struct phc *c = ptp_up_dev(0x1528, sp[i].lp);
		assert_string_equal(c->ops->name, sp[i].name);
		assert_int_equal(model_last_write(0x8c14), sp[i].inc);
		uint64_t s0 = systim();
		udelay(16000);	/* a whole number of cycles at each speed */
		assert_true(systim() - s0 == 16000000000ull / sp[i].cycle_ps * sp[i].inc);
		assert_near(advance(c, 1000000), 1000000000, 1000);
		assert_int_equal(M.tsync_bad_writes, 0);	/* SYSTIM never written */
	}
	assert_false(model_console_has("not written here"));
}

/* adjfreq scales the X540's increment, rounded: +1000 ppm 0x66666666 +
 * 1717987, the clock 1.001 s a second; at +-max_adj (249,999,999 ppb) the
 * increment is 0x7ffffffe (within 31 bits) and 0x4cccccce; beyond it
 * clamped. A
 * speed change at run time (10 -> 1 Gb/s) registers the clock again with
 * the 1 Gb/s increment and the adjustment in force; the time goes on. */
static void test_x540_adjfreq_and_speed_change(void **st)
{
	(void)st;
	struct phc *c = ptp_up_dev(0x1528, 0);
	phc_adjfreq(c, 1000000);
	assert_int_equal(model_last_write(0x8c14), 0x66666666u + 1717987);
	assert_near(advance(c, 1000000), 1001000000, 1000);
	phc_adjfreq(c, 249999999);
	assert_int_equal(model_last_write(0x8c14), 0x7ffffffeu);
	phc_adjfreq(c, -300000000);
	assert_int_equal(model_last_write(0x8c14), 0x4cccccceu);
	assert_near(advance(c, 1000000), 750000000, 1000);
	phc_adjfreq(c, 0);
	assert_int_equal(model_last_write(0x8c14), 0x66666666u);
	int64_t before = phc_gettime(c);
	ixgbe_model_links(0);
	model_nic->ops->watchdog(model_nic);
	ixgbe_model_links(1u << 30 | 2u << 28);	/* up, 1 Gb/s */
	model_nic->ops->watchdog(model_nic);
	assert_string_equal(c->ops->name, "X540 SYSTIM (1 Gb/s increment)");
	assert_int_equal(model_last_write(0x8c14), 0x40000000u);
	assert_true(phc_gettime(c) >= before);	/* on from the TSC (the host's here) */
	phc_adjfreq(c, 1000000);
	assert_int_equal(model_last_write(0x8c14), 0x40000000u + 1073742);
	assert_near(advance(c, 1000000), 1001000000, 1000);
}

/* The X540's count wraps every 2^64 units, 2^36 ns (68.7 s) at 10 Gb/s:
 * over 200 s with the once-a-second housekeeping SYSTIM wraps twice and
 * the clock goes on as the model's time does (each register access takes
 * it 100 ns on). */
static void test_x540_wrap(void **st)
{
	(void)st;
	struct phc *c = ptp_up_dev(0x1528, 0);
	int64_t t0 = phc_gettime(c), v0 = (int64_t)now_ns();
	uint64_t prev = systim();
	int wraps = 0;
	for (int s = 0; s < 200; s++) {
		udelay(1000000);
		phc_housekeeping(model_nic);
		uint64_t now = systim();
		wraps += now < prev;
		prev = now;
	}
	assert_int_equal(wraps, 2);
	assert_near(phc_gettime(c) - t0 - ((int64_t)now_ns() - v0), -1000, 2000);
}

/* Seed 4's RX latch and the TX stamp on the X540: the same registers,
 * the stamps converted at 2^28 units per ns. */
static void test_x540_rx_latch_and_tx_stamp(void **st)
{
	(void)st;
	rx_latch_seed4(0x1528);
	tx_stamp(0x1528);
}

/* ---- the X550's clock (M.s.x550; Linux ixgbe_ptp.c) ---- */

/* SYSTIME counts seconds and ns: started by clearing TSAUXC bit 31 (the
 * model stops it at power-on), read SYSTIMR (which latches), SYSTIML
 * (ns, below 1e9), SYSTIMH (seconds); with TIMINCA 0 it advances exactly
 * 16,000,000 ns in 16 ms at every link speed, the clock 1 s a second, and
 * a speed change writes nothing (the same clock goes on). The driver
 * never writes SYSTIME. */
static void test_x550_clock(void **st)
{
	(void)st;
	static const int lp[3] = { 0, 1000, 100 };
	for (int i = 0; i < 3; i++) {
		struct phc *c = ptp_up_dev(0x1563, lp[i]);
		assert_string_equal(c->ops->name, "X550 SYSTIME (seconds and ns)");
		assert_int_equal(model_last_write(0x8c20) >> 31, 0);	/* TSAUXC: SYSTIME runs */
		assert_int_equal(model_last_write(0x8c14), 0);
		uint64_t s0 = tsync_count();
		udelay(16000);
		assert_true(tsync_count() - s0 == 16000000);
		int from = M.nlog;
		int64_t t0 = phc_gettime(c);
		int r = model_find_read(from, 0x8c58), l = model_find_read(r, 0x8c0c), h = model_find_read(l, 0x8c10);
		assert_true(r >= from && l > r && h > l);
		assert_true(M.log[l].val < 1000000000u);
		assert_int_equal(M.log[h].val, 2);	/* 2.516 s */
		assert_near(advance(c, 1000000), 1000000000, 1000);
		assert_true(phc_gettime(c) > t0);
		assert_int_equal(M.tsync_bad_writes, 0);
	}
	int n = M.nlog;
	ixgbe_model_links(0);
	model_nic->ops->watchdog(model_nic);
	ixgbe_model_links(1u << 30 | 3u << 28);	/* up, 10 Gb/s */
	model_nic->ops->watchdog(model_nic);
	assert_int_equal(model_nic->speed, 10000);
	assert_int_equal(model_last_write(0x8c14), 0);
	assert_int_equal(model_find_write(n, 0x8c14, 0, 0), -1);
	assert_near(advance(phc_of(model_nic), 1000000), 1000000000, 1000);
}

/* adjfreq writes TIMINCA as Linux ixgbe_ptp_adjfreq_X550: |ppb| x 12.5 x
 * 2^32 / 1e9, ISGN (bit 31) when negative. +1000 ppm 0x03333333 (16 ms:
 * 1,280,000 periods, 15,999 or 16,000 ns more), the clock 1.001 s a second; -1000
 * ppm 0x83333333, 0.999 s; +-max_adj (30,000,000) 0x60000000 and,
 * clamped, 0xe0000000 (0.97 s a second); 0 writes 0. */
static void test_x550_adjfreq(void **st)
{
	(void)st;
	struct phc *c = ptp_up_dev(0x1563, 0);
	phc_adjfreq(c, 1000000);
	assert_int_equal(model_last_write(0x8c14), 0x03333333u);
	uint64_t s0 = tsync_count();
	udelay(16000);
	assert_near((int64_t)(tsync_count() - s0), 16000000 + 15999, 1);	/* the fraction's phase */
	assert_near(advance(c, 1000000), 1001000000, 1000);
	phc_adjfreq(c, -1000000);
	assert_int_equal(model_last_write(0x8c14), 0x83333333u);
	assert_near(advance(c, 1000000), 999000000, 1000);
	phc_adjfreq(c, 30000000);
	assert_int_equal(model_last_write(0x8c14), 0x60000000u);
	assert_near(advance(c, 1000000), 1030000000, 1000);
	phc_adjfreq(c, -300000000);
	assert_int_equal(model_last_write(0x8c14), 0xe0000000u);
	assert_near(advance(c, 1000000), 970000000, 1000);
	phc_adjfreq(c, 0);
	assert_int_equal(model_last_write(0x8c14), 0);
	assert_near(advance(c, 1000000), 1000000000, 1000);
}

/* settime and adjtime move the clock, never SYSTIME: set to 1,700,000,000
 * s, it reads that and goes on at 1 s a second; -5 s and +250 ns steps
 * land where asked. */
static void test_x550_settime_adjtime(void **st)
{
	(void)st;
	struct phc *c = ptp_up_dev(0x1563, 0);
	const int64_t t = 1700000000ll * 1000000000ll;
	phc_settime(c, t);
	assert_near(phc_gettime(c) - t, 0, 1000);
	assert_near(advance(c, 1000000), 1000000000, 1000);
	int64_t t1 = phc_gettime(c);
	phc_adjtime(c, -5000000000ll);
	assert_near(phc_gettime(c) - (t1 - 5000000000ll), 0, 1000);
	int64_t t2 = phc_gettime(c);
	phc_adjtime(c, 250);
	assert_near(phc_gettime(c) - (t2 + 250), 0, 1000);
	assert_int_equal(M.tsync_bad_writes, 0);
}

/* The TX stamp on the X550: the 82599's registers, their values seconds
 * and ns (2.5 s in: a stamp read as one 64-bit count would be 6 s off). */
static void test_x550_tx_stamp(void **st)
{
	(void)st;
	tx_stamp(0x15d1);
}

/* Every frame that came into the ring since the last call, each freed
 * after f(frame i of them). Returns how many. */
static int drain(void (*f)(struct pkt *p, int i))
{
	struct pkt *pk[32];
	int n, got = 0;
	while ((n = model_nic->ops->rx_burst(model_nic, 0, pk, 32)) > 0)
		for (int i = 0; i < n; i++, got++) {
			if (f)
				f(pk[i], got);
			pkt_free(pk[i]);
		}
	return got;
}

static struct pkt seen[8];	/* the frames drain(keep) handed out, as they were */

static void keep(struct pkt *p, int i)
{
	if (i < 8)
		seen[i] = *p;
}

/* An X550 port (dev) with RX and TX stamping on, as Linux
 * ixgbe_ptp_set_timestamp_mode sets it: TSYNCRXCTL EN, TYPE_ALL (100)
 * and TSIP_UT_EN (bit 23), ETQF 3 the 1588 EtherType. */
static struct phc *x550_stamping(uint16_t dev)
{
	struct phc *c = ptp_up_dev(dev, 0);
	phc_hwtstamp(c, 0, 1, 1);
	assert_int_equal(model_last_write(0x5188) & (0x1e | 1u << 23), 0x10 | 0x8 | 1u << 23);
	assert_int_equal(model_peek(0x5128 + 12), 0xc00088f7u);
	return c;
}

/* The X550's RX stamps in the buffer (Linux ixgbe_ptp_rx_pktstamp): the
 * MAC appends SYSTIML, SYSTIMH (8 bytes) to each frame, counts them in
 * the descriptor's length and sets TSIP (bit 15). Four Syncs and a plain
 * frame (TYPE_ALL stamps it too) in one burst, 1 ms apart: each its own
 * time, within 10 us of the clock when it arrived and 1 ms from the one
 * before to 1 us, its length as sent; a 1514-byte frame (1522 in the
 * descriptor) is delivered whole, not counted oversize. The RX latch is
 * never read and rx_hwtstamp_cleared stays 0 across the housekeeping.
 * RX stamping off: TSYNCRXCTL without EN and TSIP_UT_EN, and a frame
 * comes without TSIP, its length as sent, no time. */
static void test_x550_rx_in_buffer(void **st)
{
	(void)st;
	struct phc *c = x550_stamping(0x1563);
	struct nic *nic = model_nic;
	int from = M.nlog;
	static uint8_t f[256];
	int64_t at[5];
	uint16_t len[5];
	for (int i = 0; i < 5; i++) {
		len[i] = i < 4 ? sync_frame(f, (uint16_t)(10 + i)) : 64;
		assert_int_equal(ixgbe_model_rx(0, i < 4 ? f : make_frame(0), len[i], 0), 1);
		at[i] = phc_gettime(c);
		udelay(1000);
	}
	volatile union rx_desc *ring = to_port(nic)->rxq[0].ring;
	assert_int_equal(ring[0].wb.length, len[0] + 8);
	assert_true(ring[0].wb.staterr & (1u << 15));
	assert_int_equal(drain(keep), 5);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(seen[i].len, len[i]);
		assert_true(seen[i].flags & PKT_RX_TSTAMP);
		assert_near((int64_t)seen[i].tstamp - at[i], 0, 10000);
		if (i)
			assert_near((int64_t)(seen[i].tstamp - seen[i - 1].tstamp), 1000000, 1000);
	}
	assert_int_equal(ixgbe_model_rx(0, make_frame(0), 1514, 0), 1);
	assert_int_equal(ring[5].wb.length, 1522);
	assert_int_equal(drain(keep), 1);
	assert_int_equal(seen[0].len, 1514);
	assert_true(seen[0].flags & PKT_RX_TSTAMP);
	assert_int_equal(nic->qsw[0][NS_rx_drop_oversize], 0);
	for (int i = 0; i < 3; i++) {
		udelay(1000000);
		phc_housekeeping(nic);
	}
	assert_int_equal(nic->stats[NS_rx_hwtstamp_cleared], 0);
	assert_int_equal(model_find_read(from, 0x51a4), -1);	/* RXSTMPH */
	assert_int_equal(model_find_read(from, 0x51e8), -1);	/* RXSTMPL */
	phc_hwtstamp(c, -1, 1, 1);
	assert_int_equal(model_last_write(0x5188) & (0x10 | 1u << 23), 0);
	assert_int_equal(ixgbe_model_rx(0, make_frame(0), 64, 0), 1);
	assert_false(ring[6].wb.staterr & (1u << 15));
	assert_int_equal(ring[6].wb.length, 64);
	assert_int_equal(drain(keep), 1);
	assert_int_equal(seen[0].len, 64);
	assert_false(seen[0].flags & PKT_RX_TSTAMP);
}

/* Seed 4 on the X550: a stamped Sync dropped before software (the ring
 * full, counted rx_missed_errors) locks nothing up: the next Sync carries
 * its own time, the housekeeping releases nothing (rx_hwtstamp_cleared
 * 0), the RX latch is never read. */
static void test_x550_seed4_no_lockup(void **st)
{
	(void)st;
	struct phc *c = x550_stamping(0x15d1);
	struct nic *nic = model_nic;
	int from = M.nlog;
	static uint8_t f[256];
	for (int i = 0; i < 127; i++)
		assert_int_equal(ixgbe_model_rx(0, make_frame(0), 64, 0), 1);
	assert_int_equal(ixgbe_model_rx(0, f, sync_frame(f, 1), 0), 0);	/* no descriptor */
	assert_int_equal(drain(0), 127);
	udelay(1000);
	uint16_t len = sync_frame(f, 2);
	assert_int_equal(ixgbe_model_rx(0, f, len, 0), 1);
	int64_t at = phc_gettime(c);
	assert_int_equal(drain(keep), 1);
	assert_int_equal(seen[0].len, len);
	assert_true(seen[0].flags & PKT_RX_TSTAMP);
	assert_near((int64_t)seen[0].tstamp - at, 0, 10000);
	phc_housekeeping(nic);
	udelay(1000000);
	phc_housekeeping(nic);
	assert_int_equal(nic->stats[NS_rx_hwtstamp_cleared], 0);
	assert_int_equal(model_find_read(from, 0x51a4), -1);
	nic->ops->update_stats(nic);
	assert_int_equal(nic->stats[NS_rx_missed_errors], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reset_order),
		cmocka_unit_test(test_rx_tx_init),
		cmocka_unit_test(test_relaxed_ordering_and_dmatxctl),
		cmocka_unit_test(test_link),
		cmocka_unit_test(test_rx_tx_frames),
		cmocka_unit_test(test_vlan_filter_and_strip),
		cmocka_unit_test(test_ring_full_and_errors),
		cmocka_unit_test(test_rx_groups_of_four),
		cmocka_unit_test(test_stats_registers),
		cmocka_unit_test(test_port_reset),
		cmocka_unit_test(test_link_down_with_tx_queued),
		cmocka_unit_test(test_msix_ivar_rss),
		cmocka_unit_test(test_sixteen_queues),
		cmocka_unit_test(test_eitr),
		cmocka_unit_test(test_eitr_link_speed),
		cmocka_unit_test(test_msi_mode),
		cmocka_unit_test(test_waits_fail),
		cmocka_unit_test(test_refused_parts),
		cmocka_unit_test(test_x540_init),
		cmocka_unit_test(test_x540_speeds_eitr_queues),
		cmocka_unit_test(test_x540_faults),
		cmocka_unit_test(test_x550t_init),
		cmocka_unit_test(test_sfp_read),
		cmocka_unit_test(test_sfp_modules),
		cmocka_unit_test(test_sfp_absent_and_bus_faults),
		cmocka_unit_test(test_swfw_semaphore),
		cmocka_unit_test(test_tx_csum),
		cmocka_unit_test(test_ptp_clock),
		cmocka_unit_test(test_ptp_rx_latch_seed4),
		cmocka_unit_test(test_ptp_tx_stamp),
		cmocka_unit_test(test_x540_clock),
		cmocka_unit_test(test_x540_adjfreq_and_speed_change),
		cmocka_unit_test(test_x540_wrap),
		cmocka_unit_test(test_x540_rx_latch_and_tx_stamp),
		cmocka_unit_test(test_x550_clock),
		cmocka_unit_test(test_x550_adjfreq),
		cmocka_unit_test(test_x550_settime_adjtime),
		cmocka_unit_test(test_x550_tx_stamp),
		cmocka_unit_test(test_x550_rx_in_buffer),
		cmocka_unit_test(test_x550_seed4_no_lockup),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
