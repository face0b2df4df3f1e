/*
 * The shell's ethtool: views of a port as Linux's ethtool prints them (-i
 * driver, -g rings, -c coalescing, -l channels, -k offloads), its counters
 * (-S) and its clock (-T); -C rx-usecs changes the port's interrupt rate
 * while it runs (the InterruptThrottleRate knob, as `set` does); -G is
 * refused with the reason (ring sizes are boot-time knobs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "drivers/net/nic.h"
#include "drivers/net/phc.h"
#include "drivers/pci/pci.h"
#include "kernel/config.h"
#include "kernel/knobs.h"
#include "kernel/shell.h"
#include "kernel/version.h"

#define RING_MAX 4096	/* rxd=/txd= range */

/* ethtool -i: driver and bus information (ethtool_drvinfo). */
static void show_info(struct nic *nic)
{
	char bdf[PCI_BDF_LEN];
	printf("driver: %s\nversion: %s\nfirmware-version: \nexpansion-rom-version: \nbus-info: %04x:%s\n"
	       "supports-statistics: yes\nsupports-test: no\nsupports-eeprom-access: no\n"
	       "supports-register-dump: no\nsupports-priv-flags: no\n",
	       nic->driver, LINERATE_VERSION, nic->pci->seg, pci_bdf(nic->pci, bdf));
}

/* ethtool -g: ring sizes (rxd=, txd=; boot-time knobs). */
static void show_rings(struct nic *nic)
{
	printf("Ring parameters for %s:\nPre-set maximums:\nRX:\t\t%d\nRX Mini:\tn/a\nRX Jumbo:\tn/a\nTX:\t\t%d\n"
	       "Current hardware settings:\nRX:\t\t%d\nRX Mini:\tn/a\nRX Jumbo:\tn/a\nTX:\t\t%d\n",
	       nic->name, RING_MAX, RING_MAX, nic->rxd, nic->txd);
}

/* ethtool -c: interrupt moderation. rx-usecs as Linux e1000e reports
 * InterruptThrottleRate (e1000_get_coalesce: the mode for 0-4, else
 * 1000000 / ints/s); the delay timers in their registers' 1.024 us units. */
static void show_coalesce(struct nic *nic)
{
	int64_t itr = nic->cfg.itr;
	printf("Coalesce parameters for %s:\nAdaptive RX: %s  TX: n/a\nrx-usecs: %lld\n", nic->name,
	       itr == 1 || itr == 3 ? "on" : "off", (long long)(itr <= 4 ? itr : 1000000 / itr));
	printf("InterruptThrottleRate: %lld (0 off, 1 dynamic, 3 dynamic conservative, 4 simplified, else ints/s); "
	       "queue 0 now %lu ints/s\n", (long long)itr, (unsigned long)nic->q[0].itr);
	if (!nic->int_delays) {
		printf("RxIntDelay, RxAbsIntDelay, TxIntDelay, TxAbsIntDelay: n/a (%s has EITR only)\n", nic->driver);
		return;
	}
	printf("RxIntDelay (RDTR): %lld\nRxAbsIntDelay (RADV): %lld\nTxIntDelay (TIDV): %lld\n"
	       "TxAbsIntDelay (TADV): %lld\n(units of 1.024 us)\n", (long long)nic->cfg.rx_int_delay,
	       (long long)nic->cfg.rx_abs_int_delay, (long long)nic->cfg.tx_int_delay,
	       (long long)nic->cfg.tx_abs_int_delay);
}

/* ethtool -l: queue pairs (queues=; boot-time knob). */
static void show_channels(struct nic *nic)
{
	printf("Channel parameters for %s:\nPre-set maximums:\nRX:\t\tn/a\nTX:\t\tn/a\nOther:\t\t%d\n"
	       "Combined:\t%d\nCurrent hardware settings:\nRX:\t\tn/a\nTX:\t\tn/a\nOther:\t\t%d\nCombined:\t%d\n",
	       nic->name, nic->max_queues > 1, nic->max_queues, nic->max_queues > 1, nic->nqueues);
}

/* ethtool -k: what the port offloads; [fixed]: never changes here.
 * tx-checksum-ipv4/-ipv6: TCP and UDP over each family (nic->tx_csum, tx_csum6). */
static void show_features(struct nic *nic)
{
	const char *on = nic->tx_csum_on ? "on" : "off";
	printf("Features for %s:\nrx-checksumming: on [fixed]\ntx-checksumming: %s%s\n"
	       "\ttx-checksum-ipv4: %s\n\ttx-checksum-ipv6: %s\n"
	       "scatter-gather: off [fixed]\ntcp-segmentation-offload: off [fixed]\n"
	       "generic-segmentation-offload: off [fixed]\ngeneric-receive-offload: off [fixed]\n"
	       "rx-vlan-offload: off [fixed]\ntx-vlan-offload: off [fixed]\nreceive-hashing: %s [fixed]\n"
	       "highdma: %s [fixed]\nrx-fcs: off [fixed]\nrx-all: off [fixed]\n", nic->name,
	       on, nic->tx_csum ? " (the port's app turns it on)" : " [fixed]", on,
	       nic->tx_csum6 ? on : "off [fixed]", nic->nqueues > 1 ? "on" : "off", nic->dma_limit ? "off" : "on");
}

