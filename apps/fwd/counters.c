/* fwd's counters (apps/fwd/counters.h). */
#include <string.h>
#include "apps/fwd/counters.h"
#include "apps/app.h"

struct fwd_stats fwd_stats[MAX_CPUS][NIC_MAX_PORTS];

#define FWD_NAME(name) #name,
const char *const fwd_drop_names[FWD_DROP_N] = { FWD_DROPS(FWD_NAME) };
const char *const fwd_ev_names[FWD_EV_N] = { FWD_EVENTS(FWD_NAME) };

void fwd_drop(int port, enum fwd_drop reason, uint64_t n)
{
	fwd_st(port)->drop[reason] += n;
	app_count_drops(n);
}

void fwd_stats_sum(int port, struct fwd_stats *out)
{
	uint64_t *o = (uint64_t *)out;
	memset(out, 0, sizeof(*out));
	for (int c = 0; c < ncpus; c++) {	/* cores that never ran counted nothing */
		const uint64_t *in = (const uint64_t *)&fwd_stats[c][port];
		for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
			o[i] += in[i];
	}
}
