/* Unit tests for run/stats.c: the netstat -i column mapping, and the
 * exact table and JSON text of a report. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "run/stats.h"

struct app_drops app_drops[MAX_CPUS];	/* apps/app.c's, which is not linked here */

#define HZ 1000000ull	/* a 1 MHz TSC keeps the expected figures readable */

static void test_sample_port_columns(void **state)
{
	static struct nic nic = { .name = "port3", .mtu = 1500, .nqueues = 2 };
	(void)state;
	for (int i = 0; i < NIC_STAT_N; i++)
		nic.stats[i] = 1000 + (uint64_t)i;	/* each counter different */
	nic.stats[NS_rx_delivered] = 7;
	nic.stats[NS_rx_errors] = 11;
	nic.stats[NS_rx_short_length_errors] = 10;
	nic.stats[NS_rx_missed_errors] = 100;
	nic.stats[NS_rx_drop_oversize] = 20;
	nic.stats[NS_rx_fifo_errors] = 30;
	nic.stats[NS_rx_drop_desc_error] = 3;
	nic.stats[NS_alloc_rx_buff_failed] = 4;
	nic.stats[NS_rx_drop_reset] = 8;
	nic.stats[NS_rx_no_buffer_count] = 50;
	nic.stats[NS_rx_over_errors] = 5;
	nic.stats[NS_tx_packets] = 9;
	nic.stats[NS_tx_errors] = 2;
	nic.stats[NS_tx_ring_full] = 6;
	nic.stats[NS_tx_dropped] = 3;
	nic.q[1].irqs = 42;
	nic.itr[1].setting = 3;

	struct stats_port p;
	stats_sample_port(&p, &nic);
	assert_string_equal(p.name, "port3");
	assert_int_equal(p.mtu, 1500);
	assert_int_equal(p.rx_ok, 7);
	assert_int_equal(p.rx_err, 11);
	assert_int_equal(p.rx_runts, 10);
	assert_int_equal(p.rx_drp, 100 + 30 + 20 + 3 + 4 + 8);
	assert_int_equal(p.rx_ovr, 55);
	assert_int_equal(p.tx_ok, 9);
	assert_int_equal(p.tx_err, 2);
	assert_int_equal(p.tx_drp, 3);
	assert_int_equal(p.tx_ovr, 6);
	assert_int_equal(p.nqueues, 2);
	assert_int_equal(p.q[1].irqs, 42);
	assert_int_equal(p.itr_setting[1], 3);
}

/* RX-OK, RX-DRP and TX-OVR include what the queues counted since the last
 * fold (issue 34 N23: RX-OK 0 beside a queue's rx_bps 203). */
static void test_sample_port_reads_unfolded_queue_counts(void **state)
{
	static struct nic nic = { .name = "port2", .nqueues = 2 };
	(void)state;
	nic.stats[NS_rx_delivered] = 7;
	nic.folded[NS_rx_delivered] = 7;
	nic.qsw[0][NS_rx_delivered] = 5;
	nic.qsw[1][NS_rx_delivered] = 6;	/* 4 since the fold */
	nic.qsw[1][NS_rx_drop_oversize] = 2;
	nic.qsw[0][NS_tx_ring_full] = 9;
	struct stats_port p;
	stats_sample_port(&p, &nic);
	assert_int_equal(p.rx_ok, 11);
	assert_int_equal(p.rx_drp, 2);
	assert_int_equal(p.tx_ovr, 9);
	nic_stats_fold(&nic);
	stats_sample_port(&p, &nic);
	assert_int_equal(p.rx_ok, 11);
	assert_int_equal(nic.stats[NS_rx_delivered], 11);
}

static void test_sample_core(void **state)
{
	struct lcore lc = { .id = 1, .processed = 5, .time_squeeze = 7, .halted_cycles = 8 };
	app_drops[1].n = 6;
	struct stats_core c;
	(void)state;
	stats_sample_core(&c, &lc);
	assert_int_equal(c.id, 1);
	assert_int_equal(c.processed, 5);
	assert_int_equal(c.dropped, 6);
	assert_int_equal(c.time_squeeze, 7);
	assert_int_equal(c.halted_cycles, 8);
}

/* Two seconds: port0 with two queues (NAPI on queue 0, nothing on queue 1),
 * port1 idle, one core 25% busy. */
static struct stats_snap a, b;