/* ethtool -S: every counter, as Linux's e1000e names them. */
static void show_stats(struct nic *nic)
{
	nic->ops->update_stats(nic);
	printf("NIC statistics:\n");
	for (int i = 0; i < NIC_STAT_N; i++)
		printf("     %s: %lu\n", nic_stat_names[i], nic->stats[i]);
	for (int q = 0; q < nic->nqueues; q++) {
		struct nic_qstats *s = &nic->q[q];
		printf("     rx_queue_%d_packets: %lu\n     rx_queue_%d_bytes: %lu\n", q, s->rx_packets, q, s->rx_bytes);
		printf("     tx_queue_%d_packets: %lu\n     tx_queue_%d_bytes: %lu\n", q, s->tx_packets, q, s->tx_bytes);
		printf("     queue_%d_irqs: %lu\n     queue_%d_irqs_spurious: %lu\n", q, s->irqs, q, s->irqs_spurious);
		printf("     queue_%d_polls: %lu\n     queue_%d_poll_packets: %lu\n", q, s->polls, q, s->poll_pkts);
		printf("     queue_%d_itr: %lu\n", q, s->itr);
		printf("     rx_queue_%d_drops: %lu\n", q, s->rx_drops);
		if (nic->kicks)
			printf("     rx_queue_%d_kicks: %lu\n     tx_queue_%d_kicks: %lu\n     queue_%d_resets: %lu\n", q,
			       s->rx_kicks, q, s->tx_kicks, q, s->resets);
	}
	printf("     pool_free: %u\n     pool_size: %u\n", nic->pool->nfree, nic->pool->size);
	printf("     small_pool_free: %u\n     small_pool_size: %u\n", nic->small_pool->nfree,
	       nic->small_pool->size);
}

static const struct {
	const char *opt;
	void (*show)(struct nic *nic);
} views[] = {
	{ "-i", show_info }, { "-g", show_rings }, { "-c", show_coalesce }, { "-l", show_channels },
	{ "-k", show_features }, { "-S", show_stats }, { "-T", phc_ethtool_T },
};
#define NVIEWS (sizeof(views) / sizeof(views[0]))

/*
 * ethtool -C <port> rx-usecs N: as Linux e1000e_set_coalesce, 0-4 other
 * than 2 is the InterruptThrottleRate mode, 10-10000 us an interrupt every
 * N us (1000000 / N ints/s). Set as `set <port> InterruptThrottleRate`.
 */
static int set_coalesce(struct nic *nic, int argc, char **argv)
{
	char *end, msg[256], v[24];
	long us = argc == 5 ? strtol(argv[4], &end, 10) : -1;
	if (argc != 5 || strcmp(argv[3], "rx-usecs") || end == argv[4] || *end || us == 2 || us < 0 ||
	    (us > 4 && us < 10) || us > 10000) {
		printf("ethtool -C: accepted: ethtool -C <port> rx-usecs 0|1|3|4|10-10000 (the InterruptThrottleRate "
		       "modes, or us between interrupts); the delay timers (RxIntDelay...) are boot-time knobs\n");
		return -1;
	}
	snprintf(v, sizeof(v), "%ld", us <= 4 ? us : 1000000 / us);
	int r = config_set(__knobs_start, KNOBS_COUNT, nic->port, "InterruptThrottleRate", v, msg, sizeof(msg));
	printf("%s\n", msg);
	return r;
}

/* ethtool -G: the rings and the pools sized from them are made at probe. */
static int set_rings(struct nic *nic, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("ethtool -G: %s's rings are sized at boot (rxd=, txd= on the kernel command line, now %d and %d): "
	       "the rings and the buffer pools sized from them are made when the port is set up, which it is not "
	       "again while it runs\n", nic->name, nic->rxd, nic->txd);
	return -1;
}

static const struct {
	const char *opt;
	int (*set)(struct nic *nic, int argc, char **argv);
} setters[] = { { "-C", set_coalesce }, { "-G", set_rings } };
#define NSETTERS (sizeof(setters) / sizeof(setters[0]))

/* The port argv[2] names, or NULL after saying it does not exist. */
static struct nic *port_arg(char **argv)
{
	struct nic *nic = nic_find(argv[2]);
	if (!nic) {
		printf("ethtool: no %s; ", argv[2]);
		nic_print_ports();
	}
	return nic;
}

static int cmd_ethtool(int argc, char **argv)
{
	struct nic *nic;
	for (size_t v = 0; argc >= 3 && v < NSETTERS; v++)
		if (!strcmp(argv[1], setters[v].opt))
			return (nic = port_arg(argv)) ? setters[v].set(nic, argc, argv) : -1;
	for (size_t v = 0; argc == 3 && v < NVIEWS; v++)
		if (!strcmp(argv[1], views[v].opt)) {
			if (!(nic = port_arg(argv)))
				return -1;
			views[v].show(nic);
			return 0;
		}
	printf("usage: ethtool -i|-g|-c|-l|-k|-S|-T <port> | -C <port> rx-usecs <n>; ");
	nic_print_ports();
	return -1;
}
SHELL_CMD(ethtool, "ethtool", "ethtool -i|-g|-c|-l|-k|-S|-T <port> | -C <port> rx-usecs <n>",
	  "a port as Linux's ethtool shows it: -i driver and bus, -g rings, -c interrupt coalescing, -l queues, "
	  "-k offloads, -S every counter, -T timestamping and clock; -C rx-usecs sets its InterruptThrottleRate "
	  "while it runs (as Linux e1000e); -G is refused (rings are sized at boot)",
	  cmd_ethtool);
