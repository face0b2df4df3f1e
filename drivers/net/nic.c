/* Port registry, shared knobs and the `ethtool -S` command; see nic.h. */
#include <stdio.h>
#include <string.h>
#include "drivers/net/nic.h"
#include "drivers/net/phc.h"
#include "kernel/fmt.h"
#include "kernel/knobs.h"
#include "kernel/mem.h"
#include "kernel/shell.h"

struct nic *nics[NIC_MAX_PORTS];
void (*nic_stop_others)(int stop);

int nic_count;

#define NIC_STAT_NAME(name, kind) #name,
const char *const nic_stat_names[NIC_STAT_N] = { NIC_STATS(NIC_STAT_NAME) };

/* Defaults as Linux e1000e's module parameters (param.c), ours beside them. */
struct nic_config nic_cfg = {
	.burst = 32, .promisc = 0,
	.rxd = { [0 ... NIC_MAX_PORTS - 1] = NIC_RING_DEFAULT }, .txd = { [0 ... NIC_MAX_PORTS - 1] = NIC_RING_DEFAULT }, .queues = { [0 ... NIC_MAX_PORTS - 1] = 1 }, .itr = { [0 ... NIC_MAX_PORTS - 1] = 3 },
	.rx_int_delay = { [0 ... NIC_MAX_PORTS - 1] = 0 }, .rx_abs_int_delay = { [0 ... NIC_MAX_PORTS - 1] = 8 },
	.tx_int_delay = { [0 ... NIC_MAX_PORTS - 1] = 8 }, .tx_abs_int_delay = { [0 ... NIC_MAX_PORTS - 1] = 32 },
	.copybreak = { [0 ... NIC_MAX_PORTS - 1] = 0 }, .prefetch = { [0 ... NIC_MAX_PORTS - 1] = 1 }, .poll = { [0 ... NIC_MAX_PORTS - 1] = POLL_BUSY }, .napi_weight = { [0 ... NIC_MAX_PORTS - 1] = 64 },
	.vlan_strip = { [0 ... NIC_MAX_PORTS - 1] = 0 }, .vlan_filter = { [0 ... NIC_MAX_PORTS - 1] = 1 }, .mtu = { [0 ... NIC_MAX_PORTS - 1] = 1500 },
};

void nic_config_init(struct nic *nic)
{
	int p = nic_count < NIC_MAX_PORTS ? nic_count : NIC_MAX_PORTS - 1;
	nic->cfg = (struct nic_port_config){
		.rxd = nic_cfg.rxd[p], .txd = nic_cfg.txd[p], .queues = nic_cfg.queues[p], .itr = nic_cfg.itr[p],
		.rx_int_delay = nic_cfg.rx_int_delay[p], .rx_abs_int_delay = nic_cfg.rx_abs_int_delay[p],
		.tx_int_delay = nic_cfg.tx_int_delay[p], .tx_abs_int_delay = nic_cfg.tx_abs_int_delay[p],
		.copybreak = nic_cfg.copybreak[p], .prefetch = nic_cfg.prefetch[p], .poll = nic_cfg.poll[p],
		.napi_weight = nic_cfg.napi_weight[p], .vlan_strip = nic_cfg.vlan_strip[p],
		.vlan_filter = nic_cfg.vlan_filter[p],
	};
	nic->rxd = (int)nic->cfg.rxd;
	nic->txd = (int)nic->cfg.txd;
}

void nic_config_refresh(void)
{
	for (int i = 0; i < nic_count; i++) {
		struct nic_port_config *c = &nics[i]->cfg;
		c->itr = nic_cfg.itr[i];
		c->napi_weight = nic_cfg.napi_weight[i];
		c->copybreak = nic_cfg.copybreak[i];
		c->prefetch = nic_cfg.prefetch[i];
	}
}

/* rxd=/txd=: a multiple of 8 descriptors; a refused value leaves the
 * default in force (knob_set writes nothing on error). */
