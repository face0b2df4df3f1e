/* Unit tests for the boundary clock's state decision across its ports
 * (apps/ptp/clock.c and port.c, included for their static parts): each
 * port's exact state and counters as Announces arrive, among them its own
 * ports hearing each other on one segment (IEEE 1588-2008 9.5.2.3), and
 * the slave moving from one port to another. The port clocks, the time
 * and transmission are stand-ins: ptp_send counts the messages each port
 * sends, now_ns is test_now. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "apps/ptp/clock.c"
#include "apps/ptp/port.c"
#include "net/bytes.h"

#define NP 3
#define SEC 1000000000ull

struct ptp_conf ptp_conf;
static uint64_t test_now;
static struct nic tnic[NP];
static struct phc tclk[NP];
static int sent[NP][16];	/* messages sent, by port and messageType */

uint64_t now_ns(void)
{
	return test_now;
}
struct phc *phc_of(struct nic *nic)
{
	return &tclk[nic - tnic];
}
int phc_is_hw(const struct phc *c)
{
	(void)c;
	return 0;
}
void phc_hwtstamp(struct phc *c, int rx_msg, int tx, int udp)
{
	(void)c, (void)rx_msg, (void)tx, (void)udp;
}
int64_t phc_gettime(struct phc *c)
{
	(void)c;
	return (int64_t)test_now;
}
int64_t phc_convert(struct phc *from, int64_t ns, struct phc *to)
{
	(void)from, (void)to;
	return ns;
}
void phc_adjfreq(struct phc *c, int64_t ppb)
{
	(void)c, (void)ppb;
}
void phc_adjtime(struct phc *c, int64_t delta)
{
	(void)c, (void)delta;
}
int phc_tx_tstamp(struct phc *c, uint32_t seq, int64_t *ns)
{
	(void)c, (void)seq, (void)ns;
	fail_msg("no hardware TX stamp is asked for");
	return -1;
}
int ptp_pdelay_tick(struct ptp_port *pp, uint64_t now)
{
	(void)pp, (void)now;
	return 0;
}
enum ptp_rx_count ptp_pdelay_rx(struct ptp_port *pp, const struct ptp_msg *m, int64_t ts)
{
	(void)pp, (void)m, (void)ts;
	fail_msg("no Pdelay message with delay_mechanism E2E");
	return PC_not_ptp;
}
int ptp_as_capable(const struct ptp_port *pp)
{
	(void)pp;
	return 1;
}
int ptp_send(struct ptp_port *pp, struct ptp_msg *m, uint32_t *txseq, int64_t *sw_ts)
{
	sent[pp->nic - tnic][m->msg_type]++;
	if (txseq) {
		*txseq = 0;
		*sw_ts = (int64_t)test_now;
	}
	return 0;
}

static struct ptp_port port[NP];

/* A boundary clock of n ports, all LISTENING at t = 100 s. */
static int setup(void **state)
{
	(void)state;
	memset(&ptp_clock, 0, sizeof(ptp_clock));
	memset(sent, 0, sizeof(sent));
	ptp_conf = (struct ptp_conf){ .role = ROLE_AUTO, .priority1 = 128, .priority2 = 128, .clock_class = 248,
				      .log_announce = 1, .announce_receipt_timeout = 3, .summary_interval = 3,
				      .log_min_delay_req = 0 };
	test_now = 100 * SEC;
	for (int k = 0; k < NP; k++) {
		memset(&tnic[k], 0, sizeof(tnic[k]));
		memcpy(tnic[k].name, "port0", 6);
		tnic[k].name[4] = (char)('0' + k);
		uint8_t mac[6] = { 0x52, 0x54, 0, 0x12, 0x34, (uint8_t)(0x56 + k) };
		memcpy(tnic[k].mac, mac, 6);
		ptp_port_init(&port[k], &tnic[k]);
		ptp_clock_add(&port[k]);
		ptp_port_to_state(&port[k], PS_LISTENING, "INIT_COMPLETE");
	}
	return 0;
}

