/*
 * Console statistics (docs/design.md, Statistics): a `netstat -i` table, per
 * port and queue rates, per core CPU% and softnet-style counters, as a
 * table for people or one JSON object per line for tools/statplot.py.
 *
 * The formatting is portable (host unit tests): it reads two snapshots,
 * taken with stats_sample_* at the start and the end of a period, and
 * writes text into a buffer. No allocation, no floating point.
 *
 * The netstat -i columns, from a port's `ethtool -S` counters (packets):
 *   RX-OK   rx_delivered: frames the driver handed to the poll loop
 *   RX-ERR  rx_errors: bad frames the NIC refused (CRC, alignment, length,
 *           symbol, carrier extension)
 *   RX-DRP  rx_missed_errors (the NIC's FIFO was full) + rx_drop_oversize +
 *           rx_drop_desc_error + alloc_rx_buff_failed + rx_drop_reset (the
 *           driver's drops)
 *   RX-OVR  rx_no_buffer_count + rx_over_errors: times a frame found the RX
 *           ring without a free descriptor (it waits in the FIFO; it is lost,
 *           and counted in RX-DRP, only when the FIFO fills too)
 *   TX-OK   tx_packets: frames the NIC transmitted
 *   TX-ERR  tx_errors: excessive and late collisions
 *   TX-DRP  tx_dropped: frames tx_burst took that a reset (TX hang
 *           recovery) gave up; a frame tx_burst refuses stays the app's,
 *           which counts it in its core's dropped
 *   TX-OVR  tx_ring_full: tx_burst calls that found the TX ring full
 * So a frame that arrives on the wire ends in exactly one of RX-OK, RX-ERR,
 * RX-DRP (and in flight in the ring between two reports).
 */
#ifndef RUN_STATS_H
#define RUN_STATS_H
#include <stddef.h>
#include <stdint.h>
#include "apps/app.h"
#include "drivers/net/nic.h"
#include "run/lcore.h"

#define STATS_MAX_CORES 8

/* One port at one instant: the netstat -i columns (above) and its queues. */
struct stats_port {
	char name[8];
	uint32_t mtu;		/* bytes */
	uint64_t rx_ok, rx_err, rx_drp, rx_ovr, tx_ok, tx_err, tx_drp, tx_ovr;
	uint64_t rx_runts;	/* rx_short_length_errors (RUC), part of rx_err */
	int nqueues;
	struct nic_qstats q[NIC_MAX_QUEUES];
	uint32_t itr_setting[NIC_MAX_QUEUES];	/* InterruptThrottleRate of each queue */
};

/* One core at one instant (struct lcore). */
struct stats_core {
	int id;
	uint64_t processed, dropped, time_squeeze;	/* packets, packets, rounds */
	uint64_t halted_cycles;				/* TSC cycles in hlt */
	int busy_poll;					/* never halts: the table's CPU% reads "busy" */
};

/* Everything a report reads, taken at one instant. */
struct stats_snap {
	uint64_t tsc;		/* TSC when taken */
	uint64_t uptime_ms;	/* ms since boot when taken */
	int nports, ncores;
	struct stats_port port[NIC_MAX_PORTS];
	struct stats_core core[STATS_MAX_CORES];
};

enum stats_format { STATS_TABLE, STATS_JSON };

/* Fill p from nic's counters (mapping above). */
void stats_sample_port(struct stats_port *p, const struct nic *nic);
/* Fill c from lc. */
void stats_sample_core(struct stats_core *c, const struct lcore *lc);

/*
 * Write the report for the period from a to b (a taken first, with the same
 * ports and cores; tsc_hz TSC cycles per second) into buf of len bytes,
 * NUL-terminated, as fmt. port: index into b->port of the one port to show,
 * or -1 for all ports (the per-core part is shown only then). The netstat
 * columns are totals since boot or `clear stats`; rates are over the period.
 * Returns the length written; when buf is too small the output stops at the
 * last whole line that fits.
 *
 * Table: the netstat -i table, then, for a port whose RX-ERR is all runts
 * and was 0 at a (the first report it shows in), one line saying so:
 *   "port0: RX-ERR 43283 are all runts (rx_short_length_errors): QEMU's
 *    e1000e and igb pad them to 60 B, deliver them (in RX-OK too) and count
 *    them; silicon drops them; see docs/stats.md"
 * per queue rx/tx pps and bps, irq/s, pkt/irq,
 * poll/s, pkt/poll ("-" when no interrupt or poll happened); per core CPU%,
 * processed, dropped, time_squeeze.
 * JSON, one object per line, the kind in "stats":
 *   {"stats":"port","t_ms":..,"dt_ms":..,"port":"port0","mtu":1500,
 *    "rx_ok":..,"rx_err":..,"rx_drp":..,"rx_ovr":..,"tx_ok":..,"tx_err":..,
 *    "tx_drp":..,"tx_ovr":..,"rx_pps":..,"rx_bps":..,"tx_pps":..,"tx_bps":..}
 *   {"stats":"queue",...,"port":"port0","queue":0,"rx_packets":..,
 *    "rx_bytes":..,"tx_packets":..,"tx_bytes":..,"irqs":..,"polls":..,
 *    "rx_pps":..,"rx_bps":..,"tx_pps":..,"tx_bps":..,"irqs_per_s":..,
 *    "pkts_per_irq":..,"polls_per_s":..,"pkts_per_poll":..,
 *    "itr_setting":..,"itr_ints_per_s":..}
 *   {"stats":"core",...,"core":0,"cpu_pct":..,"processed":..,"dropped":..,
 *    "time_squeeze":..}
 * pps: packets/s; bps: bits/s of frame bytes without the CRC; pkts_per_irq
 * and pkts_per_poll: RX packets per interrupt / per rx_burst call, with two
 * decimals, null when there was none; cpu_pct: 100 * (1 - halted cycles /
 * elapsed cycles), two decimals.
 */
size_t stats_format(char *buf, size_t len, const struct stats_snap *a, const struct stats_snap *b,
		    uint64_t tsc_hz, enum stats_format fmt, int port);

/* Kernel side (run/statscmds.c): called by the poll loop's housekeeping
 * once a second, after nic_housekeeping; prints the report every stats=
 * seconds. */
void stats_tick(uint64_t now_tsc);
/* run/statscmds.c: `show config` of every knob into buf (len bytes,
 * NUL-terminated); returns the length written. */
size_t stats_config_text(char *buf, size_t len);
/* run/metrics.c: from the housekeeping, once a second: each core's CPU%
 * over the second just ended (linerate_cpu_busy_percent: the same for
 * every scraper). */
void stats_cpu_sample(void);
#endif