static int ring_check(int64_t n, char *err, size_t len)
{
	if (n % 8) {
		snprintf(err, len, "%ld is not a multiple of 8 descriptors (128-byte granularity of RDLEN/TDLEN)",
			 (long)n);
		return -1;
	}
	return 0;
}
static const struct knob_range ring_range[] = { { 80, 4096 } };
KNOB(rxd, .name = "rxd", .type = KNOB_INT, .ranges = ring_range, .nranges = 1, .check = ring_check,
     .accepted = "a multiple of 8", .ival = nic_cfg.rxd, .per_port = 1, .help = "RX ring size, descriptors, a multiple of 8; default 512 (virtio: the device's queue size)");
KNOB(txd, .name = "txd", .type = KNOB_INT, .ranges = ring_range, .nranges = 1, .check = ring_check,
     .accepted = "a multiple of 8", .ival = nic_cfg.txd, .per_port = 1, .help = "TX ring size, descriptors, a multiple of 8; default 512 (virtio: the device's queue size)");

static const struct knob_range burst_range[] = { { 1, NIC_BURST_MAX } };
KNOB(burst, .name = "burst", .type = KNOB_INT, .ranges = burst_range, .nranges = 1, .ival = &nic_cfg.burst,
     .help = "packets per rx_burst/tx_burst call; default 32");
static const struct knob_range queues_range[] = { { 1, NIC_MAX_QUEUES } };
KNOB(queues, .name = "queues", .type = KNOB_INT, .ranges = queues_range, .nranges = 1, .ival = nic_cfg.queues, .per_port = 1,
     .help = "RX/TX queue pairs per port (RSS when > 1; e1000 1, e1000e 2, igb 8, I210 4, I211 2, ixgbe 16); default 1");
static const struct knob_range itr_range[] = { { 0, 1 }, { 3, 4 }, { 100, 100000 } };
/* set: every queue of every port starts over in the new mode, as at boot. */
static void itr_apply(void)
{
	nic_config_refresh();
	for (int i = 0; i < nic_count; i++)
		napi_itr_init(nics[i]);
}
KNOB(itr, .name = "InterruptThrottleRate", .type = KNOB_INT, .ranges = itr_range, .nranges = 3,
     .ival = nic_cfg.itr, .per_port = 1, .live = 1, .apply = itr_apply,
     .help = "0 off, 1 dynamic, 3 dynamic conservative, 4 simplified, 100-100000 ints/s; default 3");
static const struct knob_range delay_range[] = { { 0, 65535 } };
KNOB(rdtr, .name = "RxIntDelay", .type = KNOB_INT, .ranges = delay_range, .nranges = 1,
     .ival = nic_cfg.rx_int_delay, .per_port = 1, .help = "RDTR, 1.024 us units; default 0");
KNOB(radv, .name = "RxAbsIntDelay", .type = KNOB_INT, .ranges = delay_range, .nranges = 1,
     .ival = nic_cfg.rx_abs_int_delay, .per_port = 1, .help = "RADV, 1.024 us units; default 8");
KNOB(tidv, .name = "TxIntDelay", .type = KNOB_INT, .ranges = delay_range, .nranges = 1,
     .ival = nic_cfg.tx_int_delay, .per_port = 1, .help = "TIDV, 1.024 us units; default 8");
KNOB(tadv, .name = "TxAbsIntDelay", .type = KNOB_INT, .ranges = delay_range, .nranges = 1,
     .ival = nic_cfg.tx_abs_int_delay, .per_port = 1, .help = "TADV, 1.024 us units; default 32");
static const struct knob_range copybreak_range[] = { { 0, 256 } };
KNOB(copybreak, .name = "copybreak", .type = KNOB_INT, .ranges = copybreak_range, .nranges = 1,
     .ival = nic_cfg.copybreak, .per_port = 1, .live = 1, .apply = nic_config_refresh,
     .help = "bytes: received frames up to this size are copied and the ring buffer reused; 0 off; default 0");
