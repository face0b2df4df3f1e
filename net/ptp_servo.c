/* PI servo, delay filter and summary statistics after linuxptp; see ptp_servo.h. */
#include <math.h>
#include <string.h>
#include "net/ptp_servo.h"

#define FREQ_EST_MARGIN 0.001

void ptp_servo_init(struct pi_servo *s, int sw_ts, double fadj, double max_ppb)
{
	memset(s, 0, sizeof(*s));
	s->kp_scale = sw_ts ? PI_SWTS_KP_SCALE : PI_HWTS_KP_SCALE;
	s->ki_scale = sw_ts ? PI_SWTS_KI_SCALE : PI_HWTS_KI_SCALE;
	s->drift = s->last_freq = fadj;
	s->max_frequency = max_ppb > 0 ? max_ppb : SERVO_MAX_FREQUENCY;
	s->first_step_threshold = SERVO_FIRST_STEP_THRESHOLD;
	s->first_update = 1;
	ptp_servo_sync_interval(s, 1.0);
}

void ptp_servo_sync_interval(struct pi_servo *s, double interval)
{
	s->kp = s->kp_scale * pow(interval, PI_KP_EXPONENT);
	if (s->kp > PI_KP_NORM_MAX / interval)
		s->kp = PI_KP_NORM_MAX / interval;
	s->ki = s->ki_scale * pow(interval, PI_KI_EXPONENT);
	if (s->ki > PI_KI_NORM_MAX / interval)
		s->ki = PI_KI_NORM_MAX / interval;
}

void ptp_servo_reset(struct pi_servo *s)
{
	s->count = 0;
}

static double clamp(double v, double lim)
{
	return v < -lim ? -lim : v > lim ? lim : v;
}

/* Second sample: estimate the frequency from the two offsets, decide a step. */
static double estimate(struct pi_servo *s, int64_t offset, enum servo_state *state)
{
	if (s->local[0] >= s->local[1]) {
		s->count = 0;
		*state = SERVO_UNLOCKED;
		return s->last_freq;
	}
	double localdiff = (double)(s->local[1] - s->local[0]) / 1e9;
	localdiff += localdiff * FREQ_EST_MARGIN;
	double interval = 0.016 / s->ki;
	if (interval > 1000.0)
		interval = 1000.0;
	if (localdiff < interval) {
		*state = SERVO_UNLOCKED;
		return s->last_freq;
	}
	s->drift += (1e9 - s->drift) * (double)(s->offset[1] - s->offset[0]) /
		    (double)(s->local[1] - s->local[0]);
	s->drift = clamp(s->drift, s->max_frequency);
	int64_t mag = offset < 0 ? -offset : offset;
	if ((s->first_update && s->first_step_threshold && s->first_step_threshold < mag) ||
	    (s->step_threshold && s->step_threshold < mag))
		*state = SERVO_JUMP;
	else
		*state = SERVO_LOCKED;
	s->count = 2;
	return s->drift;
}

double ptp_servo_sample(struct pi_servo *s, int64_t offset, uint64_t local_ts,
			enum servo_state *state)
{
	double ppb = s->last_freq;
	int64_t mag = offset < 0 ? -offset : offset;
	switch (s->count) {
	case 0:
		s->offset[0] = offset;
		s->local[0] = local_ts;
		s->count = 1;
		*state = SERVO_UNLOCKED;
		break;
	case 1:
		s->offset[1] = offset;
		s->local[1] = local_ts;
		ppb = estimate(s, offset, state);
		break;
	default:
		if (s->step_threshold && s->step_threshold < mag) {
			s->count = 0;
			*state = SERVO_UNLOCKED;
			break;
		}
		double ki_term = s->ki * (double)offset;
		ppb = s->kp * (double)offset + s->drift + ki_term;
		if (ppb < -s->max_frequency || ppb > s->max_frequency)
			ppb = clamp(ppb, s->max_frequency);
		else
			s->drift += ki_term;
		*state = SERVO_LOCKED;
		break;
	}
	if (*state == SERVO_JUMP || *state == SERVO_LOCKED)
		s->first_update = 0;
	s->last_freq = ppb;
	return ppb;
}

void ptp_servo_delay_reset(struct delay_filter *f)
{
	f->n = f->next = 0;
}

int64_t ptp_servo_delay_add(struct delay_filter *f, int64_t v)
{
	f->v[f->next] = v;
	f->next = (f->next + 1) % PTP_DELAY_FILTER_LEN;
	if (f->n < PTP_DELAY_FILTER_LEN)
		f->n++;
	int64_t s[PTP_DELAY_FILTER_LEN];
	memcpy(s, f->v, sizeof(s[0]) * (size_t)f->n);
	for (int i = 1; i < f->n; i++)
		for (int j = i; j > 0 && s[j - 1] > s[j]; j--) {
			int64_t t = s[j];
			s[j] = s[j - 1];
			s[j - 1] = t;
		}
	if (f->n % 2)
		return s[f->n / 2];
	return (s[f->n / 2 - 1] + s[f->n / 2]) / 2;
}

void ptp_servo_series_add(struct series_stats *s, double v)
{
	s->n++;
	s->sum += v;
	s->sum_sq += v * v;
	if (fabs(v) > s->max_abs)
		s->max_abs = fabs(v);
}

int ptp_servo_series_result(const struct series_stats *s, struct series_result *r)
{
	if (!s->n)
		return -1;
	r->mean = s->sum / s->n;
	double var = s->sum_sq / s->n - r->mean * r->mean;
	r->stddev = var > 0 ? sqrt(var) : 0;
	r->rms = sqrt(s->sum_sq / s->n);
	r->max_abs = s->max_abs;
	return 0;
}

void ptp_servo_series_reset(struct series_stats *s)
{
	memset(s, 0, sizeof(*s));
}