static int setup(void **state)
{
	(void)state;
	memset(&a, 0, sizeof(a));
	a.tsc = 5000000;
	a.uptime_ms = 3000;
	a.nports = 2;
	a.ncores = 1;
	a.port[0] = (struct stats_port){ .name = "port0", .mtu = 1500, .nqueues = 2,
		.rx_ok = 1000, .q[0] = { .rx_packets = 1000, .rx_bytes = 64000, .irqs = 10, .polls = 20,
					 .poll_pkts = 1000, .itr = 20000 } };
	a.port[1] = (struct stats_port){ .name = "port1", .mtu = 1500, .nqueues = 1 };
	a.core[0] = (struct stats_core){ .id = 0, .processed = 1000, .halted_cycles = 1000000 };
	b = a;
	b.tsc = 7000000;
	b.uptime_ms = 5000;
	struct stats_port *p = &b.port[0];
	p->rx_ok = 301000;
	p->rx_err = 2;
	p->rx_drp = 12345678;
	p->rx_ovr = 9;
	p->tx_ok = 200;
	p->tx_ovr = 1;
	p->q[0] = (struct nic_qstats){ .rx_packets = 301000, .rx_bytes = 64000 + 300000 * 64,
				       .tx_packets = 200, .tx_bytes = 200 * 1500, .irqs = 10 + 1200,
				       .polls = 20 + 3000, .poll_pkts = 1000 + 300000, .itr = 4000 };
	p->itr_setting[0] = p->itr_setting[1] = 3;
	b.core[0] = (struct stats_core){ .id = 0, .processed = 301000, .dropped = 17, .time_squeeze = 3,
					 .halted_cycles = 1000000 + 1500000 };
	return 0;
}

static const char table_all[] =
	"stats at 5.000 s, over 2.000 s\n"
	"Iface   MTU        RX-OK RX-ERR RX-DRP RX-OVR        TX-OK TX-ERR TX-DRP TX-OVR\n"
	"port0  1500       301000      2 12345678      9          200      0      0      1\n"
	"port1  1500            0      0      0      0            0      0      0      0\n"
	"Iface  Q  rx_pps rx_bps(L2)  tx_pps tx_bps(L2)  irq/s pkt/irq  poll/s pkt/poll\n"
	"port0  0  150000   76800000     100    1200000    600  250.00    1500   100.00\n"
	"port0  1       0          0       0          0      0       -       0        -\n"
	"port1  0       0          0       0          0      0       -       0        -\n"
	"Core   CPU%    processed      dropped time_squeeze\n"
	"0     25.00       301000           17            3\n";

static void test_table(void **state)
{
	char buf[4096];
	(void)state;
	size_t n = stats_format(buf, sizeof(buf), &a, &b, HZ, STATS_TABLE, -1);
	assert_string_equal(buf, table_all);
	assert_int_equal(n, strlen(table_all));
	/* Every line fits an 80-column console, but a figure wider than its
	 * column (RX-DRP 12345678 here) pushes its row's right part along. */
	for (const char *l = buf, *e; (e = strchr(l, '\n')); l = e + 1)
		if (!strstr(l, "12345678") || strstr(l, "12345678") > e)
			assert_in_range(e - l, 1, 79);
}

/* A busy-polling core never halts: its CPU% would read 100 at any load. */
static void test_table_busy_poll_core(void **state)
{
	char buf[4096];
	(void)state;
	b.core[0].busy_poll = 1;
	stats_format(buf, sizeof(buf), &a, &b, HZ, STATS_TABLE, -1);
	b.core[0].busy_poll = 0;
	assert_non_null(strstr(buf, "Core   CPU%    processed      dropped time_squeeze\n"
				    "0      busy       301000           17            3\n"));
}

/* RX-ERR that is all runts gets one line under the table in the report it
 * first shows in; not when other errors are in it, not again later. */