static const struct knob_range bool_range[] = { { 0, 1 } };
KNOB(prefetch, .name = "prefetch", .type = KNOB_INT, .ranges = bool_range, .nranges = 1, .ival = nic_cfg.prefetch, .per_port = 1,
     .live = 1, .apply = nic_config_refresh,
     .help = "1: prefetch the next RX descriptor and the packet header; default 1");
KNOB(promisc, .name = "promisc", .type = KNOB_INT, .ranges = bool_range, .nranges = 1, .ival = &nic_cfg.promisc,
     .help = "1: ports accept every unicast and multicast frame (RCTL.UPE, MPE), as an L2 cross-connect needs; "
	     "0: their own MAC, broadcast; default 0");
static const char *const poll_choices[] = { "busy", "napi", "irq", 0 };
KNOB(poll, .name = "poll", .type = KNOB_ENUM, .choices = poll_choices, .ival = nic_cfg.poll, .per_port = 1,
     .help = "busy: poll forever; napi: interrupt wakes, poll until short; irq: one pass per interrupt; default busy");
static const struct knob_range weight_range[] = { { 1, 4096 } };
KNOB(napi_weight, .name = "napi_weight", .type = KNOB_INT, .ranges = weight_range, .nranges = 1,
     .ival = nic_cfg.napi_weight, .per_port = 1, .live = 1, .apply = nic_config_refresh, .help = "packets per NAPI round; default 64");
/* set portN vlan_strip / vlan_filter: each port whose values changed, at
 * once (as `ethtool -K ethN rxvlan on|off rx-vlan-filter on|off`), said
 * on the console. */
static void vlan_strip_apply(void)
{
	for (int i = 0; i < nic_count; i++) {
		struct nic *nic = nics[i];
		if (nic->cfg.vlan_strip == nic_cfg.vlan_strip[i] && nic->cfg.vlan_filter == nic_cfg.vlan_filter[i])
			continue;
		nic->cfg.vlan_strip = nic_cfg.vlan_strip[i];
		nic->cfg.vlan_filter = nic_cfg.vlan_filter[i];
		if (!nic->ops->vlan_strip_set || nic->ops->vlan_strip_set(nic))
			printf("%s: vlan_strip=%d vlan_filter=%d change nothing: no VLAN the NIC filters (%s; fwd's "
			       "ipN.VID=)\n", nic->name, (int)nic->cfg.vlan_strip, (int)nic->cfg.vlan_filter, nic->driver);
		else
			printf("%s: VLAN tag stripping by the NIC %s\n", nic->name,
			       !nic->cfg.vlan_strip ? "off: tags parsed in software" :
			       nic->cfg.vlan_filter ? "on, and filtering" :
			       "on, no filtering: fwd counts other VLANs vlan_unknown");
	}
}
KNOB(vlan_strip, .name = "vlan_strip", .type = KNOB_INT, .ranges = bool_range, .nranges = 1, .ival = nic_cfg.vlan_strip,
     .per_port = 1, .live = 1, .apply = vlan_strip_apply,
     .help = "1: e1000e, igb and ixgbe strip the 802.1Q tag into the RX descriptor and drop VLANs no fwd "
	     "sub-interface (ipN.VID=) has (CTRL.VME, RCTL.VFE, VFTA; ixgbe VLNCTRL.VFE, RXDCTL.VME; ethtool -K "
	     "rxvlan); 0, or another NIC: tags parsed in software; "
	     "set at run time too; default 0");
KNOB(vlan_filter, .name = "vlan_filter", .type = KNOB_INT, .ranges = bool_range, .nranges = 1,
     .ival = nic_cfg.vlan_filter, .per_port = 1, .live = 1, .apply = vlan_strip_apply,
     .help = "with vlan_strip=1: 1 the NIC also drops VLANs no sub-interface has, counted nowhere (RCTL.VFE, "
	     "VFTA; ixgbe VLNCTRL.VFE; ethtool -K rx-vlan-filter); 0 it strips every tag and fwd counts those "
	     "vlan_unknown; default 1");
