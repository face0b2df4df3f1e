/* Unit tests for net/ptp_servo.c: the PI servo with ptp4l's constants
 * steering a modelled clock, the delay median and the summary statistics. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include "net/ptp_servo.h"

#define NS 1000000000ull

/* A slave clock running f0 ppb fast, sampled once a second: returns the
 * states in st[] and the last offset; the servo's frequency is applied
 * negated and steps subtract the offset, as ptp4l does. */
static int64_t run(struct pi_servo *s, double f0, int64_t offset, int n, enum servo_state *st,
		   double *last_adj)
{
	double applied = 0, adj = 0;
	for (int i = 0; i < n; i++) {
		adj = ptp_servo_sample(s, offset, (uint64_t)(i + 1) * NS, &st[i]);
		if (st[i] == SERVO_JUMP) {
			applied = -adj;
			offset = 0;
		} else if (st[i] == SERVO_LOCKED) {
			applied = -adj;
		}
		offset += (int64_t)llround(f0 + applied);	/* ns gained over the next second */
	}
	*last_adj = adj;
	return offset;
}

static void test_constants(void **state)
{
	(void)state;
	struct pi_servo s;
	ptp_servo_init(&s, 0, 0, 0);
	assert_true(fabs(s.kp - 0.7) < 1e-12 && fabs(s.ki - 0.3) < 1e-12);
	ptp_servo_sync_interval(&s, 0.125);	/* logSyncInterval -3 */
	assert_true(fabs(s.kp - 0.7 * pow(0.125, -0.3)) < 1e-12);
	assert_true(fabs(s.ki - 0.3 * pow(0.125, 0.4)) < 1e-12);
	ptp_servo_sync_interval(&s, 16);		/* the norm_max limits */
	assert_true(fabs(s.kp - 0.7 / 16) < 1e-12 && fabs(s.ki - 0.3 / 16) < 1e-12);
	ptp_servo_init(&s, 1, 0, 0);
	assert_true(fabs(s.kp - 0.1) < 1e-12 && fabs(s.ki - 0.001) < 1e-12);
	assert_int_equal(s.first_step_threshold, 20000);
	assert_int_equal(s.step_threshold, 0);
}

/* Far off (1 ms, 50 ppm fast): estimate, one step, then locked at zero. */
static void test_step_then_lock(void **state)
{
	(void)state;
	struct pi_servo s;
	enum servo_state st[20];
	double adj;
	ptp_servo_init(&s, 0, 0, 0);
	int64_t off = run(&s, 50000, 1000000, 20, st, &adj);
	assert_int_equal(st[0], SERVO_UNLOCKED);
	assert_int_equal(st[1], SERVO_JUMP);
	for (int i = 2; i < 20; i++)
		assert_int_equal(st[i], SERVO_LOCKED);
	assert_true(llabs(off) <= 1);
	assert_true(fabs(adj - 50000) < 1);
}

/* Close (5 us): no step; the PI loop pulls offset and frequency in. */
static void test_lock_without_step(void **state)
{
	(void)state;
	struct pi_servo s;
	enum servo_state st[60];
	double adj;
	ptp_servo_init(&s, 0, 0, 0);
	int64_t off = run(&s, -20000, 5000, 60, st, &adj);
	assert_int_equal(st[0], SERVO_UNLOCKED);
	for (int i = 1; i < 60; i++)
		assert_int_equal(st[i], SERVO_LOCKED);
	assert_true(llabs(off) <= 2);
	assert_true(fabs(adj + 20000) < 2);
}

/* Software timestamps: the estimate waits 0.016 / ki = 16 s. */
static void test_software_wait(void **state)
{
	(void)state;
	struct pi_servo s;
	enum servo_state st[20];
	double adj;
	ptp_servo_init(&s, 1, 0, 0);
	run(&s, 1000, 0, 20, st, &adj);
	for (int i = 0; i < 16; i++)
		assert_int_equal(st[i], SERVO_UNLOCKED);
	assert_int_equal(st[16], SERVO_LOCKED);
}

static void test_clamp(void **state)
{
	(void)state;
	struct pi_servo s;
	enum servo_state st;
	ptp_servo_init(&s, 0, 0, 1000);
	ptp_servo_sample(&s, 0, NS, &st);
	double adj = ptp_servo_sample(&s, 100000000, 2 * NS, &st);	/* 100 ms in 1 s */
	assert_true(adj == 1000);
	assert_int_equal(st, SERVO_JUMP);
}

static void test_delay_filter(void **state)
{
	(void)state;
	struct delay_filter f;
	ptp_servo_delay_reset(&f);
	assert_int_equal(ptp_servo_delay_add(&f, 10), 10);
	assert_int_equal(ptp_servo_delay_add(&f, 30), 20);
	assert_int_equal(ptp_servo_delay_add(&f, 20), 20);
	assert_int_equal(ptp_servo_delay_add(&f, 1000), 25);
	for (int i = 0; i < 10; i++)
		ptp_servo_delay_add(&f, 7);
	assert_int_equal(ptp_servo_delay_add(&f, 500), 7);	/* the outlier does not move it */
}

static void test_series(void **state)
{
	(void)state;
	struct series_stats s;
	struct series_result r;
	ptp_servo_series_reset(&s);
	assert_int_equal(ptp_servo_series_result(&s, &r), -1);
	ptp_servo_series_add(&s, 3);
	ptp_servo_series_add(&s, -4);
	assert_int_equal(ptp_servo_series_result(&s, &r), 0);
	assert_true(fabs(r.mean + 0.5) < 1e-12);
	assert_true(fabs(r.rms - sqrt(12.5)) < 1e-12);
	assert_true(fabs(r.stddev - 3.5) < 1e-12);
	assert_true(r.max_abs == 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constants),
		cmocka_unit_test(test_step_then_lock),
		cmocka_unit_test(test_lock_without_step),
		cmocka_unit_test(test_software_wait),
		cmocka_unit_test(test_clamp),
		cmocka_unit_test(test_delay_filter),
		cmocka_unit_test(test_series),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