/* Advance the time by ns and run every port's timers. */
static void run(uint64_t ns)
{
	uint64_t end = test_now + ns;
	while (test_now < end) {
		test_now += SEC / 4;
		for (int k = 0; k < NP; k++)
			ptp_port_tick(&port[k], test_now);
	}
}

/* An Announce from port pn of clock id with grandmaster gm, priority1 p1,
 * stepsRemoved steps. */
static struct ptp_msg announce(const uint8_t id[8], uint16_t pn, const uint8_t gm[8], uint8_t p1, uint16_t steps)
{
	struct ptp_msg m;
	memset(&m, 0, sizeof(m));
	m.msg_type = PTP_ANNOUNCE;
	memcpy(m.source.clock_id, id, 8);
	m.source.port = pn;
	m.log_interval = 1;
	m.announce.priority1 = p1;
	m.announce.priority2 = 128;
	m.announce.quality.clock_class = 248;
	m.announce.quality.clock_accuracy = 0xfe;
	m.announce.quality.offset_scaled_log_variance = 0xffff;
	memcpy(m.announce.gm_id, gm, 8);
	m.announce.steps_removed = steps;
	return m;
}

static const uint8_t gm_a[8] = { 0xaa, 0, 0, 0xff, 0xfe, 0, 0, 1 };
static const uint8_t gm_b[8] = { 0xbb, 0, 0, 0xff, 0xfe, 0, 0, 2 };
static const uint8_t bc_x[8] = { 0x11, 0, 0, 0xff, 0xfe, 0, 0, 3 };	/* another boundary clock, its identity below ours (figure 28) */

/* Two Announces 2 s apart: the sender qualifies (9.3.2.4.4). */
static void hear(int k, const struct ptp_msg *m)
{
	ptp_port_rx(&port[k], m, 0);
	test_now += 2 * SEC;
	ptp_port_rx(&port[k], m, 0);
}

/* Port k hears port pn (1-based) of its own clock announce. */
static void hear_own(int k, uint16_t pn)
{
	struct ptp_msg m = announce(port[0].id.clock_id, pn, port[0].id.clock_id, 128, 0);
	ptp_clock_own_announce(&port[k], &m, test_now);
}

static void test_numbering(void **state)
{
	(void)state;
	for (int k = 0; k < NP; k++) {
		assert_memory_equal(port[k].id.clock_id, port[0].id.clock_id, 8);
		assert_int_equal(port[k].id.port, k + 1);
	}
	assert_int_equal(ptp_clock.nports, NP);
}

/* Ports 1 and 2 on one segment, the clock its own grandmaster: both
 * become MASTER; port 2, hearing port 1's Announce, goes PASSIVE and
 * stops announcing; port 1 hearing port 2 stays MASTER. When port 1 falls
 * silent for announceReceiptTimeout (3 x 2 s) port 2 is MASTER again. */