/* 1280: IPv6's minimum link MTU (RFC 8200 5); 1500: what every RX buffer
 * and TX path takes (no jumbo frames). */
static const struct knob_range mtu_range[] = { { 1280, 1500 } };
KNOB(mtu, .name = "mtu", .type = KNOB_INT, .ranges = mtu_range, .nranges = 1, .ival = nic_cfg.mtu, .per_port = 1,
     .help = "bytes of IP packet a port sends, as ip link set mtu: fwd routes nothing longer out of it (IPv4 "
	     "fragmentation needed with DF, IPv6 Packet Too Big), ra6 advertises it, lwIP and pktgen keep under it; "
	     "default 1500");

int nic_register(struct nic *nic)
{
	if (nic_count == NIC_MAX_PORTS) {
		printf("%s: no port left (at most %d)\n", nic->driver, NIC_MAX_PORTS);
		return -1;
	}
	nic->port = nic_count;
	snprintf(nic->name, sizeof(nic->name), "port%d", nic->port);
	nic->mtu = (uint32_t)nic_cfg.mtu[nic->port];
	nics[nic_count++] = nic;
	return nic->port;
}

void nic_unregister(struct nic *nic)
{
	printf("%s: %s %s not set up: port removed, the other ports run\n", nic->name, nic->driver,
	       nic->model);
	if (nic->port == nic_count - 1)
		nics[--nic_count] = 0;
}

int nic_pools_create(struct nic *nic)
{
	/* Every ring slot holds a buffer, plus what is in flight in the apps:
	 * a burst per queue on the way to TX, and the TX ring of a peer port. */
	uint32_t n = (uint32_t)(nic->nqueues * (nic->rxd + 2 * nic_cfg.burst) + nic->txd);
	uint32_t small = (uint32_t)(nic->nqueues * nic->rxd);
	nic->pool = pktpool_create_below(nic->name, n, PKT_SLOT, nic->dma_limit);
	nic->small_pool = nic->pool ? pktpool_create(nic->name, small, PKT_SMALL_SLOT) : 0;
	if (!nic->pool || !nic->small_pool) {
		printf("%s: no memory for %u packet buffers (%lu bytes) and %u small ones (%lu bytes); free: %lu bytes\n",
		       nic->name, n, (unsigned long)n * PKT_SLOT, small, (unsigned long)small * PKT_SMALL_SLOT,
		       (unsigned long)(mem.pa.free_pages * PAGE_SIZE));
		pktpool_destroy(nic->pool);
		nic->pool = 0;
		return -1;
	}
	return 0;
}

void nic_housekeeping(void)
{
	for (int i = 0; i < nic_count; i++) {
		nics[i]->ops->update_stats(nics[i]);
		nics[i]->ops->watchdog(nics[i]);
		phc_housekeeping(nics[i]);
	}
}

int nic_mc_add(struct nic *nic, const uint8_t mc[6])
{
	for (int i = 0; i < nic->nmc; i++)
		if (!memcmp(nic->mc[i], mc, 6))
			return 0;
	if (nic->nmc == NIC_MC_MAX)
		return -1;
	memcpy(nic->mc[nic->nmc++], mc, 6);
	if (nic->ops->set_mc)
		nic->ops->set_mc(nic);
	return 0;
}

struct nic *nic_find(const char *name)
{
	for (int i = 0; i < nic_count; i++)
		if (!strcmp(nics[i]->name, name))
			return nics[i];
	return 0;
}

void nic_print_ports(void)
{
	printf("ports:");
	for (int i = 0; i < nic_count; i++)
		printf(" %s", nics[i]->name);
	printf("%s\n", nic_count ? "" : " none");
}