static void test_table_runts_note(void **state)
{
	char buf[4096];
	const char *note = "port0: RX-ERR 2 are all runts (rx_short_length_errors): QEMU's e1000e\n"
			   "  and igb pad them to 60 B, deliver them (in RX-OK too) and count them;\n"
			   "  silicon drops them; see docs/stats.md\nIface  Q";
	(void)state;
	b.port[0].rx_runts = 2;
	stats_format(buf, sizeof(buf), &a, &b, HZ, STATS_TABLE, -1);
	assert_non_null(strstr(buf, "      1\nport1  1500            0      0      0      0            0"
				    "      0      0      0\n"));
	assert_non_null(strstr(buf, note));
	stats_format(buf, sizeof(buf), &b, &b, HZ, STATS_TABLE, -1);
	assert_null(strstr(buf, "runts"));
	b.port[0].rx_runts = 1;
	stats_format(buf, sizeof(buf), &a, &b, HZ, STATS_TABLE, -1);
	b.port[0].rx_runts = 0;
	assert_null(strstr(buf, "runts"));
}

static void test_table_one_port(void **state)
{
	char buf[4096];
	(void)state;
	stats_format(buf, sizeof(buf), &a, &b, HZ, STATS_TABLE, 1);
	assert_string_equal(buf,
		"stats at 5.000 s, over 2.000 s\n"
		"Iface   MTU        RX-OK RX-ERR RX-DRP RX-OVR        TX-OK TX-ERR TX-DRP TX-OVR\n"
		"port1  1500            0      0      0      0            0      0      0      0\n"
		"Iface  Q  rx_pps rx_bps(L2)  tx_pps tx_bps(L2)  irq/s pkt/irq  poll/s pkt/poll\n"
		"port1  0       0          0       0          0      0       -       0        -\n");
}

static const char json_all[] =
	"{\"stats\":\"port\",\"t_ms\":5000,\"dt_ms\":2000,\"port\":\"port0\",\"mtu\":1500,"
	"\"rx_ok\":301000,\"rx_err\":2,\"rx_drp\":12345678,\"rx_ovr\":9,"
	"\"tx_ok\":200,\"tx_err\":0,\"tx_drp\":0,\"tx_ovr\":1,"
	"\"rx_pps\":150000,\"rx_bps\":76800000,\"tx_pps\":100,\"tx_bps\":1200000}\n"
	"{\"stats\":\"queue\",\"t_ms\":5000,\"dt_ms\":2000,\"port\":\"port0\",\"queue\":0,"
	"\"rx_packets\":301000,\"rx_bytes\":19264000,\"tx_packets\":200,\"tx_bytes\":300000,"
	"\"irqs\":1210,\"polls\":3020,\"rx_pps\":150000,\"rx_bps\":76800000,\"tx_pps\":100,"
	"\"tx_bps\":1200000,\"irqs_per_s\":600,\"pkts_per_irq\":250.00,\"polls_per_s\":1500,"
	"\"pkts_per_poll\":100.00,\"itr_setting\":3,\"itr_ints_per_s\":4000}\n"
	"{\"stats\":\"queue\",\"t_ms\":5000,\"dt_ms\":2000,\"port\":\"port0\",\"queue\":1,"
	"\"rx_packets\":0,\"rx_bytes\":0,\"tx_packets\":0,\"tx_bytes\":0,"
	"\"irqs\":0,\"polls\":0,\"rx_pps\":0,\"rx_bps\":0,\"tx_pps\":0,"
	"\"tx_bps\":0,\"irqs_per_s\":0,\"pkts_per_irq\":null,\"polls_per_s\":0,"
	"\"pkts_per_poll\":null,\"itr_setting\":3,\"itr_ints_per_s\":0}\n"
	"{\"stats\":\"port\",\"t_ms\":5000,\"dt_ms\":2000,\"port\":\"port1\",\"mtu\":1500,"
	"\"rx_ok\":0,\"rx_err\":0,\"rx_drp\":0,\"rx_ovr\":0,"
	"\"tx_ok\":0,\"tx_err\":0,\"tx_drp\":0,\"tx_ovr\":0,"
	"\"rx_pps\":0,\"rx_bps\":0,\"tx_pps\":0,\"tx_bps\":0}\n"
	"{\"stats\":\"queue\",\"t_ms\":5000,\"dt_ms\":2000,\"port\":\"port1\",\"queue\":0,"
	"\"rx_packets\":0,\"rx_bytes\":0,\"tx_packets\":0,\"tx_bytes\":0,"
	"\"irqs\":0,\"polls\":0,\"rx_pps\":0,\"rx_bps\":0,\"tx_pps\":0,"
	"\"tx_bps\":0,\"irqs_per_s\":0,\"pkts_per_irq\":null,\"polls_per_s\":0,"
	"\"pkts_per_poll\":null,\"itr_setting\":0,\"itr_ints_per_s\":0}\n"
	"{\"stats\":\"core\",\"t_ms\":5000,\"dt_ms\":2000,\"core\":0,\"cpu_pct\":25.00,"
	"\"processed\":301000,\"dropped\":17,\"time_squeeze\":3}\n";