static void test_own_ports_loop(void **state)
{
	(void)state;
	run(7 * SEC);
	for (int k = 0; k < NP; k++)
		assert_int_equal(port[k].state, PS_MASTER);
	hear_own(0, 2);
	hear_own(1, 1);
	assert_int_equal(port[0].state, PS_MASTER);
	assert_int_equal(port[1].state, PS_PASSIVE);
	assert_int_equal(port[2].state, PS_MASTER);
	assert_int_equal(port[0].rx_count[PC_announce_own_clock], 1);
	assert_int_equal(port[1].rx_count[PC_announce_own_clock], 1);
	assert_int_equal(port[1].rx_count[PC_announce], 0);
	assert_int_equal(port[1].rx_count[PC_other_master], 0);
	for (int i = 0; i < FOREIGN_MAX; i++)
		assert_int_equal(port[1].foreign[i].used, 0);	/* not a foreign master */
	assert_null(ptp_clock_slave());

	/* 4 s with port 1 announcing every 2 s: port 2 sends nothing. */
	memset(sent, 0, sizeof(sent));
	for (int i = 0; i < 2; i++) {
		run(2 * SEC);
		hear_own(1, 1);
	}
	assert_int_equal(port[1].state, PS_PASSIVE);
	assert_int_equal(port[1].rx_count[PC_announce_own_clock], 3);
	assert_int_equal(sent[1][PTP_ANNOUNCE], 0);
	assert_int_equal(sent[1][PTP_SYNC], 0);
	assert_int_equal(sent[0][PTP_ANNOUNCE], 2);
	assert_int_equal(sent[0][PTP_SYNC], 4);
	assert_int_equal(sent[0][PTP_FOLLOW_UP], 4);

	/* Port 1 silent: port 2 is PASSIVE for 6 s more, MASTER at the
	 * state decision after that (one per announce interval, 2 s). */
	run(5 * SEC);
	assert_int_equal(port[1].state, PS_PASSIVE);
	run(3 * SEC);
	assert_int_equal(port[1].state, PS_MASTER);
	assert_int_equal(port[0].state, PS_MASTER);
}

/* Port 1 follows grandmaster A; ports 2 and 3 share a segment: port 3
 * hears port 2 and is PASSIVE, port 2 MASTER, announcing A one step
 * further. */
static void test_own_loop_while_slave(void **state)
{
	(void)state;
	struct ptp_msg a = announce(gm_a, 1, gm_a, 100, 0);
	hear(0, &a);
	assert_int_equal(port[0].state, PS_UNCALIBRATED);
	assert_ptr_equal(ptp_clock_slave(), &port[0]);
	hear_own(2, 2);
	assert_int_equal(port[1].state, PS_MASTER);
	assert_int_equal(port[2].state, PS_PASSIVE);
	assert_int_equal(port[0].rx_count[PC_announce], 1);	/* the first came before A was the parent */
	assert_int_equal(port[0].rx_count[PC_other_master], 1);
	assert_int_equal(port[2].rx_count[PC_announce_own_clock], 1);
	/* a lower port's Announce heard by a higher one only: port 2 hearing
	 * port 3 changes nothing */
	hear_own(1, 3);
	assert_int_equal(port[1].state, PS_MASTER);
	assert_int_equal(port[1].rx_count[PC_announce_own_clock], 1);
}

/* The slave moves: port 1 follows A, then port 2 hears a better
 * grandmaster B and takes the slave role, port 1 becoming MASTER (M3, A
 * is another grandmaster); a second, longer path to B on port 3 (through
 * another boundary clock, stepsRemoved 1) makes port 3 PASSIVE (P2). When
 * B falls silent port 1 follows A again and ports 2 and 3 are MASTER. */
static void test_slave_moves(void **state)
{
	(void)state;
	struct ptp_msg a = announce(gm_a, 1, gm_a, 100, 0);
	struct ptp_msg b = announce(gm_b, 1, gm_b, 50, 0);
	struct ptp_msg xb = announce(bc_x, 1, gm_b, 50, 1);
	hear(0, &a);
	assert_int_equal(port[0].state, PS_UNCALIBRATED);
	assert_int_equal(port[1].state, PS_MASTER);
	assert_int_equal(port[2].state, PS_MASTER);
	hear(1, &b);
	assert_int_equal(port[0].state, PS_MASTER);
	assert_int_equal(port[1].state, PS_UNCALIBRATED);
	assert_ptr_equal(ptp_clock_slave(), &port[1]);
	assert_memory_equal(ptp_clock_parent()->ds.gm_id, gm_b, 8);
	hear(2, &xb);
	assert_int_equal(port[2].state, PS_PASSIVE);
	assert_int_equal(port[1].rx_count[PC_announce], 1);	/* the first came before it was the parent */
	assert_int_equal(port[1].rx_count[PC_other_master], 1);
	assert_int_equal(port[2].rx_count[PC_other_master], 2);

	/* A keeps announcing on port 1, B and X fall silent. */
	for (int i = 0; i < 5; i++) {
		run(2 * SEC);
		ptp_port_rx(&port[0], &a, 0);
	}
	assert_int_equal(port[0].state, PS_UNCALIBRATED);
	assert_int_equal(port[1].state, PS_MASTER);
	assert_int_equal(port[2].state, PS_MASTER);
	assert_ptr_equal(ptp_clock_slave(), &port[0]);
	assert_memory_equal(ptp_clock_parent()->ds.gm_id, gm_a, 8);
}

