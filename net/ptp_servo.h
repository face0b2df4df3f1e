/*
 * The clock servo of a PTP slave, as linuxptp 3.1.1's ptp4l has it: the PI
 * controller (pi.c, servo.c) with ptp4l's default constants, the moving
 * median of the path delay (delay_filter moving_median, length 10), and the
 * summary statistics ptp4l prints every summary_interval (rms, max, freq
 * and delay mean and standard deviation). Portable; double arithmetic.
 *
 * Sign convention (ptp4l's): offset = slave time - master time, ns; the
 * servo returns a frequency adjustment in ppb that the caller applies
 * negated (clockadj_set_freq(clk, -adj)): a clock that runs ahead is slowed.
 */
#ifndef NET_PTP_SERVO_H
#define NET_PTP_SERVO_H
#include <stdint.h>

/* Servo states, printed as s0, s1, s2 (ptp4l's SERVO_UNLOCKED, _JUMP, _LOCKED). */
enum servo_state { SERVO_UNLOCKED = 0, SERVO_JUMP = 1, SERVO_LOCKED = 2 };

/* ptp4l's defaults (default.cfg, pi.c). */
#define PI_HWTS_KP_SCALE	0.7
#define PI_HWTS_KI_SCALE	0.3
#define PI_SWTS_KP_SCALE	0.1
#define PI_SWTS_KI_SCALE	0.001
#define PI_KP_EXPONENT		-0.3
#define PI_KI_EXPONENT		0.4
#define PI_KP_NORM_MAX		0.7
#define PI_KI_NORM_MAX		0.3
#define SERVO_FIRST_STEP_THRESHOLD 20000	/* ns (first_step_threshold 0.00002 s) */
#define SERVO_MAX_FREQUENCY	900000000.0	/* ppb (max_frequency) */

struct pi_servo {
	double kp_scale, ki_scale;	/* by timestamping: hardware 0.7/0.3, software 0.1/0.001 */
	double kp, ki;			/* for the current sync interval */
	double drift;			/* ppb: the integral term */
	double last_freq;		/* ppb: the last output */
	double max_frequency;		/* ppb: the clock's limit */
	int64_t step_threshold;		/* ns; 0: never step after the first update */
	int64_t first_step_threshold;	/* ns; 0: never step */
	int first_update;		/* no sample has been applied yet */
	int count;			/* samples in the frequency estimate: 0, 1, 2 */
	int64_t offset[2];		/* ns */
	uint64_t local[2];		/* ns, local time of the samples */
};

/* Start a servo: sw_ts 1 for software timestamps (ptp4l's SWTS constants),
 * fadj the clock's current frequency adjustment in ppb, max_ppb its limit
 * (0: SERVO_MAX_FREQUENCY). Steps: first_step_threshold 20 us, no later
 * steps (step_threshold 0), as ptp4l's defaults. */
void ptp_servo_init(struct pi_servo *s, int sw_ts, double fadj, double max_ppb);
/* Set kp and ki for a sync interval of interval seconds (pi_sync_interval). */
void ptp_servo_sync_interval(struct pi_servo *s, double interval);
/* One sample: offset in ns measured at local_ts (ns of the local clock).
 * Returns the frequency adjustment in ppb and the new state in *state. On
 * SERVO_JUMP the caller steps its clock by -offset and sets frequency -adj. */
double ptp_servo_sample(struct pi_servo *s, int64_t offset, uint64_t local_ts,
			enum servo_state *state);
/* Forget the frequency estimate (after a step or a new master). */
void ptp_servo_reset(struct pi_servo *s);

/* Moving median of the last PTP_DELAY_FILTER_LEN path delays. */
#define PTP_DELAY_FILTER_LEN 10
struct delay_filter {
	int64_t v[PTP_DELAY_FILTER_LEN];
	int n, next;
};
/* Add a sample (ns) and return the median of the samples held (the mean
 * of the middle two for an even count, as ptp4l's mmedian). */
int64_t ptp_servo_delay_add(struct delay_filter *f, int64_t v);
void ptp_servo_delay_reset(struct delay_filter *f);

/* Running statistics of a series, ptp4l's stats.c. */
struct series_stats {
	uint32_t n;
	double sum, sum_sq, max_abs;
};
struct series_result {
	double mean, stddev, rms, max_abs;
};
void ptp_servo_series_add(struct series_stats *s, double v);
/* Result over the values added since the last reset; -1 if there were none. */
int ptp_servo_series_result(const struct series_stats *s, struct series_result *r);
void ptp_servo_series_reset(struct series_stats *s);
#endif