static void test_json(void **state)
{
	char buf[4096];
	(void)state;
	size_t n = stats_format(buf, sizeof(buf), &a, &b, HZ, STATS_JSON, -1);
	assert_string_equal(buf, json_all);
	assert_int_equal(n, strlen(json_all));
}

/* Ratios round to hundredths; CPU% stays within 0..100 even when the halted
 * count runs ahead of the window (a halt that ended just after it began). */
static void test_rounding_and_clamp(void **state)
{
	char buf[4096];
	(void)state;
	b.port[0].q[0].irqs = a.port[0].q[0].irqs + 3;	/* 300000 / 3 */
	b.port[0].q[0].polls = a.port[0].q[0].polls + 7;	/* 300000 / 7 = 42857.142... */
	b.core[0].halted_cycles = a.core[0].halted_cycles + 3000000;
	stats_format(buf, sizeof(buf), &a, &b, HZ, STATS_JSON, -1);
	assert_non_null(strstr(buf, "\"pkts_per_irq\":100000.00,"));
	assert_non_null(strstr(buf, "\"pkts_per_poll\":42857.14,"));
	assert_non_null(strstr(buf, "\"cpu_pct\":0.00,"));
	b.core[0].halted_cycles = a.core[0].halted_cycles;
	stats_format(buf, sizeof(buf), &a, &b, HZ, STATS_JSON, -1);
	assert_non_null(strstr(buf, "\"cpu_pct\":100.00,"));
}

/* An hour at 10 Gb/s on a 3 GHz TSC: products beyond 64 bits, exact rates. */
static void test_large_counts(void **state)
{
	char buf[4096];
	(void)state;
	const uint64_t hz = 3000000000ull, cycles = 3600 * hz;
	b.tsc = a.tsc + cycles;
	b.port[0].q[0].rx_bytes = a.port[0].q[0].rx_bytes + 4500000000000ull;
	b.port[0].q[0].rx_packets = a.port[0].q[0].rx_packets + 3000000000ull;
	b.core[0].halted_cycles = a.core[0].halted_cycles + cycles / 3;
	stats_format(buf, sizeof(buf), &a, &b, hz, STATS_JSON, -1);
	assert_non_null(strstr(buf, "\"dt_ms\":3600000,"));
	assert_non_null(strstr(buf, "\"rx_pps\":833333,\"rx_bps\":10000000000,"));
	assert_non_null(strstr(buf, "\"cpu_pct\":66.67,"));
}

/* A buffer too small keeps only whole lines; a zero period gives zero rates. */
static void test_truncates_at_lines(void **state)
{
	char buf[200];
	(void)state;
	size_t n = stats_format(buf, 150, &a, &b, HZ, STATS_TABLE, -1);	/* two lines fit, not three */
	const char *two = strchr(strchr(table_all, '\n') + 1, '\n') + 1;
	assert_int_equal(n, (size_t)(two - table_all));
	assert_memory_equal(buf, table_all, n);
	assert_int_equal(buf[n], 0);
	assert_int_equal(stats_format(buf, 10, &a, &b, HZ, STATS_JSON, -1), 0);
	assert_string_equal(buf, "");
	stats_format(buf, sizeof(buf), &b, &b, HZ, STATS_JSON, 1);
	assert_non_null(strstr(buf, "\"dt_ms\":0,"));
	assert_non_null(strstr(buf, "\"rx_pps\":0,"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_port_columns),
		cmocka_unit_test(test_sample_port_reads_unfolded_queue_counts),
		cmocka_unit_test(test_sample_core),
		cmocka_unit_test_setup(test_table, setup),
		cmocka_unit_test_setup(test_table_busy_poll_core, setup),
		cmocka_unit_test_setup(test_table_runts_note, setup),
		cmocka_unit_test_setup(test_table_one_port, setup),
		cmocka_unit_test_setup(test_json, setup),
		cmocka_unit_test_setup(test_rounding_and_clamp, setup),
		cmocka_unit_test_setup(test_large_counts, setup),
		cmocka_unit_test_setup(test_truncates_at_lines, setup),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