/* 802.1AS-2011 11.4.4.3, the Follow_Up TLV's cumulativeScaledRateOffset a
 * master port sends: 0 while the clock is its own grandmaster; as a
 * boundary clock, the grandmaster's rate over the master port's clock:
 * the parent's offset (its Follow_Up's TLV, parsed: -50 ppm,
 * -109951162) times the slave port's neighborRateRatio (+100 ppm,
 * 219902325) times the slave port's clock over port 2's (-30 ppm against
 * +20 ppm: -109948963), -14293 (Python's integers; the ratio
 * 0.9999999935); the TLV built and parsed back with it. */
static void test_gptp_rate_offset(void **state)
{
	(void)state;
	uint8_t buf[128];
	assert_int_equal(ptp_clock_rate_offset(&port[1]), 0);
	struct ptp_msg a = announce(gm_a, 1, gm_a, 100, 0);
	hear(0, &a);
	assert_ptr_equal(ptp_clock_slave(), &port[0]);
	struct ptp_msg m = { .msg_type = PTP_SYNC, .version = 2, .flags = PTP_FLAG_TWO_STEP, .seq = 9,
			     .source = a.source };
	ptp_port_rx(&port[0], &m, (int64_t)test_now);
	m.msg_type = PTP_FOLLOW_UP;
	m.flags = 0;
	m.ts = ptp_ts_from_ns((int64_t)test_now);
	size_t n = ptp_build(buf, sizeof(buf), &m);
	assert_int_equal(ptp_put_follow_up_info(buf, sizeof(buf), &n, -109951162), 0);
	assert_int_equal(ptp_parse(buf, n, &m), PTP_OK);
	assert_int_equal(m.rate_offset, -109951162);
	ptp_port_rx(&port[0], &m, 0);
	assert_int_equal(port[0].rx_count[PC_follow_up], 1);
	assert_int_equal(port[0].up_rate_offset, -109951162);
	assert_int_equal(ptp_clock_rate_offset(&port[1]), -109951162);	/* same rates, nrr 1 */
	port[0].nrr = 219902325;
	tclk[0].ppb = -30000;
	tclk[2].ppb = 20000;
	assert_int_equal(ptp_clock_rate_offset(&port[2]), -14293);
	n = ptp_build(buf, sizeof(buf), &m);
	assert_int_equal(ptp_put_follow_up_info(buf, sizeof(buf), &n, ptp_clock_rate_offset(&port[2])), 0);
	assert_int_equal((int32_t)get32(buf + ptp_follow_up_rate_offset(buf, n)), -14293);
	tclk[0].ppb = tclk[2].ppb = 0;
}

/* ptp_role=slave: a port hearing its own clock stays LISTENING. */
static void test_own_loop_slave_only(void **state)
{
	(void)state;
	ptp_conf.role = ROLE_SLAVE;
	run(7 * SEC);
	hear_own(1, 1);
	assert_int_equal(port[1].state, PS_LISTENING);
	assert_int_equal(port[1].rx_count[PC_announce_own_clock], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_numbering, setup),
		cmocka_unit_test_setup(test_own_ports_loop, setup),
		cmocka_unit_test_setup(test_own_loop_while_slave, setup),
		cmocka_unit_test_setup(test_slave_moves, setup),
		cmocka_unit_test_setup(test_own_loop_slave_only, setup),
		cmocka_unit_test_setup(test_gptp_rate_offset, setup),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
